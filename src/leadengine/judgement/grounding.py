"""Every claim of a verdict checked against the site's facts before a salesperson sees it.

An evaluator's verdict (the LLM's, or the offline rules') states who the business is,
what kind, where, what to pitch and why. Each statement is held to what the site shows:

* **name**: found on the site (its text, title, JSON-LD, logo alt text, header, domain),
  compared without case, spaces or punctuation, or as a transliteration of a name the
  site writes in another script (:mod:`leadengine.judgement.names`); else the facts'
  name replaces it;
* **type**: the kind of business it names (its words read with the category taxonomy)
  agrees with the site's category; a contradicted type is replaced by the facts' when
  the category is clear;
* **location**: the places the answer names agree with where the site says it is;
* **service**: the service pitched is one of the knowledge base's;
* **reasoning**: no sentence denies a signal the site shows ("no analytics" when
  Google Analytics loads) or claims a presence it lacks ("Facebook-only");
* **text**: no markup, control characters, unreadable length, or a script neither
  English nor the site's.

The result is a :class:`Grounding` (each check, its result and evidence: the
evaluation's ``grounding`` block), the verdict corrected where it could be, and a
warning for each failure. A failed check keeps the confidence from being high
(:func:`leadengine.facts.confidence.judge_confidence`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from leadengine.facts.site_facts import SiteFacts
from leadengine.judgement.evaluation import Verdict
from leadengine.judgement.names import folded, name_on_site, script_of
from leadengine.knowledge.rules import Rules

#: Longest business name, business type and service taken as one (a longer one is not a
#: name but a paragraph).
MAX_NAME, MAX_TYPE, MAX_SERVICE = 120, 80, 120
MAX_REASONING, MAX_ANGLE = 2_000, 600
#: Categories of the site, at this confidence or more, are sure enough to contradict.
SURE_CATEGORY = 0.5
#: ...and to replace a contradicting type with the facts'.
REPLACE_CATEGORY = 0.6
#: Categories close enough that naming one for the other is no contradiction.
NEIGHBOURS = frozenset(frozenset(pair) for pair in (
    ("healthcare", "beauty_wellness"), ("fitness", "beauty_wellness"),
    ("hospitality", "food_beverage"), ("software_it", "telecom"),
    ("software_it", "marketing_agency"), ("professional_services", "finance"),
    ("professional_services", "marketing_agency"), ("professional_services", "software_it"),
    ("retail", "trading"), ("trading", "manufacturing"), ("trading", "logistics"),
    ("construction", "real_estate"), ("retail", "food_beverage"),
    ("education", "professional_services")))
_TAG = re.compile(r"<(script|style)\b[^>]{0,400}>.*?</\1\s*>|<[/!]?[a-zA-Z][^<>]{0,400}>",
                  re.I | re.S)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064]")


@dataclass(frozen=True)
class Check:
    """One claim of a verdict against the facts."""

    #: ``name``, ``type``, ``location``, ``service``, ``reasoning`` or ``text``.
    check: str
    #: ``pass``; ``corrected`` (the claim was replaced by the facts'); ``fail`` (kept,
    #: with a warning).
    result: str
    #: What the verdict said.
    claim: str
    #: What the facts say, and where.
    evidence: str

    @property
    def failed(self) -> bool:
        return self.result != "pass"

    def as_dict(self) -> dict[str, str]:
        return {"check": self.check, "result": self.result, "claim": self.claim,
                "evidence": self.evidence}


@dataclass(frozen=True)
class Grounding:
    """Every check of one verdict."""

    checks: tuple[Check, ...] = ()

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if check.failed)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": not self.failures, "failed": len(self.failures),
                "checks": [check.as_dict() for check in self.checks]}

    def reasons(self) -> list[str]:
        """One short reason per failed check, for the confidence."""
        return [f"the evaluator's {c.check} is not borne out by the site ({c.evidence})"
                for c in self.failures]


def ground(verdict: Verdict, facts: SiteFacts, rules: Rules) -> tuple[Verdict, Grounding]:
    """``verdict`` held to ``facts``: corrected where a claim is replaced by the facts',
    with a warning for every failed check, and the checks."""
    fields = verdict.model_dump()
    checks = [_text(fields, facts)]
    checks.append(_name(fields, facts))
    checks.append(_type(fields, facts))
    checks.append(_service(fields, rules, facts))
    checks.append(_location(fields, facts, rules))
    checks.append(_reasoning(fields, facts))
    warnings = [_warning(check) for check in checks if check.failed]
    fields["warnings"] = [*verdict.warnings, *warnings]
    return Verdict(**fields), Grounding(tuple(checks))


def _warning(check: Check) -> str:
    if check.result == "corrected":
        return (f"grounding: the evaluator's {check.check} {check.claim!r} is not borne out "
                f"by the site ({check.evidence}); replaced")
    return (f"grounding: the evaluator's {check.check} {check.claim!r} is not borne out by "
            f"the site ({check.evidence})")


# -- text ----------------------------------------------------------------------------------

def clean(text: str) -> str:
    """``text`` without markup, entities, control and invisible characters, with its
    spaces collapsed."""
    text = html.unescape(_TAG.sub(" ", text))
    return " ".join(_CONTROL.sub("", text).split())


def _text(fields: dict[str, Any], facts: SiteFacts) -> Check:
    """Markup, control characters and overlong fields out of every text field; an answer
    in a script neither English nor the site's is noted."""
    changed = []
    limits = {"business_name": MAX_NAME, "business_type": MAX_TYPE,
              "primary_service": MAX_SERVICE, "reasoning": MAX_REASONING,
              "outreach_angle": MAX_ANGLE}
    for name, limit in limits.items():
        value = fields.get(name)
        if not isinstance(value, str):
            continue
        cleaned = clean(value)
        if name in ("reasoning", "outreach_angle") and len(cleaned) > limit:
            cleaned = cleaned[: limit - 1].rstrip() + "…"
        if cleaned != value:
            changed.append(name)
            if name in ("business_name", "business_type"):
                fields[name] = cleaned or None  # nothing left: the facts' is used
            else:
                fields[name] = cleaned or value
    foreign = [name for name in ("reasoning", "outreach_angle")
               if _foreign_script(str(fields.get(name) or ""), facts)]
    if foreign:
        scripts = ", ".join(sorted({script_of(str(fields[n])) for n in foreign}))
        return Check("text", "fail", ", ".join(foreign),
                     f"written in {scripts}, neither English nor the site's language")
    if changed:
        return Check("text", "corrected", ", ".join(changed),
                     "markup, control characters or overlong text removed")
    return Check("text", "pass", "", "plain text")


