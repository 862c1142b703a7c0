"""The outreach message written by the LLM (``outreach_writer = "llm"``): the team's
template for the lead's angle and language, filled with the lead's facts
(:func:`leadengine.judgement.outreach.compose`), is the model's guidance; the model writes the
chat message and the e-mail in the same language and cites the facts it used.

The answer is held to the facts: every citation must be a fact the model was given,
and every number, link, e-mail address and handle in the message must be in those
facts (or in the team's template). An answer that fails, or that is not in the
language asked for, is dropped with a warning and the template's message is kept: a
message never states what the site did not show.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from leadengine.errors import LeadEngineError
from leadengine.judgement.evaluators.chat import Message
from leadengine.judgement.outreach import MAX_SUBJECT, PLACEHOLDER, OutreachMessage, own_contacts
from leadengine.knowledge.rules import MAX_CHAT

if TYPE_CHECKING:
    from leadengine.facts.site_facts import SiteFacts
    from leadengine.judgement.evaluators.llm import LLMEvaluator

LANGUAGE_NAMES = {"en": "English", "th": "Thai", "my": "Burmese (Myanmar script, Unicode)"}
#: The script a message in that language must be written in.
_SCRIPTS = {"th": re.compile("[\u0e00-\u0e7f]"), "my": re.compile("[\u1000-\u109f]")}

MESSAGE_PROMPT = """\
You write the first message a digital services company sends to a business it \
would like to work with. Write in {language}. Use ONLY the facts listed under \
FACTS: never add a name, number, price, link, award, review or claim that is not \
there. Say what was observed in plain words; never write the business's own web \
address, phone number or e-mail address, and leave no placeholder to fill in. Follow \
the team's draft for tone, length, structure, the sender's name and the next step it \
proposes; make it read naturally for this business.

Respond with a single JSON object and nothing else, with exactly these fields:
- "chat" (string): the chat message for LINE, Messenger or Viber, at most 350 characters.
- "subject" (string): the e-mail's subject line, at most 60 characters.
- "email" (string): the e-mail's body.
- "evidence" (array of strings): each fact you used, copied exactly as written under FACTS."""

MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"chat": {"type": "string"}, "subject": {"type": "string"},
                   "email": {"type": "string"},
                   "evidence": {"type": "array", "items": {"type": "string"}}},
    "required": ["chat", "subject", "email", "evidence"],
    "additionalProperties": False,
}


class WrittenMessage(BaseModel):
    chat: str = Field(min_length=1, max_length=MAX_CHAT)
    subject: str = Field(min_length=1, max_length=MAX_SUBJECT)
    email: str = Field(min_length=1, max_length=4000)
    evidence: list[str] = Field(min_length=1, max_length=12)


@dataclass(frozen=True)
class Written:
    """The message to send, the warnings about the model's answer, and its usage."""

    message: OutreachMessage
    warnings: tuple[str, ...] = ()
    tokens: dict[str, int] | None = None


def fact_lines(facts: SiteFacts, draft: OutreachMessage, service: str) -> list[str]:
    """The facts the model may use, one per line, as it must cite them."""
    identity, location = facts.identity, facts.location
    lines = [f"Business name: {identity.name}"]
    if identity.business_type:
        lines.append(f"Business type: {identity.business_type}")
    if location.city or location.country:
        lines.append("Location: " + ", ".join(p for p in (location.city, location.country)
                                                if p))
    # Never the lead's own phone, e-mail or web address: a message does not quote them.
    lines += [f"Seen on the site: {quote}" for quote in draft.evidence]
    # The site's own words that set the angle ("call to book", "โทรจอง").
    lines += [f'The site says: "{word}"' for word in sorted(facts.cue_words)[:3]]
    gaps = [gap for layer in facts.layers for gap in layer.gaps if not gap.startswith("not:")]
    if gaps:
        lines.append("Not seen on the site: " + ", ".join(
            g.replace("_", " ") for g in dict.fromkeys(gaps)))
    lines.append(f"Conversation angle: {draft.angle or 'a review of their online presence'}")
    lines.append(f"Service to offer: {service}")
    return lines


def parse_message(answer: str) -> WrittenMessage:
    """The message fields from a model's answer; ValueError says what is wrong."""
    text = answer.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    try:
        return WrittenMessage.model_validate(data)
    except ValidationError as exc:
        raise ValueError("; ".join(f"{'.'.join(map(str, e['loc'])) or 'object'}: {e['msg']}"
                                   for e in exc.errors())) from None


