"""Grounding: every claim of a verdict held to the site's facts before it is shown, for
every evaluator. Pages of our own that reproduce what real answers get wrong (a made-up
name, a type of another trade, a city the site never names, a service not sold, a
sentence denying a signal the site shows, markup, a paragraph for a name, an answer in
a third script), each asserted field by field through the pipeline with a fake LLM."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from leadengine import Evaluation, KnowledgeBase, Settings
from leadengine.facts.site_facts import site_facts
from leadengine.judgement.evaluation import Verdict
from leadengine.judgement.grounding import clean, ground, name_on_site
from leadengine.pipeline import evaluate_url
from leadengine.website.load import load_site
from tests.conftest import SITES
from tests.fakes.openai_server import FakeOpenAI, Reply

PIZZA = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Luna Forno | Wood-fired pizza in Tanjong Pagar</title>
<meta name="description" content="Neapolitan pizza baked in a wood-fired oven, fresh pasta
and tiramisu. Dine in or order for pickup.">
<script type="application/ld+json">{"@context": "https://schema.org",
 "@type": "Restaurant", "name": "Luna Forno", "servesCuisine": "Pizza",
 "address": {"@type": "PostalAddress", "streetAddress": "41 Tanjong Pagar Road",
 "addressLocality": "Singapore", "postalCode": "088462", "addressCountry": "SG"},
 "telephone": "+65 6221 4410"}</script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-LUNA12345"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}
gtag('js', new Date()); gtag('config', 'G-LUNA12345');</script>
</head><body><header><a class="logo" href="/"><img src="/logo.png" alt="Luna Forno"></a>
<nav><a href="/menu">Menu</a> <a href="/contact">Contact</a></nav></header>
<h1>Wood-fired pizza, the Naples way</h1>
<p>Our pizzaiolo stretches every dough by hand and bakes it for ninety seconds at 450
degrees. Try the margherita, the diavola with spicy salami, or the white pizza with
mushrooms and truffle oil. We also serve fresh pasta, salads and homemade tiramisu.</p>
<p>Opening hours: Tuesday to Sunday, 11:30 to 22:00. Walk-ins welcome; for groups of
eight or more please call us.</p>
<p>41 Tanjong Pagar Road, Singapore 088462. Phone +65 6221 4410.</p>
<footer>© 2026 Luna Forno Pte. Ltd.</footer></body></html>"""

GOOD = {"business_name": "Luna Forno", "business_type": "Pizza Restaurant",
        "primary_service": "Foundation Package", "fit_score": 40,
        "reasoning": "Singapore pizza restaurant outside the target markets.",
        "outreach_angle": "Phone bookings for groups."}


@pytest.fixture
def pizza(tmp_path: Path) -> str:
    page = tmp_path / "luna" / "index.html"
    page.parent.mkdir()
    page.write_text(PIZZA, encoding="utf-8")
    return str(page)


def llm(fake: FakeOpenAI, kb: KnowledgeBase, target: str, **answer: Any) -> Evaluation:
    fake.queue(Reply.json({**GOOD, **answer}))
    settings = Settings(provider="custom", base_url=fake.base_url, use_cache=False,
                        retrieval_method="keyword", llm_retries=0)
    return asyncio.run(evaluate_url(target, settings, kb))


def checks(evaluation: Evaluation) -> dict[str, dict[str, str]]:
    return {c["check"]: c for c in evaluation.grounding["checks"]}


def test_a_grounded_answer_passes_every_check(fake_llm: FakeOpenAI, kb: KnowledgeBase,
                                              pizza: str) -> None:
    evaluation = llm(fake_llm, kb, pizza)
    assert evaluation.grounding["ok"] is True and evaluation.grounding["failed"] == 0
    assert [c["check"] for c in evaluation.grounding["checks"]] == [
        "text", "name", "type", "service", "location", "reasoning"]
    assert all(c["result"] == "pass" for c in evaluation.grounding["checks"])
    assert evaluation.business_name == "Luna Forno"
    assert not any(w.startswith("grounding:") for w in evaluation.warnings)


