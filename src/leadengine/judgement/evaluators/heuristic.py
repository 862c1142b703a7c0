"""The offline evaluator: deterministic judgement from the site's facts and the
knowledge-base rules.

No network, no key. Every number and word it uses comes from the rules in the
knowledge files' front matter (:mod:`leadengine.knowledge.rules`), so editing the
knowledge base changes its judgement the same way it changes the LLM's
context. The facts (name, place, industry, exclusion, maturity layers) are the
pipeline's (:mod:`leadengine.facts.site_facts`); this module only judges them: the fit
score by the rubric (:mod:`leadengine.facts.scoring`), the angle, the service, and
the sentences that explain them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from leadengine.facts.conditions import holds
from leadengine.facts.confidence import judge_confidence
from leadengine.facts.scoring import explain_score, fact_score, first_angle
from leadengine.facts.site_facts import SiteFacts
from leadengine.judgement.evaluation import ANGLES, AngleName, Verdict
from leadengine.judgement.outreach_words import observations, sentence
from leadengine.knowledge.base import Knowledge
from leadengine.knowledge.rules import Angle, Rules
from leadengine.retrieval import Hit


@dataclass(frozen=True)
class RuleJudgement:
    """What the rules conclude from a site's facts."""

    fit_score: int
    angle: Angle | None
    #: The service to pitch, after the industry's exclusion.
    service_name: str
    #: The rubric's bands ("high": 70, ...), to name the score's band.
    bands: dict[str, int]
    #: Every point of the fit score and every cap, in words (:func:`explain_score`).
    score_explained: str = ""


class HeuristicEvaluator:
    """Judges a site's facts with the knowledge base's rules; names itself ``heuristic``."""

    name = "heuristic"
    model = configured_model = "rules-v1"

    def __init__(self, kb: Knowledge) -> None:
        self.kb = kb
        #: It never switches models and has nothing to say before it starts.
        self.switches: list[str] = []
        self.notices: list[str] = []

    #: Its messages are the knowledge base's templates, never written anew.
    writes_messages = False

    def share_limits(self, parts: int) -> None:
        """It sends no requests: there are no limits to share."""

    def limit_in_flight(self, requests: int) -> None:
        """It sends no requests."""

    def rate_limits_to_share(self) -> None:
        """It has no provider."""
        return None

    def use_limiter(self, limiter: object) -> None:
        """It sends no requests."""

    async def judge(self, facts: SiteFacts, hits: Sequence[Hit]) -> Verdict:
        """The rules' verdict; the name and business type are the facts' own."""
        judgement = judge(facts, self.kb.rules)
        angle = judgement.angle
        return Verdict(
            primary_service=judgement.service_name,
            fit_score=judgement.fit_score,
            # Only the framework's six names are valid angles; a custom one stays in the
            # outreach line.
            angle=cast(AngleName, angle.name) if angle and angle.name in ANGLES else None,
            reasoning=reasoning(facts, judgement),
            outreach_angle=outreach(facts, judgement),
            cost_usd=0.0,
        )


def judge(facts: SiteFacts, rules: Rules) -> RuleJudgement:
    """Apply the rules to a site's facts: fit score, angle and service."""
    values = facts.conditions()
    angle = first_angle(facts, rules)
    eligible = [s for s in sorted(rules.services, key=lambda s: s.priority)
                if all(holds(c, values) for c in s.when)]
    # The pitch follows the lead's gap: of the services whose conditions hold, one that
    # answers a condition of the angle ("not:online_booking" for bookings by phone)
    # first, then by priority.
    gap = {c for c in (angle.when if angle else []) if c != "has_website"}
    service = next((s for s in eligible if gap & set(s.when)),
                   eligible[0] if eligible else rules.services[0] if rules.services
                   else None)
    name = service.name if service else "Foundation Package"
    if facts.exclusion and name in facts.exclusion.never_sell:
        name = facts.exclusion.recommend
    return RuleJudgement(fit_score=fact_score(facts, rules.rubric), angle=angle,
                         service_name=name, bands=dict(rules.rubric.bands),
                         score_explained=explain_score(facts, rules.rubric))


def reasoning(facts: SiteFacts, judgement: RuleJudgement) -> str:
    """One or two sentences built from the evidence."""
    industry = facts.identity.business_type or "business"
    location = facts.location
    if location.target:
        first = f"{location.target.name}-based {industry.lower()} (target geography)"
    elif location.out_of_market:
        first = (f"{industry} located in {location.out_of_market.name}, outside the target "
                 "markets")
    else:
        first = f"{industry} whose location is not stated on the site"
    gaps = []
    flags = facts.flags
    if flags.get("facebook_only"):
        gaps.append("Facebook-only presence")
    if not flags.get("analytics"):
        gaps.append("no tracking scripts detected")
    if not flags.get("online_booking") and not flags.get("ecommerce"):
        gaps.append("no online booking" if flags.get("contact_form")
                    else "no online booking or lead capture form")
    if gaps:
        first += " with " + ", ".join(gaps)
    sentence = first[0].upper() + first[1:] + "."
    if facts.size:
        sentence += f" Size signals: {', '.join(size.label for size in facts.size)}."
    exclusion = facts.exclusion
    if exclusion:
        sentence += (f" {exclusion.industry}: {exclusion.reason.rstrip('.')}"
                     f"; pitch {judgement.service_name} instead.")
    else:
        band = _band(judgement.fit_score, judgement.bands)
        sentence += f" {band} fit for {judgement.service_name} per qualification criteria."
    doubt = judge_confidence(facts).sentence()
    if doubt:
        sentence += " " + doubt
    if judgement.score_explained:
        sentence += " " + judgement.score_explained
    return sentence


def outreach(facts: SiteFacts, judgement: RuleJudgement) -> str:
    """The chosen angle's framing line, filled in for this business."""
    if judgement.angle is None:
        return "Open with a neutral review of their current digital presence."
    target = facts.location.target
    values = {
        "business_name": facts.identity.name,
        "place": target.name if target else "their market",
        "industry": facts.identity.category or "their industry",
    }
    line = judgement.angle.framing.format_map(_Defaults(values))
    # What this lead's site shows, in plain words (never its own address or phone): two
    # leads with the same angle get different lines.
    seen = observations(facts, judgement.angle, "en", notes=True)
    return f"{line} What the site shows: {sentence(seen, 'en')}." if seen else line


class _Defaults(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _band(score: int, bands: dict[str, int]) -> str:
    """The rubric band's name ("High", "Medium", "Low") for a score."""
    for name, floor in sorted(bands.items(), key=lambda item: -item[1]):
        if score >= floor:
            return name.capitalize()
    return "Low"