_NUMBER = re.compile(r"\d[\d\s\-().,/]*\d|\d")
_LINK = re.compile(r"(?:https?://|www\.)[^\s,;)\]}>\"']+|[\w.+-]+@[\w-]+\.[\w.-]+|@\w[\w.]+")


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


def quoted_back(written: WrittenMessage, facts: SiteFacts) -> list[str]:
    """What a written message must never hold: the lead's own web address, phone number
    or e-mail, and a placeholder left for a person to fill in."""
    problems = []
    text = "\n".join((written.chat, written.subject, written.email))
    digits = re.sub(r"\D", "", text.translate(_DIGITS))
    for own in own_contacts(facts):
        bare = re.sub(r"\D", "", own)
        if own.lower() in text.lower() or (own.startswith("+") and len(bare) >= 8
                                           and bare[-8:] in digits):
            problems.append(f"quotes the lead's own {own!r}")
    found = PLACEHOLDER.search(text)
    if found:
        problems.append(f"leaves the placeholder {found.group()!r}")
    return problems


def unsupported(written: WrittenMessage, allowed: str) -> list[str]:
    """What the written message states that ``allowed`` (the facts and the team's
    draft) does not: citations, numbers, links, e-mail addresses and handles. A number
    is supported when the facts hold it (a phone also in another format: its last seven
    digits), or hold each of its groups of digits."""
    plain = _plain(allowed)
    numbers = {re.sub(r"\D", "", m.group()) for m in _NUMBER.finditer(allowed.translate(_DIGITS))}
    groups = set(re.findall(r"\d+", allowed.translate(_DIGITS)))
    tails = {n[-7:] for n in numbers if len(n) >= 7}
    problems = [f"cites {quote!r}" for quote in written.evidence
                if _plain(quote).removeprefix("seen on the site: ") not in plain]
    for text in (written.chat, written.subject, written.email):
        for match in _NUMBER.finditer(text.translate(_DIGITS)):
            number = re.sub(r"\D", "", match.group())
            if number in numbers or (len(number) >= 7 and number[-7:] in tails) or all(
                    g in groups for g in re.findall(r"\d+", match.group())):
                continue
            problems.append(f"states the number {match.group().strip()!r}")
        for match in _LINK.finditer(text):
            if _plain(match.group().rstrip(".")) not in plain:
                problems.append(f"states {match.group()!r}")
    return list(dict.fromkeys(problems))


#: Thai and Myanmar digits read as ASCII digits.
_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙၀၁၂၃၄၅၆၇၈၉", "01234567890123456789")


async def write_message(evaluator: LLMEvaluator, facts: SiteFacts, draft: OutreachMessage,
                        service: str) -> Written:
    """The model's message for this lead, or the ``draft`` with a warning saying why
    the model's was not used."""
    language = draft.language
    lines = fact_lines(facts, draft, service)
    draft_text = f"Chat:\n{draft.chat}\n\nE-mail subject: {draft.subject}\n\n{draft.email}"
    messages = [Message("system", MESSAGE_PROMPT.format(
                    language=LANGUAGE_NAMES.get(language, "English"))),
                Message("user", "FACTS:\n" + "\n".join(f"- {line}" for line in lines)
                        + "\n\nTEAM'S DRAFT:\n" + draft_text)]
    tokens: dict[str, int] = {}
    try:
        answer = await evaluator.complete(messages, check=parse_message,
                                          schema=MESSAGE_SCHEMA,
                                          schema_name="outreach_message")
        tokens = dict(answer.usage.tokens)
        written = parse_message(answer.text)
    except (ValueError, LeadEngineError) as exc:
        return Written(draft, (f"the model's outreach message was not usable ({exc}); "
                               "the template's message is kept",), tokens)
    problems = unsupported(written, "\n".join(lines) + "\n" + draft_text)
    problems += quoted_back(written, facts)
    script = _SCRIPTS.get(language)
    if script is not None and not script.search(written.chat):
        problems.append(f"is not written in {LANGUAGE_NAMES[language]}")
    if problems:
        return Written(draft, (f"the model's outreach message {'; '.join(problems[:3])}, "
                               "which the site does not show; the template's message is "
                               "kept",), tokens)
    evidence = tuple(dict.fromkeys(q.removeprefix("Seen on the site: ")
                                   for q in written.evidence))
    return Written(replace(draft, chat=written.chat, subject=written.subject,
                           email=written.email, evidence=evidence,
                           template=f"{draft.template} (written by {evaluator.model})"),
                   (), tokens)
