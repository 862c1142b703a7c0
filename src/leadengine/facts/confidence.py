"""How far a judgement of a site can be trusted, from what its facts could and could
not establish: ``high``, ``medium`` or ``low``, with the reasons in words.

A judgement is only as good as what the site shows. A JavaScript shell or a page of
images has no text to read; a site in a language the knowledge base's rules do not
cover is read from its markup and the category's words alone; a location whose clues
disagree is not known. Each such case lowers the confidence and says why, so a
salesperson never takes a guess for a finding. Every evaluator's result gets the same
confidence (it depends on the facts, not on who judged them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from leadengine.facts.site_facts import SiteFacts
from leadengine.facts.site_facts import readable_words as readable_words

if TYPE_CHECKING:
    from leadengine.judgement.grounding import Grounding

#: Fewer readable words than this: the site's facts cannot be read (a shell, images).
MIN_WORDS = 40
#: Fewer than this: few facts to go on.
FEW_WORDS = 60
#: Languages whose words the knowledge base's rules (industries, size signals, angle
#: cues) are written in.
RULE_LANGUAGES = frozenset({"en", "th", "my"})
#: A category this unsure is no identification.
UNSURE_CATEGORY = 0.35
LANGUAGE_NAMES = {
    "ja": "Japanese", "ko": "Korean", "zh": "Chinese", "vi": "Vietnamese", "id": "Indonesian",
    "ms": "Malay", "hi": "Hindi", "bn": "Bengali", "ar": "Arabic", "fr": "French",
    "de": "German", "es": "Spanish", "pt": "Portuguese", "ru": "Russian", "km": "Khmer",
    "lo": "Lao", "ta": "Tamil", "ur": "Urdu", "it": "Italian", "nl": "Dutch",
}


@dataclass(frozen=True)
class Confidence:
    level: str  # high, medium, low
    reasons: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"level": self.level, "reasons": list(self.reasons)}

    def sentence(self) -> str:
        """The reasoning's closing sentence ("" when confidence is high)."""
        if self.level == "high":
            return ""
        return f"Confidence {self.level}: {'; '.join(self.reasons)}."


def judge_confidence(facts: SiteFacts, grounding: Grounding | None = None) -> Confidence:
    """The confidence of a judgement made from ``facts``, and why; never high when a
    claim of the judgement failed its grounding check (one failure: at most medium;
    two or more: low)."""
    low: list[str] = []
    medium: list[str] = []
    words = facts.words
    if words < MIN_WORDS:
        low.append(f"the site has almost no readable text ({words} words: a JavaScript "
                   "app, images only or a placeholder), so its business, location and "
                   "gaps cannot be read from it")
    elif words < FEW_WORDS:
        medium.append(f"the site has little text ({words} words)")
    language = (facts.language or "").split("-")[0].lower()
    if words >= MIN_WORDS and language and language not in RULE_LANGUAGES:
        name = LANGUAGE_NAMES.get(language, language)
        medium.append(f"the site is in {name} ({language}), which the knowledge base's "
                      "rules do not cover: read from its markup, links and category words "
                      "only")
    unsure = facts.identity.industry is None and (
        facts.category.value == "other" or facts.category.confidence < UNSURE_CATEGORY)
    if words >= MIN_WORDS and unsure:
        medium.append("the industry could not be identified")
    if facts.site_kind.many_businesses:
        medium.append(f"the site is a {facts.site_kind.value} of many businesses, not one "
                      "business: its listings are the leads")
    if facts.location.conflict:
        low.append(f"the location clues disagree ({facts.location.conflict})")
    failed = grounding.reasons() if grounding is not None else []
    (low if len(failed) >= 2 else medium).extend(failed)
    if low:
        return Confidence("low", tuple(low + medium))
    if medium:
        return Confidence("medium", tuple(medium))
    return Confidence("high")
