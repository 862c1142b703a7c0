"""The OpenAI-compatible wire format: ``POST {base_url}/chat/completions`` and
``GET {base_url}/models`` (Groq, OpenAI, Ollama, vLLM, llama.cpp...)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from leadengine.judgement.evaluators.chat import ChatRequest, ChatResult, HttpBackend, header_limits


class OpenAIChat(HttpBackend):
    """Chat completions with a Bearer key."""

    stop_field = "finish_reason"
    room_field = "max_completion_tokens"

    def __init__(self, base_url: str, api_key: str, timeout: float, max_retries: int,
                 user_agent: str) -> None:
        super().__init__(base_url, api_key, timeout, max_retries, user_agent)
        self.url = self.base_url + "/chat/completions"
        self.headers["Authorization"] = f"Bearer {api_key}"

    async def complete(self, request: ChatRequest) -> ChatResult:
        """The model's answer to ``request``; ChatError if it fails."""
        data, headers = await self.post(self.url, body(request))
        try:
            answer = result(data)
        except (AttributeError, TypeError, IndexError, ValueError):
            raise self.malformed("a chat completion", data) from None
        return replace(answer, limits=header_limits(headers))

    async def list_models(self) -> list[str]:
        """``GET {base_url}/models`` (``{"data": [{"id": ...}]}``), sorted."""
        return await self.get_ids(self.base_url + "/models")


def body(request: ChatRequest) -> dict[str, Any]:
    """The chat-completions body: the room (sent to every model: without it a reasoning
    model may think until the provider's own cap and leave no room for the answer), JSON
    mode or a strict schema, and reasoning_effort only when asked."""
    sent: dict[str, Any] = {"model": request.model,
                            "messages": [{"role": m.role, "content": m.text}
                                         for m in request.messages]}
    if request.temperature is not None:
        sent["temperature"] = request.temperature
    if request.schema is not None:
        sent["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": request.schema_name,
                                                   "strict": True, "schema": request.schema}}
    else:
        sent["response_format"] = {"type": "json_object"}
    sent["max_completion_tokens"] = request.max_tokens
    if request.reasoning_effort is not None:
        sent["reasoning_effort"] = request.reasoning_effort
    return sent


def result(data: Any) -> ChatResult:
    """A chat completion's first choice, finish reason and usage."""
    choices = data.get("choices") or []
    choice = choices[0] if choices else {}
    content = (choice.get("message") or {}).get("content") or ""
    finish_reason = choice.get("finish_reason")
    usage = data.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    return ChatResult(content=str(content),
                      prompt_tokens=int(usage.get("prompt_tokens") or 0),
                      completion_tokens=int(usage.get("completion_tokens") or 0),
                      finish_reason=str(finish_reason) if finish_reason else None,
                      reasoning_tokens=int(details.get("reasoning_tokens") or 0),
                      cut=finish_reason == "length")
