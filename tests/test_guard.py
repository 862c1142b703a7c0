"""The SSRF guard, robots.txt and the site byte budget, over real HTTP on 127.0.0.1.

No test resolves a real host name: a fake resolver answers, and a test backend maps
the one "public" address it hands out back to 127.0.0.1, so nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leadengine import FetchError, Settings
from leadengine.website.guard import GuardedTransport, embedded_ipv4, is_public
from leadengine.website.load import load_site
from leadengine.website.site import Site
from tests.conftest import SITES
from tests.fakes.site_server import SiteServer

PUBLIC = "93.184.215.14"  # never contacted: LoopbackInner sends it to 127.0.0.1


class LoopbackInner(httpcore.AsyncNetworkBackend):
    """Connects PUBLIC to 127.0.0.1 and refuses to connect anywhere else."""

    def __init__(self) -> None:
        self.real = httpcore.AnyIOBackend()
        self.connected: list[str] = []

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None
                          ) -> httpcore.AsyncNetworkStream:
        self.connected.append(host)
        assert host in (PUBLIC, "127.0.0.1"), host
        return await self.real.connect_tcp("127.0.0.1", port, timeout=timeout)

    async def sleep(self, seconds: float) -> None:
        await self.real.sleep(seconds)


async def fake_resolver(host: str, port: int) -> list[str]:
    table = {"shop.example": [PUBLIC], "intranet.example": ["10.0.0.5"],
             "sneaky.example": [PUBLIC, "192.168.1.10"], "127.0.0.1": ["127.0.0.1"],
             "localhost": ["127.0.0.1"], "::ffff:7f00:1": ["::ffff:127.0.0.1"]}
    if host not in table:
        raise OSError(-2, "Name or service not known")
    return table[host]


def site_of(url: str, settings: Settings, inner: LoopbackInner | None = None) -> Site:
    async def run() -> Site:
        transport = GuardedTransport(settings.allow_private, fake_resolver, inner=inner)
        async with httpx.AsyncClient(transport=transport, follow_redirects=True,
                                     max_redirects=5) as client:
            return await load_site(url, settings, client)
    return asyncio.run(run())


@pytest.mark.parametrize("address,public", [
    ("8.8.8.8", True), ("93.184.215.14", True), ("2606:4700::1111", True),
    ("127.0.0.1", False), ("10.1.2.3", False), ("172.16.0.1", False), ("192.168.1.1", False),
    ("169.254.169.254", False), ("100.64.0.1", False), ("0.0.0.0", False), ("::1", False),
    ("fe80::1", False), ("fc00::1", False), ("::ffff:127.0.0.1", False), ("224.0.0.1", False),
])
def test_public_addresses(address: str, public: bool) -> None:
    assert is_public(address) is public


def test_loopback_is_refused_before_any_request(sites: SiteServer) -> None:
    before = len(sites.requests)
    with pytest.raises(FetchError, match=r"127\.0\.0\.1 resolves to 127\.0\.0\.1, a private "
                                         r"or local address; refused \(use --allow-private"):
        asyncio.run(load_site(sites.url("bangkok-dental-fb-only/"), Settings()))
    assert len(sites.requests) == before


def test_a_name_that_resolves_to_a_private_address_is_refused() -> None:
    inner = LoopbackInner()
    with pytest.raises(FetchError, match=r"intranet\.example resolves to 10\.0\.0\.5"):
        site_of("http://intranet.example/", Settings(), inner)
    with pytest.raises(FetchError, match=r"sneaky\.example resolves to 192\.168\.1\.10"):
        site_of("http://sneaky.example/", Settings(), inner)
    assert inner.connected == []


def test_redirect_from_an_allowed_host_to_loopback_is_refused(sites: SiteServer) -> None:
    sites.route("/go", redirect=sites.url("bangkok-dental-fb-only/"))
    inner = LoopbackInner()
    before = len(sites.requests)
    with pytest.raises(FetchError, match=r"^http://shop\.example:\d+/go: 127\.0\.0\.1 resolves "
                                         r"to 127\.0\.0\.1, a private or local address"):
        site_of(f"http://shop.example:{sites.port}/go", Settings(), inner)
    assert [path for _, path in sites.requests[before:]] == ["/robots.txt", "/go"]
    assert set(inner.connected) == {PUBLIC}  # never 127.0.0.1


def test_an_allowed_host_is_crawled_normally(sites: SiteServer) -> None:
    site = site_of(f"http://shop.example:{sites.port}/yangon-school/", Settings(),
                   LoopbackInner())
    assert site.pages[0] == f"http://shop.example:{sites.port}/yangon-school/"
    assert len(site.pages) == 3


def test_unknown_host_is_a_dns_error() -> None:
    with pytest.raises(FetchError, match=r"cannot connect: host name not found \(DNS\)"):
        site_of("http://no-such-host.example/", Settings(), LoopbackInner())


def test_robots_txt_disallow_is_obeyed_and_can_be_overridden() -> None:
    with SiteServer(SITES / "mandalay-hotel-robots") as server:
        with pytest.raises(FetchError, match="disallowed by the site's robots.txt "
                                             r"\(use --ignore-robots to override\)"):
            asyncio.run(load_site(server.url(""), Settings(allow_private=True)))
        assert ("GET", "/") not in server.requests
        site = asyncio.run(load_site(server.url(""), Settings(allow_private=True,
                                                              respect_robots=False)))
        assert "Mandalay" in site.content


def test_robots_txt_server_error_means_disallow(sites: SiteServer) -> None:
    with SiteServer(SITES / "yangon-school") as server:
        server.route("/robots.txt", status=503)
        with pytest.raises(FetchError, match=r"robots.txt could not be read \(HTTP 503\)"):
            asyncio.run(load_site(server.url(""), Settings(allow_private=True)))


def test_a_disallowed_subpage_is_reported_not_fatal() -> None:
    with SiteServer(SITES / "yangon-school") as server:
        server.route("/robots.txt", body="User-agent: *\nDisallow: /contact.html\n",
                     content_type="text/plain")
        site = asyncio.run(load_site(server.url(""), Settings(allow_private=True)))
        assert site.pages == (server.url(""), server.url("about.html"))
        assert site.failed_pages == (f"{server.url('contact.html')}: disallowed by the site's "
                                     "robots.txt (use --ignore-robots to override)",)


def test_the_site_byte_budget_skips_further_subpages(sites: SiteServer) -> None:
    site = asyncio.run(load_site(sites.url("bangkok-clinic-mature/"),
                                 Settings(allow_private=True, max_total_bytes=1000)))
    assert site.pages == (sites.url("bangkok-clinic-mature/"),)
    assert len(site.failed_pages) == 3
    assert all("byte budget (1,000 bytes) is spent" in f for f in site.failed_pages)


@pytest.mark.parametrize("address,public", [
    ("2002:7f00:1::1", False),          # 6to4 carrying 127.0.0.1
    ("64:ff9b::a00:5", False),          # NAT64 carrying 10.0.0.5
    ("64:ff9b::808:808", True),         # NAT64 carrying 8.8.8.8
    ("2002:808:808::1", True),          # 6to4 carrying 8.8.8.8
])
def test_ipv6_forms_carrying_ipv4_are_judged_by_it(address: str, public: bool) -> None:
    assert is_public(address) is public


def test_the_byte_budget_also_counts_concurrent_subpages(sites: SiteServer) -> None:
    # Homepage ~12 KB: the budget admits it, and the subpages fetched at the same time
    # are dropped on arrival once they overrun it.
    site = asyncio.run(load_site(sites.url("bangkok-clinic-mature/"),
                                 Settings(allow_private=True, max_total_bytes=14_000)))
    assert len(site.pages) < 4
    assert any("byte budget (14,000 bytes) is spent" in f for f in site.failed_pages)


# -- every way of writing a private address -------------------------------------------------


@pytest.mark.parametrize("address,public", [
    ("::7f00:1", False),                    # IPv4-compatible 127.0.0.1
    ("::127.0.0.1", False),                 # the same, written with dots
    ("::808:808", False),                   # IPv4-compatible is deprecated: refused whatever
    ("::ffff:0:7f00:1", False),             # IPv4-translated 127.0.0.1
    ("::ffff:0:808:808", False),            # IPv4-translated: refused whatever
    ("fec0::1", False),                     # deprecated site-local
    ("64:ff9b:1::a00:1", False),            # local-use NAT64 carrying 10.0.0.1
    ("64:ff9b:1:ab:cd::7f00:1", False),     # ... with the subnet bits set
    ("64:ff9b:1:7f00:0:100::", False),      # ... 127.0.0.1 in the /48 place (RFC 6052)
    ("64:ff9b:1::808:808", True),           # local-use NAT64 carrying 8.8.8.8
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo, client 192.0.2.45
    ("2001:db8::1", False), ("3fff::1", False),      # documentation
    ("192.0.0.9", False), ("192.88.99.1", False), ("240.0.0.1", False),
    ("255.255.255.255", False), ("fe80::1%eth0", False),
    ("not an address", False), ("", False), ("1.2.3", False),
])
def test_every_form_of_a_local_address_is_refused(address: str, public: bool) -> None:
    assert is_public(address) is public


def _not_public_v4(ip: ipaddress.IPv4Address) -> bool:
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved
            or ip.is_multicast or ip.is_unspecified or ip in ipaddress.ip_network("100.64.0.0/10"))


def _embeddings(v4: int, data: st.DataObject) -> dict[str, int]:
    """Every IPv6 address that carries the IPv4 address ``v4`` (as an integer)."""
    bits = data.draw(st.integers(0, (1 << 80) - 1))
    public_server = int(ipaddress.IPv4Address("65.54.227.120"))
    forms = {
        "mapped": 0xFFFF << 32 | v4,
        "compatible": v4,
        "translated": 0xFFFF << 48 | v4,
        "6to4": 0x2002 << 112 | v4 << 80 | bits & ((1 << 80) - 1),
        "nat64": 0x64FF9B << 96 | v4,
        "nat64-local/96": 0x64FF9B0001 << 80 | (bits & ((1 << 48) - 1)) << 32 | v4,
        "teredo-client": 0x20010000 << 96 | public_server << 64 | (bits & 0xFFFFFFFF) << 32
        | (~v4 & 0xFFFFFFFF),
        "teredo-server": 0x20010000 << 96 | v4 << 64 | (bits & 0xFFFFFFFF) << 32 | 0x01020304,
    }
    for prefix in (48, 56, 64):  # RFC 6052: the IPv4 bits around the u octet (64-71)
        low = prefix - 32  # IPv4 bits after the u octet; the 64 - prefix before it
        first, rest = v4 >> low, v4 & ((1 << low) - 1)
        forms[f"nat64-local/{prefix}"] = (0x64FF9B0001 << 80 | first << 64
                                          | rest << (56 - low))
    return forms


_IPV4 = st.ip_addresses(v=4).map(lambda ip: ipaddress.IPv4Address(int(ip)))


@settings(max_examples=300, deadline=None)
@given(_IPV4.filter(_not_public_v4), st.data())
def test_no_ipv6_form_of_a_private_ipv4_address_gets_through(
        ip: ipaddress.IPv4Address, data: st.DataObject) -> None:
    assert not is_public(str(ip))
    for form, value in _embeddings(int(ip), data).items():
        address = str(ipaddress.IPv6Address(value))
        assert not is_public(address), (form, address)


@settings(max_examples=200, deadline=None)
@given(_IPV4.filter(lambda ip: not _not_public_v4(ip)), st.data())
def test_ipv6_forms_of_a_public_ipv4_address_are_judged_by_it(
        ip: ipaddress.IPv4Address, data: st.DataObject) -> None:
    forms = _embeddings(int(ip), data)
    for form in ("mapped", "6to4", "nat64"):
        assert is_public(str(ipaddress.IPv6Address(forms[form]))) is is_public(str(ip)), form


_NOT_GLOBAL_V6 = ["::/96", "::ffff:0:0:0/96", "fec0::/10", "fc00::/7", "fe80::/10", "ff00::/8",
                  "100::/64", "2001:db8::/32", "::1/128", "4000::/2", "8000::/1"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_NOT_GLOBAL_V6).flatmap(lambda net: st.ip_addresses(network=net)))
def test_ipv6_outside_the_global_ranges_is_refused(
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    assert not is_public(str(ip))


@settings(max_examples=500, deadline=None)
@given(st.integers(0, (1 << 128) - 1))
def test_a_public_ipv6_address_is_global_unicast_or_carries_a_public_ipv4(value: int) -> None:
    ip = ipaddress.IPv6Address(value)
    if is_public(str(ip)):
        carried = embedded_ipv4(ip)
        assert carried or ip in ipaddress.ip_network("2000::/3")
        assert all(is_public(str(v4)) for v4 in carried)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=50))
def test_is_public_never_raises(text: str) -> None:
    assert is_public(text) in (True, False)


# -- address forms in URLs reach the guard as the address they are ---------------------------


@pytest.mark.parametrize("host", ["0177.0.0.1", "2130706433", "0x7f.1", "127.1",
                                  "0x7F.0.0.01", "１２７．０．０．１", "[::ffff:127.0.0.1]",
                                  "[::ffff:7f00:1]"])
def test_every_way_of_writing_loopback_is_refused(sites: SiteServer, host: str) -> None:
    before = len(sites.requests)
    with pytest.raises(FetchError, match=r"resolves to (127\.0\.0\.1|::ffff:127\.0\.0\.1|"
                                         r"::ffff:7f00:1), a private or local address"):
        asyncio.run(load_site(f"http://{host}:{sites.port}/yangon-school/", Settings()))
    assert len(sites.requests) == before


@pytest.mark.parametrize("host", ["0177.0.0.1", "2130706433", "0x7f.1", "１２７．０．０．１"])
def test_an_ipv4_form_connects_to_the_address_that_was_checked(sites: SiteServer,
                                                               host: str) -> None:
    site = asyncio.run(load_site(f"http://{host}:{sites.port}/yangon-school/",
                                 Settings(allow_private=True, max_pages=0)))
    assert site.pages == (sites.url("yangon-school/"),)


@pytest.mark.parametrize("location", ["http://0x7f.1:{port}/yangon-school/",
                                      "http:\\\\127.0.0.1:{port}\\yangon-school\\",
                                      "//2130706433:{port}/", "http://[::ffff:7f00:1]:{port}/"])
def test_a_redirect_to_any_form_of_loopback_is_refused(sites: SiteServer, location: str) -> None:
    sites.route("/go-odd", redirect=location.format(port=sites.port))
    inner = LoopbackInner()
    with pytest.raises(FetchError, match=r"^http://shop\.example:\d+/go-odd: .* resolves to "
                                         r"\S+, a private or local address"):
        site_of(f"http://shop.example:{sites.port}/go-odd", Settings(), inner)
    assert set(inner.connected) == {PUBLIC}


@pytest.mark.parametrize("address", ["64:ff9b:1:c000:2:2100::", "64:ff9b:1:c0:0:221::",
                                     "64:ff9b:1:0:c0:2:2100::", "64:ff9b:1::c000:221"])
def test_local_use_nat64_reads_the_rfc_6052_places(address: str) -> None:
    # RFC 6052's examples of 192.0.2.33 at /48, /56, /64 and /96, on 64:ff9b:1::/48.
    assert ipaddress.IPv4Address("192.0.2.33") in embedded_ipv4(ipaddress.IPv6Address(address))


def test_a_kept_socket_says_when_the_server_has_hung_up() -> None:
    import socket

    from leadengine.website.guard import readable

    ours, theirs = socket.socketpair()
    try:
        assert readable(ours) is False  # idle and open: reusable
        theirs.close()
        assert readable(ours) is True  # the server hung up: not reusable
    finally:
        ours.close()
    assert readable(ours) is True and readable(None) is True  # closed or none


def test_a_pooled_connection_answers_is_readable_from_its_kept_socket() -> None:
    from leadengine.website.guard import KeptSocketStream

    asked: list[str] = []

    class Inner(httpcore.AsyncNetworkStream):
        def get_extra_info(self, info: str) -> Any:
            asked.append(info)
            return None if info == "socket" else f"inner {info}"

    stream = KeptSocketStream(Inner())
    assert stream.get_extra_info("is_readable") is True  # no socket: treated as closed
    assert stream.get_extra_info("is_readable") is True
    assert stream.get_extra_info("server_addr") == "inner server_addr"
    assert asked == ["socket", "server_addr"]  # the socket was looked up once


def test_every_client_shares_one_verifying_tls_context() -> None:
    # Reading the CA bundle takes ~45 ms: made once a process (a batch's shards inherit
    # it), and it still checks certificates and host names.
    import ssl

    from leadengine.website.fetch import make_client
    from leadengine.website.guard import default_ssl_context

    context = default_ssl_context()
    assert context is default_ssl_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    client = make_client(Settings())
    assert client._transport._pool._ssl_context is context  # type: ignore[attr-defined]


@pytest.mark.parametrize(("host", "expected"), [
    ("127.0.0.1", ["127.0.0.1"]), ("::1", ["::1"]), ("[::1]", ["::1"]),
    ("::ffff:10.0.0.1", ["::ffff:a00:1"]),
    # Not an address in Python's spelling: the system resolver reads it, as before.
    ("2130706433", ["127.0.0.1"]), ("0x7f.1", ["127.0.0.1"])])
def test_an_address_needs_no_lookup_and_other_spellings_get_one(host: str,
                                                                expected: list[str]) -> None:
    from leadengine.website.guard import system_resolver

    assert asyncio.run(system_resolver(host, 80)) == expected
