"""The first message to a lead: written from the knowledge base's templates for its
angle in its site's language (Thai, Burmese, English, or as forced), grounded in the
lead's own facts only, at most 600 characters in chat; templates are checked when the
knowledge base loads."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from leadengine import KnowledgeBase
from leadengine.config import Settings
from leadengine.errors import KnowledgeError
from leadengine.facts.site_facts import SiteFacts, site_facts
from leadengine.judgement.evaluators.heuristic import judge
from leadengine.judgement.outreach import compose
from leadengine.knowledge.rules import MAX_CHAT, OutreachTemplate
from leadengine.pipeline import evaluate
from leadengine.website.load import load_site
from tests.conftest import KNOWLEDGE, SITES, write_kb

SETTINGS = Settings(knowledge_dir=KNOWLEDGE, retrieval_method="keyword", use_cache=False,
                    provider="heuristic")
HOMEPAGES = sorted(p.parent.name for p in SITES.glob("*/index.html")
                   if p.parent.name != "huge-page")
SCRIPTS = {"th": re.compile(r"[\u0e00-\u0e7f]"), "my": re.compile(r"[\u1000-\u109f]"),
           "en": re.compile(r"[A-Za-z]")}


def facts_of(name: str, kb: KnowledgeBase) -> SiteFacts:
    site = asyncio.run(load_site(str(SITES / name / "index.html"), SETTINGS))
    return site_facts(site, kb.rules)


@pytest.fixture(scope="module")
def leads(kb: KnowledgeBase) -> dict[str, tuple[SiteFacts, dict[str, object]]]:
    """Every fixture homepage's facts and its evaluation's message."""
    found = {}
    for name in HOMEPAGES:
        evaluation = evaluate(str(SITES / name / "index.html"), SETTINGS, kb)
        assert evaluation.outreach_message is not None, name
        found[name] = (facts_of(name, kb), evaluation.outreach_message)
    return found


def test_thai_and_burmese_sites_get_messages_in_their_script(leads: dict) -> None:
    languages = {name: facts.language for name, (facts, _) in leads.items()}
    assert {"th", "my"} <= set(languages.values())  # the fixtures hold both
    for name, (facts, message) in leads.items():
        expected = facts.language if facts.language in ("th", "my") else "en"
        assert message["language"] == expected, name
        # Without what was filled in (a Latin business name, a link), the words are
        # the language's own.
        chat = str(message["chat"])
        for value in (facts.identity.name, *message["evidence"]):  # type: ignore[misc]
            chat = chat.replace(str(value), " ")
        letters = [c for c in chat if c.isalpha()]
        own = sum(1 for c in letters if SCRIPTS[expected].match(c))
        assert own / len(letters) > 0.6, (name, chat)


def test_no_message_states_a_number_or_name_the_facts_do_not_hold(
        leads: dict, kb: KnowledgeBase) -> None:
    """Every number and every capitalised Latin word of a message is in the template
    the team wrote or in the lead's facts (its name, text, contacts, evidence, links)."""
    templates = " ".join(f"{t.chat} {t.subject} {t.email}" for t in kb.rules.outreach)
    services = " ".join(s.name for s in kb.rules.services)
    for name, (facts, message) in leads.items():
        known = " ".join([templates, services, facts.identity.name, facts.text,
                          facts.url or "", *facts.contacts.phones, *facts.contacts.emails,
                          *facts.evidence.values(), *facts.contacts.social.values(),
                          *facts.cue_words])
        email = message["email"]  # type: ignore[index]
        for text in (message["chat"], email["subject"], email["body"]):
            for token in re.findall(r"\+?\d[\d-]*\d|\d|[A-Z][\w&'-]*", str(text)):
                assert token in known, (name, token, text)


def test_chat_messages_fit_a_chat_and_emails_have_a_subject(leads: dict) -> None:
    for name, (_, message) in leads.items():
        assert 0 < len(str(message["chat"])) <= MAX_CHAT, name
        assert message["email"]["subject"] and message["email"]["body"], name  # type: ignore[index]
        assert "{" not in str(message["chat"]), name  # every placeholder was filled


def test_the_angle_line_differs_between_leads_with_different_evidence(leads: dict) -> None:
    evaluations = [evaluate(str(SITES / n / "index.html"), SETTINGS)
                   for n in ("bangkok-restaurant-thai", "mandalay-restaurant")]
    same_angle = {e.angle for e in evaluations}
    lines = [e.outreach_angle.replace(e.business_name, "") for e in evaluations]
    assert len(same_angle) == 1 or lines[0] != lines[1]
    # What the site shows in plain words, never its own phone or address.
    assert evaluations[0].outreach_angle.endswith(
        "What the site shows: bookings go through phone calls and LINE.")
    assert "+6625550236" not in evaluations[0].outreach_angle


