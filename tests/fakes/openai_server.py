"""A fake OpenAI-compatible HTTP server for tests.

The server listens on ``127.0.0.1`` on an ephemeral port and speaks enough of the
OpenAI REST protocol (chat completions, models, embeddings) for the real ``openai``
SDK to talk to it. Chat-completion replies are scripted with :class:`Reply` objects.

Only the standard library is used.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import math
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import Self

from urllib.parse import urlsplit

from tests.fakes.tracking import TrackingServer

__all__ = [
    "EMBEDDING_DIM",
    "FAKE_MODEL",
    "FakeOpenAI",
    "Reply",
    "count_tokens",
    "fake_embedding",
    "groq_decommissioned",
    "groq_not_found",
    "groq_rate_limited",
    "groq_too_large",
    "running_fake_openai",
]

FAKE_MODEL = "fake-model"
"""The model id ``GET /v1/models`` lists unless :attr:`FakeOpenAI.models` is changed."""

EMBEDDING_DIM = 8
"""Dimension of the vectors returned by ``POST /v1/embeddings``."""

_CHAT_PATH = "/v1/chat/completions"


#: A valid evaluation answer (the seed's six fields) for tests that only need one.
SMILE_ANSWER: dict[str, Any] = {
    "business_name": "Smile Bright Dental", "business_type": "Dental clinic",
    "primary_service": "Foundation Package", "fit_score": 80,
    "reasoning": "Bangkok clinic.", "outreach_angle": "Own your bookings."}


@dataclass(frozen=True)
class Reply:
    """A scripted reply to one ``POST /v1/chat/completions`` request.

    Build instances with :meth:`content`, :meth:`json`, :meth:`error` or :meth:`hang`.
    """

    status: int = 200
    text: str | None = None
    error_body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    prompt_tokens: int = 100
    completion_tokens: int = 50
    model: str | None = None
    finish_reason: str = "stop"
    reasoning_tokens: int | None = None

    @classmethod
    def content(
        cls,
        text: str,
        *,
        prompt_tokens: int = 100,
        completion_tokens: int = 50,
        model: str | None = None,
        delay: float = 0.0,
        finish_reason: str = "stop",
        reasoning_tokens: int | None = None,
    ) -> Reply:
        """A 200 chat.completion whose single assistant message is ``text``.

        ``model`` defaults to the model named in the request; ``delay`` sleeps (in
        seconds) before answering. ``finish_reason`` is the choice's (``"length"`` for an
        answer cut at max_completion_tokens); ``reasoning_tokens``, when given, is
        reported as ``usage.completion_tokens_details.reasoning_tokens``.
        """
        return cls(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            model=model,
            delay=delay,
            finish_reason=finish_reason,
            reasoning_tokens=reasoning_tokens,
        )

    @classmethod
    def cut(cls, text: str = '{"business_name": "Smi', **kw: Any) -> Reply:
        """An answer cut short at max_completion_tokens: ``finish_reason`` ``"length"``."""
        return cls.content(text, finish_reason="length", **kw)

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> Reply:
        """Like :meth:`content` with ``json.dumps(obj)`` as the message text."""
        return cls.content(json.dumps(obj), **kw)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "fake error",
        *,
        headers: dict[str, str] | None = None,
        type_: str = "invalid_request_error",
        code: str | None = None,
    ) -> Reply:
        """An OpenAI-style error: ``status`` with body ``{"error": {message, type, code}}``.

        ``headers`` are added to the response (e.g. ``{"retry-after": "1"}`` for 429).
        """
        body = {"error": {"message": message, "type": type_, "code": code, "param": None}}
        return cls(status=status, error_body=body, headers=dict(headers or {}))

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        """Sleep ``seconds`` before answering 200 with content ``"{}"`` (client-timeout tests).

        The sleep is cut short when the server is stopped.
        """
        return cls.content("{}", delay=seconds)

    def render(self, request_json: Any, seq: int) -> tuple[int, dict[str, str], dict[str, Any]]:
        """Return ``(status, extra_headers, body)`` for a request with body ``request_json``."""
        if self.error_body is not None:
            return self.status, dict(self.headers), self.error_body
        req_model = request_json.get("model") if isinstance(request_json, dict) else None
        usage: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }
        if self.reasoning_tokens is not None:
            usage["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens}
        body = {
            "id": f"chatcmpl-fake{seq}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model or req_model or FAKE_MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": self.finish_reason,
                }
            ],
            "usage": usage,
            "system_fingerprint": None,
        }
        return self.status, dict(self.headers), body


def fake_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """Deterministic unit vector of length ``dim`` derived from a SHA-256 of ``text``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    while len(digest) < dim * 4:
        digest += hashlib.sha256(digest).digest()
    raw = [
        int.from_bytes(digest[i * 4 : i * 4 + 4], "big") / 0xFFFFFFFF * 2.0 - 1.0
        for i in range(dim)
    ]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


class _Server(TrackingServer):
    owner: FakeOpenAI

    def __init__(self, owner: FakeOpenAI) -> None:
        super().__init__(owner, _Handler)