def _foreign_script(text: str, facts: SiteFacts) -> bool:
    if not text:
        return False
    script = script_of(text)
    if script == "LATIN":
        return False
    site = script_of(facts.text[:3000] + " ".join(facts.name_sources))
    return script != site


# -- name ----------------------------------------------------------------------------------

def _name(fields: dict[str, Any], facts: SiteFacts) -> Check:
    claim = fields.get("business_name")
    own = facts.identity.name
    if not claim:
        return Check("name", "pass", own, f"the site's own name ({facts.identity.name_source})")
    if len(claim) > MAX_NAME:
        fields["business_name"] = None
        return Check("name", "corrected", claim[:60] + "…",
                     f"{len(claim)} characters is no name; the site's is {own!r}")
    found = name_on_site(claim, facts)
    if found:
        return Check("name", "pass", claim, found)
    fields["business_name"] = None
    return Check("name", "corrected", claim,
                 f"found nowhere on the site; the site's name is {own!r} "
                 f"({facts.identity.name_source})")


# -- type ----------------------------------------------------------------------------------

def _type(fields: dict[str, Any], facts: SiteFacts) -> Check:
    from leadengine.website.category import PHRASES, phrase_category

    claim = fields.get("business_type")
    category = facts.category
    if not claim:
        return Check("type", "pass", "", f"the facts' category {category.value}")
    named = phrase_category(claim)
    sure = category.value != "other" and category.confidence >= SURE_CATEGORY
    if named is None or not sure or named == category.value or \
            frozenset((named, category.value)) in NEIGHBOURS:
        said = f"names {named}" if named else "names no category"
        return Check("type", "pass", claim, f"{said}; the site's category is "
                                           f"{category.value} ({category.confidence:.2f})")
    evidence = (f"it names {named}, the site is {category.value} "
                f"({category.confidence:.2f}: {category.evidence[:120]})")
    if category.confidence >= REPLACE_CATEGORY:
        fields["business_type"] = facts.identity.business_type or PHRASES.get(category.value)
        return Check("type", "corrected", claim, evidence)
    return Check("type", "fail", claim, evidence)


# -- service -------------------------------------------------------------------------------

def _service(fields: dict[str, Any], rules: Rules, facts: SiteFacts) -> Check:
    claim = str(fields.get("primary_service") or "")
    names = [s.name for s in rules.services]
    if facts.exclusion is not None:
        names.append(facts.exclusion.recommend)
    if not names:
        return Check("service", "pass", claim, "the knowledge base lists no services")
    key = folded(claim)
    for name in names:
        if key == folded(name):
            return Check("service", "pass", claim, "one of the knowledge base's services")
    near = [n for n in names if key and (folded(n) in key or key in folded(n))]
    if len(near) == 1:
        fields["primary_service"] = near[0]
        return Check("service", "corrected", claim,
                     f"the knowledge base's service is called {near[0]!r}")
    return Check("service", "fail", claim, "not one of the knowledge base's services ("
                                           + ", ".join(names[:6]) + ")")


# -- location ------------------------------------------------------------------------------

