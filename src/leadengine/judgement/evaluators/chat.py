"""The chat-backend seam: neutral messages in, a :class:`ChatResult` or a typed
:class:`ChatError` out, whatever the wire format.

    ChatBackend (protocol)        complete(ChatRequest) -> ChatResult, list_models()
    └── HttpBackend               the shared httpx transport: pool, retries, redaction
        ├── openai_compat.OpenAIChat       POST {base_url}/chat/completions
        └── anthropic.AnthropicChat        POST {base_url}/v1/messages

The ``openai`` SDK took 1.3 s to import (on every command) and about 5 ms of CPU
per request building its typed models, more than everything else a batch row costs
apart from reading the page, so backends send their requests themselves. Like the
SDK, :class:`HttpBackend` retries what is worth retrying (connection errors, timeouts,
HTTP 408, 409, 429 and 5xx, Anthropic's 529 "overloaded" among them) up to
``max_retries`` times, waiting as the server's ``Retry-After`` says (up to a minute)
or else 0.5 s doubling to 8 s, with jitter. Every message a :class:`ChatError`
carries has the key (and anything shaped like a key) masked.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

import httpx

from leadengine.config.redact import redact

#: Statuses worth another try (as the openai SDK does).
RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
#: A server's Retry-After longer than this is not waited for (back-off is used).
MAX_RETRY_AFTER = 60.0


@dataclass(frozen=True)
class Message:
    """One turn of the conversation: ``system``, ``user`` or ``assistant``, and its text."""

    role: str
    text: str


@dataclass(frozen=True)
class ChatRequest:
    """What the evaluator asks, in no vendor's format; each backend translates it."""

    model: str
    messages: tuple[Message, ...]
    #: Most tokens the model may write, reasoning included.
    max_tokens: int
    #: None = the model's own default (OpenAI's reasoning models refuse any other).
    temperature: float | None = None
    #: A strict JSON Schema for the answer; None = "a JSON object" (JSON mode, or an
    #: instruction where the wire format has no JSON mode).
    schema: dict[str, Any] | None = field(default=None, hash=False)
    schema_name: str = "answer"
    #: ``low``/``medium``/``high`` (or a vendor's own value) for reasoning models.
    reasoning_effort: str | None = None

    def as_key(self) -> dict[str, Any]:
        """The request as plain JSON data, for the response cache's key."""
        return {"model": self.model, "messages": [[m.role, m.text] for m in self.messages],
                "max_tokens": self.max_tokens, "temperature": self.temperature,
                "schema": self.schema, "schema_name": self.schema_name,
                "reasoning_effort": self.reasoning_effort}


@dataclass(frozen=True)
class ChatResult:
    """The answer's text, why the model stopped, and the tokens the server counted."""

    content: str
    prompt_tokens: int = 0
    #: Everything the model wrote, its reasoning included (and priced as output).
    completion_tokens: int = 0
    #: Why the model stopped, in the server's words (``stop``, ``length``, ``end_turn``,
    #: ``max_tokens``...); None when the server did not say.
    finish_reason: str | None = None
    #: The part of ``completion_tokens`` a reasoning model spent thinking, when the
    #: server reports it.
    reasoning_tokens: int = 0
    #: The answer was cut at ``max_tokens`` (OpenAI's ``length``, Anthropic's
    #: ``max_tokens``): no answer to repair, ask again with more room.
    cut: bool = False
    #: The limits the server says this key has for the model (its rate-limit headers):
    #: ``tokens`` per minute, and ``requests`` (per minute at OpenAI, per day at Groq:
    #: the provider says which, :attr:`~leadengine.config.providers.Provider.requests_limit`).
    limits: dict[str, int] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Usage:
    """What some requests used: tokens by kind, requests paid for and answered from the
    cache, and the model that gave the last answer. A value: ``a + b`` is their sum
    (the later one's model)."""

    tokens: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType({"prompt": 0, "completion": 0}))
    paid: int = 0
    cached: int = 0
    model: str | None = None

    def __add__(self, other: Usage) -> Usage:
        tokens = dict(self.tokens)
        for name, count in other.tokens.items():
            tokens[name] = tokens.get(name, 0) + count
        return Usage(MappingProxyType(tokens), self.paid + other.paid,
                     self.cached + other.cached, other.model or self.model)


