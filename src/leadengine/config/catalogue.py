"""The model catalogue: each provider's models as data (``data/models.toml``).

For every model a provider serves, what the engine needs to know and what changes every
few months: its lifecycle (active, preview, legacy, deprecated, retired, with dates and
the replacement the provider names), its price, its context and output limits, what a
request may carry (a strict JSON schema and through which field, sampling parameters,
reasoning effort and its values, prefill), its rate limits, and the page each entry was
read from and when. Families (a regular expression on the id) give capabilities to
models no entry names: an Ollama tag, a vLLM deployment, a dated snapshot.

A user's catalogue (the ``catalogue`` setting, a TOML file of the same shape) is read
over the bundled one: its ``[defaults]`` replace these, a ``[[model]]`` entry for a
model the bundled file has replaces the fields it sets, a new one is added, and its
families are tried first. Every entry is checked when read; a missing field or a bad
date is one :class:`~leadengine.errors.ConfigError` line naming the file and the entry.

The entries are this module's; reading and checking the files (once per process, and
again when the user's file changes) is :mod:`leadengine.config.catalogue_file`. Only the
standard library is imported.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field, replace

#: Lifecycle states, from most to least usable.
STATUSES = ("active", "preview", "legacy", "deprecated", "retired")
#: Where a strict JSON schema goes in a request.
SCHEMA_FIELDS = ("response_format", "output_config")
#: Request fields that set how hard a reasoning model thinks.
REASONING_FIELDS = ("reasoning_effort", "output_config.effort")
#: Days before its retirement that a configured model is warned about.
WARN_DAYS = 30


@dataclass(frozen=True)
class Capabilities:
    """What a request to a model may carry."""

    #: Where a strict JSON schema goes (``response_format``, ``output_config``); None:
    #: the model takes none (JSON mode, or an instruction, is used instead).
    schema: str | None = None
    #: False: temperature, top_p and top_k are refused (HTTP 400).
    sampling: bool = True
    #: False: the conversation must end with a user turn (no assistant prefill). None:
    #: not known.
    prefill: bool | None = None
    #: The request field that sets the reasoning effort; None: not a reasoning model.
    reasoning: str | None = None
    #: The values that field accepts.
    efforts: tuple[str, ...] = ()

    def effort(self, wanted: str) -> str | None:
        """The effort value to send for the user's ``wanted`` (low/medium/high): it, when
        accepted; else the model's ``default``; else the closest accepted level; None
        for a model that takes no effort."""
        if self.reasoning is None:
            return None
        if not self.efforts or wanted in self.efforts:
            return wanted
        if "default" in self.efforts:
            return "default"
        order = ("minimal", "low", "medium", "high", "xhigh", "max")
        levels = [e for e in self.efforts if e in order]
        if not levels:
            return None
        at = order.index(wanted) if wanted in order else 2
        return min(levels, key=lambda e: abs(order.index(e) - at))


@dataclass(frozen=True)
class ModelEntry:
    """One model of one provider, as the catalogue knows it."""

    provider: str
    id: str
    status: str
    source: str
    checked: datetime.date
    aliases: tuple[str, ...] = ()
    deprecated: datetime.date | None = None
    retires: datetime.date | None = None
    replacement: str | None = None
    #: USD per million (input, output) tokens.
    price: tuple[float, float] | None = None
    context: int | None = None
    max_output: int | None = None
    #: What the entry says a request may carry; :attr:`given` names the fields it sets
    #: (the others come from the family its id matches, as for a model with no entry).
    capabilities: Capabilities = field(default_factory=Capabilities)
    given: frozenset[str] = frozenset()
    rpm: int | None = None
    tpm: int | None = None
    rpd: int | None = None
    tpd: int | None = None
    tier: str | None = None
    note: str | None = None

    def status_on(self, day: datetime.date) -> str:
        """The status on ``day``: past its retirement date a model is retired, whatever
        the entry's status says (the catalogue ages without being edited)."""
        if self.retires is not None and self.retires <= day:
            return "retired"
        return self.status

    def days_left(self, day: datetime.date) -> int | None:
        """Days from ``day`` until it retires (None: no date announced)."""
        return None if self.retires is None else (self.retires - day).days


