"""A fake Anthropic Messages API server for tests (stdlib only, 127.0.0.1).

It takes the same scripted :class:`~tests.fakes.openai_server.Reply` objects as
:class:`~tests.fakes.openai_server.FakeOpenAI` and answers them in Anthropic's wire
format, so one test can script both backends alike:

* ``POST /v1/messages``: ``{"type": "message", "content": [{"type": "text", "text"}],
  "stop_reason", "usage": {"input_tokens", "output_tokens"}}``; a reply's
  ``finish_reason`` ``"length"`` becomes ``stop_reason`` ``"max_tokens"``, ``"stop"``
  becomes ``"end_turn"``.
* errors: ``{"type": "error", "error": {"type", "message"}}`` with Anthropic's error
  type for the status (``authentication_error`` for 401, ``overloaded_error`` for 529...).
* ``GET /v1/models``: ``{"data": [{"type": "model", "id", "display_name",
  "created_at"}], "has_more": false, ...}``.

Requests without an ``x-api-key`` or ``anthropic-version`` header are refused as the
real API refuses them, and so are (HTTP 400 ``invalid_request_error``, before any
scripted reply is consumed) what Claude 5 and later refuse: a non-default
``temperature``, ``top_p`` or ``top_k``, and a conversation ending with an assistant turn
(prefill) (https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide); an
``output_config.format`` that is not ``{"type": "json_schema", "schema": {...}}``; and a
model in :attr:`FakeAnthropic.retired` (404 ``not_found_error``).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.openai_server import FakeOpenAI, Reply, _Handler

__all__ = ["ERROR_TYPES", "FakeAnthropic"]

#: Anthropic's error ``type`` by HTTP status.
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
               403: "permission_error", 404: "not_found_error", 413: "request_too_large",
               429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
_MESSAGES_PATH = "/v1/messages"
_STOP_REASONS = {"length": "max_tokens", "stop": "end_turn"}
#: The models that refuse sampling parameters and prefill: Claude 5 and later.
_CLAUDE_5 = re.compile(r"^claude-[a-z]+-(?:[5-9]|\d\d)")


def _error(status: int, message: str) -> dict[str, Any]:
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def render(reply: Reply, request: Any, seq: int) -> tuple[int, dict[str, str], dict[str, Any]]:
    """``(status, headers, body)`` of ``reply`` in the Messages API's format."""
    if reply.error_body is not None:
        message = str((reply.error_body.get("error") or {}).get("message") or "fake error")
        return reply.status, dict(reply.headers), _error(reply.status, message)
    model = request.get("model") if isinstance(request, dict) else None
    body = {
        "id": f"msg_fake{seq}",
        "type": "message",
        "role": "assistant",
        "model": reply.model or model or "claude-fake",
        "content": [{"type": "text", "text": reply.text or ""}],
        "stop_reason": _STOP_REASONS.get(reply.finish_reason, reply.finish_reason),
        "stop_sequence": None,
        "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens},
    }
    return reply.status, dict(reply.headers), body


class FakeAnthropic(FakeOpenAI):
    """The lifecycle, scripting and recording of :class:`FakeOpenAI`, Anthropic's wire.

    :attr:`base_url` has no ``/v1``: the Messages API's paths carry it."""

    def __init__(self) -> None:
        super().__init__()
        self.models = ["claude-sonnet-5-5", "claude-haiku-5-5"]
        #: Models that refuse sampling parameters and prefill besides Claude 5 and later.
        self.strict_models: set[str] = set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The recorded requests that hit ``/v1/messages``."""
        with self._lock:
            return [r for r in self.requests if urlsplit(r["path"]).path == _MESSAGES_PATH]

    def _dispatch(self, handler: _Handler, body: Any) -> None:
        path = urlsplit(handler.path).path.rstrip("/")
        headers = {k.lower(): v for k, v in handler.headers.items()}
        record = {"path": handler.path, "method": handler.command, "headers": headers,
                  "json": body}
        with self._lock:
            self.requests.append(record)
            self._seq += 1
            seq = self._seq
        if self.on_request is not None:
            self.on_request(record)
        messages = path == _MESSAGES_PATH and handler.command == "POST"
        refusal = self.refusal(body) if messages else None
        with self._lock:
            reply: Reply | None = None
            if messages and refusal is None:
                reply = self._pending.popleft() if self._pending else self.default
        rid = {"request-id": f"req_fake_{seq}"}
        if "x-api-key" not in headers:
            handler.send_json(401, _error(401, "x-api-key header is required"), rid)
        elif "anthropic-version" not in headers:
            handler.send_json(400, _error(400, "anthropic-version header is required"), rid)
        elif refusal is not None:
            status, extra, out = render(refusal, body, seq)
            handler.send_json(status, out, {**rid, **extra})
        elif messages:
            self._answer(handler, reply, body, seq, rid)
        elif path == "/v1/models" and handler.command == "GET":
            if self.models_error is not None:
                status, extra, out = render(self.models_error, body, seq)
                handler.send_json(status, out, {**rid, **extra})
                return
            data = [{"type": "model", "id": m, "display_name": m,
                     "created_at": "2025-01-01T00:00:00Z"} for m in self.models]
            handler.send_json(200, {"data": data, "has_more": False,
                                    "first_id": self.models[0] if self.models else None,
                                    "last_id": self.models[-1] if self.models else None}, rid)
        else:
            handler.send_json(404, _error(404, f"fake: no route for {handler.command} {path}"),
                              rid)

    def refusal(self, body: Any) -> Reply | None:
        """What the Messages API refuses before answering (see the module's docstring)."""
        request = body if isinstance(body, dict) else {}
        model = str(request.get("model") or "")
        with self._lock:
            retired = self.retired.get(model)
        if retired is not None:
            return retired
        if _CLAUDE_5.match(model) or model in self.strict_models:
            for name in ("temperature", "top_p", "top_k"):
                if name in request:
                    return Reply.error(400, f"`{name}` is deprecated for this model.")
            turns = request.get("messages") or []
            if turns and isinstance(turns[-1], dict) and turns[-1].get("role") == "assistant":
                return Reply.error(400, "This model does not support assistant message "
                                        "prefill. The conversation must end with a user "
                                        "message.")
        output = request.get("output_config")
        if output is not None:
            form = output.get("format") if isinstance(output, dict) else None
            if form is not None and not (isinstance(form, dict)
                                         and form.get("type") == "json_schema"
                                         and isinstance(form.get("schema"), dict)):
                return Reply.error(400, "output_config.format: expected {type: json_schema, "
                                        "schema: {...}}")
        return None

    def _answer(self, handler: _Handler, reply: Reply | None, body: Any, seq: int,
                rid: dict[str, str]) -> None:
        if reply is None:
            handler.send_json(500, _error(500, "fake queue empty"), rid)
            return
        if reply.delay > 0 and self._stopping.wait(reply.delay):
            handler.close_connection = True
            return
        status, extra, out = render(reply, body, seq)
        handler.send_json(status, out, {**rid, **extra})
