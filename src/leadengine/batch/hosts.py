"""Politeness to the sites' hosts: at most ``per_host`` sites of one host fetched at
once, started at least ``host_delay`` seconds apart. Local files have no host and pass."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit


class HostGates:
    """One gate per host (a semaphore and the time its next site may start)."""

    def __init__(self, per_host: int, delay: float) -> None:
        self.per_host, self.delay = per_host, delay
        self.gates: dict[str, asyncio.Semaphore] = {}
        self.next_start: dict[str, float] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    @contextlib.asynccontextmanager
    async def held(self, url: str) -> AsyncIterator[None]:
        """Hold ``url``'s host's gate while the site is fetched, once its turn came."""
        if url.startswith("file:"):
            yield
            return
        host = urlsplit(url).hostname or ""
        async with self.gates.setdefault(host, asyncio.Semaphore(self.per_host)):
            await self.polite(host)
            yield

    async def polite(self, host: str) -> None:
        """Sites on one host start at least ``delay`` seconds apart."""
        async with self.locks.setdefault(host, asyncio.Lock()):
            wait = self.next_start.get(host, 0.0) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self.next_start[host] = time.monotonic() + self.delay
