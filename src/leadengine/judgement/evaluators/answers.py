"""An LLM's answer: read it (:func:`parse_judgement`) and hold it to the site's facts
(:func:`hold_to_facts`): a name that addresses an AI, a fit score above what the facts
allow, a service the knowledge base excludes are corrected, each with a warning."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from leadengine.facts.scoring import fact_score, fit_caps
from leadengine.facts.site_facts import SiteFacts
from leadengine.judgement.evaluation import LLMAnswer
from leadengine.knowledge.rules import Rubric, Rules
from leadengine.website.injection import escape_fence_tags, find_injections

_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)

#: How far the model's fit score may rise above the fact-based (offline) score: room to
#: weigh what rules cannot read, not enough to turn a "worth a look" into a "high".
FACT_MARGIN = 15


def hold_to_facts(fields: dict[str, Any], facts: SiteFacts, content: str,
                  removed: list[str], rules: Rules | None
                  ) -> tuple[dict[str, Any], list[str]]:
    """The answer's fields corrected where the facts say otherwise, and a warning for
    each correction (and for each tag look-alike or sentence taken out of the facts
    section the model was sent)."""
    known = [quote.casefold() for quote in facts.injections]
    # A sentence in a value is already reported where the page holds it; the facts
    # line around it ("Address: ...") may make the sentence longer.
    warnings = [f"possible prompt injection removed from the site's facts: {quote[:200]!r}"
                for quote in removed if not any(k in quote.casefold() for k in known)]
    tags = escape_fence_tags(content)[1]
    warnings += [f"a fence-tag look-alike was escaped in the content: {tag[:200]!r}"
                 for tag in tags]
    # The page addressed an AI somewhere: its text, hidden text, metadata, facts, or
    # by imitating the fence. Whatever reached the model may have swayed it.
    addressed_ai = facts.addressed_ai or bool(tags or removed)
    if find_injections(fields["business_name"]):
        name = facts.identity.name
        warnings.append(f"the model's business_name addresses an AI "
                        f"({fields['business_name'][:200]!r}); replaced by {name!r}")
        fields["business_name"] = name
    if rules is not None:
        score, why = bound_fit_score(fields["fit_score"], facts, rules.rubric,
                                     addressed_ai=addressed_ai)
        if why:
            warnings.append(why)
            fields["fit_score"] = score
    exclusion = facts.exclusion
    # An excluded service is never pitched, whatever the model says.
    if exclusion is not None and fields["primary_service"] in exclusion.never_sell:
        warnings.append(
            f"the model pitched {fields['primary_service']!r}, which the knowledge "
            f"base excludes for a {exclusion.industry}; replaced by "
            f"{exclusion.recommend!r}")
        fields["primary_service"] = exclusion.recommend
    return fields, warnings


def bound_fit_score(score: int, facts: SiteFacts, rubric: Rubric, *,
                    addressed_ai: bool) -> tuple[int, str | None]:
    """The model's fit score held to the facts, and the warning when it had to be
    lowered (None when it stands).

    The ceiling is the fact-based score (the offline rubric on the same site) plus
    :data:`FACT_MARGIN`, and never above a rubric cap that the facts trigger (out of
    market, location not stated, excluded industry, nothing identified). When the page
    addressed an AI the ceiling is the fact-based score itself: a model that may have
    been swayed gets no benefit of the doubt. A score below the ceiling stands: the
    model may see a reason to rate a lead lower that the rules cannot."""
    fact = fact_score(facts, rubric)
    ceiling, why = min(100, fact + FACT_MARGIN), (
        f"more than {FACT_MARGIN} points above the fact-based score of {fact} (the "
        "knowledge base's rubric applied to the site's signals)")
    for cap, reason in fit_caps(facts, rubric):
        if cap < ceiling:
            ceiling, why = cap, f"the rubric caps {reason} at {cap}"
    if addressed_ai and fact < ceiling:
        ceiling, why = fact, (f"the page addresses an AI (possible prompt injection), so "
                              f"the score may not exceed the fact-based score of {fact}")
    if score <= ceiling:
        return score, None
    return ceiling, f"fit_score lowered from {score} to {ceiling}: {why}"


def parse_judgement(answer: str) -> LLMAnswer:
    """The six fields from a model's answer; ValueError says what is wrong, briefly."""
    text = answer.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1)
    if not text:
        raise ValueError("the answer was empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
                         ) from None
    if not isinstance(data, dict):
        raise ValueError("the JSON is not an object")
    try:
        return LLMAnswer.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'object'}: {e['msg']}"
                             for e in exc.errors())
        raise ValueError(problems) from None
