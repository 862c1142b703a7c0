"""The SSRF guard: never connect to a private, loopback or link-local address by accident.

A lead list is untrusted input, and a URL (or a redirect) can point at the
machine's own services or the office network. The check sits in the network
backend under httpx, so it runs on the address actually connected to, after
DNS resolution, for the first request, every redirect and every subpage;
a host that resolves to a forbidden address is refused before any byte is
sent. ``allow_private`` (``--allow-private``) lifts it, e.g. to evaluate a
site on the local network, and the tests use it to reach 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import select
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio
import httpcore
import httpx

#: The only IPv6 block handed out for the public internet (RFC 4291, IANA); everything
#: outside it (IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, site-local fec0::/10,
#: unique-local, link-local, multicast, unassigned) is refused unless it carries an IPv4
#: address, which is then judged instead.
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
#: Inside 2000::/3 but not on the internet, though ``ipaddress`` may rate them global.
_NOT_GLOBAL_V6 = (ipaddress.IPv6Network("2001:db8::/32"), ipaddress.IPv6Network("3fff::/20"))
#: Rated global by ``ipaddress`` but not a destination on the internet: IETF protocol
#: assignments and the deprecated 6to4 relay anycast block.
_NOT_GLOBAL_V4 = (ipaddress.IPv4Network("192.0.0.0/24"), ipaddress.IPv4Network("192.88.99.0/24"))
#: NAT64: the well-known prefix (RFC 6052, always /96) and the local-use prefix (RFC 8215).
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")

#: host, port -> IP addresses (strings). Tests inject a fake; the default asks the OS.
Resolver = Callable[[str, int], Awaitable[list[str]]]


#: What a refusal by the guard says (a stored failure that says it is retried once
#: private addresses are allowed).
PRIVATE_REFUSED = "a private or local address; refused"


class BlockedAddress(Exception):
    """A connection was refused by the guard."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(f"{host} resolves to {address}, {PRIVATE_REFUSED} "
                         "(use --allow-private to allow)")
        self.host = host
        self.address = address