@dataclass(frozen=True)
class Family:
    """Capabilities for the models whose id matches ``pattern``."""

    pattern: re.Pattern[str]
    providers: tuple[str, ...]
    capabilities: Capabilities
    source: str
    checked: datetime.date

    def matches(self, provider: str, model: str) -> bool:
        return (not self.providers or provider in self.providers) and \
            self.pattern.search(model) is not None


@dataclass(frozen=True)
class Catalogue:
    """The models of every provider, their defaults, and the families."""

    #: The day the catalogue as a whole was last checked.
    checked: datetime.date
    #: Provider -> the model used when none is chosen.
    defaults: dict[str, str]
    #: (provider, id or alias) -> entry.
    models: dict[tuple[str, str], ModelEntry]
    families: tuple[Family, ...]
    #: The files it was read from, bundled first.
    files: tuple[str, ...]

    def entry(self, provider: str, model: str) -> ModelEntry | None:
        """The entry for ``model`` of ``provider`` (by id or alias; case-insensitive)."""
        return self.models.get((provider, model.lower()))

    def default(self, provider: str) -> str | None:
        return self.defaults.get(provider)

    def capabilities(self, provider: str, model: str) -> Capabilities:
        """What a request to ``model`` may carry: what its entry says, and for what the
        entry leaves unsaid the first family's that matches, else nothing special (no
        strict schema, not a reasoning model)."""
        found = next((family.capabilities for family in self.families
                      if family.matches(provider, model)), Capabilities())
        known = self.entry(provider, model)
        if known is not None and known.given:
            found = replace(found, **{name: getattr(known.capabilities, name)
                                      for name in known.given})
        return found

    def price(self, provider: str, model: str) -> tuple[float, float] | None:
        known = self.entry(provider, model)
        return None if known is None else known.price

    def of(self, provider: str) -> list[ModelEntry]:
        """The provider's entries, each once, in the order of the files."""
        seen: dict[str, ModelEntry] = {}
        for (name, _), known in self.models.items():
            if name == provider:
                seen.setdefault(known.id, known)
        return list(seen.values())

    def replacement(self, provider: str, model: str, day: datetime.date) -> str | None:
        """The provider's named replacement for ``model``, followed while it is itself
        retired on ``day`` (a chain of retirements); None when there is none."""
        current, seen = model, {model.lower()}
        while True:
            known = self.entry(provider, current)
            if known is None or not known.replacement:
                return None if current == model else current
            current = known.replacement
            if current.lower() in seen:
                return None
            seen.add(current.lower())
            follower = self.entry(provider, current)
            if follower is None or follower.status_on(day) != "retired":
                return current

    def notice(self, provider: str, model: str, day: datetime.date,
               within: int = WARN_DAYS) -> str | None:
        """One line about a configured model that is retired, deprecated or retires
        within ``within`` days of ``day``; None when there is nothing to say."""
        known = self.entry(provider, model)
        if known is None:
            return None
        status, left = known.status_on(day), known.days_left(day)
        instead = self.replacement(provider, model, day) or known.replacement
        advice = (f"; replacement: {instead} (--model {instead} or LEADENGINE_MODEL)"
                  if instead else "; choose another with --model or LEADENGINE_MODEL")
        if status == "retired":
            when = f" on {known.retires.isoformat()}" if known.retires else ""
            return f"{provider} model {model!r} retired{when}{advice}"
        if status == "deprecated" or (left is not None and left <= within):
            when = (f"retires on {known.retires.isoformat()} (in {left} days)"
                    if known.retires is not None and left is not None
                    else "is deprecated (no retirement date announced)")
            return f"{provider} model {model!r} {when}{advice}"
        return None
