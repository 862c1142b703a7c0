"""The outreach message written by the LLM (``--outreach-writer llm``): the template is
its guidance, the facts are all it may state, its citations are checked, and any answer
that states what the site does not show is replaced by the template's message."""

from __future__ import annotations

import asyncio
from typing import Any

from click.testing import CliRunner

from leadengine import KnowledgeBase
from leadengine.cli import cli
from leadengine.judgement.evaluation import Evaluation
from leadengine.judgement.evaluators.message_writer import MESSAGE_PROMPT
from leadengine.pipeline import evaluate_url
from tests.conftest import SITES
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.test_llm import GOOD, settings_for

THAI_SITE = str(SITES / "bangkok-restaurant-thai" / "index.html")
FB_SITE = str(SITES / "bangkok-dental-fb-only" / "index.html")


def run(fake: FakeOpenAI, kb: KnowledgeBase, site: str = FB_SITE, **extra: Any
        ) -> Evaluation:
    settings = settings_for(fake, outreach_writer="llm", **extra)
    return asyncio.run(evaluate_url(site, settings, kb))


def message(chat: str, evidence: list[str], subject: str = "A question about bookings",
            email: str = "Hello,\n\nWe noticed your page.\n\nBest regards") -> Reply:
    return Reply.json({"chat": chat, "subject": subject, "email": email,
                       "evidence": evidence})


def test_the_llm_writes_the_message_from_the_facts_and_cites_them(
        fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD, prompt_tokens=100, completion_tokens=10))
    seen = "your customers reach you mainly through your Facebook page"
    fake_llm.queue(message(f"Hi Smile Bright Dental team, we saw that {seen}. Could we "
                           "show you a simple booking page?", [f"Seen on the site: {seen}"]))
    found = run(fake_llm, kb)
    _, second = fake_llm.chat_requests
    system, user = (m["content"] for m in second["json"]["messages"])
    assert system == MESSAGE_PROMPT.format(language="English")
    # The model is given the lead's facts, one per line, and the team's draft; never
    # the lead's own phone, e-mail or web address.
    assert user.startswith("FACTS:\n- Business name: Smile Bright Dental\n")
    assert f"- Seen on the site: {seen}" in user
    assert "TEAM'S DRAFT:\nChat:\n" in user
    assert "Phone:" not in user and "facebook.com" not in user
    sent = found.outreach_message
    assert sent is not None and sent["chat"].startswith("Hi Smile Bright Dental team")
    assert sent["evidence"] == [seen]
    assert sent["template"].endswith("(written by llama-test)")
    assert not [w for w in found.warnings if "outreach message" in w]
    # The message's request counts in the lead's usage.
    assert found.tokens["prompt"] > 100


def test_a_message_stating_what_the_site_does_not_show_is_replaced_by_the_template(
        fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    fake_llm.queue(message("Hi! Your 4.9-star rating from 1,200 reviews is impressive; "
                           "call us on 02 999 8877.", ["4.9-star rating"]))
    found = run(fake_llm, kb)
    sent = found.outreach_message
    assert sent is not None and "4.9" not in sent["chat"] and "999" not in sent["chat"]
    assert not sent["template"].endswith("llama-test)")
    [warning] = [w for w in found.warnings if "outreach message" in w]
    assert warning.startswith("the model's outreach message cites '4.9-star rating'")
    assert "the template's message is kept" in warning


def test_a_thai_lead_gets_a_thai_message_or_the_template(fake_llm: FakeOpenAI,
                                                          kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    fake_llm.queue(message("Hello Krua Baan Suan, we would like to help with bookings.",
                           ["Business name: ครัวบ้านสวน"]))
    found = run(fake_llm, kb, site=THAI_SITE)
    sent = found.outreach_message
    assert sent is not None and sent["language"] == "th"
    assert "is not written in Thai" in found.warnings[-1], found.warnings
    assert any("\u0e00" <= c <= "\u0e7f" for c in sent["chat"])  # the Thai template

    fake_llm.queue(Reply.json(GOOD))
    fake_llm.queue(message("สวัสดีครับ ครัวบ้านสวน เราเห็นว่าร้านรับจองทางโทรศัพท์ "
                           "สนใจระบบจองโต๊ะออนไลน์ไหมครับ", ["โทรจอง"]))
    found = run(fake_llm, kb, site=THAI_SITE)
    assert found.outreach_message is not None
    assert found.outreach_message["chat"].startswith("สวัสดีครับ ครัวบ้านสวน"), found.warnings
    assert not [w for w in found.warnings if "outreach message" in w]


def test_a_message_quoting_the_leads_own_contacts_is_replaced(fake_llm: FakeOpenAI,
                                                               kb: KnowledgeBase) -> None:
    """The lead's own phone (in any format), web address or e-mail quoted back, or a
    placeholder left: the template's message, and a warning that says why."""
    for chat in ("สวัสดีครับ ครัวบ้านสวน เห็นว่าร้านรับจองทางโทรศัพท์ 02-555-0236 ใช่ไหมครับ",
                 "สวัสดีครับ ครัวบ้านสวน จาก [Your Name] สนใจระบบจองออนไลน์ไหมครับ"):
        fake_llm.queue(Reply.json(GOOD))
        fake_llm.queue(message(chat, ["โทรจอง"]))
        found = run(fake_llm, kb, site=THAI_SITE)
        assert found.outreach_message is not None
        assert "0236" not in found.outreach_message["chat"]
        assert "[Your Name]" not in found.outreach_message["chat"]
        [warning] = [w for w in found.warnings if "outreach message" in w]
        assert "quotes the lead's own '+6625550236'" in warning or \
            "leaves the placeholder '[Your Name]'" in warning, warning


def test_a_broken_answer_keeps_the_template_and_says_so(fake_llm: FakeOpenAI,
                                                         kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    fake_llm.queue(Reply.content("Sure! Here is a message: Hi there"))
    found = run(fake_llm, kb)
    assert found.outreach_message is not None
    assert found.warnings[-1].startswith("the model's outreach message was not usable "
                                         "(not valid JSON")


def test_the_template_writer_makes_one_request(fake_llm: FakeOpenAI, kb: KnowledgeBase
                                               ) -> None:
    fake_llm.queue(Reply.json(GOOD))
    settings = settings_for(fake_llm)
    found = asyncio.run(evaluate_url(FB_SITE, settings, kb))
    assert len(fake_llm.chat_requests) == 1 and found.outreach_message is not None


def test_the_cli_takes_the_writer_and_refuses_an_unknown_one() -> None:
    result = CliRunner().invoke(cli, ["evaluate", FB_SITE, "--outreach-writer", "robot"])
    assert result.exit_code == 2 and "'robot' is not one of 'template', 'llm'" in result.output
    result = CliRunner().invoke(cli, ["evaluate", FB_SITE, "--provider", "heuristic",
                                      "--method", "keyword", "--outreach-writer", "llm",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output  # the offline evaluator fills the template