@dataclass(frozen=True)
class Answer:
    """A model's answer (its text) and what getting it used."""

    text: str
    usage: Usage


class ChatError(Exception):
    """A request that failed for good: ``status`` (an HTTP error), or a timeout, or no
    connection. ``message`` is the server's own words when it gave any (keys masked; the
    CLI shows it on one line), ``code`` its machine-readable reason (e.g. ``model_not_found``,
    ``model_decommissioned``, Anthropic's ``not_found_error``)."""

    def __init__(self, message: str, status: int | None = None, timeout: bool = False,
                 code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.timeout = timeout
        self.code = code


class ChatBackend(Protocol):
    """What the LLM evaluator needs of a wire format."""

    #: How the wire format names "why it stopped" and "the room", for error messages
    #: (``finish_reason``/``max_completion_tokens``, ``stop_reason``/``max_tokens``).
    stop_field: str
    room_field: str

    async def complete(self, request: ChatRequest) -> ChatResult:
        """The model's answer; ChatError if the request failed for good."""
        ...

    async def list_models(self) -> list[str]:
        """The ids of the models the endpoint serves, sorted; ChatError if it fails."""
        ...


class HttpBackend:
    """The transport every HTTP backend shares: one connection pool per event loop,
    retries, and redacted one-line errors. Subclasses set ``headers`` and say how a
    request looks on their wire (:meth:`complete`) and how their errors read
    (:meth:`error_of`)."""

    stop_field = "finish_reason"
    room_field = "max_tokens"

    def __init__(self, base_url: str, api_key: str, timeout: float, max_retries: int,
                 user_agent: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        #: Masked in every message built from a server's reply: an endpoint that echoes
        #: the request's headers must not put the key on a terminal or in the store.
        self._secrets = [api_key]
        self.headers = {"User-Agent": user_agent, "Content-Type": "application/json",
                        "Accept": "application/json"}
        self._clients: dict[asyncio.AbstractEventLoop, ClientPools] = {}

    def _pools(self) -> ClientPools:
        loop = asyncio.get_running_loop()
        for old in [old for old in self._clients if old.is_closed()]:
            del self._clients[old]
        pools = self._clients.get(loop)
        if pools is None:
            pools = self._clients[loop] = ClientPools(self.timeout)
        return pools

    async def post_json(self, url: str, body: dict[str, Any]) -> Any:
        """POST ``body``; the decoded JSON answer, or ChatError."""
        return (await self.post(url, body))[0]

    async def post(self, url: str, body: dict[str, Any]) -> tuple[Any, httpx.Headers]:
        """POST ``body``; the decoded JSON answer and the response's headers, or
        ChatError."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        response = await self._send("POST", url, data)
        try:
            return response.json(), response.headers
        except ValueError:
            raise self.failure("the answer is not JSON", response) from None

    async def get_ids(self, url: str) -> list[str]:
        """The sorted ``id`` of each entry of a ``{"data": [{"id": ...}]}`` list (the
        models list of OpenAI and Anthropic alike)."""
        response = await self._send("GET", url, None)
        try:
            data = response.json()
            entries: Any = data.get("data") if isinstance(data, dict) else data
            ids = {str(entry["id"]) for entry in entries}
        except (ValueError, AttributeError, TypeError, KeyError):
            raise self.failure("the answer is not a models list", response) from None
        return sorted(ids)

    def failure(self, what: str, response: httpx.Response) -> ChatError:
        """A ChatError for an answer that is not what was expected, with its start."""
        return self._redacted(ChatError(f"{what} (HTTP {response.status_code}: "
                                        f"{response.text[:200]!r})",
                                        status=response.status_code))

    def malformed(self, what: str, data: Any) -> ChatError:
        """A ChatError for a decoded answer of the wrong shape (``what`` it should be)."""
        return self._redacted(ChatError(f"the answer is not {what} (HTTP 200: "
                                        f"{json.dumps(data)[:200]!r})", status=200))

    async def _send(self, method: str, url: str, body: bytes | None) -> httpx.Response:
        """One request, retried as the module says; the first response below 400."""
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                response = await self._pools().request(method, url, body, self.headers)
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
            if last or response.status_code not in RETRY_STATUSES or _day_is_over(response):
                message, code = self.error_of(response)
                raise self._redacted(ChatError(message, status=response.status_code,
                                               code=code))
            await asyncio.sleep(_retry_after(response) or _backoff(attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def error_of(self, response: httpx.Response) -> tuple[str, str | None]:
        """The server's error message (``{"error": {"message": ...}}``, which OpenAI and
        Anthropic share), else the start of its body, else the reason phrase; and its
        ``code`` when it gave one."""
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

    def _redacted(self, exc: ChatError) -> ChatError:
        """``exc`` with the key (and anything shaped like a key) masked."""
        return ChatError(redact(exc.message, self._secrets), status=exc.status,
                         timeout=exc.timeout, code=exc.code)


class ClientPools:
    """The httpx clients of one event loop, each given at most :data:`POOL_SIZE`
    requests at a time: a new client is opened when all are that busy (up to
    :data:`MAX_POOLS`, then the least busy takes the request). They share one TLS
    context (:func:`~leadengine.website.guard.default_ssl_context`).

    An httpx connection pool (httpcore 1.0) looks at every connection, and for each idle
    one at every connection again, each time it places or releases a request: quadratic
    in its connections. 2,000 requests to a server on 127.0.0.1, 64 at a time: about
    8 ms of CPU a request on one pool, 1 ms on eight of eight; in ``bench_batch``'s LLM
    mode, the pool's bookkeeping went from 2.9 to 0.8 s of a profiled run."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.clients: list[httpx.AsyncClient] = []
        self.busy: list[int] = []

    async def request(self, method: str, url: str, body: bytes | None,
                      headers: dict[str, str]) -> httpx.Response:
        """``method url`` on the least busy client; the whole response is read."""
        index = self._least_busy()
        self.busy[index] += 1
        try:
            return await self.clients[index].request(method, url, content=body,
                                                     headers=headers)
        finally:
            self.busy[index] -= 1

    def _least_busy(self) -> int:
        busy = self.busy
        index = min(range(len(busy)), key=busy.__getitem__) if busy else -1
        if index < 0 or (busy[index] >= POOL_SIZE and len(busy) < MAX_POOLS):
            self.clients.append(self._new_client())
            busy.append(0)
            index = len(busy) - 1
        return index

    def _new_client(self) -> httpx.AsyncClient:
        from leadengine.website.guard import KeptSocketBackend, PoolTransport

        limits = httpx.Limits(max_connections=None, max_keepalive_connections=POOL_SIZE * 2)
        return httpx.AsyncClient(timeout=httpx.Timeout(self.timeout),
                                 transport=PoolTransport(KeptSocketBackend(), limits))


#: Requests in flight on one client before another is opened (see ClientPools).
POOL_SIZE = 8
#: Most clients a backend opens on one event loop.
MAX_POOLS = 32


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


#: A 429 that names the day's limit (Groq's "on requests per day (RPD)", "on tokens per
#: day (TPD)"): not worth another try today.
_DAILY_LIMIT = re.compile(rb"per day|\((?:RPD|TPD)\)", re.I)


def header_limits(headers: httpx.Headers) -> dict[str, int]:
    """The limits in OpenAI-style rate-limit headers (``x-ratelimit-limit-tokens``,
    ``x-ratelimit-limit-requests``): https://console.groq.com/docs/rate-limits,
    https://developers.openai.com/api/docs/guides/rate-limits."""
    found = {}
    for name in ("tokens", "requests"):
        value = headers.get(f"x-ratelimit-limit-{name}", "")
        if value.isdigit() and int(value) > 0:
            found[name] = int(value)
    return found


def _day_is_over(response: httpx.Response) -> bool:
    return response.status_code == 429 and _DAILY_LIMIT.search(response.content) is not None


def _backoff(attempt: int) -> float:
    delay: float = min(0.5 * 2.0 ** attempt, 8.0)
    return delay * (1 - 0.25 * random.random())
