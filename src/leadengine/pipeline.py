"""One URL through every stage: fetch -> extract -> retrieve -> prompt -> evaluate."""

from __future__ import annotations

import asyncio

from leadengine.config import Settings
from leadengine.evaluation import Evaluation
from leadengine.evaluators import Evaluator, make_evaluator
from leadengine.knowledge import KnowledgeBase
from leadengine.retrieval import Hit
from leadengine.web.site import Site, load_site


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
                       budget=settings.rag_budget)


def retrieval_query(site: Site) -> str:
    """The query of the section methods: the signals block first (an embedding model
    reads only the start of a long text), then the website content."""
    signals = site.content[len(site.text):].strip()
    return f"{signals}\n\n{site.text}" if signals else site.text


async def evaluate_site(site: Site, kb: KnowledgeBase, settings: Settings,
                        evaluator: Evaluator | None = None) -> Evaluation:
    """Retrieve advisory context for an already loaded site and evaluate it."""
    evaluator = evaluator or make_evaluator(settings, kb)
    hits = advisory_hits(site, kb, settings)
    return await evaluator.evaluate(site, hits, rag=settings.use_rag)


async def evaluate_url(target: str, settings: Settings | None = None,
                       kb: KnowledgeBase | None = None,
                       evaluator: Evaluator | None = None) -> Evaluation:
    """Evaluate one website (URL or saved HTML file)."""
    settings = settings or Settings.from_env()
    kb = kb or load_knowledge(settings)
    evaluator = evaluator or make_evaluator(settings, kb)  # fail on bad config before fetching
    site = await load_site(target, settings)
    return await evaluate_site(site, kb, settings, evaluator)


def evaluate(target: str, settings: Settings | None = None,
             kb: KnowledgeBase | None = None) -> Evaluation:
    """Synchronous :func:`evaluate_url`, for scripts and notebooks."""
    return asyncio.run(evaluate_url(target, settings, kb))
