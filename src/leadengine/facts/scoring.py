"""The knowledge base's fit-score rubric applied to a site's facts.

One pure function of the facts, used by both evaluators: it is the offline
evaluator's fit score, and the fact-based score that bounds an LLM's::

    fit = base + geography + industry points + size points + maturity gap points
    rounded, clamped to 0..100, then capped (out of market, location not stated,
    excluded industry, nothing identified)
"""

from __future__ import annotations

from leadengine.facts.conditions import holds
from leadengine.facts.confidence import MIN_WORDS
from leadengine.facts.site_facts import SiteFacts
from leadengine.knowledge.rules import Angle, Rubric, Rules


def fact_score(facts: SiteFacts, rubric: Rubric) -> int:
    """The rubric's fit score for these facts, within every cap they trigger."""
    fit = max(0, min(100, round(sum(points for points, _ in score_terms(facts, rubric)))))
    return min([fit, *(cap for cap, _ in fit_caps(facts, rubric))])


def score_terms(facts: SiteFacts, rubric: Rubric) -> list[tuple[float, str]]:
    """The points the rubric gives these facts, each with what earned it (their sum,
    rounded, clamped and capped, is :func:`fact_score`)."""
    terms: list[tuple[float, str]] = [(rubric.base, "base")]
    location = facts.location
    if location.target:
        name, why = location.target.name, location.evidence
        # "Bangkok, a target city (address text: ...)": the clue is in the brackets.
        wrapper = f"{name}, a target city ("
        if why.startswith(wrapper) and why.endswith(")"):
            why = why[len(wrapper):-1]
        terms.append((rubric.in_target_geography,
                      f"in a target market ({name}: {_short(why)})"))
    elif not location.out_of_market:
        terms.append((rubric.unknown_geography, "location not stated"))
    industry = facts.identity.industry
    if industry is not None and industry.points:
        seen = facts.identity.industry_evidence
        terms.append((industry.points, f"industry {industry.name}"
                      + (f" ({seen})" if seen else "")))
    size = size_points(facts, rubric)
    if size:
        labels = ", ".join(signal.label + (f' ("{facts.size_evidence[signal.label]}")'
                                           if signal.label in facts.size_evidence else "")
                           for signal in facts.size)
        capped = " (capped)" if size != sum(signal.points for signal in facts.size) else ""
        terms.append((size, f"size: {labels}{capped}"))
    for layer in facts.layers:
        points = layer.rule.gap_points * (1 - layer.share)
        if points:
            missing = ", ".join(gap.replace("not:", "is ").replace("_", " ")
                                for gap in layer.gaps)
            terms.append((points, f"{layer.rule.name} gap ({missing})"))
    return terms


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def explain_score(facts: SiteFacts, rubric: Rubric) -> str:
    """Every point of the fit score and every cap, as one sentence: "Score: base 10,
    in a target market (Bangkok) +25, …, capped at 65 (…) = 65."."""
    terms = score_terms(facts, rubric)
    parts = [f"{label} {points:+.0f}" if label != "base" else f"base {points:.0f}"
             for points, label in terms]
    fit = max(0, min(100, round(sum(points for points, _ in terms))))
    caps = [(cap, why) for cap, why in fit_caps(facts, rubric) if cap < fit]
    text = "Score: " + ", ".join(parts)
    if caps:
        cap, why = min(caps)
        text += f" = {fit}, capped at {cap} for {why}"
    return text + f" = {fact_score(facts, rubric)}."


def size_points(facts: SiteFacts, rubric: Rubric) -> int:
    """The size signals' points, at most ``rubric.size_cap`` either way."""
    points = sum(size.points for size in facts.size)
    return max(-rubric.size_cap, min(rubric.size_cap, points))


def gap_points(facts: SiteFacts) -> float:
    """Points for what the maturity layers lack: each layer's ``gap_points`` times the
    part of its evidence the site does not show."""
    total = 0.0
    for layer in facts.layers:
        total += layer.rule.gap_points * (1 - layer.share)
    return total


def fit_caps(facts: SiteFacts, rubric: Rubric) -> list[tuple[int, str]]:
    """The rubric's caps that apply to these facts, each with why: the most the fit
    score may be, whoever computes it (the LLM evaluator bounds its answer by them)."""
    caps = []
    location, exclusion = facts.location, facts.exclusion
    if location.out_of_market:
        caps.append((rubric.out_of_market_max_fit,
                     f"an out-of-market lead ({location.out_of_market.name})"))
    elif not location.target:
        caps.append((rubric.unknown_geography_max_fit, "a site that does not state its "
                                                       "location"))
    if exclusion:
        caps.append((exclusion.max_fit, f"an excluded industry ({exclusion.industry})"))
    if not location.target and not facts.identity.industry:
        caps.append((rubric.unidentified_max_fit, "a site showing neither location nor "
                                                  "industry"))
    if facts.scale.value == "small":
        caps.append((rubric.small_outlet_max_fit,
                     f"a single small outlet ({facts.scale.evidence})"))
    kind = facts.site_kind
    if kind.many_businesses:
        caps.append((rubric.directory_max_fit, f"a {kind.value} of many businesses, not one "
                                               f"({kind.evidence})"))
    words = facts.words
    if words < MIN_WORDS:
        # Its gaps are not known, only not seen: the page is a shell, images or a stub.
        caps.append((rubric.unidentified_max_fit,
                     f"a site with almost no readable text ({words} words)"))
    return caps


def first_angle(facts: SiteFacts, rules: Rules) -> Angle | None:
    """The rules' angle for these facts: the first by priority whose conditions hold and,
    if it lists keywords, one of them is on the site (the offline evaluator's angle, and
    a message's when an evaluator named none)."""
    values = facts.conditions()
    return next(
        (a for a in sorted(rules.angles, key=lambda a: a.priority)
         if all(holds(c, values) for c in a.when)
         and (not a.keywords or any(k.lower() in facts.cue_words for k in a.keywords))),
        None)
