"""Evaluators judge a site's facts (and advisory passages) and return a :class:`Verdict`.

``heuristic`` is the offline evaluator; every other provider name is an LLM served by
:class:`LLMEvaluator` through the chat backend its wire format names
(:mod:`leadengine.judgement.evaluators.backends`: OpenAI-compatible or Anthropic
Messages). Neither computes facts nor assembles the evaluation: the pipeline does both,
the same way for every evaluator (:func:`leadengine.pipeline.evaluate_site`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from leadengine.config import Settings
from leadengine.facts.site_facts import SiteFacts
from leadengine.judgement.evaluation import Verdict
from leadengine.knowledge.base import Knowledge
from leadengine.retrieval import Hit


class Evaluator(Protocol):
    """Judges one site from its facts."""

    name: str

    @property
    def model(self) -> str:
        """The model in use (an LLM's may change when one is retired)."""
        ...

    @property
    def configured_model(self) -> str:
        """The model the settings ask for: a batch's results are keyed by it."""
        ...

    @property
    def switches(self) -> list[str]:
        """One line for each switch of model so far (none for the offline evaluator)."""
        ...

    @property
    def notices(self) -> list[str]:
        """What to tell the user before the work starts (a model that retires soon)."""
        ...

    #: Whether it can write a lead's outreach message (``--outreach-writer llm``).
    writes_messages: bool

    def share_limits(self, parts: int) -> None:
        """Use 1/``parts`` of the provider's rate limits (a batch's shards split them)."""
        ...

    def limit_in_flight(self, requests: int) -> None:
        """Send at most ``requests`` requests at once (a batch's ``concurrency``)."""
        ...

    def rate_limits_to_share(self) -> tuple[int | None, int | None, int | None, str,
                                            int | None] | None:
        """(rpm, tpm, rpd, provider name, tpd) of its provider, for a cluster to hold
        together; None when it has none."""
        ...

    def use_limiter(self, limiter: Any) -> None:
        """Wait on ``limiter`` (one shared with other processes) whatever the model."""
        ...

    async def judge(self, facts: SiteFacts, hits: Sequence[Hit]) -> Verdict: ...


def make_evaluator(settings: Settings, kb: Knowledge) -> Evaluator:
    """The evaluator the settings ask for (``heuristic`` or an LLM provider)."""
    provider = settings.resolve_provider()
    if provider.name == "heuristic":
        from leadengine.judgement.evaluators.heuristic import HeuristicEvaluator

        return HeuristicEvaluator(kb)
    from leadengine.judgement.evaluators.llm import LLMEvaluator

    return LLMEvaluator(settings, provider, rubric=kb.rubric_text(), rules=kb.rules)
