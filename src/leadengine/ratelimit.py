"""LLM rate limits shared by every worker: requests per minute and tokens per minute.

Two token buckets that refill continuously; a request waits until both hold enough.
One lock orders the waiters, so concurrent workers are served first come, first
served and a burst never overshoots the provider's limit (which would only earn
429s and their back-off).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class Bucket:
    """``capacity`` units per minute, refilled continuously, starting full."""

    def __init__(self, per_minute: float, clock: Callable[[], float]) -> None:
        self.capacity = float(per_minute)
        self.level = float(per_minute)
        self.rate = per_minute / 60.0
        self.clock = clock
        self.updated = clock()

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` is available (0 if it is now)."""
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
        self.updated = now
        amount = min(amount, self.capacity)  # a request larger than the bucket waits for a full one
        return 0.0 if self.level >= amount else (amount - self.level) / self.rate

    def take(self, amount: float) -> None:
        self.level -= min(amount, self.capacity)


class RateLimiter:
    """Requests/minute and tokens/minute limits (None or 0 = unlimited)."""

    def __init__(self, rpm: int | None = None, tpm: int | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.requests = Bucket(rpm, clock) if rpm else None
        self.tokens = Bucket(tpm, clock) if tpm else None
        self.sleep = sleep
        self._lock: asyncio.Lock | None = None
        #: Total seconds spent waiting (reported by batch runs).
        self.waited = 0.0

    async def acquire(self, tokens: int = 0) -> None:
        """Wait until one request of about ``tokens`` tokens may be sent."""
        if self.requests is None and self.tokens is None:
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            while True:
                delay = max(self.requests.wait_for(1) if self.requests else 0.0,
                            self.tokens.wait_for(tokens) if self.tokens else 0.0)
                if delay <= 0:
                    break
                self.waited += delay
                await self.sleep(delay)
            if self.requests:
                self.requests.take(1)
            if self.tokens:
                self.tokens.take(tokens)