def is_public(address: str) -> bool:
    """True for a globally routable unicast address; False for anything else, including
    text that is not an address. IPv6 forms that carry an IPv4 address (mapped, 6to4,
    Teredo, NAT64) are judged by every IPv4 address they carry."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv4Address):
        return _public_v4(ip)
    embedded = embedded_ipv4(ip)
    if embedded:
        return all(_public_v4(v4) for v4 in embedded)
    return (ip in _GLOBAL_UNICAST and ip.is_global
            and not any(ip in net for net in _NOT_GLOBAL_V6))


def _public_v4(ip: ipaddress.IPv4Address) -> bool:
    return (ip.is_global and not ip.is_multicast and not ip.is_reserved
            and not any(ip in net for net in _NOT_GLOBAL_V4))


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, for the forms a NAT or tunnel turns
    into an IPv4 connection; empty for a plain IPv6 address."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        # Teredo: the relay server and the client both receive traffic.
        return list(ip.teredo)
    if ip in _NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip in _NAT64_LOCAL:
        return _nat64_local(int(ip))
    return []


def _nat64_local(value: int) -> list[ipaddress.IPv4Address]:
    # RFC 8215 lets a network cut 64:ff9b:1::/48 into longer prefixes, and RFC 6052 puts
    # the IPv4 address at a different place for each length, skipping bits 64-71 (the
    # "u" octet). The /96 place is always judged; the /48, /56 and /64 places are judged
    # too when the address is well formed for them (u octet and suffix zero), so no form
    # a local NAT64 could translate to a private address gets through.
    found = [ipaddress.IPv4Address(value & 0xFFFFFFFF)]
    for prefix in (48, 56, 64):
        high = 64 - prefix  # IPv4 bits before the u octet
        low = 32 - high  # IPv4 bits after it
        suffix = 56 - low  # bits after the IPv4 address
        if (value >> 56) & 0xFF or value & ((1 << suffix) - 1):
            continue
        first = (value >> 64) & ((1 << high) - 1)
        rest = (value >> suffix) & ((1 << low) - 1)
        found.append(ipaddress.IPv4Address((first << low) | rest))
    return found


async def system_resolver(host: str, port: int) -> list[str]:
    with contextlib.suppress(ValueError):  # an address already: no lookup, no thread
        return [str(ipaddress.ip_address(host.strip("[]")))]
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend that resolves, checks, then connects to the checked IP."""

    def __init__(self, allow_private: bool = False, resolver: Resolver | None = None,
                 inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.allow_private = allow_private
        self.resolver = resolver or system_resolver
        self.inner = KeptSocketBackend(inner)

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None
                          ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await self.resolver(host, port)
        except OSError as exc:
            raise httpcore.ConnectError(f"[Errno -2] Name or service not known: {host} "
                                        f"({exc})") from exc
        if not addresses:
            raise httpcore.ConnectError(f"[Errno -2] Name or service not known: {host}")
        if not self.allow_private:
            for address in addresses:
                if not is_public(address):
                    raise BlockedAddress(host, address)
        # Connect to the address that was checked, not to a second DNS answer.
        return await self.inner.connect_tcp(addresses[0], port, timeout=timeout,
                                            local_address=local_address,
                                            socket_options=socket_options)

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None
                                  ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not used")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class KeptSocketStream(httpcore.AsyncNetworkStream):
    """A connection's stream whose socket is looked up once. The pool asks every idle
    connection ``is_readable`` (did the server hang up?) each time it places a request,
    and anyio answered by rebuilding its map of socket attributes, a ``getpeername()``
    system call among them: 5 % of a batch's CPU at 64 connections."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self.inner = inner
        self.socket = inner.get_extra_info("socket")

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self.inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self.inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        return KeptSocketStream(await self.inner.start_tls(ssl_context, server_hostname,
                                                           timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return readable(self.socket)
        if info == "socket":
            return self.socket
        return self.inner.get_extra_info(info)


def readable(sock: Any) -> bool:
    """Whether ``sock`` has something to read, or is closed (as httpcore asks it)."""
    fileno = sock.fileno() if sock is not None else -1
    if fileno < 0:
        return True
    if not hasattr(select, "poll"):  # Windows
        return bool(select.select([fileno], [], [], 0)[0])
    poller = select.poll()
    poller.register(fileno, select.POLLIN)
    return bool(poller.poll(0))


class KeptSocketBackend(httpcore.AsyncNetworkBackend):
    """``inner``'s connections as :class:`KeptSocketStream` (for clients without the
    guard: the LLM endpoint's)."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None
                          ) -> httpcore.AsyncNetworkStream:
        return KeptSocketStream(await self.inner.connect_tcp(
            host, port, timeout=timeout, local_address=local_address,
            socket_options=socket_options))

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None
                                  ) -> httpcore.AsyncNetworkStream:
        return KeptSocketStream(await self.inner.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options))

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    """The TLS context of every client (certificates verified against certifi's bundle):
    made once a process, as reading the bundle takes about 45 ms; a batch makes it
    before it forks its shards (:mod:`leadengine.batch.preload`)."""
    return httpx.create_ssl_context()


class PoolTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport with its connection pool on ``backend``."""

    def __init__(self, backend: httpcore.AsyncNetworkBackend, limits: httpx.Limits,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        ssl_context = ssl_context or default_ssl_context()
        super().__init__(verify=ssl_context, limits=limits)
        # httpx offers no public way to choose the pool's network backend; the pool it
        # built is replaced by the same one on ours (tests/test_guard.py proves the
        # guard is in force, so an httpx change cannot silently disable it).
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=backend,
        )


class GuardedTransport(PoolTransport):
    """httpx's own transport with its connection pool on the guarded backend."""

    def __init__(self, allow_private: bool = False, resolver: Resolver | None = None,
                 limits: httpx.Limits | None = None,
                 inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        super().__init__(GuardedBackend(allow_private, resolver, inner),
                         limits or httpx.Limits(max_connections=100,
                                                max_keepalive_connections=20))
