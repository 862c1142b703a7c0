"""What an edit of the knowledge base would do to the leads already scored: each stored
lead's fit score estimated again under the edited rubric and target cities, and the
leads that would change band.

A stored evaluation keeps where the site is (``location``: its city and whether that is
a target market), its scale and its kind, not every fact its score was made of (the
page text is gone). So the estimate moves the stored score by what the edit changes
and caps it again:

* the rubric's ``base``: every lead moves by the change;
* the geography: a lead whose city the edited list names is in a target market, or out
  of market, as that place says; a city taken off the list is no longer placed (its
  location counts as not stated); any other lead keeps the state it was stored with.
  It then earns ``in_target_geography``, ``unknown_geography`` or nothing, under the
  edited weights;
* the caps (out of market, location not stated, a small outlet, a site of many
  businesses) under the edited values;
* the bands under the edited ``bands``.

A score that a cap held down is raised by a higher cap only as far as the change above
takes it: the estimate never invents points it cannot see.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from leadengine.judgement.bands import band_name
from leadengine.knowledge.rules import Place, Rubric, Rules

#: Site kinds of many businesses (their listings are the leads).
MANY_BUSINESSES = ("directory", "marketplace", "media")


@dataclass(frozen=True)
class Lead:
    """What the estimate reads of a stored evaluation."""

    id: int
    name: str
    fit_score: int
    city: str
    #: True: in a target market; False: out of market; None: not stated.
    in_target: bool | None
    scale: str = ""
    site_kind: str = ""

    @classmethod
    def of(cls, evaluation_id: int, fit_score: int, data: dict[str, Any]) -> Lead:
        found = data.get("location")
        location: dict[str, Any] = found if isinstance(found, dict) else {}
        target = location.get("in_target_geography")
        return cls(evaluation_id, str(data.get("business_name") or ""), int(fit_score),
                   str(location.get("city") or ""),
                   target if isinstance(target, bool) else None,
                   _value(data.get("scale")), _value(data.get("site_kind")))


def _value(found: Any) -> str:
    return str(found.get("value") or "") if isinstance(found, dict) else str(found or "")


@dataclass(frozen=True)
class Change:
    """A lead whose estimated score changes."""

    id: int
    name: str
    before: int
    after: int
    band_before: str
    band_after: str


@dataclass
class Preview:
    """The estimate over the stored leads."""

    leads: int = 0
    #: Leads whose score or band changes (the first of them are in ``changed``).
    changes: int = 0
    changed: list[Change] = field(default_factory=list)
    #: (band before, band after) -> leads, for those that change band.
    moves: Counter[tuple[str, str]] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def band_changes(self) -> int:
        return sum(self.moves.values())


def _places(rules: Rules) -> dict[str, Place]:
    """Every spelling of every place (its name and aliases), casefolded -> the place."""
    found: dict[str, Place] = {}
    for place in rules.places:
        for spelling in (place.name, *place.aliases):
            found.setdefault(spelling.casefold().strip(), place)
    return found


def _state(lead: Lead, before: dict[str, Place], after: dict[str, Place]) -> bool | None:
    key = lead.city.casefold().strip()
    if not key:
        return lead.in_target
    if key in after:
        return after[key].target
    if key in before:
        return None  # taken off the list: no longer placed
    return lead.in_target


def _geography(state: bool | None, rubric: Rubric) -> int:
    if state is True:
        return rubric.in_target_geography
    return rubric.unknown_geography if state is None else 0


def _cap(lead: Lead, state: bool | None, rubric: Rubric) -> int:
    caps = [100]
    if state is False:
        caps.append(rubric.out_of_market_max_fit)
    elif state is None:
        caps.append(rubric.unknown_geography_max_fit)
    if lead.scale == "small":
        caps.append(rubric.small_outlet_max_fit)
    if lead.site_kind in MANY_BUSINESSES:
        caps.append(rubric.directory_max_fit)
    return min(caps)


def rescore(leads: Iterable[Lead], before: Rules, after: Rules,
            keep: int = 200) -> Preview:
    """Each lead's score under ``after`` (stored under ``before``); the first ``keep``
    changes are listed, largest first."""
    started = time.perf_counter()
    old, new = before.rubric, after.rubric
    old_places, new_places = _places(before), _places(after)
    preview = Preview()
    for lead in leads:
        preview.leads += 1
        state = _state(lead, old_places, new_places)
        moved = (new.base - old.base + _geography(state, new)
                 - _geography(lead.in_target, old))
        score = max(0, min(100, lead.fit_score + moved, _cap(lead, state, new)))
        band_before = band_name(lead.fit_score, old.bands)
        band_after = band_name(score, new.bands)
        if score != lead.fit_score or band_before != band_after:
            preview.changes += 1
            preview.changed.append(Change(lead.id, lead.name, lead.fit_score, score,
                                          band_before, band_after))
            if band_before != band_after:
                preview.moves[(band_before, band_after)] += 1
    preview.changed.sort(key=lambda c: (-abs(c.after - c.before), c.id))
    del preview.changed[keep:]
    preview.seconds = time.perf_counter() - started
    return preview
