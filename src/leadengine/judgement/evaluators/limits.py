"""The rate limits of an LLM evaluator's models, and what the server says of them.

A model's limits come from the settings (``llm_rpm``...), leadengine.toml's
``[providers.NAME]``, else the model catalogue (:meth:`Settings.rate_limits`). The
catalogue's are a plan's (Groq's free tier); a key on a larger plan is told its own in
the rate-limit headers of every answer (``x-ratelimit-limit-tokens``: tokens per minute;
``x-ratelimit-limit-requests``: per day at Groq, per minute at OpenAI), and those are
held instead, so a paying team is not slowed to the free tier's pace.
"""

from __future__ import annotations

from typing import Any

from leadengine.config import Provider, Settings
from leadengine.config.catalogue import Catalogue
from leadengine.judgement.ratelimit import RateLimiter

KINDS = ("rpm", "tpm", "rpd", "tpd")


class RateLimits:
    """The limits of each model one evaluator uses: set, catalogued, or reported."""

    def __init__(self, settings: Settings, provider: Provider, catalogue: Catalogue) -> None:
        self.settings, self.provider, self.catalogue = settings, provider, catalogue
        #: The share of the limits this evaluator holds (a batch's shards split them).
        self.parts = 1
        #: A limiter shared with other processes (the Ray engine's), if any.
        self.shared: Any = None
        #: Model (lower case) -> the limits its server reported.
        self.told: dict[str, dict[str, int]] = {}

    def of(self, model: str) -> dict[str, int | None]:
        """``model``'s limits (None = none): the settings' and leadengine.toml's as set;
        for the rest what the server reported, else the catalogue's. When the server
        reports a limit above the catalogue's, the key is on a larger plan than the one
        the catalogue describes: the catalogue's limits it does not report are not held
        either (a 429 is waited out)."""
        found = self.settings.rate_limits(self.provider, model)
        told = self.told.get(model.lower())
        if not told:
            return found
        entry = self.catalogue.entry(self.provider.name, model)
        listed = {kind: getattr(entry, kind) if entry else None for kind in KINDS}
        above = any(value > (listed[kind] or value) for kind, value in told.items())
        for kind in KINDS:
            if getattr(self.settings, f"llm_{kind}") is not None \
                    or getattr(self.provider, kind) is not None:
                continue  # set by the user: kept
            if kind in told:
                found[kind] = told[kind]
            elif above:
                found[kind] = None
        return found

    def shares(self, model: str) -> dict[str, int | None]:
        """This evaluator's share of ``model``'s limits."""
        return {kind: max(1, value // self.parts) if value else None
                for kind, value in self.of(model).items()}

    def limiter_for(self, model: str) -> Any:
        """The limiter requests to ``model`` wait on."""
        if self.shared is not None:
            return self.shared
        limits = self.shares(model)
        return RateLimiter(limits["rpm"], limits["tpm"], rpd=limits["rpd"],
                           tpd=limits["tpd"], name=f"{self.provider.name} model {model!r}")

    def learn(self, model: str, headers: dict[str, int]) -> bool:
        """Take the limits of a server's answer for ``model`` (``tokens`` per minute and
        ``requests``, per minute or per day as the provider counts them); whether they
        changed."""
        told = {"tpm": headers["tokens"]} if "tokens" in headers else {}
        if "requests" in headers and self.provider.requests_limit:
            told[self.provider.requests_limit] = headers["requests"]
        if not told or self.told.get(model.lower()) == told:
            return False
        self.told[model.lower()] = told
        return self.shared is None


def limits_to_share(limiter: Any) -> tuple[int | None, int | None, int | None, str,
                                           int | None] | None:
    """(rpm, tpm, rpd, provider name, tpd) that ``limiter`` holds, for a cluster to hold
    together; None when it is no :class:`RateLimiter` or holds none."""
    if not isinstance(limiter, RateLimiter):
        return None
    rpm = int(limiter.requests.capacity) if limiter.requests else None
    tpm = int(limiter.tokens.capacity) if limiter.tokens else None
    rpd = limiter.day.limit if limiter.day else None
    tpd = limiter.day_tokens.limit if limiter.day_tokens else None
    if rpm is None and tpm is None and rpd is None and tpd is None:
        return None
    return rpm, tpm, rpd, str(limiter.name), tpd
