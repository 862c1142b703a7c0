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

import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio
import httpcore
import httpx

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")

#: host, port -> IP addresses (strings). Tests inject a fake; the default asks the OS.
Resolver = Callable[[str, int], Awaitable[list[str]]]


class BlockedAddress(Exception):
    """A connection was refused by the guard."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(f"{host} resolves to {address}, a private or local address; "
                         "refused (use --allow-private to allow)")
        self.host = host
        self.address = address


def is_public(address: str) -> bool:
    """True for a globally routable unicast address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        # IPv6 forms that carry an IPv4 address are judged by that address.
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public(str(embedded))
    return ip.is_global and not ip.is_multicast


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend that resolves, checks, then connects to the checked IP."""

    def __init__(self, allow_private: bool = False, resolver: Resolver | None = None,
                 inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.allow_private = allow_private
        self.resolver = resolver or system_resolver
        self.inner = inner or httpcore.AnyIOBackend()

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


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport with its connection pool on the guarded backend."""

    def __init__(self, allow_private: bool = False, resolver: Resolver | None = None,
                 limits: httpx.Limits | None = None,
                 inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        limits = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20)
        super().__init__(limits=limits)
        # httpx offers no public way to choose the pool's network backend; the pool it
        # built is replaced by the same one on our backend (tests/test_guard.py proves
        # the guard is in force, so an httpx change cannot silently disable it).
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedBackend(allow_private, resolver, inner),
        )