def test_a_made_up_name_and_another_trades_type_are_replaced(
        fake_llm: FakeOpenAI, kb: KnowledgeBase, pizza: str) -> None:
    """The issue's case: a pizza restaurant answered as "Example Business", a "Dental
    Clinic", with confidence high and no warning. Now: the facts' name and type, a
    warning for each, and the confidence is not high."""
    evaluation = llm(fake_llm, kb, pizza, business_name="Example Business",
                     business_type="Dental Clinic")
    assert evaluation.business_name == "Luna Forno"
    assert evaluation.business_type == "Food & Beverage Business"
    found = checks(evaluation)
    assert found["name"]["result"] == "corrected"
    assert found["name"]["claim"] == "Example Business"
    assert found["name"]["evidence"].startswith("found nowhere on the site; the site's name "
                                                "is 'Luna Forno'")
    assert found["type"]["result"] == "corrected"
    assert found["type"]["evidence"].startswith("it names healthcare, the site is "
                                                "food_beverage")
    assert evaluation.grounding == {**evaluation.grounding, "ok": False, "failed": 2}
    assert evaluation.confidence["level"] == "low"  # two claims failed
    assert "grounding: the evaluator's name 'Example Business' is not borne out by the " \
           "site" in " ".join(evaluation.warnings)


def test_one_failed_check_keeps_confidence_from_high(fake_llm: FakeOpenAI,
                                                     kb: KnowledgeBase, pizza: str) -> None:
    evaluation = llm(fake_llm, kb, pizza,
                     reasoning="A Yangon-based pizza restaurant with no website analytics.")
    found = checks(evaluation)
    assert found["location"]["result"] == "fail" and found["location"]["claim"] == "Yangon"
    assert found["location"]["evidence"].startswith("the site is in Singapore")
    assert found["reasoning"]["result"] == "fail"
    assert found["reasoning"]["evidence"].startswith("analytics: ")
    assert evaluation.confidence["level"] == "low"
    evaluation = llm(fake_llm, kb, pizza, reasoning="A pizza restaurant without analytics.")
    assert evaluation.grounding["failed"] == 1
    assert evaluation.confidence["level"] == "medium"
    assert any(r.startswith("the evaluator's reasoning is not borne out by the site")
               for r in evaluation.confidence["reasons"])


def test_a_service_the_knowledge_base_does_not_sell(fake_llm: FakeOpenAI, kb: KnowledgeBase,
                                                    pizza: str) -> None:
    evaluation = llm(fake_llm, kb, pizza, primary_service="Blockchain Consulting")
    found = checks(evaluation)["service"]
    assert (found["result"], found["claim"]) == ("fail", "Blockchain Consulting")
    assert found["evidence"].startswith("not one of the knowledge base's services (")
    # Near the name of one it sells: that one.
    evaluation = llm(fake_llm, kb, pizza, primary_service="the foundation package")
    assert evaluation.primary_service == "Foundation Package"
    assert checks(evaluation)["service"]["result"] == "corrected"


@pytest.mark.parametrize(("answer", "check", "shown"), [
    # Markup in a field: the text without it.
    ({"business_name": "<b>Luna Forno</b><script>alert(1)</script>"}, "text", "Luna Forno"),
    # A paragraph for a name: refused, the site's name instead.
    ({"business_name": "Luna Forno " + "the best pizza in town " * 20}, "name", "Luna Forno"),
    # A name of another script the site never writes.
    ({"business_name": "Пицца Луна Экспресс"}, "name", "Luna Forno"),
])
def test_bad_answers_are_grounded_or_refused_never_shown_raw(
        fake_llm: FakeOpenAI, kb: KnowledgeBase, pizza: str, answer: dict[str, str],
        check: str, shown: str) -> None:
    evaluation = llm(fake_llm, kb, pizza, **answer)
    assert evaluation.business_name == shown
    assert checks(evaluation)[check]["result"] == "corrected"
    assert "<" not in evaluation.model_dump_json().replace("\\u003c", "<").split(
        '"warnings"')[0]


