"""Evaluators turn a site (and advisory passages) into an :class:`Evaluation`.

``heuristic`` is the offline evaluator; every other provider name is an
OpenAI-compatible endpoint served by :class:`LLMEvaluator`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from leadengine.config import Settings
from leadengine.evaluation import Evaluation
from leadengine.knowledge import KnowledgeBase
from leadengine.retrieval import Hit
from leadengine.web.site import Site


class Evaluator(Protocol):
    """Judges one site."""

    name: str
    model: str

    async def evaluate(self, site: Site, hits: Sequence[Hit], *, rag: bool) -> Evaluation: ...


def make_evaluator(settings: Settings, kb: KnowledgeBase) -> Evaluator:
    """The evaluator the settings ask for (``heuristic`` or an LLM provider)."""
    provider = settings.resolve_provider()
    if provider.name == "heuristic":
        from leadengine.evaluators.heuristic import HeuristicEvaluator

        return HeuristicEvaluator(kb)
    from leadengine.evaluators.llm import LLMEvaluator

    return LLMEvaluator(settings, provider, rubric=kb.rubric_text(), rules=kb.rules)
