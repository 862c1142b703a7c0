"""Why a request to a model failed for good, as the evaluator acts on it: the model is
gone (another may take over), its day's quota is used up, the request was too large for
the tokens-per-minute limit (it is cut and asked again), or an error that says what to
fix."""

from __future__ import annotations

from leadengine.config import Provider, Settings
from leadengine.errors import LeadEngineError, LLMError, QuotaExhausted
from leadengine.judgement.evaluators.backends import request_failure
from leadengine.judgement.evaluators.chat import ChatError, ChatRequest
from leadengine.judgement.evaluators.switching import (
    daily_limit,
    model_gone,
    too_large,
    why_gone,
)


class RequestTooLarge(LLMError):
    """The provider refused a request larger than its tokens-per-minute limit (413)."""

    def __init__(self, message: str, limit: int, requested: int, estimate: int,
                 room: int) -> None:
        super().__init__(message)
        #: The limit, what the provider counted (prompt and room), what this evaluator
        #: counted of the prompt, and the room asked for.
        self.limit, self.requested, self.estimate, self.room = (limit, requested, estimate,
                                                                room)

    def __reduce__(self) -> tuple[type, tuple[str, int, int, int, int]]:
        # Raised in a shard's process and re-raised in another: rebuilt from its parts.
        return type(self), (str(self), self.limit, self.requested, self.estimate, self.room)


class ModelGone(Exception):
    """The model is retired or not served; ``error`` is what to raise if no other model
    can take over. Never leaves the evaluator."""

    def __init__(self, why: str, error: LeadEngineError) -> None:
        super().__init__(why)
        self.why, self.error = why, error


def refusal(exc: ChatError, request: ChatRequest, settings: Settings, provider: Provider,
            base_url: str | None, prompt_tokens: int) -> Exception:
    """What a request that failed for good means: the model is gone (the evaluator may
    switch), its day's quota is used up, the request is too large for the
    tokens-per-minute limit (``prompt_tokens``: the prompt as counted here), or a
    one-line error that says what to fix."""
    model = request.model
    failure = request_failure(exc, settings, provider, base_url, model)
    if model_gone(exc):
        return ModelGone(why_gone(exc), failure)
    if daily_limit(exc):
        return QuotaExhausted(f"{provider.name} model {model!r} has used up its daily "
                              f"quota: {exc.message[:200]}")
    sizes = too_large(exc)
    if sizes is not None:
        limit, requested = sizes
        return RequestTooLarge(f"{provider.name} refused a request of {requested:,} tokens "
                               f"for {model!r} (its limit is {limit:,} tokens per "
                               "minute)", limit, requested,
                               prompt_tokens, request.max_tokens)
    return failure
