"""``leadengine eval-judge``: any evaluator scored against labelled sites (fit band,
angle, exclusions, category, target geography), the offline one and an LLM alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leadengine.cli import cli
from leadengine.errors import ConfigError
from leadengine.judgement.judge_eval import band_of, read_labels
from tests.conftest import REPO, SITES
from tests.fakes.openai_server import FakeOpenAI, Reply


def fixture_labels(tmp_path: Path) -> Path:
    """The fixture sites' hand labels (``expected.json``) as a labels file."""
    lines = []
    for expected in sorted(SITES.glob("*/expected.json")):
        if expected.parent.name == "huge-page":
            continue
        data = json.loads(expected.read_text(encoding="utf-8"))
        label: dict[str, Any] = {
            "site": str(expected.parent / "index.html"), "band": data["band"],
            "angle": data["angle"], "never_pitch": data["never_pitch"],
            "in_target_geography": (False if data["out_of_market"] else
                                    True if data["place"] else None)}
        lines.append(json.dumps(label, ensure_ascii=False))
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(cli, ["eval-judge", *args, "--method", "keyword"], env=env)


def test_the_offline_evaluator_on_the_fixture_labels(tmp_path: Path) -> None:
    result = run(str(fixture_labels(tmp_path)), "--provider", "heuristic", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    measures = report["measures"]
    assert report["provider"] == "heuristic" and report["sites"] == 23
    assert set(measures) == {"fit band", "angle", "exclusions", "target geography"}
    assert measures["exclusions"]["accuracy"] == 1.0
    assert measures["fit band"]["accuracy"] >= 0.9
    assert measures["target geography"]["total"] == 23
    # Every miss is listed with what was found and what the label says.
    wrong = sum(m["total"] - m["right"] for m in measures.values())
    assert len(report["misses"]) == wrong
    assert all("labelled" in miss or "must not" in miss for miss in report["misses"])


def test_an_llm_is_measured_on_the_same_labels(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    fake_llm.default = Reply.json({
        "business_name": "X", "business_type": "Clinic", "primary_service": "Foundation Package",
        "fit_score": 90, "reasoning": "Good.", "outreach_angle": "Platform.",
        "angle": "Platform Dependency Risk"})
    labels = tmp_path / "two.jsonl"
    labels.write_text(
        json.dumps({"site": str(SITES / "bangkok-dental-fb-only" / "index.html"),
                    "band": "high", "angle": "Platform Dependency Risk"}) + "\n"
        + json.dumps({"site": str(SITES / "london-bakery" / "index.html"),
                      "band": "low", "angle": "Operational Bottleneck"}) + "\n",
        encoding="utf-8")
    result = run(str(labels), "--provider", "custom", "--base-url", fake_llm.base_url,
                 "--no-cache")
    assert result.exit_code == 0, result.output
    assert "custom" in result.output.splitlines()[0]
    # The fake says "high" and "Platform" for both: right on one, wrong on the other
    # (the out-of-market bakery's score is capped by the facts, so its band is right).
    assert "angle                  1    2     50.0%" in result.output
    assert "london-bakery: angle: Platform Dependency Risk, labelled Operational" \
        in result.output
    assert len(fake_llm.chat_requests) == 2


def test_the_shipped_example_labels_work() -> None:
    result = run(str(REPO / "examples" / "judge-labels.jsonl"), "--provider", "heuristic")
    assert result.exit_code == 0, result.output
    assert "fit band               1    1    100.0%" in result.output


@pytest.mark.parametrize("text, message", [
    ("not json\n", "line 1: not JSON"),
    ('{"band": "high"}\n', 'line 1: each label needs a "site"'),
    ('{"site": "a.html", "band": "great"}\n', "band must be one of high, medium, low"),
    ('{"site": "a.html", "colour": 1}\n', "unknown key 'colour'"),
    ('{"site": "a.html", "never_pitch": "x"}\n', "never_pitch must be a list"),
    ("\n# a comment\n", "no labels"),
])
def test_bad_labels_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        read_labels(path)
    result = run(str(path), "--provider", "heuristic")
    assert result.exit_code != 0 and message.split(":")[-1].strip() in result.output
    assert "Traceback" not in result.output


def test_bands_follow_the_rubric() -> None:
    bands = {"high": 70, "medium": 40, "low": 0}
    assert [band_of(s, bands) for s in (100, 70, 69, 40, 39, 0)] == [
        "high", "high", "medium", "medium", "low", "low"]
