"""What a model's answers cost: the tokens a response reports, and their price."""

from __future__ import annotations

from leadengine.config import Settings
from leadengine.judgement.evaluators.chat import ChatResult


def usage_of(response: ChatResult) -> dict[str, int]:
    """The response's token counts as the evaluation's ``tokens`` names them;
    ``reasoning`` only when the server reported reasoning tokens."""
    usage = {"prompt": response.prompt_tokens, "completion": response.completion_tokens}
    if response.reasoning_tokens:
        usage["reasoning"] = response.reasoning_tokens
    return usage


def price(settings: Settings, provider: str, model: str, tokens: dict[str, int]
          ) -> float | None:
    """USD for the tokens used, at the model's price (None when it is not known)."""
    rates = settings.price_of(provider, model)
    if rates is None:
        return None
    per_input, per_output = rates
    return round((tokens["prompt"] * per_input + tokens["completion"] * per_output) / 1e6, 8)
