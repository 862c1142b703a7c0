"""What a provider's refusals mean, and which model to use when the one in use is gone.

Providers say "this model is gone" in their own words: OpenAI and Groq answer HTTP 404
``model_not_found`` for a model shut down or never served ("The model `x` does not
exist or you do not have access to it"), Groq 400 ``model_decommissioned`` ("has been
decommissioned and is no longer supported"), Anthropic 404 ``not_found_error``
("model: claude-..."). A day's quota used up is a 429 that names the day ("on requests
per day (RPD)", "on tokens per day (TPD)"), not worth retrying today; a request larger
than the tokens-per-minute limit is Groq's 413 ("Request too large ... on tokens per
minute (TPM): Limit 8000, Requested 9876"); a model that refuses sampling parameters
answers 400 naming the parameter ("`temperature` is deprecated for this model",
"Unsupported value: 'temperature'").

Sources (their error pages give the codes; the sentences are the servers' own):
https://console.groq.com/docs/errors, https://platform.claude.com/docs/en/api/errors,
https://developers.openai.com/api/docs/guides/error-codes.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

from leadengine.config import Provider, Settings
from leadengine.config.catalogue import Catalogue
from leadengine.judgement.evaluators.chat import ChatError

#: Words of a 400 that says the model itself is gone (not a parameter of the request).
_GONE_WORDS = ("decommissioned", "deprecated", "retired", "no longer available",
               "no longer supported", "shut down", "does not exist", "not found")
_SAMPLING = re.compile(r"\b(?:temperature|top_p|top_k|sampling)\b", re.I)
#: Served models that do not chat (speech, embeddings, guards...): never a replacement.
_NOT_CHAT = re.compile(r"embed|whisper|tts|speech|audio|transcri|moderation|guard|rerank"
                       r"|image|dall-e|orpheus", re.I)
_DAILY = re.compile(r"per day|\((?:rpd|tpd)\)|\bdaily\b", re.I)
_TOO_LARGE = re.compile(r"limit\D{0,3}(\d[\d,]*)\D{1,20}requested\D{0,3}(\d[\d,]*)", re.I)
#: Most switches one evaluator makes (a chain of retired replacements ends here).
MAX_SWITCHES = 4


def sampling_refused(exc: ChatError) -> bool:
    """A 400 refusing a sampling parameter (temperature, top_p, top_k)."""
    return exc.status == 400 and _SAMPLING.search(exc.message) is not None


def model_gone(exc: ChatError) -> bool:
    """The model is retired, shut down or not served to this key (not a failure of the
    request): 404 ``model_not_found`` / ``not_found_error`` naming a model, 400
    ``model_decommissioned``, or a 400/410 saying the model is deprecated or retired."""
    text = exc.message.lower()
    if exc.code in ("model_not_found", "model_decommissioned"):
        return True
    if exc.status == 404:
        return "model" in text
    if exc.status in (400, 410) and not sampling_refused(exc):
        return "model" in text and any(word in text for word in _GONE_WORDS)
    return False


def daily_limit(exc: ChatError) -> bool:
    """A 429 saying the day's requests or tokens are used up (Groq's RPD and TPD)."""
    return exc.status == 429 and _DAILY.search(exc.message) is not None


def too_large(exc: ChatError) -> tuple[int, int] | None:
    """``(limit, requested)`` tokens of a 413 refusing a request larger than the
    tokens-per-minute limit; None for any other error."""
    if exc.status != 413:
        return None
    found = _TOO_LARGE.search(exc.message)
    if found is None:
        return None
    limit, requested = (int(found.group(i).replace(",", "")) for i in (1, 2))
    return (limit, requested) if requested > limit > 0 else None


@dataclass(frozen=True)
class Switch:
    """One change of model: from ``old`` to ``new``, and why."""

    provider: str
    old: str
    new: str
    #: Why ``old`` is no longer used ("retired (HTTP 404 model_not_found)").
    why: str

    def note(self) -> str:
        """The line a summary and a run record show."""
        return f"{self.provider} model {self.old!r} {self.why}: switched to {self.new!r}"


def why_gone(exc: ChatError) -> str:
    """How the provider said the model is gone, in a few words."""
    how = f"HTTP {exc.status} {exc.code}" if exc.code else f"HTTP {exc.status}"
    return f"is not served ({how})"


def first_candidate(candidates: Iterable[str | None], excluded: set[str]) -> str | None:
    """The first candidate not excluded (case-insensitive)."""
    for name in candidates:
        if name and name.lower() not in excluded:
            return name
    return None


def served_choice(catalogue: Catalogue, provider: str, served: Sequence[str],
                  excluded: set[str], day: datetime.date,
                  unknown_allowed: bool) -> str | None:
    """The model of ``served`` to use instead: the provider's default when it is served;
    else the cheapest served model the catalogue has as active that takes a strict
    schema; else any such active or preview model; else (``unknown_allowed``: the
    catalogue knows none of the provider's models, a custom endpoint) the first served
    chat model it does not hold as retired."""
    names = {name.lower(): name for name in served
             if name.lower() not in excluded and not _NOT_CHAT.search(name)}
    default = catalogue.default(provider)
    if default and default.lower() in names:
        return names[default.lower()]
    entries = {name: catalogue.entry(provider, name) for name in names.values()}
    usable = {name: entry for name, entry in entries.items()
              if entry is not None and entry.status_on(day) in ("active", "preview")}

    def cost(name: str) -> float:
        price = usable[name].price
        return sum(price) if price else float("inf")

    strict = [name for name, entry in usable.items()
              if entry.status_on(day) == "active" and entry.capabilities.schema]
    for pool in (strict, list(usable)):
        if pool:
            return min(pool, key=cost)
    if unknown_allowed:
        for name, entry in entries.items():
            if entry is None or entry.status_on(day) != "retired":
                return name
    return None


class ModelChoice:
    """The model an evaluator uses, and the ones that may replace it: the configured
    model until it is gone or out of quota, then (once for all the requests after it)
    the first of ``fallback_models``, the catalogue's replacement, or a served model of
    the same provider (:func:`served_choice`). Remembers why each model answers instead
    of the configured one, and what to tell the user before the work starts."""

    def __init__(self, settings: Settings, provider: Provider, catalogue: Catalogue,
                 today: datetime.date) -> None:
        self.settings, self.provider, self.catalogue, self.today = (
            settings, provider, catalogue, today)
        self.name = provider.name
        self.configured = (settings.model or provider.default_model
                           or catalogue.default(provider.name) or "")
        self.current = self.configured
        #: One line for each switch of model, in order (a batch's summary shows them).
        self.switches: list[str] = []
        #: What a user should hear before the work starts (a model that retires soon, a
        #: model the catalogue does not know, a switch made before any request).
        self.notices: list[str] = []
        #: Models (lower case) that are gone, or out of their day's quota.
        self.gone: set[str] = set()
        self.exhausted: set[str] = set()
        #: Model (lower case) -> why it answers instead of the configured one.
        self.reasons: dict[str, str] = {}
        #: The models the endpoint serves, once asked.
        self.served: list[str] | None = None

    def start(self) -> None:
        """The notices about the configured model; a model the catalogue holds as
        retired is replaced before any request is sent (unless fallback is off)."""
        model = self.configured
        entry = self.catalogue.entry(self.name, model)
        if entry is None and self.provider.key_required and self.catalogue.of(self.name):
            self.notices.append(
                f"notice: {self.name} model {model!r} is not in the model catalogue: its "
                "price, limits and lifecycle are unknown (see leadengine models --check)")
        notice = self.catalogue.notice(self.name, model, self.today)
        if entry is None or notice is None:
            return
        if entry.status_on(self.today) == "retired" and self.settings.fallback:
            choice = self.listed_choice(model, quota=False)
            if choice is not None:
                when = f" on {entry.retires.isoformat()}" if entry.retires else ""
                self.switch_to(model, choice, f"retired{when} (the model catalogue)")
                self.notices.append(f"warning: {self.switches[-1]}")
                return
        self.notices.append(f"warning: {notice}")

    def reason(self, model: str) -> str | None:
        """Why ``model`` answered instead of the configured one; None when it is the
        configured one."""
        if model.lower() == self.configured.lower():
            return None
        return self.reasons.get(model.lower(), f"answered by {model!r}, not the configured "
                                               f"{self.configured!r}")

    def listed_choice(self, failed: str, quota: bool) -> str | None:
        """The first of ``fallback_models`` (then, for a gone model, the catalogue's
        replacement) that is neither gone, out of quota, retired by the catalogue, nor
        (when the served models are known) unserved."""
        candidates: list[str | None] = list(self.settings.fallback_models)
        if not quota:
            candidates.append(self.catalogue.replacement(self.name, failed, self.today))
        excluded = self.gone | self.exhausted | {failed.lower()}
        served = {name.lower() for name in self.served} if self.served is not None else None
        for name in candidates:
            entry = self.catalogue.entry(self.name, name) if name else None
            if name and ((entry is not None and entry.status_on(self.today) == "retired")
                         or (served is not None and name.lower() not in served)):
                excluded.add(name.lower())
        return first_candidate(candidates, excluded)

    async def switch(self, failed: str, why: str, quota: bool,
                     list_models: Callable[[], Awaitable[list[str]]]) -> bool:
        """Use another model than ``failed`` from now on; False when there is none (or
        fallback is off). Concurrent requests that failed alike switch once: a request
        whose model was replaced meanwhile just goes again with the new one."""
        if self.current.lower() != failed.lower():
            return True
        if not self.settings.fallback or len(self.switches) >= MAX_SWITCHES:
            return False
        (self.exhausted if quota else self.gone).add(failed.lower())
        choice = self.listed_choice(failed, quota)
        if choice is None and not quota:
            served = await self.served_models(list_models)
            if self.current.lower() != failed.lower():
                return True
            choice = served_choice(self.catalogue, self.name, served,
                                   self.gone | self.exhausted, self.today,
                                   not self.catalogue.of(self.name))
        if choice is None:
            return False
        self.switch_to(failed, choice, why)
        return True

    async def served_models(self, list_models: Callable[[], Awaitable[list[str]]]
                            ) -> list[str]:
        """The endpoint's models, asked once; none (and a notice) when the list fails."""
        if self.served is None:
            try:
                self.served = await list_models()
            except ChatError as exc:
                self.served = []
                self.notices.append(f"warning: {self.name}'s models list failed (HTTP "
                                    f"{exc.status}: {exc.message[:120]}): no served model "
                                    "to switch to")
        return self.served

    def switch_to(self, old: str, new: str, why: str) -> None:
        note = Switch(self.name, old, new, why).note()
        self.switches.append(note)
        earlier = self.reasons.get(old.lower())
        self.reasons[new.lower()] = f"{earlier}; then {note}" if earlier else note
        self.current = new