def test_an_answer_in_a_third_script_is_noted(fake_llm: FakeOpenAI, kb: KnowledgeBase,
                                              pizza: str) -> None:
    evaluation = llm(fake_llm, kb, pizza, reasoning="这是一家新加坡的披萨餐厅，没有在线预订。")
    found = checks(evaluation)["text"]
    assert found["result"] == "fail" and found["claim"] == "reasoning"
    assert found["evidence"] == "written in CJK, neither English nor the site's language"
    assert evaluation.confidence["level"] != "high"


THAI_CAFE = """<!doctype html><html lang="th"><head><meta charset="utf-8">
<title>บ้านสวนคาเฟ่ | กาแฟคั่วเอง อารีย์</title></head><body>
<header><img class="logo" src="/logo.png" alt="บ้านสวนคาเฟ่"></header>
<h1>บ้านสวนคาเฟ่</h1><p>ร้านกาแฟเล็กๆ ในซอยอารีย์ กรุงเทพฯ เมล็ดกาแฟคั่วเองจากเชียงราย
ขนมอบสดใหม่ทุกเช้า เปิดทุกวัน 7:00-18:00 น.</p><p>โทร 02-123-4567</p></body></html>"""
BURMESE_CLINIC = """<!doctype html><html lang="my"><head><meta charset="utf-8">
<title>ရွှေမြိုင် ဆေးခန်း | ရန်ကုန်</title></head><body>
<h1>ရွှေမြိုင် ဆေးခန်း</h1><p>ဗဟန်းမြို့နယ်ရှိ မိသားစု ဆေးခန်း။ အထွေထွေရောဂါ၊
ကလေးအထူးကု ဝန်ဆောင်မှုများ။</p><p>ဖုန်း ၀၉ ၄၅၀ ၁၂၃ ၄၅၆</p></body></html>"""


@pytest.mark.parametrize(("html", "claims", "wrong"), [
    (THAI_CAFE, ["Baan Suan Cafe", "Ban Suan Café", "Bansuan Coffee"], "Golden Bean Cafe"),
    (BURMESE_CLINIC, ["Shwe Myaing Clinic", "Shwe Myaing Medical Centre"], "Yangon Clinic"),
])
def test_a_name_in_latin_letters_for_one_the_site_writes_in_its_own_script(
        kb: KnowledgeBase, tmp_path: Path, html: str, claims: list[str], wrong: str) -> None:
    page = tmp_path / "site" / "index.html"
    page.parent.mkdir()
    page.write_text(html, encoding="utf-8")
    facts = site_facts(asyncio.run(load_site(str(page))), kb.rules)
    for claim in claims:
        assert name_on_site(claim, facts).startswith("a transliteration of "), claim
    assert name_on_site(wrong, facts) == ""
    assert name_on_site("Пицца Луна", facts) == ""  # a script the site never writes


def test_names_on_the_site_in_other_forms(kb: KnowledgeBase) -> None:
    facts = site_facts(asyncio.run(load_site(str(SITES / "bangkok-dental-fb-only"))),
                       kb.rules)
    assert name_on_site("SMILE-BRIGHT dental", facts)
    assert name_on_site("Smile Bright Dental Clinic Co., Ltd.", facts)  # its words
    assert not name_on_site("Bright Future Dental Group", facts)


def test_the_offline_evaluator_grounds_on_every_fixture(kb: KnowledgeBase) -> None:
    """The rules' own verdicts state nothing the facts do not: every check passes, on
    every fixture site."""
    from leadengine.judgement.evaluators.heuristic import HeuristicEvaluator

    evaluator = HeuristicEvaluator(kb)
    for folder in sorted(p for p in SITES.iterdir() if (p / "index.html").exists()):
        facts = site_facts(asyncio.run(load_site(str(folder))), kb.rules)
        _, grounding = ground(asyncio.run(evaluator.judge(facts, [])), facts, kb.rules)
        assert grounding.failures == (), (folder.name, grounding.failures)