def test_the_team_can_force_the_language(kb: KnowledgeBase) -> None:
    thai = evaluate(str(SITES / "bangkok-restaurant-thai" / "index.html"),
                    SETTINGS.with_options(outreach_language="en"), kb)
    assert thai.outreach_message is not None
    assert thai.outreach_message["language"] == "en"
    subject = thai.outreach_message["email"]["subject"].replace(thai.business_name, "")
    assert subject.strip() and not SCRIPTS["th"].search(subject)


def test_a_long_evidence_is_cut_to_fit_the_chat(kb: KnowledgeBase) -> None:
    facts = facts_of("bangkok-restaurant-thai", kb)
    angle = judge(facts, kb.rules).angle
    long_words = frozenset({"x" * 2000})
    assert angle is not None
    wide = type(angle)(**{**angle.model_dump(), "keywords": ["x" * 2000]})
    message = compose(type(facts)(**{**facts.__dict__, "cue_words": long_words}),
                      kb.rules, wide, "Booking site")
    assert message is not None and len(message.chat) <= MAX_CHAT


def test_without_templates_there_is_no_message(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"a.md": "# Services\n\nWe build websites.\n"})
    evaluation = evaluate(str(SITES / "london-bakery" / "index.html"),
                          SETTINGS.with_options(knowledge_dir=root))
    assert evaluation.outreach_message is None


@pytest.mark.parametrize("template, message", [
    ({"angle": "*", "language": "th", "chat": "สวัสดี {owner}", "subject": "s",
      "email": "e"}, "unknown placeholder {owner}"),
    ({"angle": "*", "language": "fr", "chat": "Bonjour", "subject": "s", "email": "e"},
     "language"),
    ({"angle": "*", "language": "en", "chat": "Hi {business_name", "subject": "s",
      "email": "e"}, "not a template"),
    ({"angle": "Platform Dependancy Risk", "language": "en", "chat": "Hi",
      "subject": "s", "email": "e"},
     'unknown angle "Platform Dependancy Risk" (did you mean "Platform Dependency Risk"?)'),
    ({"angle": "*", "language": "en", "chat": "x" * 500, "subject": "s", "email": "e"},
     "chat"),
])
def test_bad_templates_are_refused_when_the_knowledge_base_loads(
        tmp_path: Path, template: dict[str, str], message: str) -> None:
    import yaml

    angles = yaml.safe_dump({"leadengine": {"angles": [
        {"name": "Platform Dependency Risk", "when": ["facebook_only"],
         "framing": "Platform."}], "outreach": [template]}}, allow_unicode=True)
    root = write_kb(tmp_path / "kb", {"s.md": f"---\n{angles}---\n# Strategy\n\nText.\n"})
    with pytest.raises(KnowledgeError) as caught:
        KnowledgeBase.from_dir(root)
    assert "s.md" in str(caught.value) and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_templates_name_only_the_fields_they_may_fill() -> None:
    assert OutreachTemplate(angle="*", language="my", chat="{business_name} {evidence}",
                            subject="{service}", email="{place} {industry}")


def test_the_export_carries_the_message(kb: KnowledgeBase) -> None:
    from leadengine.output.export import flatten

    evaluation = evaluate(str(SITES / "yangon-clinic-burmese" / "index.html"), SETTINGS, kb)
    row = flatten(evaluation.model_dump(mode="json"))
    assert row["message_language"] == "my"
    assert row["message_chat"] == evaluation.outreach_message["chat"]  # type: ignore[index]
    assert row["message_email_subject"] and row["message_email_body"]
    assert list(row)[-4:] == ["message_language", "message_chat", "message_email_subject",
                              "message_email_body"]


# --- messages a rep would send ---------------------------------------------------------

def test_no_message_quotes_the_leads_own_address_phone_or_email(leads: dict) -> None:
    """Every fixture's message: its own web address, host, phones (in any format) and
    e-mails are nowhere in the chat, the subject or the e-mail."""
    from leadengine.judgement.outreach import own_contacts

    for name, (facts, message) in leads.items():
        text = " ".join((str(message["chat"]), message["email"]["subject"],
                         message["email"]["body"]))
        digits = re.sub(r"\D", "", text)
        for own in own_contacts(facts):
            assert own.lower() not in text.lower(), (name, own)
        for phone in facts.contacts.phones:
            assert phone.lstrip("+")[-8:] not in digits, (name, phone)
        assert "http" not in text and "www." not in text, name


