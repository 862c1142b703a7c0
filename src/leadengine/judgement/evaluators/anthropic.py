"""Anthropic's Messages API (``anthropic-version: 2023-06-01``):
``POST {base_url}/v1/messages`` and ``GET {base_url}/v1/models``.

The wire format differs from chat completions in ways that matter here: the system
prompt is a field of its own, the key goes in ``x-api-key``, the answer is a list of
content blocks (thinking blocks before the text on Claude 5 and later: only ``text``
blocks are read) with a ``stop_reason`` (``max_tokens`` when cut). A strict JSON schema
goes in ``output_config.format`` (``{"type": "json_schema", "schema": ...}``, generally
available without a beta header; the older ``output_format`` field and the
``structured-outputs-2025-11-13`` header are deprecated:
https://platform.claude.com/docs/en/build-with-claude/structured-outputs); a model that
takes none is asked for JSON by an instruction appended to the system prompt and its
answer checked like any other (the evaluator's repair round covers a model that strays).
The reasoning effort goes in ``output_config.effort``
(https://platform.claude.com/docs/en/build-with-claude/effort). The evaluator sends no
temperature to a model that refuses one (Claude 5 and later answer HTTP 400 to any
non-default temperature, top_p or top_k:
https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide), and a
conversation never ends with an assistant turn (those models refuse prefill).

Errors read ``{"type": "error", "error": {"type", "message"}}``; ``error.type``
(``not_found_error``, ``overloaded_error``...) becomes the ChatError's ``code``
(https://platform.claude.com/docs/en/api/errors).
"""

from __future__ import annotations

from typing import Any

import httpx

from leadengine.judgement.evaluators.chat import ChatRequest, ChatResult, HttpBackend

#: The API version whose request and response shapes this module speaks. Still accepted;
#: the newer 2026-10-21 removes temperature, top_p and top_k for every model
#: (https://platform.claude.com/docs/en/api/versioning), where this one leaves them to
#: the models that take them.
API_VERSION = "2023-06-01"
#: Appended to the system prompt when no schema is sent: there is no JSON mode.
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
    given, goes in ``output_config.format`` (else the JSON-only instruction is added to
    the system prompt); the reasoning effort in ``output_config.effort``; the
    temperature only when the request carries one."""
    system = [m.text for m in request.messages if m.role == "system"]
    turns = [{"role": m.role, "content": m.text}
             for m in request.messages if m.role != "system"]
    if turns and turns[-1]["role"] == "assistant":
        raise ValueError("a Messages API conversation must end with a user turn")
    output: dict[str, Any] = {}
    if request.schema is not None:
        output["format"] = {"type": "json_schema", "schema": request.schema}
    else:
        system.append(JSON_ONLY)
    if request.reasoning_effort is not None:
        output["effort"] = request.reasoning_effort
    sent: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "system": "\n\n".join(system),
        "messages": turns,
    }
    if output:
        sent["output_config"] = output
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
