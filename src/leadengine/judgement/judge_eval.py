"""How well an evaluator judges: its evaluations of labelled sites against the labels.

A labels file is JSON Lines, one site per line::

    {"site": "https://example-clinic.co.th/", "band": "high",
     "angle": "Platform Dependency Risk", "never_pitch": ["Growth Marketing Package"],
     "category": "healthcare", "in_target_geography": true}

``site`` is a URL or a saved page (a path relative to the labels file). Every other key
is optional and only the keys a line has are scored: ``band`` (``high``, ``medium`` or
``low``, by the knowledge base's rubric bands), ``angle`` (an angle name, or null when
none should be named), ``never_pitch`` (services that must not be the pitch: the
exclusions), ``category`` (the taxonomy's value, or a list of acceptable ones) and
``in_target_geography`` (true, false, or null for "not stated"). Any evaluator is
measured the same way, so the offline one and an LLM can be compared on the same labels.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leadengine.errors import ConfigError
from leadengine.judgement.bands import band_name
from leadengine.judgement.evaluation import Evaluation

#: What a label may say, and the measure each key feeds.
MEASURES = {"band": "fit band", "angle": "angle", "never_pitch": "exclusions",
            "category": "category", "in_target_geography": "target geography"}
_KEYS = {"site", "notes", "id", *MEASURES}
BANDS = ("high", "medium", "low")
#: Sites evaluated at the same time.
CONCURRENCY = 4


@dataclass(frozen=True)
class Label:
    """One labelled site."""

    site: str
    line: int
    expected: dict[str, Any]


@dataclass
class Scores:
    """Right answers per measure, and each miss."""

    right: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def add(self, measure: str, ok: bool, site: str, detail: str) -> None:
        self.total[measure] = self.total.get(measure, 0) + 1
        self.right[measure] = self.right.get(measure, 0) + ok
        if not ok:
            self.misses.append(f"{site}: {MEASURES[measure]}: {detail}")

    def accuracy(self, measure: str) -> float | None:
        total = self.total.get(measure, 0)
        return self.right.get(measure, 0) / total if total else None

    def as_dict(self) -> dict[str, Any]:
        return {"measures": {MEASURES[m]: {"right": self.right.get(m, 0),
                                           "total": self.total[m],
                                           "accuracy": round(self.accuracy(m) or 0.0, 4)}
                             for m in MEASURES if m in self.total},
                "misses": self.misses, "failed": self.failed}

    def table(self) -> str:
        lines = [f"{'measure':<18} {'right':>5} {'of':>4} {'accuracy':>9}"]
        for measure in MEASURES:
            if measure in self.total:
                lines.append(f"{MEASURES[measure]:<18} {self.right.get(measure, 0):>5} "
                             f"{self.total[measure]:>4} {self.accuracy(measure):>9.1%}")
        if self.failed:
            lines.append(f"not evaluated: {len(self.failed)} site(s)")
        return "\n".join(lines)


def read_labels(path: Path) -> list[Label]:
    """The labels of a JSON Lines file; ConfigError (one line, naming the line) for a
    line that is not a label."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the labels ({exc})") from None
    labels = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path} line {number}: not JSON ({exc.msg})") from None
        labels.append(_label(path, number, data))
    if not labels:
        raise ConfigError(f"{path}: no labels")
    return labels


def _label(path: Path, number: int, data: Any) -> Label:
    where = f"{path} line {number}"
    if not isinstance(data, dict) or not isinstance(data.get("site"), str) \
            or not data["site"].strip():
        raise ConfigError(f"{where}: each label needs a \"site\" (a URL or a saved page)")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (expected: site, "
                          + ", ".join(MEASURES) + ")")
    if "band" in data and not all(b in BANDS for b in _accepted(data["band"])):
        raise ConfigError(f"{where}: band must be one of {', '.join(BANDS)} (or a list "
                          "of them)")
    if "never_pitch" in data and not (isinstance(data["never_pitch"], list) and all(
            isinstance(s, str) for s in data["never_pitch"])):
        raise ConfigError(f"{where}: never_pitch must be a list of service names")
    if "in_target_geography" in data and data["in_target_geography"] not in (True, False,
                                                                             None):
        raise ConfigError(f"{where}: in_target_geography must be true, false or null")
    site = data["site"].strip()
    if "://" not in site:  # a saved page, next to the labels
        site = str((path.parent / site).resolve())
    return Label(site, number, {k: v for k, v in data.items() if k in MEASURES})


def _accepted(value: Any) -> list[Any]:
    """A label's accepted answers: one value, or a list of equally right ones."""
    return list(value) if isinstance(value, list) else [value]


def band_of(score: int, bands: dict[str, int]) -> str:
    """The rubric band a score falls in (``high``, ``medium``, ``low``)."""
    return band_name(score, bands).lower()


def score(labels: Sequence[Label], evaluations: Sequence[Evaluation | str],
          bands: dict[str, int]) -> Scores:
    """Each evaluation (or its failure message) against its label."""
    scores = Scores()
    for label, found in zip(labels, evaluations, strict=True):
        name = label.site.rsplit("/", 2)[-2] if label.site.endswith(
            "index.html") else label.site
        if isinstance(found, str):
            scores.failed.append(f"{name}: {found}")
            continue
        want = label.expected
        if "band" in want:
            got = band_of(found.fit_score, bands)
            accepted = _accepted(want["band"])
            scores.add("band", got in accepted, name,
                       f"{got} ({found.fit_score}), labelled {' or '.join(accepted)}")
        if "angle" in want:
            accepted = _accepted(want["angle"])
            scores.add("angle", found.angle in accepted, name,
                       f"{found.angle}, labelled {' or '.join(map(str, accepted))}")
        if "never_pitch" in want:
            scores.add("never_pitch", found.primary_service not in want["never_pitch"],
                       name, f"pitched {found.primary_service}, which it must not be")
        if "category" in want:
            got_category = (found.category or {}).get("value")
            accepted = want["category"] if isinstance(want["category"], list) else [
                want["category"]]
            scores.add("category", got_category in accepted, name,
                       f"{got_category}, labelled {' or '.join(map(str, accepted))}")
        if "in_target_geography" in want:
            got_target = (found.location or {}).get("in_target_geography")
            scores.add("in_target_geography", got_target == want["in_target_geography"],
                       name, f"{got_target}, labelled {want['in_target_geography']}")
    return scores