def test_chats_fit_350_and_subjects_60_with_no_placeholder_left(leads: dict) -> None:
    from leadengine.judgement.outreach import MAX_SUBJECT, PLACEHOLDER

    for name, (_, message) in leads.items():
        assert len(str(message["chat"])) <= 350 == MAX_CHAT, name
        assert len(message["email"]["subject"]) <= MAX_SUBJECT == 60, name
        for text in (message["chat"], message["email"]["subject"], message["email"]["body"]):
            assert not PLACEHOLDER.search(str(text)), (name, text)
            assert "()" not in str(text) and "  " not in str(text), (name, text)
        assert message["email"]["body"].rstrip() == message["email"]["body"], name


def test_the_message_says_what_was_observed_in_plain_words(kb: KnowledgeBase) -> None:
    thai = evaluate(str(SITES / "bangkok-restaurant-thai" / "index.html"), SETTINGS, kb)
    assert thai.outreach_message is not None
    assert "เห็นว่าการจองยังทำผ่านโทรศัพท์และ LINE" in thai.outreach_message["chat"]
    assert thai.outreach_message["evidence"] == ["การจองยังทำผ่านโทรศัพท์และ LINE"]
    fb = evaluate(str(SITES / "bangkok-dental-fb-only" / "index.html"), SETTINGS, kb)
    assert fb.outreach_message is not None
    assert "I saw that your customers reach you mainly through your Facebook page." in \
        fb.outreach_message["chat"]


def test_leads_with_different_gaps_get_different_observations(leads: dict) -> None:
    """The pitch follows the lead's own gaps: the fixtures' messages do not all say the
    same thing (at least four different observations among them)."""
    said = {tuple(message["evidence"]) for _, message in leads.values()}
    assert len(said) >= 4, said


@pytest.mark.parametrize(("site", "gender", "expect"), [
    ("bangkok-restaurant-thai", "female", ["สวัสดีค่ะทีม", "ดิฉันชื่อ Ann จาก Bright Digital ค่ะ",
                                            "ได้ไหมค่ะ"]),
    ("bangkok-restaurant-thai", "male", ["สวัสดีครับทีม", "ผมชื่อ Ann จาก Bright Digital ครับ"]),
    ("yangon-clinic-burmese", "female", ["အဖွဲ့ရှင်။", "ကျွန်မ Ann (Bright Digital) ပါရှင်။"]),
    ("london-bakery", "male", ["team. This is Ann from Bright Digital. I "]),
])
def test_the_reps_name_company_and_voice_come_from_the_settings(
        kb: KnowledgeBase, site: str, gender: str, expect: list[str]) -> None:
    settings = SETTINGS.with_options(rep_name="Ann", rep_company="Bright Digital",
                                     rep_gender=gender)
    evaluation = evaluate(str(SITES / site / "index.html"), settings, kb)
    message = evaluation.outreach_message
    assert message is not None
    for part in expect:
        assert part in message["chat"], (part, message["chat"])
    assert message["email"]["body"].endswith("\nAnn\nBright Digital")
    other = "ครับ" if gender == "female" else "ค่ะ"
    assert other not in message["chat"] and other not in message["email"]["body"]


def test_without_a_reps_name_nothing_is_left_to_fill(kb: KnowledgeBase) -> None:
    evaluation = evaluate(str(SITES / "london-bakery" / "index.html"),
                          SETTINGS.with_options(rep_company="Bright Digital"), kb)
    message = evaluation.outreach_message
    assert message is not None
    assert "Bright Digital" not in message["chat"] + message["email"]["body"]
    assert message["email"]["body"].endswith("Best regards")
    assert message["chat"].startswith("Hello ") and " team. I " in message["chat"]


def test_a_teams_template_with_a_placeholder_for_a_person_loses_that_line(
        kb: KnowledgeBase) -> None:
    facts = facts_of("london-bakery", kb)
    template = OutreachTemplate(angle="*", language="en",
                                chat="Hello {business_name} team. I noticed {observation}.",
                                subject="About {business_name}",
                                email="Hello,\n\nI noticed {observation}.\n\nBest,\n"
                                      "[Your Name]\n{signature}")
    rules = kb.rules.model_copy(update={"outreach": [template]})
    message = compose(facts, rules, None, "Booking site")
    assert message is not None
    assert message.email.endswith("Best,") and "[Your" not in message.email


def test_a_long_name_keeps_the_subject_within_60(kb: KnowledgeBase) -> None:
    from dataclasses import replace

    facts = facts_of("london-bakery", kb)
    long = replace(facts, identity=replace(facts.identity, name="The Very Long Name Of "
                                           "A Family Bakery And Coffee House Of London"))
    message = compose(long, kb.rules, judge(long, kb.rules).angle, "Booking site")
    assert message is not None and len(message.subject) <= 60
    assert message.subject == "A few ideas for The Very Long Name Of A Family Bakery"
