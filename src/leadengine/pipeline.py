"""One URL through every stage, one way:
fetch -> read -> facts -> retrieve -> judge -> assemble.

The facts are computed once (:func:`leadengine.facts.site_facts.site_facts`), every evaluator
judges the same facts, and the evaluation is assembled here from the facts and the
evaluator's verdict (:func:`assemble_evaluation`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from leadengine.config import Settings
from leadengine.errors import LeadEngineError
from leadengine.facts.confidence import judge_confidence
from leadengine.facts.scoring import first_angle
from leadengine.facts.site_facts import SiteFacts, site_facts
from leadengine.judgement.evaluation import Evaluation, Source, Verdict
from leadengine.judgement.evaluators import Evaluator, make_evaluator
from leadengine.judgement.grounding import Grounding, ground
from leadengine.judgement.judge_eval import CONCURRENCY, Label
from leadengine.judgement.model_answers import checked_model_answers
from leadengine.judgement.outreach import OutreachMessage, Rep, compose
from leadengine.judgement.questions import answer_all
from leadengine.knowledge.rules import Question, Rules
from leadengine.retrieval import Hit
from leadengine.retrieval.knowledge_base import KnowledgeBase
from leadengine.website.category import PHRASES
from leadengine.website.load import load_site
from leadengine.website.site import Site
from leadengine.website.urls import lead_target

#: The business type of a site whose industry neither the facts nor the evaluator name.
UNIDENTIFIED_TYPE = "Business (industry not identified)"
#: Without an industry of the knowledge base, the type is the category's phrase.


def load_knowledge(settings: Settings) -> KnowledgeBase:
    """The knowledge base the settings point at (or the default one)."""
    return KnowledgeBase.from_settings(settings)


def advisory_hits(site: Site, kb: KnowledgeBase, settings: Settings) -> list[Hit]:
    """The knowledge passages for this site; none when RAG is off. ``keyword`` returns
    the seed's whole documents; the section methods are capped by the token budget."""
    if not settings.use_rag:
        return []
    method = settings.retrieval_method
    if method == "keyword":
        return kb.retrieve(site.content, limit=settings.rag_limit, method=method)
    return kb.retrieve(retrieval_query(site), limit=settings.rag_limit, method=method,
                       budget=settings.rag_budget, semantic_query=retrieval_parts(site))


def retrieval_query(site: Site) -> str:
    """The query of the section methods: the signals block first, then the website
    content."""
    signals = site.signals_text
    return f"{signals}\n\n{site.text}" if signals else site.text


def retrieval_parts(site: Site) -> tuple[str, ...]:
    """What an embedding model reads of the query, in parts it embeds apart: the signals
    block, then the site's words (its content without the page addresses, which are
    noise to the model and were a third of a thin page's tokens). The signals block
    recurs across sites and is embedded once (see
    :meth:`leadengine.retrieval.semantic.SemanticRetriever.query_vector`), so a site
    costs the model only its own words."""
    signals = site.signals_text
    words = "\n".join(line for line in site.text.splitlines()
                      if not line.startswith(_ADDRESS_LINES)).strip()
    return (signals, words) if signals else (words,)


#: Lines of the website content that are page addresses (see ``page_content``).
_ADDRESS_LINES = ("Website: ", "[Page: ")


async def evaluate_site(site: Site, kb: KnowledgeBase, settings: Settings,
                        evaluator: Evaluator | None = None) -> Evaluation:
    """Evaluate an already loaded site: its facts, advisory context, the evaluator's
    verdict, assembled into one evaluation."""
    evaluator = evaluator or make_evaluator(settings, kb)
    facts = site_facts(site, kb.rules)
    hits = advisory_hits(site, kb, settings)
    verdict, grounding = ground(await evaluator.judge(facts, hits), facts, kb.rules)
    message = first_message(facts, kb.rules, verdict, settings.outreach_language,
                            Rep(settings.rep_name or "", settings.rep_company or "",
                                settings.rep_gender))
    if message is not None and settings.outreach_writer == "llm" \
            and evaluator.writes_messages:
        from leadengine.judgement.evaluators.llm import LLMEvaluator
        from leadengine.judgement.evaluators.message_writer import write_message

        assert isinstance(evaluator, LLMEvaluator)
        written = await write_message(evaluator, facts, message, verdict.primary_service)
        message = written.message
        tokens = dict(verdict.tokens)
        for name, count in (written.tokens or {}).items():
            tokens[name] = tokens.get(name, 0) + count
        verdict = verdict.model_copy(update={
            "warnings": [*verdict.warnings, *written.warnings], "tokens": tokens})
    answers, warnings = answer_questions(site, facts, kb.rules.questions, verdict.answers)
    if warnings:
        verdict = verdict.model_copy(update={"warnings": [*verdict.warnings, *warnings]})
    return assemble_evaluation(facts, verdict, hits, provider=evaluator.name,
                               model=verdict.model or evaluator.model, rag=settings.use_rag,
                               outreach=message, grounding=grounding, answers=answers)