class _Handler(BaseHTTPRequestHandler):
    """Request handler dispatching to the owning :class:`FakeOpenAI`."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # avoid 40 ms Nagle/delayed-ACK stalls on loopback
    server: _Server

    def log_message(self, *args: Any) -> None:
        """Silence the default stderr access log."""

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return None

    def _handle(self) -> None:
        body = self._read_json()
        self.server.owner._dispatch(self, body)

    def do_GET(self) -> None:
        """Handle GET requests."""
        self._handle()

    def do_POST(self) -> None:
        """Handle POST requests."""
        self._handle()

    def do_DELETE(self) -> None:
        """Handle DELETE requests (always 404)."""
        self._handle()

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        """Write a complete JSON response; swallow errors from vanished clients."""
        payload = json.dumps(body).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
            self.wfile.flush()
        except OSError:
            self.close_connection = True


class FakeOpenAI:
    """Speaks enough of the OpenAI chat-completions protocol for the real ``openai`` SDK.

    Endpoints: ``POST /v1/chat/completions`` (scripted via :meth:`queue` / :attr:`default`),
    ``GET /v1/models`` (the ids in :attr:`models`, or :attr:`models_error` when set) and
    ``POST /v1/embeddings`` (deterministic, dimension 8).
    Every request is recorded in :attr:`requests` before it is answered.
    """

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.default: Reply | None = None
        #: The model ids ``GET /v1/models`` lists.
        self.models: list[str] = [FAKE_MODEL]
        #: An error reply (:meth:`Reply.error`) for ``GET /v1/models`` instead of the list.
        self.models_error: Reply | None = None
        #: Chat requests being answered now, and the most there ever were at once.
        self.in_flight = 0
        self.max_in_flight = 0
        #: Called with each request's record as it arrives (before any delay).
        self.on_request: Callable[[dict[str, Any]], None] | None = None
        #: Model id -> the error every chat request for it gets (a retired model), before
        #: the scripted replies are consulted (none is consumed). Add to it mid-run to
        #: retire a model after some requests.
        self.retired: dict[str, Reply] = {}
        #: A tokens-per-minute limit checked as Groq checks it: a request whose prompt
        #: (counted by :func:`count_tokens`) and room together exceed it gets Groq's 413.
        self.tpm_limit: int | None = None
        self._pending: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._seq = 0

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port the server is bound to (only after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` — pass this as ``base_url`` to ``openai.OpenAI``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Self:
        """Bind to 127.0.0.1 on an ephemeral port and serve in a daemon thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"FakeOpenAI:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; wakes sleeping handlers and closes open connections. Idempotent."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.drop_connections()
        server.server_close()
        if thread is not None:
            thread.join(timeout=2.0)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- scripting -------------------------------------------------------------------------

    def queue(self, *responses: Reply) -> None:
        """Append scripted replies, consumed in order, one per chat-completions request."""
        with self._lock:
            self._pending.extend(responses)

    @property
    def pending(self) -> int:
        """Number of queued replies not yet consumed."""
        with self._lock:
            return len(self._pending)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The recorded requests that hit ``/v1/chat/completions``."""
        with self._lock:
            return [r for r in self.requests if urlsplit(r["path"]).path == _CHAT_PATH]

    # -- request handling ------------------------------------------------------------------

    def _dispatch(self, handler: _Handler, body: Any) -> None:
        path = urlsplit(handler.path).path.rstrip("/")
        record = {
            "path": handler.path,
            "method": handler.command,
            "headers": {k.lower(): v for k, v in handler.headers.items()},
            "json": body,
        }
        with self._lock:
            self.requests.append(record)
            self._seq += 1
            seq = self._seq
        rid = {"x-request-id": f"req_fake_{seq}"}
        if self.on_request is not None:
            self.on_request(record)
        chat = path == _CHAT_PATH and handler.command == "POST"
        # A retired model or a request over the TPM limit is refused before any
        # scripted reply is consumed.
        refusal = self.refusal(body) if chat else None
        with self._lock:
            reply: Reply | None = None
            if chat and refusal is None:
                reply = self._pending.popleft() if self._pending else self.default

        if refusal is not None:
            status, headers, out = refusal.render(body, seq)
            handler.send_json(status, out, {**rid, **headers})
        elif chat:
            self._chat(handler, body, reply, seq, rid)
        elif path == "/v1/models" and handler.command == "GET":
            if self.models_error is not None:
                status, headers, out = self.models_error.render(body, seq)
                handler.send_json(status, out, {**rid, **headers})
                return
            models = [{"id": model_id, "object": "model", "created": 0, "owned_by": "fake"}
                      for model_id in self.models]
            handler.send_json(200, {"object": "list", "data": models}, rid)
        elif path == "/v1/embeddings" and handler.command == "POST":
            handler.send_json(200, self._embeddings(body), rid)
        else:
            err = {
                "error": {
                    "message": f"fake: no route for {handler.command} {path}",
                    "type": "invalid_request_error",
                    "code": "not_found",
                }
            }
            handler.send_json(404, err, rid)

    def _chat(self, handler: _Handler, body: Any, reply: Reply | None, seq: int,
              rid: dict[str, str]) -> None:
        if reply is None:
            err = {"error": {"message": "fake queue empty", "type": "server_error", "code": None}}
            handler.send_json(500, err, rid)
            return
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            stopped = reply.delay > 0 and self._stopping.wait(reply.delay)
        finally:
            # Before the answer goes out: the client may send its next request at once.
            with self._lock:
                self.in_flight -= 1
        if stopped:
            handler.close_connection = True
            return
        status, headers, out = reply.render(body, seq)
        handler.send_json(status, out, {**rid, **headers})

    def refusal(self, body: Any) -> Reply | None:
        """The error a chat request gets before any scripted reply: its model retired,
        or larger than the tokens-per-minute limit."""
        request = body if isinstance(body, dict) else {}
        model = str(request.get("model") or "")
        with self._lock:
            retired = self.retired.get(model)
        if retired is not None:
            return retired
        if self.tpm_limit is not None:
            room = int(request.get("max_completion_tokens") or request.get("max_tokens") or 0)
            asked = count_tokens(request.get("messages") or []) + room
            if asked > self.tpm_limit:
                return groq_too_large(model, self.tpm_limit, asked)
        return None

    @staticmethod
    def _embeddings(body: Any) -> dict[str, Any]:
        req = body if isinstance(body, dict) else {}
        raw = req.get("input", "")
        inputs = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else []
        texts = [t if isinstance(t, str) else json.dumps(t) for t in inputs]
        as_b64 = req.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(texts):
            vec = fake_embedding(text)
            emb: list[float] | str = (
                base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")
                if as_b64
                else vec
            )
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(len(t.split()) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": req.get("model") or FAKE_MODEL,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def count_tokens(messages: list[Any]) -> int:
    """A stand-in for a provider's tokeniser, erring on the provider's side: ASCII at
    3.5 characters a token, every other character a token (Thai, Burmese), and 4 tokens
    a message."""
    total = 0
    for message in messages:
        text = str(message.get("content") or "") if isinstance(message, dict) else ""
        other = len(text) - len(text.encode("ascii", "ignore"))
        total += int((len(text) - other) / 3.5) + other + 4
    return total


def groq_not_found(model: str) -> Reply:
    """Groq's (and OpenAI's) 404 for a model shut down or never served."""
    return Reply.error(404, f"The model `{model}` does not exist or you do not have access "
                            "to it.", code="model_not_found")


def groq_decommissioned(model: str, status: int = 404) -> Reply:
    """Groq's answer for a decommissioned model (https://console.groq.com/docs/errors)."""
    return Reply.error(status, f"The model `{model}` has been decommissioned and is no longer "
                               "supported. Please refer to https://console.groq.com/docs/"
                               "deprecations for a recommendation on which model to use "
                               "instead.", code="model_decommissioned")


