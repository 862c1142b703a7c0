"""The offline evaluator's category and target-geography judgement on the real-pattern
sites (``tests/fixtures/realpatterns``), each part of their split scored with the
``eval-judge`` machinery. The split (``expected.json``'s ``split``) was made once,
before tuning; only the development part may be tuned on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from leadengine.config import Settings
from leadengine.judgement.judge_eval import Label, Scores, score
from leadengine.pipeline import evaluate_labels, load_knowledge
from tests.conftest import REPO

PATTERNS = REPO / "tests" / "fixtures" / "realpatterns"
TARGET = {"yangon", "mandalay", "bangkok"}
SETTINGS = Settings(provider="heuristic", retrieval_method="keyword", use_cache=False)


def labels(split: str) -> list[Label]:
    """Each site's category, and whether its labelled city is a target market."""
    found = []
    for path in sorted(PATTERNS.glob("*/expected.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("split") != split:
            continue
        expected: dict[str, object] = {
            key: data[key] for key in ("band", "angle", "never_pitch") if key in data}
        if data.get("category"):
            expected["category"] = data["category"]
        location = data.get("location") or {}
        cities = location.get("city") or []
        cities = [cities] if isinstance(cities, str) else cities
        if cities or location.get("country"):
            expected["in_target_geography"] = any(c.lower() in TARGET for c in cities)
        found.append(Label(str(Path(path.parent, "index.html")), 0, expected))
    return found


def scores(split: str) -> Scores:
    found = labels(split)
    kb = load_knowledge(SETTINGS)
    return score(found, asyncio.run(evaluate_labels(found, SETTINGS)),
                 dict(kb.rules.rubric.bands))


@pytest.mark.parametrize("split, category, geography", [
    ("dev", 0.9, 0.95), ("heldout", 0.9, 0.95)])
def test_category_and_target_geography(split: str, category: float,
                                       geography: float) -> None:
    result = scores(split)
    assert result.total["category"] >= 15 and result.total["in_target_geography"] >= 14
    assert not result.failed
    assert (result.accuracy("category") or 0) >= category, result.misses
    assert (result.accuracy("in_target_geography") or 0) >= geography, result.misses


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_fit_band_angle_and_exclusions(split: str) -> None:
    """The issue's targets for the offline evaluator: band and angle >= 85 %,
    exclusions 100 % (labels: ``band``, ``angle``, ``never_pitch`` in expected.json,
    written from the knowledge base's rubric without running the evaluator)."""
    result = scores(split)
    assert result.total["band"] >= 15 and result.total["angle"] >= 15
    assert (result.accuracy("band") or 0) >= 0.85, result.misses
    assert (result.accuracy("angle") or 0) >= 0.85, result.misses
    assert result.accuracy("never_pitch") == 1.0, result.misses