def test_a_failed_check_never_says_confidence_high(kb: KnowledgeBase) -> None:
    """Whatever the facts, any failed check caps the confidence."""
    from leadengine.facts.confidence import judge_confidence

    facts = site_facts(asyncio.run(load_site(str(SITES / "bangkok-dental-fb-only"))),
                       kb.rules)
    assert judge_confidence(facts).level == "high"
    verdict = Verdict(business_name="Totally Other Name Co", primary_service="Foundation "
                      "Package", fit_score=50, reasoning="ok.", outreach_angle="ok.")
    _, grounding = ground(verdict, facts, kb.rules)
    assert len(grounding.failures) == 1
    assert judge_confidence(facts, grounding).level == "medium"


def test_clean_takes_markup_and_invisible_characters_out() -> None:
    assert clean("<p>Luna&nbsp;Forno</p>\u200b\x07 ") == "Luna Forno"
    assert clean("A < B and C > D") == "A < B and C > D"


def test_the_grounding_block_is_in_the_json_and_the_report(fake_llm: FakeOpenAI,
                                                           kb: KnowledgeBase,
                                                           pizza: str) -> None:
    from leadengine.output.report import render_report

    evaluation = llm(fake_llm, kb, pizza, business_name="Example Business")
    data = json.loads(evaluation.to_json())
    assert data["grounding"]["failed"] == 1
    text = render_report(data, "text", dict(kb.rules.rubric.bands))
    assert "Grounding" in text and "name 'Example Business': corrected" in text
    markdown = render_report(data, "markdown", dict(kb.rules.rubric.bands))
    assert "name 'Example Business': corrected" in markdown


def test_the_workspace_lead_page_shows_the_checks(fake_llm: FakeOpenAI, kb: KnowledgeBase,
                                                  pizza: str, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from leadengine.app.server import create_app
    from leadengine.store import Store

    evaluation = llm(fake_llm, kb, pizza, business_name="Example <b>Business</b>")
    store = Store(tmp_path / "r.db")
    run = store.start_run("leads.csv", "kb", "custom", "default")
    store.save_evaluation(run, 0, "https://luna.example/", "kb",
                          evaluation.model_dump(mode="json"), {})
    store.finish_run(run)
    store.engine.dispose()
    client = TestClient(create_app(None, tmp_path / "r.db", "t" * 32),
                        follow_redirects=False)
    client.headers["Authorization"] = "Bearer " + "t" * 32
    lead = client.get("/api/leads").json()["rows"][0]["id"]
    page = client.get(f"/leads/{lead}").text
    # Folded under the evidence, and open when a check did not pass.
    section = page.split('<details class="fold" id="grounding" open>')[1].split("</details>")[0]
    assert "<strong>name</strong> “Example Business”: corrected" in section
    assert "<b>" not in page.split('<article class="lead">')[1]
    assert 'id="confidence">Confidence low' in page  # markup removed, name replaced


def test_a_city_the_site_never_names_is_not_borne_out(fake_llm: FakeOpenAI,
                                                       kb: KnowledgeBase, pizza: str) -> None:
    evaluation = llm(fake_llm, kb, pizza, reasoning="A Zanarkand-based pizza place with no "
                                                    "online ordering.")
    found = checks(evaluation)["location"]
    assert (found["result"], found["claim"]) == ("fail", "Zanarkand")
    assert found["evidence"] == "the site is in Singapore; the site never names 'Zanarkand'"
    evaluation = llm(fake_llm, kb, pizza, reasoning="A pizza restaurant based in Tanjong "
                                                    "Pagar, Singapore.")
    assert checks(evaluation)["location"]["result"] == "pass"
