"""``leadengine models --check``: is the model the settings pick served, current and
priced, and what should change if not.

It asks the endpoint which models it serves (with the key), reads what the model
catalogue knows of the pick (status, days until it retires, price, limits,
capabilities), and ends with one line: ``OK: ...`` or ``CHANGE: ...`` saying what to
set. A models list that fails is a warning, not the end: the catalogue still speaks.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from leadengine.config import Provider, Settings
from leadengine.config.catalogue import WARN_DAYS, Capabilities, ModelEntry
from leadengine.errors import LeadEngineError
from leadengine.judgement.evaluators.backends import (
    ModelInfo,
    base_url_of,
    make_backend,
    model_info,
    models_list_failure,
)
from leadengine.judgement.evaluators.chat import ChatError
from leadengine.judgement.evaluators.switching import served_choice


@dataclass(frozen=True)
class ModelCheck:
    """What ``leadengine models --check`` found."""

    provider: str
    base_url: str
    model: str
    #: Who picked the model: the option or environment, leadengine.toml, the catalogue.
    chosen_by: str
    info: ModelInfo
    entry: ModelEntry | None
    #: What a request to it may carry.
    capabilities: Capabilities
    limits: dict[str, int | None]
    #: The models the endpoint serves; None when its list could not be read.
    served: list[str] | None
    #: Why the list could not be read.
    list_error: str | None
    #: How many of the served models the catalogue knows.
    known: int
    fallback: bool
    fallback_models: tuple[str, ...]
    replacement: str | None
    today: datetime.date
    #: True: nothing to change.
    ok: bool
    #: The last line: ``OK: ...`` or ``CHANGE: ...``.
    verdict: str
    #: Worth knowing, but nothing to change (no price, not in the catalogue...).
    remarks: list[str] = field(default_factory=list)


async def check_model(settings: Settings, today: datetime.date | None = None) -> ModelCheck:
    """Check the model the settings pick against the endpoint and the catalogue."""
    day = today or datetime.date.today()
    provider = settings.resolve_provider()
    if provider.backend is None:
        raise LeadEngineError("the offline heuristic evaluator has no model to check: set "
                              "GROQ_API_KEY or pass --provider to check an LLM provider's")
    base_url = base_url_of(settings, provider)
    backend = make_backend(settings, provider, base_url)
    served: list[str] | None
    list_error = None
    try:
        served = await backend.list_models()
    except ChatError as exc:
        failure = models_list_failure(exc, settings, provider, base_url)
        if exc.status in (401, 403):
            raise failure from None  # the key itself is refused: nothing else to check
        served, list_error = None, str(failure)
    model = settings.model or provider.default_model
    catalogue = settings.model_catalogue()
    entry = catalogue.entry(provider.name, model)
    replacement = catalogue.replacement(provider.name, model, day)
    ok, verdict, remarks = _verdict(settings, provider, model, entry, served, day,
                                    replacement)
    return ModelCheck(
        provider=provider.name, base_url=base_url, model=model,
        chosen_by=_chosen_by(settings, provider), entry=entry,
        capabilities=catalogue.capabilities(provider.name, model),
        known=sum(1 for name in served or () if catalogue.entry(provider.name, name)),
        info=model_info(settings, provider.name, model, model, day),
        limits=settings.rate_limits(provider, model), served=served,
        list_error=list_error, fallback=settings.fallback,
        fallback_models=settings.fallback_models, replacement=replacement, today=day,
        ok=ok, verdict=verdict, remarks=remarks)


def _chosen_by(settings: Settings, provider: Provider) -> str:
    if settings.model:
        where = settings.origins.get("model")
        return f"set in {where}" if where else "--model or LEADENGINE_MODEL"
    if "model" in settings.providers.get(provider.name, {}):
        return f"[providers.{provider.name}] in leadengine.toml"
    if provider.name in ("custom", "heuristic"):
        return f"{provider.name}'s own default"
    return f"the model catalogue's default for {provider.name}"


def _verdict(settings: Settings, provider: Provider, model: str,
             entry: ModelEntry | None, served: list[str] | None, day: datetime.date,
             replacement: str | None) -> tuple[bool, str, list[str]]:
    """``(ok, the last line, remarks)``."""
    served_names = {name.lower() for name in served} if served is not None else None
    instead = _instead(settings, provider, model, served, day, replacement)
    how = (f"set LEADENGINE_MODEL={instead} (or pass --model {instead})" if instead
           else "choose a served model with --model or LEADENGINE_MODEL (leadengine models)")
    remarks: list[str] = []
    status = entry.status_on(day) if entry is not None else None
    if served_names is not None and model.lower() not in served_names:
        return False, f"CHANGE: {provider.name} does not serve {model!r}: {how}", remarks
    if entry is not None and status == "retired":
        when = f" on {entry.retires.isoformat()}" if entry.retires else ""
        return False, f"CHANGE: {model!r} retired{when}: {how}", remarks
    left = entry.days_left(day) if entry is not None else None
    if entry is not None and (status == "deprecated" or (left is not None
                                                         and left <= WARN_DAYS)):
        when = (f"retires on {entry.retires.isoformat()} (in {left} days)"
                if entry.retires is not None else "is deprecated")
        return False, f"CHANGE: {model!r} {when}: {how}", remarks
    if entry is None:
        remarks.append(f"{model!r} is not in the model catalogue: its price, limits and "
                       "lifecycle are unknown (add it to a catalogue of your own: "
                       "docs/providers.md)")
    elif entry.price is None and settings.price_of(provider.name, model) is None:
        remarks.append(f"no price for {model!r}: evaluations carry no cost_usd (add one "
                       "under [prices] in leadengine.toml)")
    if status == "preview":
        remarks.append(f"{model!r} is a preview model: {provider.name} may retire it at "
                       "short notice")
    checked = "served" if served is not None else "not checked against the served list"
    kind = f", {status}" if status else ""
    return True, f"OK: {model!r} ({checked}{kind})", remarks


def _instead(settings: Settings, provider: Provider, model: str, served: list[str] | None,
             day: datetime.date, replacement: str | None) -> str | None:
    """The model to suggest instead: a fallback model or the replacement (when served),
    else the best served model."""
    served_names = {name.lower() for name in served} if served is not None else None
    catalogue = settings.model_catalogue()
    for candidate in (*settings.fallback_models, replacement):
        if not candidate or candidate.lower() == model.lower():
            continue
        entry = catalogue.entry(provider.name, candidate)
        if entry is not None and entry.status_on(day) == "retired":
            continue
        if served_names is None or candidate.lower() in served_names:
            return candidate
    if served is None:
        return None
    return served_choice(catalogue, provider.name, served, {model.lower()}, day, False)
