"""Anthropic's Messages API (``anthropic-version: 2023-06-01``):
``POST {base_url}/v1/messages`` and ``GET {base_url}/v1/models``.

The wire format differs from chat completions in four ways that matter here: the
system prompt is a field of its own, the key goes in ``x-api-key``, the answer is a
list of content blocks with a ``stop_reason`` (``max_tokens`` when cut), and there is
no JSON output mode in this API version. The answer is therefore asked for by an
instruction appended to the system prompt and checked like any other (the evaluator's
repair round covers a model that strays): the equivalent of ``json_object``.
Errors read ``{"type": "error", "error": {"type", "message"}}``; ``error.type``
(``not_found_error``, ``overloaded_error``...) becomes the ChatError's ``code``.
"""

from __future__ import annotations

from typing import Any

import httpx

from leadengine.evaluators.chat import ChatRequest, ChatResult, HttpBackend

#: The API version whose request and response shapes this module speaks.
API_VERSION = "2023-06-01"
#: Appended to the system prompt: this API has no JSON mode to ask for it instead.
JSON_ONLY = ("Reply with the JSON object only: no text before or after it and no code "
             "fence.")
#: The most models one ``GET /v1/models`` page returns (the API's own maximum).
MODELS_PAGE = 1000


class AnthropicChat(HttpBackend):
    """The Messages API with an ``x-api-key``."""

    stop_field = "stop_reason"
    room_field = "max_tokens"

    def __init__(self, base_url: str, api_key: str, timeout: float, max_retries: int,
                 user_agent: str) -> None:
        super().__init__(base_url, api_key, timeout, max_retries, user_agent)
        self.url = self.base_url + "/v1/messages"
        self.headers["x-api-key"] = api_key
        self.headers["anthropic-version"] = API_VERSION

    async def complete(self, request: ChatRequest) -> ChatResult:
        """The model's answer to ``request``; ChatError if it fails."""
        data = await self.post_json(self.url, body(request))
        try:
            return result(data)
        except (AttributeError, TypeError, ValueError):
            raise self.malformed("a Messages API reply", data) from None

    async def list_models(self) -> list[str]:
        """``GET {base_url}/v1/models`` (``{"data": [{"id": ...}]}``), sorted."""
        return await self.get_ids(f"{self.base_url}/v1/models?limit={MODELS_PAGE}")

    def error_of(self, response: httpx.Response) -> tuple[str, str | None]:
        """The error's message, and its ``error.type`` as the code."""
        message, _ = super().error_of(response)
        try:
            data = response.json()
            kind = data["error"]["type"]
        except (ValueError, TypeError, KeyError):
            return message, None
        return message, str(kind) if kind else None


def body(request: ChatRequest) -> dict[str, Any]:
    """The Messages API body. System turns are joined into ``system``; the schema, when
    given, is not sent (no field takes it) but the JSON-only instruction is, as it is
    for JSON mode. ``reasoning_effort`` has no counterpart here and is not sent."""
    system = [m.text for m in request.messages if m.role == "system"]
    system.append(JSON_ONLY)
    sent: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "system": "\n\n".join(system),
        "messages": [{"role": m.role, "content": m.text}
                     for m in request.messages if m.role != "system"],
    }
    if request.temperature is not None:
        sent["temperature"] = request.temperature
    return sent


def result(data: Any) -> ChatResult:
    """The text blocks joined, the stop reason and the usage."""
    blocks = data.get("content") or []
    text = "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    stop = data.get("stop_reason")
    usage = data.get("usage") or {}
    return ChatResult(content=text,
                      prompt_tokens=int(usage.get("input_tokens") or 0),
                      completion_tokens=int(usage.get("output_tokens") or 0),
                      finish_reason=str(stop) if stop else None,
                      cut=stop == "max_tokens")
