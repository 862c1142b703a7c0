"""Judging a site: the evaluators (the offline rules, or an LLM), the prompt they are
given, the evaluation they produce, the outreach message, and the checks of both against
the facts.

* :mod:`~leadengine.judgement.evaluators`: the :class:`Evaluator` protocol,
  ``make_evaluator``, the heuristic and LLM evaluators, the chat backends, the model
  checks;
* :mod:`~leadengine.judgement.prompt`: the system prompt and the user message;
* :mod:`~leadengine.judgement.evaluation`: :class:`Evaluation` (the JSON contract),
  :class:`Judgement`, :class:`Verdict`; :mod:`~leadengine.judgement.bands`: fit bands;
* :mod:`~leadengine.judgement.grounding`: every claim checked against the facts;
* :mod:`~leadengine.judgement.outreach`: the first message a rep sends;
* :mod:`~leadengine.judgement.ratelimit`: the providers' rate limits;
* :mod:`~leadengine.judgement.judge_eval`: the judge scored against hand labels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leadengine.exports import lazy_exports

if TYPE_CHECKING:
    from leadengine.judgement.bands import DEFAULT_BANDS, band_name
    from leadengine.judgement.evaluation import Evaluation, Judgement, Source, Verdict
    from leadengine.judgement.evaluators import Evaluator, make_evaluator
    from leadengine.judgement.evaluators.backends import ModelInfo, ModelListing, list_models
    from leadengine.judgement.evaluators.model_check import ModelCheck, check_model
    from leadengine.judgement.grounding import Grounding, ground
    from leadengine.judgement.judge_eval import CONCURRENCY, Label, read_labels, score
    from leadengine.judgement.outreach import OutreachMessage, Rep, compose
    from leadengine.judgement.prompt import SYSTEM_PROMPT, build_messages, build_user_content
    from leadengine.judgement.ratelimit import Bucket, RateLimiter
    from leadengine.judgement.rescoring import Lead, Preview, rescore

#: Public name -> the module that defines it (imported on first use).
_EXPORTS = {
    "DEFAULT_BANDS": "leadengine.judgement.bands",
    "band_name": "leadengine.judgement.bands",
    "Evaluation": "leadengine.judgement.evaluation",
    "Judgement": "leadengine.judgement.evaluation",
    "Source": "leadengine.judgement.evaluation",
    "Verdict": "leadengine.judgement.evaluation",
    "Evaluator": "leadengine.judgement.evaluators",
    "make_evaluator": "leadengine.judgement.evaluators",
    "ModelInfo": "leadengine.judgement.evaluators.backends",
    "ModelListing": "leadengine.judgement.evaluators.backends",
    "list_models": "leadengine.judgement.evaluators.backends",
    "ModelCheck": "leadengine.judgement.evaluators.model_check",
    "check_model": "leadengine.judgement.evaluators.model_check",
    "Grounding": "leadengine.judgement.grounding",
    "ground": "leadengine.judgement.grounding",
    "CONCURRENCY": "leadengine.judgement.judge_eval",
    "Label": "leadengine.judgement.judge_eval",
    "read_labels": "leadengine.judgement.judge_eval",
    "score": "leadengine.judgement.judge_eval",
    "OutreachMessage": "leadengine.judgement.outreach",
    "Rep": "leadengine.judgement.outreach",
    "compose": "leadengine.judgement.outreach",
    "SYSTEM_PROMPT": "leadengine.judgement.prompt",
    "build_messages": "leadengine.judgement.prompt",
    "build_user_content": "leadengine.judgement.prompt",
    "Bucket": "leadengine.judgement.ratelimit",
    "Lead": "leadengine.judgement.rescoring",
    "Preview": "leadengine.judgement.rescoring",
    "rescore": "leadengine.judgement.rescoring",
    "RateLimiter": "leadengine.judgement.ratelimit",
}

__all__ = [
    "CONCURRENCY",
    "DEFAULT_BANDS",
    "SYSTEM_PROMPT",
    "Bucket",
    "Evaluation",
    "Evaluator",
    "Grounding",
    "Judgement",
    "Label",
    "Lead",
    "ModelCheck",
    "ModelInfo",
    "ModelListing",
    "OutreachMessage",
    "Preview",
    "RateLimiter",
    "Rep",
    "Source",
    "Verdict",
    "band_name",
    "build_messages",
    "build_user_content",
    "check_model",
    "compose",
    "ground",
    "list_models",
    "make_evaluator",
    "read_labels",
    "rescore",
    "score"
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
