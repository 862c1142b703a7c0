"""The first message to a lead, and the evidence its angle rests on.

A message is the knowledge base's template for the lead's angle in the site's language
(Thai, Burmese or English; the team may force one), filled with this lead's own facts
only: its name, what was observed on its site in plain words ("bookings go through
phone calls and LINE", :mod:`leadengine.judgement.outreach_words`), the service to pitch, its
place and industry; and the rep's name, company and voice from the settings. Nothing
else enters a message, so it never states a fact the site did not show, and never the
lead's own web address, phone number or e-mail. A chat message is at most
:data:`~leadengine.knowledge.rules.MAX_CHAT` characters and a subject :data:`MAX_SUBJECT`; no
placeholder is left (a sign-off line with no rep's name set is left out). Templates are
front matter the team edits (``leadengine: outreach:``, see
:class:`leadengine.knowledge.rules.OutreachTemplate`); a knowledge base without them gives no
message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from leadengine.facts.site_facts import SiteFacts
from leadengine.judgement.outreach_words import observations, sentence, voice
from leadengine.knowledge.rules import MAX_CHAT, OUTREACH_LANGUAGES, Angle, OutreachTemplate, Rules

#: Characters of one piece of evidence, of a name, in a message.
MAX_EVIDENCE = 120
MAX_NAME = 80
#: Characters of an e-mail's subject line.
MAX_SUBJECT = 60


@dataclass(frozen=True)
class Rep:
    """Who sends the message (the settings ``rep_name``, ``rep_company``,
    ``rep_gender``): their name and company sign it, their gender sets the Thai and
    Burmese pronoun and polite particle."""

    name: str = ""
    company: str = ""
    gender: str = "male"

    def introduction(self, language: str) -> str:
        """" This is Ann from Bright Digital." in ``language`` ("" without a name)."""
        if not self.name:
            return ""
        me, particle = voice(language, self.gender)
        company = self.company
        if language == "th":
            return f" {me}ชื่อ {self.name}" + (f" จาก {company}" if company else "") + \
                f" {particle}"
        if language == "my":
            return f" {me} {self.name}" + (f" ({company})" if company else "") + \
                f" ပါ{particle}။"
        return f" This is {self.name}" + (f" from {company}" if company else "") + "."

    def signature(self) -> str:
        """The e-mail's sign-off lines after the greeting ("" without a name)."""
        return "\n".join(part for part in (self.name, self.company if self.name else "")
                         if part)


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
            forced_language: str | None = None, rep: Rep | None = None
            ) -> OutreachMessage | None:
    """The message for a lead, or None when the knowledge base has no template for
    its language (nor English)."""
    language = message_language(facts.language, forced_language)
    template = _template(rules.outreach, angle.name if angle else None, language)
    if template is None:
        return None
    rep = rep or Rep()
    language = template.language
    seen = observations(facts, angle, language)
    target = facts.location.target
    me, particle = voice(language, rep.gender)
    values = {"business_name": _safe_name(facts), "place": target.name if target else
              (facts.location.city or ""),
              "industry": facts.identity.business_type or facts.identity.category or "",
              "service": service, "observation": sentence(seen, language),
              "evidence": sentence(seen, language), "me": me, "particle": particle,
              "rep_name": rep.name, "rep_company": rep.company if rep.name else "",
              "introduction": rep.introduction(language), "signature": rep.signature()}
    chat = finish(template.chat.format_map(values), facts)
    while len(chat) > MAX_CHAT and len(seen) > 1:
        seen = seen[:-1]
        values["observation"] = values["evidence"] = sentence(seen, language)
        chat = finish(template.chat.format_map(values), facts)
    subject = finish(template.subject.format_map(values), facts)
    if len(subject) > MAX_SUBJECT:
        values["business_name"] = _shortened(values["business_name"],
                                             MAX_SUBJECT - (len(subject)
                                                            - len(values["business_name"])))
        subject = finish(template.subject.format_map(values), facts)
    return OutreachMessage(
        language=language, angle=angle.name if angle else "",
        chat=_cut(chat, MAX_CHAT), subject=_cut(subject, MAX_SUBJECT),
        email=finish(template.email.format_map(values), facts), evidence=tuple(seen),
        template=f"{template.angle}/{template.language}")


#: What a template leaves behind when a value is empty: "()", a space before a comma.
_EMPTY = ((re.compile(r"\(\s*\)"), ""), (re.compile(r"[ \t]+([,.;:!?၊။])"), r"\1"),
          (re.compile(r"[ \t]{2,}"), " "), (re.compile(r"\n{3,}"), "\n\n"))
#: Placeholders a template's author may have left for a person to fill in.
PLACEHOLDER = re.compile(r"\{[^{}\n]{0,40}\}|\[[^\[\]\n]{0,40}\b(?:name|company|your|"
                         r"insert|phone|date)\b[^\[\]\n]{0,40}\]|<[^<>\n]{0,30}\b(?:name|"
                         r"company)\b[^<>\n]{0,30}>|\bX{3,}\b|\bTBD\b", re.I)


def finish(text: str, facts: SiteFacts) -> str:
    """A filled template made ready to send: what empty values left behind tidied, no
    placeholder left (a line with one is dropped), and never the lead's own web
    address, phone number or e-mail."""
    lines = []
    for line in text.splitlines():
        if PLACEHOLDER.search(line):
            continue
        for pattern, replacement in _EMPTY[:3]:
            line = pattern.sub(replacement, line)
        lines.append(line.strip())
    out = _EMPTY[3][0].sub(_EMPTY[3][1], "\n".join(lines)).strip()
    for own in own_contacts(facts):
        out = out.replace(own, "")
    return _EMPTY[2][0].sub(" ", out)


def own_contacts(facts: SiteFacts) -> list[str]:
    """The lead's own web address, host, phone numbers (as found and in E.164) and
    e-mails: what a message never quotes back to it."""
    found = [email for email in facts.contacts.emails]
    for phone in facts.contacts.phones:
        found += [phone, phone.lstrip("+")]
    if facts.url and facts.url.startswith(("http://", "https://")):
        host = urlsplit(facts.url).hostname or ""
        found += [facts.url, facts.url.rstrip("/"), host, host.removeprefix("www.")]
    return sorted({item for item in found if len(item) >= 5}, key=len, reverse=True)


def _safe_name(facts: SiteFacts) -> str:
    """The business name for a message: its own name, never its web address."""
    name = facts.identity.name[:MAX_NAME]
    if "://" in name or "@" in name or re.fullmatch(r"[\w.-]+\.[a-z]{2,}", name, re.I):
        return ""
    return name


def _shortened(name: str, room: int) -> str:
    """``name`` in at most ``room`` characters, whole words kept."""
    if len(name) <= room:
        return name
    words = name.split()
    while words and (len(" ".join(words)) > room
                     or words[-1].lower() in ("and", "of", "&", "the", "a", "for", "-")):
        words.pop()
    return " ".join(words)


def _cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut after a sentence when it can be."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(mark) for mark in (". ", "? ", "! ", "။", "ครับ ", "ค่ะ "))
    return head[: end + 1].strip() if end > limit // 2 else head[: limit - 1].rstrip() + "…"


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
