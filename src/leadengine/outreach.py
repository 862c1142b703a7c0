"""The first message to a lead, and the evidence its angle rests on.

A message is the knowledge base's template for the lead's angle in the site's language
(Thai, Burmese or English; the team may force one), filled with this lead's own facts
only: its name, what was seen on its site (a link, a phone number, the site's own
words), the service to pitch, its place and industry. Nothing else enters a message,
so it never states a fact the site did not show. Templates are front matter the team
edits (``leadengine: outreach:``, see :class:`leadengine.rules.OutreachTemplate`); a
knowledge base without them gives no message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from leadengine.facts import SiteFacts
from leadengine.rules import MAX_CHAT, OUTREACH_LANGUAGES, Angle, OutreachTemplate, Rules

#: Characters of one piece of evidence, of a name, in a message.
MAX_EVIDENCE = 120
MAX_NAME = 80


@dataclass(frozen=True)
class OutreachMessage:
    """A chat message and an e-mail for one lead, and what they rest on."""

    language: str
    angle: str
    chat: str
    subject: str
    email: str
    #: What was seen on the site and is quoted in the message.
    evidence: tuple[str, ...]
    #: The template used: ``angle/language`` (``*`` for the any-angle template).
    template: str

    def as_dict(self) -> dict[str, Any]:
        return {"language": self.language, "angle": self.angle, "chat": self.chat,
                "email": {"subject": self.subject, "body": self.email},
                "evidence": list(self.evidence), "template": self.template}


def message_language(site_language: str, forced: str | None = None) -> str:
    """The language to write in: ``forced`` if given, else the site's when it is Thai
    or Burmese, else English."""
    if forced in OUTREACH_LANGUAGES:
        return str(forced)
    return site_language if site_language in ("th", "my") else "en"


def angle_evidence(facts: SiteFacts, angle: Angle | None) -> list[str]:
    """What the site shows that makes ``angle`` apply, as the site wrote it: the
    trigger phrase found in its text, the evidence of each signal the angle needs (a
    Facebook page, a link), its phone when bookings go through calls; else its
    address on the web."""
    found: list[str] = []
    if angle is not None:
        words = [word for word in angle.keywords if word.lower() in facts.cue_words]
        if words:
            found.append(f'"{words[0]}"')
        for condition in angle.when:
            if not condition.startswith("not:") and facts.evidence.get(condition):
                found.append(_quoted(facts.evidence[condition]))
        if "not:online_booking" in angle.when and facts.contacts.phones:
            found.append(facts.contacts.phones[0])
    if not found and facts.url:
        found.append(_site(facts.url))
    return list(dict.fromkeys(found))[:2]


def compose(facts: SiteFacts, rules: Rules, angle: Angle | None, service: str,
            forced_language: str | None = None) -> OutreachMessage | None:
    """The message for a lead, or None when the knowledge base has no template for
    its language (nor English)."""
    language = message_language(facts.language, forced_language)
    template = _template(rules.outreach, angle.name if angle else None, language)
    if template is None:
        return None
    evidence = angle_evidence(facts, angle)
    target = facts.location.target
    values = {"business_name": facts.identity.name[:MAX_NAME],
              "place": target.name if target else (facts.location.city or ""),
              "industry": facts.identity.business_type or facts.identity.category or "",
              "service": service, "evidence": ", ".join(evidence)}
    chat = template.chat.format_map(values)
    while len(chat) > MAX_CHAT and len(values["evidence"]) > 20:
        values["evidence"] = values["evidence"][: len(values["evidence"]) // 2] + "…"
        chat = template.chat.format_map(values)
    return OutreachMessage(
        language=template.language, angle=angle.name if angle else "",
        chat=chat[:MAX_CHAT], subject=template.subject.format_map(values),
        email=template.email.format_map(values), evidence=tuple(evidence),
        template=f"{template.angle}/{template.language}")


def _template(templates: list[OutreachTemplate], angle: str | None, language: str
              ) -> OutreachTemplate | None:
    """The angle's template in ``language``, else the any-angle one, else the same two
    in English."""
    for lang in dict.fromkeys((language, "en")):
        for name in (angle, "*"):
            for template in templates:
                if template.language == lang and template.angle == name:
                    return template
    return None


_LINK = re.compile(r"https?://[^\s,;)\]}>\"']+")


def _quoted(evidence: str) -> str:
    """What a signal's evidence shows: its link if it has one (a Facebook page), else
    its text, shortened."""
    link = _LINK.search(evidence)
    return _short(link.group().rstrip(".")) if link else _short(evidence)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_EVIDENCE else text[: MAX_EVIDENCE - 1] + "…"


def _site(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname:
        return parts.hostname.removeprefix("www.")
    # A saved page: its folder and file, not the path on this machine.
    return _short("/".join(PurePosixPath(parts.path).parts[-2:]))
