"""Shared LLM rate limits: requests and tokens per minute, on a fake clock."""

from __future__ import annotations

import asyncio

from leadengine import Settings
from leadengine.config import PROVIDERS
from leadengine.judgement.evaluators.llm import LLMEvaluator
from leadengine.judgement.ratelimit import RateLimiter


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def test_requests_per_minute() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rpm=2, clock=clock, sleep=clock.sleep)

    async def three() -> None:
        for _ in range(3):
            await limiter.acquire()

    asyncio.run(three())
    assert clock.sleeps == [30.0]  # the third request waits for one slot: 60 s / 2
    assert limiter.waited == 30.0


def test_tokens_per_minute_and_concurrent_workers() -> None:
    clock = FakeClock()
    limiter = RateLimiter(tpm=6000, clock=clock, sleep=clock.sleep)

    async def workers() -> None:
        await asyncio.gather(*(limiter.acquire(3000) for _ in range(4)))

    asyncio.run(workers())
    # 6,000 tokens at once, then 3,000 tokens every 30 s: two waits of 30 s in total.
    assert clock.sleeps == [30.0, 30.0]
    assert clock.now == 60.0


def test_unlimited_never_waits() -> None:
    clock = FakeClock()
    limiter = RateLimiter(clock=clock, sleep=clock.sleep)
    asyncio.run(limiter.acquire(10**9))
    assert clock.sleeps == []


def test_provider_defaults_and_overrides() -> None:
    groq = LLMEvaluator(Settings(env={"GROQ_API_KEY": "k"}), PROVIDERS["groq"])
    assert groq.limiter.requests is not None and groq.limiter.requests.capacity == 30
    unlimited = LLMEvaluator(Settings(env={"GROQ_API_KEY": "k"}, llm_rpm=0, llm_tpm=0),
                             PROVIDERS["groq"])
    assert unlimited.limiter.requests is None and unlimited.limiter.tokens is None
    ollama = LLMEvaluator(Settings(), PROVIDERS["ollama"])
    assert ollama.limiter.requests is None
