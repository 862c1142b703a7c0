"""The SSRF guard, robots.txt and the site byte budget, over real HTTP on 127.0.0.1.

No test resolves a real host name: a fake resolver answers, and a test backend maps
the one "public" address it hands out back to 127.0.0.1, so nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx
import pytest

from leadengine import FetchError, Settings
from leadengine.web.guard import GuardedTransport, is_public
from leadengine.web.site import Site, load_site
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
             "localhost": ["127.0.0.1"]}
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
