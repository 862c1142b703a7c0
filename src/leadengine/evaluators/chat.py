"""A small OpenAI-compatible chat-completions client on httpx.

The protocol the evaluator needs is one POST to ``{base_url}/chat/completions``
(and ``leadengine models`` one GET of ``{base_url}/models``).
The ``openai`` SDK took 1.3 s to import (on every command) and about 5 ms of CPU
per request building its typed models, more than everything else a batch row costs
apart from reading the page, so this client sends the POST itself. Like the SDK it
retries what is worth retrying (connection errors, timeouts, HTTP 408, 409, 429
and 5xx) up to ``max_retries`` times, waiting as the server's ``Retry-After`` says
(up to a minute) or else 0.5 s doubling to 8 s, with jitter.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import time
from dataclasses import dataclass
from typing import Any

import httpx

from leadengine.redact import redact

#: Statuses worth another try (as the openai SDK does).
RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
#: A server's Retry-After longer than this is not waited for (back-off is used).
MAX_RETRY_AFTER = 60.0


@dataclass(frozen=True)
class ChatResult:
    """The answer's text, why the model stopped, and the tokens the server counted."""

    content: str
    prompt_tokens: int = 0
    #: Everything the model wrote, its reasoning included (and priced as output).
    completion_tokens: int = 0
    #: ``stop`` when the model finished; ``length`` when it hit max_completion_tokens
    #: (the content is then cut short); None when the server did not say.
    finish_reason: str | None = None
    #: The part of ``completion_tokens`` a reasoning model spent thinking, when the
    #: server reports it (``usage.completion_tokens_details.reasoning_tokens``).
    reasoning_tokens: int = 0


class ChatError(Exception):
    """A request that failed for good: ``status`` (an HTTP error), or a timeout, or no
    connection. ``message`` is the server's own words when it gave any, ``code`` its
    machine-readable reason (e.g. ``model_not_found``, ``model_decommissioned``)."""

    def __init__(self, message: str, status: int | None = None, timeout: bool = False,
                 code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.timeout = timeout
        self.code = code


class ChatClient:
    """POSTs chat completions; one connection pool per event loop."""

    def __init__(self, base_url: str, api_key: str, timeout: float, max_retries: int,
                 user_agent: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.timeout = timeout
        self.max_retries = max_retries
        #: Masked in every message built from a server's reply: an endpoint that echoes
        #: the request's headers must not put the key on a terminal or in the store.
        self._secrets = [api_key]
        self.headers = {"Authorization": f"Bearer {api_key}", "User-Agent": user_agent,
                        "Content-Type": "application/json", "Accept": "application/json"}
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        for old in [old for old in self._clients if old.is_closed()]:
            del self._clients[old]
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=100))
        return client

    async def complete(self, request: dict[str, Any]) -> ChatResult:
        """The model's answer to ``request`` (the JSON body); ChatError if it fails."""
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        response = await self._send("POST", self.url, body)
        try:
            return _result(response)
        except ChatError as exc:
            raise self._redacted(exc) from None

    async def list_models(self) -> list[str]:
        """The ids of the models the endpoint serves (``GET {base_url}/models``, OpenAI's
        ``{"data": [{"id": ...}]}``), sorted; ChatError if it fails."""
        response = await self._send("GET", self.base_url + "/models", None)
        try:
            data = response.json()
            entries: Any = data.get("data") if isinstance(data, dict) else data
            ids = {str(entry["id"]) for entry in entries}
        except (ValueError, AttributeError, TypeError, KeyError):
            raise self._redacted(ChatError(
                f"the answer is not a models list (HTTP {response.status_code}: "
                f"{response.text[:200]!r})", status=response.status_code)) from None
        return sorted(ids)

    async def _send(self, method: str, url: str, body: bytes | None) -> httpx.Response:
        """One request, retried as the module says; the first response below 400."""
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                response = await self._client().request(method, url, content=body,
                                                        headers=self.headers)
            except httpx.TimeoutException:
                if last:
                    raise ChatError("timed out", timeout=True) from None
                await asyncio.sleep(_backoff(attempt))
                continue
            except httpx.TransportError as exc:
                if last:
                    raise ChatError(f"cannot connect ({type(exc).__name__})") from None
                await asyncio.sleep(_backoff(attempt))
                continue
            if response.status_code < 400:
                return response
            if last or response.status_code not in RETRY_STATUSES:
                message, code = _error_message(response)
                raise self._redacted(ChatError(message, status=response.status_code,
                                               code=code))
            await asyncio.sleep(_retry_after(response) or _backoff(attempt))
        raise AssertionError("unreachable")  # pragma: no cover


    def _redacted(self, exc: ChatError) -> ChatError:
        """``exc`` with the key (and anything shaped like a key) masked in its message."""
        return ChatError(redact(exc.message, self._secrets), status=exc.status,
                         timeout=exc.timeout, code=exc.code)


def _result(response: httpx.Response) -> ChatResult:
    try:
        data = response.json()
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
                          reasoning_tokens=int(details.get("reasoning_tokens") or 0))
    except (ValueError, AttributeError, TypeError, IndexError):
        raise ChatError("the answer is not a chat completion (HTTP "
                        f"{response.status_code}: {response.text[:200]!r})",
                        status=response.status_code) from None


def _error_message(response: httpx.Response) -> tuple[str, str | None]:
    """The server's error message (OpenAI's ``{"error": {"message": ...}}``), else the
    start of its body, else the reason phrase; and its ``code`` when it gave one."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()[:200] or response.reason_phrase, None
    error = data.get("error", data) if isinstance(data, dict) else data
    code = error.get("code") if isinstance(error, dict) else None
    code = str(code) if code else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"]), code
    if isinstance(error, str) and error:
        return error, code
    return response.reason_phrase, code


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, ``retry-after`` in
    seconds or as a date), when given and at most :data:`MAX_RETRY_AFTER`."""
    seconds: float | None = None
    if "retry-after-ms" in response.headers:
        with contextlib.suppress(ValueError):
            seconds = float(response.headers["retry-after-ms"]) / 1000
    value = response.headers.get("retry-after")
    if seconds is None and value:
        try:
            seconds = float(value)
        except ValueError:
            when = email.utils.parsedate_to_datetime(value) if value else None
            seconds = when.timestamp() - time.time() if when else None
    if seconds is None or not 0 <= seconds <= MAX_RETRY_AFTER:
        return None
    return seconds


def _backoff(attempt: int) -> float:
    delay: float = min(0.5 * 2.0 ** attempt, 8.0)
    return delay * (1 - 0.25 * random.random())
