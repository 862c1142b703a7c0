"""Bad input gets a low-confidence judgement that says why, never a confident guess: a
site with no text (a JavaScript shell, images only), in a language the rules do not
read, or whose location clues disagree."""

from __future__ import annotations

from pathlib import Path

import pytest

from leadengine.config import Settings
from leadengine.facts.confidence import readable_words
from leadengine.judgement.evaluation import Evaluation
from leadengine.output.export import flatten
from leadengine.output.report import markdown_report, text_report
from leadengine.pipeline import evaluate, load_knowledge

SETTINGS = Settings(provider="heuristic", retrieval_method="keyword", use_cache=False)
PROSE = ("Our family clinic has looked after patients for twenty years. We offer general "
         "check-ups, vaccinations, minor surgery and health screening for adults and "
         "children. Our doctors and nurses speak English and Thai, and we accept walk-in "
         "patients every day of the week from eight in the morning until late evening. ")


def judge(tmp_path: Path, html: str) -> Evaluation:
    page = tmp_path / "index.html"
    page.write_text(html, encoding="utf-8")
    return evaluate(str(page), SETTINGS)


def test_a_javascript_shell_is_judged_with_low_confidence_and_says_why(tmp_path: Path
                                                                      ) -> None:
    found = judge(tmp_path, "<html><head><title>Sakura Dental Clinic</title>"
                            '<script type="module" src="/assets/index-4f2a.js"></script>'
                            '</head><body><div id="root"></div></body></html>')
    assert found.confidence["level"] == "low"
    assert "almost no readable text" in found.confidence["reasons"][0]
    assert "Confidence low: the site has almost no readable text" in found.reasoning
    # Never a confident guess: its gaps are not known, so the score stays low.
    rubric = load_knowledge(SETTINGS).rules.rubric
    assert found.fit_score <= rubric.unidentified_max_fit
    assert "capped at" in found.reasoning and "almost no readable text" in found.reasoning


def test_a_page_of_images_only_is_low_confidence(tmp_path: Path) -> None:
    images = "".join(f'<img src="/menu-{i}.jpg" alt="">' for i in range(30))
    found = judge(tmp_path, f"<html><head><title>Menu</title></head><body>{images}"
                            "<p>Call 02 555 0101</p></body></html>")
    assert found.confidence["level"] == "low"


def test_a_site_in_a_language_the_rules_do_not_read_is_medium_confidence(tmp_path: Path
                                                                        ) -> None:
    text = ("Notre clinique familiale soigne les patients depuis vingt ans. Nous proposons "
            "des bilans de santé, des vaccinations et de la petite chirurgie pour adultes et "
            "enfants, tous les jours de la semaine, de huit heures du matin jusqu'au soir. "
            ) * 4
    found = judge(tmp_path, f'<html lang="fr"><head><title>Clinique Lumière</title></head>'
                            f"<body><h1>Clinique Lumière</h1><p>{text}</p></body></html>")
    assert found.confidence["level"] in ("medium", "low")
    assert any("French (fr)" in reason for reason in found.confidence["reasons"])
    assert "Confidence " in found.reasoning


def test_location_clues_that_disagree_make_the_geography_unknown(tmp_path: Path) -> None:
    found = judge(tmp_path, f"""<html lang="en"><head><title>Sunrise Clinic</title></head>
        <body><h1>Sunrise Clinic</h1><p>{PROSE}</p>
        <p>Address: 45 Sukhumvit Road, Khlong Toei, Bangkok 10110, Thailand</p>
        <p>Call us: +95 9 450 618 273 or +95 1 384 219</p></body></html>""")
    location = found.location
    assert location["city"] == "Bangkok"
    assert location["in_target_geography"] is None
    assert "every phone number on the site is from Myanmar" in location["evidence"]
    assert found.confidence["level"] == "low"
    assert any("location clues disagree" in r for r in found.confidence["reasons"])
    rubric = load_knowledge(SETTINGS).rules.rubric
    assert found.fit_score <= rubric.unknown_geography_max_fit


def test_agreeing_clues_give_a_confident_judgement(tmp_path: Path) -> None:
    found = judge(tmp_path, f"""<html lang="en"><head><title>Sunrise Clinic</title></head>
        <body><h1>Sunrise Clinic</h1><p>{PROSE}</p>
        <p>Address: 45 Sukhumvit Road, Khlong Toei, Bangkok 10110, Thailand</p>
        <p>Call us: 02 555 0192</p></body></html>""")
    assert found.location["in_target_geography"] is True
    assert found.confidence == {"level": "high", "reasons": []}
    assert "Confidence" not in found.reasoning
    assert "Confidence" not in text_report(found.model_dump())


def test_confidence_is_shown_and_exported(tmp_path: Path) -> None:
    found = judge(tmp_path, '<html><head><title>Mira Studio</title></head><body>'
                            '<div id="app"></div></body></html>').model_dump()
    line = next(line for line in text_report(found).splitlines() if "Confidence" in line)
    assert line.split()[:2] == ["Confidence", "low:"] and "almost no readable text" in line
    assert "**Confidence:** low: the site has almost no readable text" in markdown_report(found)
    row = flatten(found)
    assert row["confidence"] == "low"
    assert row["confidence_reasons"].startswith("the site has almost no readable text")


@pytest.mark.parametrize("text, words", [
    ("", 0), ("Hello world, we are open", 5),
    ("ร้านอาหารไทย", 4),  # 12 Thai characters read as 4 words
    ("Clinic ဆေးခန်း", 3)])
def test_readable_words_counts_unspaced_scripts_by_characters(text: str, words: int) -> None:
    assert readable_words(text) == words
