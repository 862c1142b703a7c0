"""The team's questions: declared in the knowledge base (validated at load) or asked for
one run, answered offline from the site's sentences across languages (or "unknown"),
by an LLM only with evidence the site holds, and carried into the JSON, the report,
the exports, the board and the webhooks."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from leadengine import KnowledgeBase, Settings
from leadengine.app import create_app
from leadengine.cli import cli
from leadengine.errors import KnowledgeError
from leadengine.judgement.evaluation import answer_schema_with
from leadengine.judgement.model_answers import checked_model_answers
from leadengine.judgement.questions import answer_all
from leadengine.knowledge import Knowledge, Question, run_question, with_questions
from leadengine.pipeline import evaluate_url
from tests.conftest import KNOWLEDGE, SITES, write_kb
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.test_app import TOKEN

SITE = str(SITES / "bangkok-dental-fb-only")
GOOD = {"business_name": "Smile Bright Dental", "business_type": "Dental Healthcare Provider",
        "primary_service": "Foundation Package", "fit_score": 80,
        "reasoning": "Bangkok-based clinic with Facebook-only presence.",
        "outreach_angle": "Platform dependency risk.", "angle": "Platform Dependency Risk"}
ASKED = ("Do they take walk-ins?", "Are they open on Sundays?", "Do they deliver?",
         "hours=When are they open?")


def q(ask: str, **extra: Any) -> Question:
    return Question(id=extra.pop("id", "q"), ask=ask, **extra)


def answers(questions: list[Question], *lines: str) -> dict[str, Any]:
    found = answer_all(questions, [("https://x.example/", "\n".join(lines))])
    return {key: (a.value, a.evidence) for key, a in found.items()}


# -- declaring and asking ----------------------------------------------------------------


@pytest.mark.parametrize(("front", "message"), [
    ("questions:\n    - {id: delivery, ask: Do they deliver?, type: maybe}",
     "a.md: front matter leadengine.questions.0.type: Input should be 'yes_no', 'text', "
     "'number' or 'choice'"),
    ("questions:\n    - {id: pay, ask: How do they take payment?, type: choice}",
     "a.md: front matter leadengine.questions.0: Value error, question 'pay' is a choice: "
     "give it two or more options"),
    ("questions:\n    - {id: Delivery!, ask: Do they deliver?}",
     "a.md: front matter leadengine.questions.0.id: String should match pattern "
     "'^[a-z][a-z0-9_]{0,39}$'"),
    ("questions:\n    - {id: x, ask: ''}",
     "a.md: front matter leadengine.questions.0.ask: String should have at least 3 "
     "characters"),
])
def test_the_loader_refuses_a_bad_question_in_one_line(tmp_path: Path, front: str,
                                                       message: str) -> None:
    root = write_kb(tmp_path / "kb", {"a.md": f"---\nleadengine:\n  {front}\n---\n# A\n\ntext\n"})
    with pytest.raises(KnowledgeError) as raised:
        Knowledge.from_dir(root)
    assert str(raised.value) == message


def test_a_question_id_used_twice_names_the_second_file(tmp_path: Path) -> None:
    one = ("---\nleadengine:\n  questions:\n    - {id: delivery, ask: Do they deliver?}\n"
           "---\n# A\n\nx\n")
    root = write_kb(tmp_path / "kb", {"a.md": one, "b.md": one})
    with pytest.raises(KnowledgeError) as raised:
        Knowledge.from_dir(root)
    assert str(raised.value) == 'b.md: questions["delivery"]: the id is used twice'


def test_run_questions_get_a_type_an_id_and_a_version_of_their_own(kb: KnowledgeBase) -> None:
    assert (run_question("Do they deliver?").id, run_question("Do they deliver?").type) == (
        "deliver", "yes_no")
    assert run_question("How many branches do they have?").type == "number"
    assert run_question("hours=When are they open?").id == "hours"
    assert run_question("When are they open?").type == "text"
    for bad, said in (("   ", "a question is empty"), ("x" * 2000, "2,000 characters")):
        with pytest.raises(KnowledgeError, match=said):
            run_question(bad)
    asked = with_questions(kb, ["Do they deliver?"])
    assert asked.version != kb.version and len(asked.version) == 16
    assert [x.id for x in asked.rules.questions] == ["deliver"]
    assert with_questions(kb, []) is kb
    with pytest.raises(KnowledgeError, match="used twice"):
        with_questions(kb, ["Do they deliver?", "Do they deliver?"])


# -- answering offline ---------------------------------------------------------------------


def test_yes_no_and_unknown_from_english_sentences() -> None:
    asked = [q("Do they deliver?", id="delivery"), q("Is there parking?", id="parking"),
             q("Do they take walk-ins?", id="walk_ins"),
             q("Are they open on Sundays?", id="sundays")]
    found = answers(asked, "Welcome to Baan Thai.", "We deliver across Sukhumvit every day.",
                    "Open Monday to Saturday, 10:00 - 21:00. Closed on Sundays.",
                    "By appointment only.")
    assert found == {
        "delivery": ("yes", "We deliver across Sukhumvit every day."),
        "parking": ("unknown", ""),  # the page is silent: no guess
        "walk_ins": ("no", "By appointment only."),
        "sundays": ("no", "Closed on Sundays.")}


def test_english_questions_are_answered_from_thai_and_burmese_sentences() -> None:
    asked = [q("Do they deliver?", id="delivery"), q("Is there parking?", id="parking"),
             q("Are they open on Sundays?", id="sundays"),
             q("How many branches do they have?", id="branches", type="number")]
    thai = answers(asked, "ร้านเปิดทุกวัน 9.00-18.00 น.", "บริการจัดส่งถึงบ้านฟรี",
                   "ขออภัย ไม่มีที่จอดรถ")
    assert thai == {"delivery": ("yes", "บริการจัดส่งถึงบ้านฟรี"),
                    "parking": ("no", "ขออภัย ไม่มีที่จอดรถ"),
                    "sundays": ("yes", "ร้านเปิดทุกวัน 9.00-18.00 น."),
                    "branches": ("unknown", "")}
    burmese = answers(asked, "ဆိုင်ခွဲ ၃ ခု ရှိပါတယ်။", "တနင်္ဂနွေနေ့ ပိတ်ပါသည်။")
    assert burmese["branches"] == (3, "ဆိုင်ခွဲ ၃ ခု ရှိပါတယ်။")
    assert burmese["sundays"] == ("no", "တနင်္ဂနွေနေ့ ပိတ်ပါသည်။")


def test_choice_text_and_signal_answers() -> None:
    pay = q("Which payment methods?", id="pay", type="choice",
            options=["cash only", "cards", "unknown"])
    hours = q("When are they open?", id="hours", type="text")
    online = q("Do they sell online?", id="shop", signal="ecommerce")
    lines = [("https://x.example/", "Opening hours\nMonday to Friday 8:00 - 17:00\n"
                                    "Cash only, no cards.")]
    found = answer_all([pay, hours, online], lines, {"ecommerce": True},
                       {"ecommerce": "add-to-cart button"})
    assert found["pay"].value == "cash only"
    assert found["hours"].value == "Opening hours: Monday to Friday 8:00 - 17:00"
    assert found["hours"].evidence == "Monday to Friday 8:00 - 17:00"
    assert (found["shop"].value, found["shop"].evidence) == ("yes", "add-to-cart button")


def test_a_model_answer_needs_evidence_the_site_holds() -> None:
    asked = [q("Do they deliver?", id="delivery"), q("Is there parking?", id="parking"),
             q("Do they take walk-ins?", id="walk_ins")]
    pages = [("https://x.example/", "We deliver across Sukhumvit.\nBy appointment only.")]
    offline = answer_all(asked, pages)
    kept, warnings = checked_model_answers(asked, {
        "delivery": {"value": "Yes", "evidence": "we deliver  across sukhumvit",
                     "confidence": 0.8},
        "parking": {"value": "yes", "evidence": "Free parking for all customers",
                    "confidence": 0.9},
        "walk_ins": {"value": "maybe", "evidence": "By appointment only.",
                     "confidence": 2}}, pages, offline)
    assert (kept["delivery"].value, kept["delivery"].source) == ("yes", "https://x.example/")
    assert kept["parking"].value == "unknown"  # made up: the site's own answer stands
    assert kept["walk_ins"].value == "no"  # not a yes/no: the offline answer
    assert warnings == [
        "the model's answer to 'parking' ('yes') had evidence the site does not hold: the "
        "site's own answer is kept",
        "the model's answer to 'walk_ins' ('maybe') had an answer the question does not "
        "take: the site's own answer is kept"]


# -- in an evaluation ----------------------------------------------------------------------


def test_the_offline_evaluation_answers_and_reports(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["evaluate", SITE, "--format", "json", "--provider",
                                      "heuristic", "--allow-private",
                                      *(x for a in ASKED for x in ("--question", a))])
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)["answers"]
    assert {k: v["value"] for k, v in found.items()} == {
        "walk_ins": "yes", "open_sundays": "no", "deliver": "unknown",
        "hours": "Opening hours: Monday to Saturday, 10:00 - 19:30."}
    assert found["open_sundays"]["evidence"] == "Closed on Sundays and public holidays."
    assert found["open_sundays"]["source"].endswith("index.html")
    assert found["deliver"] == {"value": "unknown", "evidence": "", "source": "",
                                "confidence": 0.0}
    text = CliRunner().invoke(cli, ["evaluate", SITE, "--format", "markdown", "--question",
                                    "Do they take walk-ins?"]).stdout
    assert "| walk\\_ins | **yes** | Walk-ins are welcome" in text
    empty = CliRunner().invoke(cli, ["evaluate", SITE, "--question", " "])
    assert empty.exit_code == 1 and empty.stderr.startswith("error: a question is empty")


def test_the_llm_answers_in_the_same_request(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    asked = with_questions(kb, ["Do they take walk-ins?", "Is there parking?"])
    fake_llm.queue(Reply.json({**GOOD, "answers": {
        "walk_ins": {"value": "yes", "evidence": "Walk-ins are welcome when a chair is free",
                     "confidence": 0.9},
        "parking": {"value": "yes", "evidence": "Free parking in the building",
                    "confidence": 0.8}}}))
    settings = Settings(provider="groq", base_url=fake_llm.base_url,
                        env={"GROQ_API_KEY": "k"}, retrieval_method="keyword",
                        llm_retries=0, use_cache=False, model="openai/gpt-oss-20b")
    evaluation = asyncio.run(evaluate_url(SITE, settings, asked))
    body = fake_llm.chat_requests[0]["json"]
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema == answer_schema_with(asked.rules.questions)
    assert schema["properties"]["answers"]["required"] == ["walk_ins", "parking"]
    system = body["messages"][0]["content"]
    assert system.endswith("Questions:\n- walk_ins (yes/no): Do they take walk-ins?\n"
                           "- parking (yes/no): Is there parking?")
    assert evaluation.answers["walk_ins"]["value"] == "yes"
    assert evaluation.answers["walk_ins"]["confidence"] == 0.9
    assert evaluation.answers["parking"]["value"] == "unknown"  # its quote is made up
    assert any("'parking'" in w for w in evaluation.warnings)


def test_without_questions_nothing_changes(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    settings = Settings(provider="groq", base_url=fake_llm.base_url,
                        env={"GROQ_API_KEY": "k"}, retrieval_method="keyword",
                        llm_retries=0, use_cache=False)
    evaluation = asyncio.run(evaluate_url(SITE, settings, kb))
    assert evaluation.answers == {}
    assert "Questions:" not in fake_llm.chat_requests[0]["json"]["messages"][0]["content"]


# -- stored, exported, on the board --------------------------------------------------------


def test_a_batch_with_questions_stores_exports_and_shows_the_answers(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    source = tmp_path / "urls.txt"
    source.write_text(f"{SITE}\n{SITES / 'bangkok-restaurant-thai'}\n", encoding="utf-8")
    base = ["batch", str(source), "--db", str(db), "--provider", "heuristic",
            "--workers", "0", "--allow-private"]
    assert CliRunner().invoke(cli, base).exit_code == 0
    asked = CliRunner().invoke(cli, [*base, "--question", "Do they take walk-ins?"])
    # New questions: the leads are evaluated again, not skipped as done.
    assert asked.exit_code == 0 and "2 evaluated" in asked.stderr, asked.stderr
    exported = CliRunner().invoke(cli, ["export", "--db", str(db), "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(exported.stdout.lstrip("\ufeff"))))
    assert "answer_walk_ins" in rows[0]
    assert sorted(r["answer_walk_ins"] for r in rows) == ["", "", "unknown", "yes"]
    client = TestClient(create_app(None, db, TOKEN),
                        headers={"Authorization": f"Bearer {TOKEN}"})
    page = client.get("/").text
    assert '<th class="answer">walk_ins</th>' in page
    only = client.get("/api/leads", params={"answer": "walk_ins:yes"}).json()
    assert only["total"] == 1 and only["rows"][0]["business_name"] == "Smile Bright Dental"
    assert client.get("/api/leads", params={"answer": "walk_ins:no"}).json()["total"] == 0
    lead = client.get(f"/leads/{only['rows'][0]['id']}").text
    assert '<strong>walk_ins</strong>: <span class="answer answer-yes">yes</span> — <q>' \
        "Walk-ins are welcome" in lead


def test_the_shipped_knowledge_still_loads_without_questions() -> None:
    assert Knowledge.from_dir(KNOWLEDGE).rules.questions == []
