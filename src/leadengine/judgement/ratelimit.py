"""LLM rate limits shared by every worker: requests and tokens per minute, requests
and tokens per day.

Two token buckets that refill continuously; a request waits until both hold enough.
One lock orders the waiters, so concurrent workers are served first come, first
served and a burst never overshoots the provider's limit (which would only earn
429s and their back-off). The day budget does not wait: a request past it fails at
once with :class:`QuotaExhausted`, since waiting up to a day helps nobody at a terminal.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from leadengine.errors import QuotaExhausted

#: Length of the day budget's window, in seconds.
DAY = 86_400.0


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

    def resize(self, per_minute: float) -> None:
        """Hold ``per_minute`` from now on, keeping what was spent."""
        self.wait_for(0)  # brought up to date at the old rate
        spent = self.capacity - self.level
        self.capacity, self.rate = float(per_minute), per_minute / 60.0
        self.level = self.capacity - spent

    def give_back(self, amount: float) -> None:
        """Return ``amount`` taken too many (negative: take more, going into debt that
        later requests wait out)."""
        self.level = min(self.capacity, self.level + amount)


class DayBudget:
    """At most ``limit`` requests (or tokens: ``unit``) in a day: a window that starts
    with its first request and resets :data:`DAY` seconds later. Counted by this process
    only; the provider also counts requests made earlier by other runs."""

    def __init__(self, limit: int, clock: Callable[[], float], unit: str = "request",
                 setting: str = "LEADENGINE_LLM_RPD") -> None:
        self.limit = limit
        self.clock = clock
        self.unit = unit
        self.setting = setting
        self.used = 0
        self.started: float | None = None

    def spend(self, name: str, amount: int = 1) -> None:
        """Count ``amount``; QuotaExhausted when the day's budget would be overspent
        (a first request larger than the whole budget still goes)."""
        now = self.clock()
        if self.started is None or now - self.started >= DAY:
            self.started, self.used = now, 0
        if self.used >= self.limit or (self.used and self.used + amount > self.limit):
            raise QuotaExhausted(f"daily {self.unit} limit of {self.limit:,} reached for "
                                 f"{name}; try again tomorrow, or if your plan allows more "
                                 f"set {self.setting} (0 = no limit)")
        self.used += amount

    def correct(self, amount: int) -> None:
        """Count ``amount`` more (fewer, when negative) than was spent."""
        self.used = max(0, self.used + amount)


class RateLimiter:
    """Requests/minute, tokens/minute, requests/day and tokens/day limits (None or 0 =
    unlimited); ``name`` (the provider's) is for the day limits' messages."""

    def __init__(self, rpm: int | None = None, tpm: int | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 rpd: int | None = None, name: str = "the LLM provider",
                 tpd: int | None = None) -> None:
        self.requests = Bucket(rpm, clock) if rpm else None
        self.tokens = Bucket(tpm, clock) if tpm else None
        self.day = DayBudget(rpd, clock) if rpd else None
        self.day_tokens = DayBudget(tpd, clock, "token", "LEADENGINE_LLM_TPD") if tpd \
            else None
        self.clock = clock
        self.name = name
        self.sleep = sleep
        self._lock: asyncio.Lock | None = None
        #: Total seconds spent waiting (reported by batch runs).
        self.waited = 0.0

    def change(self, **limits: int | None) -> None:
        """Hold other limits from now on (``rpm``, ``tpm``, ``rpd``, ``tpd``; None or 0 =
        none), keeping what was spent under the ones that stay."""
        clock = self.clock
        for kind, attribute in (("rpm", "requests"), ("tpm", "tokens")):
            if kind not in limits:
                continue
            value, bucket = limits[kind], getattr(self, attribute)
            if not value:
                setattr(self, attribute, None)
            elif bucket is None:
                setattr(self, attribute, Bucket(value, clock))
            else:
                bucket.resize(value)
        for kind, attribute, unit, setting in (
                ("rpd", "day", "request", "LEADENGINE_LLM_RPD"),
                ("tpd", "day_tokens", "token", "LEADENGINE_LLM_TPD")):
            if kind not in limits:
                continue
            value, budget = limits[kind], getattr(self, attribute)
            if not value:
                setattr(self, attribute, None)
            elif budget is None:
                setattr(self, attribute, DayBudget(value, clock, unit, setting))
            else:
                budget.limit = value

    def settle(self, budgeted: int, used: int) -> None:
        """Correct the token bucket once the provider has counted a request: a reasoning
        model's answer is budgeted before anyone knows how long it will think."""
        if self.tokens is not None and used > 0:
            taken = min(budgeted, self.tokens.capacity)  # as Bucket.take counted it
            self.tokens.give_back(taken - used)
        if self.day_tokens is not None and used > 0:
            self.day_tokens.correct(used - budgeted)

    async def acquire(self, tokens: int = 0) -> None:
        """Wait until one request of about ``tokens`` tokens may be sent; QuotaExhausted at
        once when the day's requests are used up."""
        if self.requests is None and self.tokens is None and self.day is None \
                and self.day_tokens is None:
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            # Checked before any minute wait, which would be pointless; counted now,
            # under the lock, so concurrent workers never overspend them.
            if self.day is not None:
                self.day.spend(self.name)
            if self.day_tokens is not None:
                self.day_tokens.spend(self.name, tokens)
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
