"""Evaluators judge a site's facts (and advisory passages) and return a :class:`Verdict`.

``heuristic`` is the offline evaluator; every other provider name is an LLM served by
:class:`LLMEvaluator` through the chat backend its wire format names
(:mod:`leadengine.evaluators.backends`: OpenAI-compatible or Anthropic Messages). Neither computes
facts nor assembles the evaluation: the pipeline does both, the same way for
every evaluator (:func:`leadengine.pipeline.evaluate_site`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from leadengine.config import Settings
from leadengine.evaluation import Verdict
from leadengine.facts import SiteFacts
from leadengine.knowledge import KnowledgeBase
from leadengine.retrieval import Hit


class Evaluator(Protocol):
    """Judges one site from its facts."""

    name: str
    model: str

    async def judge(self, facts: SiteFacts, hits: Sequence[Hit]) -> Verdict: ...


def make_evaluator(settings: Settings, kb: KnowledgeBase) -> Evaluator:
    """The evaluator the settings ask for (``heuristic`` or an LLM provider)."""
    provider = settings.resolve_provider()
    if provider.name == "heuristic":
        from leadengine.evaluators.heuristic import HeuristicEvaluator

        return HeuristicEvaluator(kb)
    from leadengine.evaluators.llm import LLMEvaluator

    return LLMEvaluator(settings, provider, rubric=kb.rubric_text(), rules=kb.rules)