def answer_questions(site: Site, facts: SiteFacts, questions: Sequence[Question],
                     given: dict[str, Any] | None
                     ) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The questions answered from the site (and the model's answers where their
    evidence is on a page read), and a warning for each model answer set aside."""
    if not questions:
        return {}, []
    offline = answer_all(questions, site.passages, facts.flags, facts.evidence)
    warnings: list[str] = []
    if given is not None:
        offline, warnings = checked_model_answers(questions, given, site.passages, offline)
    return {key: answer.as_dict() for key, answer in offline.items()}, warnings


def first_message(facts: SiteFacts, rules: Rules, verdict: Verdict,
                  language: str | None = None, rep: Rep | None = None
                  ) -> OutreachMessage | None:
    """The outreach message for the verdict's angle (the rules' angle when the
    evaluator named none), from the knowledge base's templates."""
    angle = next((a for a in rules.angles if a.name == verdict.angle), None)
    if angle is None:
        angle = first_angle(facts, rules)
    return compose(facts, rules, angle, verdict.primary_service, language, rep)


def assemble_evaluation(facts: SiteFacts, verdict: Verdict, hits: Sequence[Hit], *,
                        provider: str, model: str, rag: bool,
                        outreach: OutreachMessage | None = None,
                        grounding: Grounding | None = None,
                        answers: dict[str, dict[str, Any]] | None = None) -> Evaluation:
    """The evaluation: the evaluator's judgement and usage, and the site's facts (name and
    type when the verdict leaves them, maturity, exclusions, signals, warnings)."""
    identity = facts.identity
    warnings = list(facts.page_warnings)
    if verdict.business_name is None:
        # The facts' name is the one shown, so the candidates it passed over are news.
        warnings += identity.warnings
    return Evaluation(
        business_name=verdict.business_name or identity.name,
        business_type=(verdict.business_type or identity.business_type
                       or PHRASES.get(facts.category.value) or UNIDENTIFIED_TYPE),
        primary_service=verdict.primary_service,
        fit_score=verdict.fit_score,
        reasoning=verdict.reasoning,
        outreach_angle=verdict.outreach_angle,
        url=facts.url,
        provider=provider,
        model=model,
        rag=rag,
        angle=verdict.angle,
        excluded_services=facts.excluded_services,
        digital_maturity=facts.maturity(),
        sources=[Source(path=h.path, heading=h.heading, score=h.score) for h in hits],
        signals=facts.signals(),
        warnings=warnings + verdict.warnings,
        tokens=dict(verdict.tokens),
        cost_usd=verdict.cost_usd,
        cached=verdict.cached,
        location={"address": facts.location.address, "city": facts.location.city,
                  "region": facts.location.region,
                  "postal_code": facts.location.postal_code,
                  "country": facts.location.country,
                  "country_code": facts.location.country_code,
                  "in_target_geography": facts.location.in_target_geography,
                  "evidence": facts.location.evidence},
        category=facts.category.as_dict(),
        site_kind=facts.site_kind.as_dict(),
        scale={"value": facts.scale.value, "evidence": facts.scale.evidence},
        confidence=judge_confidence(facts, grounding).as_dict(),
        grounding=(grounding or Grounding()).as_dict(),
        outreach_message=outreach.as_dict() if outreach is not None else None,
        answers=answers or {},
    )


async def evaluate_url(target: str, settings: Settings | None = None,
                       kb: KnowledgeBase | None = None,
                       evaluator: Evaluator | None = None) -> Evaluation:
    """Evaluate one website (URL or saved HTML file)."""
    settings = settings or Settings.from_env()
    kb = kb or load_knowledge(settings)
    evaluator = evaluator or make_evaluator(settings, kb)  # fail on bad config before fetching
    # An "About us" or "Contact" page is its site's lead: the site is read from its home.
    site = await load_site(lead_target(target), settings)
    return await evaluate_site(site, kb, settings, evaluator)


def evaluate(target: str, settings: Settings | None = None,
             kb: KnowledgeBase | None = None) -> Evaluation:
    """Synchronous :func:`evaluate_url`, for scripts and notebooks."""
    return asyncio.run(evaluate_url(target, settings, kb))


async def evaluate_labels(labels: Sequence[Label], settings: Settings
                          ) -> list[Evaluation | str]:
    """Evaluate every labelled site with the settings' evaluator (a site that cannot be
    read gives its error message instead)."""
    kb = load_knowledge(settings)
    evaluator = make_evaluator(settings, kb)
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(label: Label) -> Evaluation | str:
        async with gate:
            try:
                site = await load_site(label.site, settings)
                return await evaluate_site(site, kb, settings, evaluator)
            except LeadEngineError as exc:
                return str(exc)

    return list(await asyncio.gather(*(one(label) for label in labels)))