def _location(fields: dict[str, Any], facts: SiteFacts, rules: Rules) -> Check:
    """The places of the knowledge base's geography the answer names, against the
    facts' location (and the site's own text, which may name branches elsewhere)."""
    said = " ".join(str(fields.get(n) or "") for n in ("reasoning", "outreach_angle",
                                                         "business_type"))
    named = [p for p in rules.places if _names_place(said, [*p.aliases, p.name])]
    location = facts.location
    where = location.city or location.country
    unknown = _unknown_places(said, facts, [n for p in named for n in (p.name, *p.aliases)])
    if unknown:
        facts_say = f"the site is in {where}" if where else "the site names no such place"
        return Check("location", "fail", ", ".join(unknown),
                     f"{facts_say}; the site never names {unknown[0]!r}")
    if not named:
        return Check("location", "pass", "", f"names no place of the geography; the site: "
                                             f"{where or 'no place stated'}")
    text = facts.text.lower()
    wrong = []
    for place in named:
        if location.place is not None and place.name == location.place.name:
            continue
        if location.country and place.name.lower() == location.country.lower():
            continue
        if location.place is None and any(a.lower() in text for a in (place.name,
                                                                       *place.aliases)):
            continue  # no place decided, but the site does name this one
        wrong.append(place.name)
    claims = ", ".join(p.name for p in named)
    if not wrong:
        return Check("location", "pass", claims, location.evidence or "named on the site")
    facts_say = (f"the site is in {where} ({location.evidence[:100]})" if where
                 else "the site names no such place")
    return Check("location", "fail", ", ".join(wrong), facts_say)


#: Where an answer says a business is: "based in X", "located in X", "X-based".
_PLACED = re.compile(r"\b(?:based|located|situated|headquartered) in (?:the )?"
                     r"((?:[A-Z][\w'.-]+)(?: [A-Z][\w'.-]+){0,2})|"
                     r"\b((?:[A-Z][\w'.-]+ ){0,2}[A-Z][\w'.]+)-based\b")


def _unknown_places(said: str, facts: SiteFacts, known: list[str]) -> list[str]:
    """The places the answer says the business is in that the site never names (a city
    that does not exist, or another one)."""
    site = (facts.text + " " + " ".join(facts.name_sources) + " " + " ".join(
        v for v in (facts.location.city, facts.location.region, facts.location.country,
                    facts.location.address) if v)).lower()
    found = []
    for match in _PLACED.finditer(said):
        place = (match.group(1) or match.group(2) or "").strip(" .")
        if place and place.lower() not in site and not any(
                place.lower() == k.lower() for k in known):
            found.append(place)
    return list(dict.fromkeys(found))


def _names_place(text: str, names: Iterable[str]) -> bool:
    lowered = text.lower()
    for name in names:
        key = name.lower()
        if not key:
            continue
        if key.isascii():
            if re.search(rf"(?<![a-z]){re.escape(key)}(?![a-z])", lowered):
                return True
        elif key in lowered:
            return True
    return False


# -- reasoning -----------------------------------------------------------------------------

#: Signals a reasoning sentence may deny, and the words that name them.
_DENIABLE = {
    "analytics": r"\b(?:analytics|tracking|trackers?|measurement|ga4?|pixels?)\b",
    "online_booking": r"\b(?:online booking|booking|reservations?|appointment system)\b",
    "contact_form": r"\b(?:contact|enquiry|inquiry|lead(?: capture)?) forms?\b",
    "ecommerce": r"\b(?:online (?:shop|store)|e-?commerce)\b",
    "messaging_link": r"\b(?:line|whatsapp|viber|messenger|telegram|messaging)\b",
    "has_website": r"\b(?:own )?website\b",
}
_NEGATION = (r"(?:\bno\b|\bnot\b|\bnone\b|\bwithout\b|\black(?:s|ing)?\b|\bmissing\b|"
             r"\babsen(?:t|ce)\b|does(?:n't| not) (?:have|use|offer)|\bzero\b|\bnever\b)")


def _reasoning(fields: dict[str, Any], facts: SiteFacts) -> Check:
    text = " ".join(str(fields.get(n) or "") for n in ("reasoning", "outreach_angle"))
    wrong: list[str] = []
    evidence: list[str] = []
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", text):
        lowered = sentence.lower()
        for signal, words in _DENIABLE.items():
            if not facts.flags.get(signal):
                continue
            if re.search(rf"{_NEGATION}\W+(?:\w+\W+){{0,4}}?(?:{words})", lowered) or \
                    re.search(rf"(?:{words})\W+(?:\w+\W+){{0,2}}?(?:is |are )?"
                              rf"(?:missing|absent|lacking|not found)", lowered):
                wrong.append(sentence.strip()[:160])
                evidence.append(f"{signal}: {facts.evidence.get(signal, 'found')[:80]}")
        if re.search(r"facebook[- ]only|only (?:on|through|via) facebook", lowered) \
                and not facts.flags.get("facebook_only"):
            wrong.append(sentence.strip()[:160])
            evidence.append("the site is its own website, not a Facebook page alone")
    if not wrong:
        return Check("reasoning", "pass", "", "no sentence contradicts a signal")
    return Check("reasoning", "fail", " / ".join(dict.fromkeys(wrong)),
                 "; ".join(dict.fromkeys(evidence)))
