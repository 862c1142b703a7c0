"""The offline evaluator on realistic fixture sites, driven by the knowledge-base rules."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from leadengine import Evaluation, KnowledgeBase, Settings
from leadengine.pipeline import evaluate_url
from tests.conftest import KNOWLEDGE, SITES
from tests.fakes.site_server import SiteServer

# Most tests judge sites, not retrieval: the seed's keyword method keeps them fast.
HEURISTIC = Settings(provider="heuristic", retrieval_method="keyword", allow_private=True)
ALL_SITES = sorted(p.name for p in SITES.iterdir() if (p / "expected.json").is_file())


def evaluate(target: str, kb: KnowledgeBase) -> Evaluation:
    return asyncio.run(evaluate_url(target, HEURISTIC, kb))


def expected(site: str) -> dict[str, object]:
    return json.loads((SITES / site / "expected.json").read_text(encoding="utf-8"))


def test_bangkok_facebook_only_clinic_fits_well_with_platform_dependency(
        sites: SiteServer, kb: KnowledgeBase) -> None:
    evaluation = asyncio.run(evaluate_url(sites.url("bangkok-dental-fb-only/"),
                                          Settings(provider="heuristic", allow_private=True),
                                          kb))
    assert evaluation.sources and all(s.heading for s in evaluation.sources)
    assert evaluation.business_name == "Smile Bright Dental"
    assert evaluation.fit_score >= 70
    assert evaluation.angle == "Platform Dependency Risk"
    assert evaluation.primary_service == "Foundation Package"
    assert evaluation.outreach_angle.startswith("Platform dependency risk - current growth "
                                                "relies on rented Facebook platform.")
    assert "Bangkok-based" in evaluation.reasoning
    assert "Facebook-only presence" in evaluation.reasoning
    assert "no tracking scripts detected" in evaluation.reasoning
    assert (evaluation.provider, evaluation.model, evaluation.rag) == ("heuristic", "rules-v1",
                                                                       True)
    assert evaluation.signals["facebook_only"] is True
    assert evaluation.digital_maturity["Measurement"]["score"] == 0


def test_marketing_agency_is_never_pitched_marketing(kb: KnowledgeBase) -> None:
    evaluation = evaluate(str(SITES / "bangkok-marketing-agency"), kb)
    assert evaluation.business_type == "Marketing Agency"
    assert evaluation.primary_service == "Technology Services"
    assert "marketing" not in evaluation.primary_service.lower()
    assert "Growth Marketing Package" in evaluation.excluded_services
    assert evaluation.fit_score <= 39


def test_dev_shop_is_never_sold_development(kb: KnowledgeBase) -> None:
    evaluation = evaluate(str(SITES / "yangon-dev-shop"), kb)
    assert evaluation.primary_service not in evaluation.excluded_services
    assert {"Foundation Package", "Custom Digital Solutions"} <= set(
        evaluation.excluded_services)
    assert evaluation.fit_score <= 39


@pytest.mark.parametrize("site", ALL_SITES)
def test_exclusions_hold_on_every_fixture(site: str, kb: KnowledgeBase) -> None:
    evaluation = evaluate(str(SITES / site), kb)
    assert evaluation.primary_service not in expected(site)["never_pitch"]  # type: ignore[operator]
    assert 0 <= evaluation.fit_score <= 100
    assert evaluation.primary_service in {s.name for s in kb.rules.services}


@pytest.mark.parametrize("site", ["singapore-clinic", "london-bakery"])
def test_out_of_market_scores_low_whatever_its_gaps(site: str, kb: KnowledgeBase) -> None:
    evaluation = evaluate(str(SITES / site), kb)
    assert evaluation.fit_score <= kb.rules.rubric.out_of_market_max_fit
    assert "outside the target markets" in evaluation.reasoning


def test_mature_in_target_business_is_medium_not_high(kb: KnowledgeBase) -> None:
    # Analytics, online booking and a contact form live on its subpages: the crawl finds them.
    evaluation = evaluate(str(SITES / "bangkok-clinic-mature"), kb)
    assert 40 <= evaluation.fit_score < 70
    assert evaluation.signals["online_booking"] and evaluation.signals["contact_form"]


def test_burmese_site_is_placed_in_yangon(kb: KnowledgeBase) -> None:
    evaluation = evaluate(str(SITES / "yangon-clinic-burmese"), kb)
    assert evaluation.reasoning.startswith("Yangon-based")
    assert evaluation.fit_score >= 70


def test_near_empty_page_is_low(kb: KnowledgeBase) -> None:
    assert evaluate(str(SITES / "near-empty"), kb).fit_score <= 39


def test_deterministic(kb: KnowledgeBase) -> None:
    target = str(SITES / "yangon-school")
    assert evaluate(target, kb) == evaluate(target, kb)


def test_accuracy_on_the_fixtures_meets_the_bar(kb: KnowledgeBase) -> None:
    bands = angles = 0
    for site in ALL_SITES:
        evaluation = evaluate(str(SITES / site), kb)
        band = ("high" if evaluation.fit_score >= 70 else
                "medium" if evaluation.fit_score >= 40 else "low")
        bands += band == expected(site)["band"]
        angles += evaluation.angle == expected(site)["angle"]
    assert bands / len(ALL_SITES) >= 0.9
    assert angles / len(ALL_SITES) >= 0.8


def test_rules_come_from_the_knowledge_base(tmp_path: Path, kb: KnowledgeBase) -> None:
    # One source of truth: make Bangkok a non-target market in a copy of the knowledge
    # files and the same clinic drops to the out-of-market cap.
    copy = Path(shutil.copytree(KNOWLEDGE, tmp_path / "knowledge"))
    criteria = copy / "Lead_q_criteria.md"
    text = criteria.read_text(encoding="utf-8")
    start = text.index("- name: Bangkok")
    end = text.index("- name:", start + 1)
    block = text[start:end]
    criteria.write_text(text.replace(block, block.rstrip() + "\n      target: false\n", 1)
                        if "target: true" not in block else
                        text.replace(block, block.replace("target: true", "target: false")),
                        encoding="utf-8")
    edited = KnowledgeBase.from_dir(copy)
    assert not next(p for p in edited.rules.geography if p.name == "Bangkok").target
    before = evaluate(str(SITES / "bangkok-dental-fb-only"), kb)
    after = evaluate(str(SITES / "bangkok-dental-fb-only"), edited)
    assert before.fit_score >= 70 and after.fit_score <= 35


def test_unreadable_subpages_are_reported_not_fatal(sites: SiteServer,
                                                    kb: KnowledgeBase) -> None:
    sites.route("/partial/", body='<html><head><title>Golden Teashop | Mandalay</title></head>'
                '<body><p>Mandalay teashop and restaurant since 1990.</p>'
                '<a href="/partial/contact.html">Contact</a>'
                '<a href="/partial/about.html">About us</a></body></html>')
    sites.route("/partial/contact.html", status=500)
    sites.route("/partial/about.html", body="<html><body><p>Family run, 40 staff.</p>"
                "</body></html>")
    evaluation = evaluate(sites.url("partial/"), kb)
    assert evaluation.warnings == [
        f"subpage not read: {sites.url('partial/contact.html')}: HTTP 500 Internal Server Error"]
    assert evaluation.business_name == "Golden Teashop"


@pytest.mark.parametrize("site", ALL_SITES)
def test_every_point_of_the_score_is_in_the_reasoning(site: str, kb: KnowledgeBase) -> None:
    """The reasoning ends with the rubric's terms: each one's points and what earned
    them, any cap and why, and the score itself; the terms add up to it."""
    import re

    from leadengine.facts.scoring import fact_score, fit_caps, score_terms
    from leadengine.facts.site_facts import site_facts
    from leadengine.website.load import load_site

    path = str(SITES / site / "index.html")
    evaluation = evaluate(path, kb)
    facts = site_facts(asyncio.run(load_site(path, HEURISTIC)), kb.rules)
    explained = evaluation.reasoning[evaluation.reasoning.index("Score: "):]
    assert explained.endswith(f"= {evaluation.fit_score}.")
    terms = score_terms(facts, kb.rules.rubric)
    for _, label in terms:
        assert label in explained, (label, explained)
    total = max(0, min(100, round(sum(points for points, _ in terms))))
    if total > evaluation.fit_score:  # a cap applied, and says why
        cap, why = min(c for c in fit_caps(facts, kb.rules.rubric) if c[0] < total)
        assert f"capped at {cap} for {why}" in explained
    assert fact_score(facts, kb.rules.rubric) == evaluation.fit_score
    assert re.search(r"base \d+", explained)


def test_the_pitch_for_a_kind_of_business_comes_from_the_knowledge_base(kb) -> None:
    """A construction firm without a way to enquire gets the B2B service the knowledge
    base names for its category; a clinic does not; without that service in the
    knowledge base the construction firm gets the general pick."""
    construction = evaluate(str(SITES / "bangkok-construction" / "index.html"), kb)
    clinic = evaluate(str(SITES / "bangkok-clinic-mature" / "index.html"), kb)
    assert construction.primary_service == "B2B Lead Generation"
    assert clinic.primary_service != "B2B Lead Generation"
    rules = kb.rules.model_copy(update={"services": [
        s for s in kb.rules.services if s.name != "B2B Lead Generation"]})
    from leadengine.facts.site_facts import site_facts
    from leadengine.judgement.evaluators.heuristic import judge
    from leadengine.website.load import load_site
    site = asyncio.run(load_site(str(SITES / "bangkok-construction" / "index.html"),
                                 HEURISTIC))
    assert judge(site_facts(site, rules), rules).service_name != "B2B Lead Generation"


def test_each_point_names_what_earned_it(kb) -> None:
    found = evaluate(str(SITES / "bangkok-restaurant-thai" / "index.html"), kb)
    assert 'industry F&B ("' in found.reasoning
    assert 'Established business ("ตั้งแต่ปี")' in found.reasoning
    assert 'Stated capacity ("ที่นั่ง")' in found.reasoning
    assert "in a target market (Bangkok: address text:" in found.reasoning