def groq_too_large(model: str, limit: int, requested: int) -> Reply:
    """Groq's 413 for a request larger than the tokens-per-minute limit."""
    return Reply.error(413, f"Request too large for model `{model}` in organization "
                            "`org_fake` service tier `on_demand` on tokens per minute (TPM): "
                            f"Limit {limit}, Requested {requested}, please reduce your "
                            "message size and try again.", type_="tokens",
                       code="rate_limit_exceeded")


def groq_rate_limited(model: str, per: str = "minute", kind: str = "tokens",
                      limit: int = 8000, used: int = 7000, requested: int = 1500,
                      retry_after: float = 1.0) -> Reply:
    """Groq's 429: ``per`` minute or day, of ``kind`` requests or tokens, with its
    ``retry-after`` and ``x-ratelimit-*`` headers
    (https://console.groq.com/docs/rate-limits)."""
    short = {("minute", "tokens"): "TPM", ("minute", "requests"): "RPM",
             ("day", "tokens"): "TPD", ("day", "requests"): "RPD"}[(per, kind)]
    headers = {"retry-after": f"{retry_after:g}", "x-ratelimit-limit-requests": "1000",
               "x-ratelimit-limit-tokens": "8000", "x-ratelimit-remaining-requests": "0"
               if short == "RPD" else "412", "x-ratelimit-remaining-tokens": "0",
               "x-ratelimit-reset-requests": "2m59.56s", "x-ratelimit-reset-tokens": "7.66s"}
    return Reply.error(429, f"Rate limit reached for model `{model}` in organization "
                            f"`org_fake` service tier `on_demand` on {kind} per {per} "
                            f"({short}): Limit {limit}, Used {used}, Requested {requested}. "
                            f"Please try again in {retry_after:g}s.", headers=headers,
                       type_=kind, code="rate_limit_exceeded")


@contextlib.contextmanager
def running_fake_openai() -> Iterator[FakeOpenAI]:
    """Context manager yielding a started :class:`FakeOpenAI`; stops it on exit.

    Pytest usage::

        @pytest.fixture
        def fake_openai():
            with running_fake_openai() as fake:
                yield fake
    """
    fake = FakeOpenAI().start()
    try:
        yield fake
    finally:
        fake.stop()
