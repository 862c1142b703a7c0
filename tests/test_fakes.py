"""Tests for the test fakes: the fake OpenAI server and the fixture-site server."""

from __future__ import annotations

import http.client
import json
import math
import pathlib
import threading
import time
import zlib
from collections.abc import Iterator

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from tests.fakes.openai_server import (
    EMBEDDING_DIM,
    FakeOpenAI,
    Reply,
    fake_embedding,
    running_fake_openai,
)
from tests.fakes.site_server import SiteServer

# --------------------------------------------------------------------------------------------
# FakeOpenAI
# --------------------------------------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A running fake OpenAI server."""
    with running_fake_openai() as server:
        yield server


def make_client(fake: FakeOpenAI, **kw: object) -> openai.OpenAI:
    """A real SDK client pointed at ``fake`` (no retries unless overridden)."""
    opts: dict[str, object] = {"max_retries": 0, **kw}
    return openai.OpenAI(base_url=fake.base_url, api_key="test", **opts)  # type: ignore[arg-type]


def test_binds_loopback_ephemeral_port(fake: FakeOpenAI) -> None:
    """The fake listens on 127.0.0.1 on an ephemeral port."""
    assert fake.base_url.startswith("http://127.0.0.1:")
    assert fake.base_url.endswith("/v1")
    assert fake.port > 0


def test_content_reply_usage_and_recorded_request(fake: FakeOpenAI) -> None:
    """A scripted reply reaches the SDK; the request is recorded verbatim."""
    fake.queue(Reply.content("hello there", prompt_tokens=11, completion_tokens=7))
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Say hi — ünïcödé"},
    ]
    with make_client(fake) as client:
        resp = client.chat.completions.create(model="gpt-test", messages=messages, temperature=0)
    assert resp.choices[0].message.content == "hello there"
    assert resp.choices[0].message.role == "assistant"
    assert resp.choices[0].finish_reason == "stop"
    assert resp.model == "gpt-test"
    assert resp.object == "chat.completion"
    assert resp.usage is not None
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (11, 7)
    assert resp.usage.total_tokens == 18

    assert len(fake.requests) == 1
    req = fake.requests[0]
    assert req["method"] == "POST"
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == "Bearer test"
    assert req["json"]["model"] == "gpt-test"
    assert req["json"]["messages"] == messages
    assert req["json"]["temperature"] == 0
    assert fake.pending == 0


def test_json_reply_and_model_override(fake: FakeOpenAI) -> None:
    """Reply.json serialises the object; an explicit model wins."""
    fake.queue(Reply.json({"score": 3, "tags": ["a"]}, model="other-model"))
    with make_client(fake) as client:
        resp = client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "x"}]
        )
    assert resp.model == "other-model"
    assert json.loads(resp.choices[0].message.content or "") == {"score": 3, "tags": ["a"]}


def test_replies_consumed_in_order_then_default(fake: FakeOpenAI) -> None:
    """Queued replies are used in order, then the default."""
    fake.queue(Reply.content("one"), Reply.content("two"))
    fake.default = Reply.content("fallback")
    with make_client(fake) as client:
        got = [
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": str(i)}]
            )
            .choices[0]
            .message.content
            for i in range(4)
        ]
    assert got == ["one", "two", "fallback", "fallback"]
    assert [r["json"]["messages"][0]["content"] for r in fake.chat_requests] == ["0", "1", "2", "3"]


def test_empty_queue_without_default_is_500(fake: FakeOpenAI) -> None:
    """No queued reply and no default gives a 500."""
    with make_client(fake) as client, pytest.raises(openai.InternalServerError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert "fake queue empty" in str(info.value)
    assert len(fake.requests) == 1


def test_401_raises_authentication_error(fake: FakeOpenAI) -> None:
    """A 401 error reply surfaces as openai.AuthenticationError."""
    fake.queue(Reply.error(401, "Incorrect API key", type_="invalid_request_error", code="bad_key"))
    with make_client(fake) as client, pytest.raises(openai.AuthenticationError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert info.value.status_code == 401
    assert "Incorrect API key" in str(info.value)
    assert info.value.code == "bad_key"


def test_429_retry_after_is_honoured(fake: FakeOpenAI) -> None:
    """The SDK waits for retry-after and the second reply succeeds."""
    fake.queue(
        Reply.error(429, "slow down", headers={"retry-after": "1"}, type_="rate_limit"),
        Reply.content("ok after retry"),
    )
    with make_client(fake, max_retries=1) as client:
        t0 = time.monotonic()
        resp = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
        elapsed = time.monotonic() - t0
    assert resp.choices[0].message.content == "ok after retry"
    assert len(fake.chat_requests) == 2
    assert elapsed >= 0.9, "client should have waited for retry-after: 1"


def test_429_without_retries_raises_rate_limit(fake: FakeOpenAI) -> None:
    """Without retries a 429 raises RateLimitError carrying the header."""
    fake.queue(Reply.error(429, "slow down", headers={"retry-after": "1"}))
    with make_client(fake) as client, pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert info.value.response.headers["retry-after"] == "1"


def test_hang_times_out_and_stop_is_prompt() -> None:
    """A hanging reply trips the client timeout; stop() stays fast."""
    fake = FakeOpenAI().start()
    try:
        fake.queue(Reply.hang(30))
        with make_client(fake, timeout=0.5) as client, pytest.raises(openai.APITimeoutError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert len(fake.requests) == 1, "request must be recorded before the reply"
    finally:
        t0 = time.monotonic()
        fake.stop()
        assert time.monotonic() - t0 < 2.0


def test_concurrent_requests_are_served_in_parallel(fake: FakeOpenAI) -> None:
    """Delayed replies are served concurrently: all requests arrive before any reply."""
    n = 4
    fake.queue(*[Reply.content(f"r{i}", delay=0.3) for i in range(n)])
    results: list[str] = []
    lock = threading.Lock()

    with make_client(fake, timeout=5) as client:

        def call() -> None:
            resp = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
            with lock:
                results.append(resp.choices[0].message.content or "")

        threads = [threading.Thread(target=call) for _ in range(n)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 3
        while len(fake.chat_requests) < n and time.monotonic() < deadline:
            time.sleep(0.005)
        with lock:
            done_when_all_arrived = len(results)
        for t in threads:
            t.join(5)
    assert len(fake.chat_requests) == n
    assert done_when_all_arrived == 0, "the server handled requests one at a time"
    assert sorted(results) == sorted(f"r{i}" for i in range(n))


def test_models_endpoint(fake: FakeOpenAI) -> None:
    """GET /v1/models lists the single fake model."""
    with make_client(fake) as client:
        ids = [m.id for m in client.models.list()]
    assert ids == ["fake-model"]


@pytest.mark.parametrize("encoding_format", [None, "float"])
def test_embeddings_are_deterministic_unit_vectors(
    fake: FakeOpenAI, encoding_format: str | None
) -> None:
    """Embeddings are 8-dim unit vectors, in base64 or float form."""
    kw = {} if encoding_format is None else {"encoding_format": encoding_format}
    with make_client(fake) as client:
        resp = client.embeddings.create(
            model="emb-model",
            input=["alpha beta", "gamma"],
            **kw,  # type: ignore[arg-type]
        )
    assert [d.index for d in resp.data] == [0, 1]
    for item, text in zip(resp.data, ["alpha beta", "gamma"], strict=True):
        assert len(item.embedding) == EMBEDDING_DIM == 8
        assert math.isclose(math.sqrt(sum(v * v for v in item.embedding)), 1.0, rel_tol=1e-5)
        assert item.embedding == pytest.approx(fake_embedding(text), abs=1e-6)
    assert resp.data[0].embedding != pytest.approx(resp.data[1].embedding)
    assert resp.usage.prompt_tokens == 3
    assert resp.model == "emb-model"
    assert fake.requests[-1]["path"] == "/v1/embeddings"


def test_unknown_path_is_404(fake: FakeOpenAI) -> None:
    """Unknown endpoints answer an OpenAI-style 404."""
    r = httpx.get(fake.base_url + "/nope")
    assert r.status_code == 404
    assert "error" in r.json()


# --------------------------------------------------------------------------------------------
# SiteServer
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def web() -> Iterator[httpx.Client]:
    """One shared plain-HTTP client (creating a client per request is slow)."""
    with httpx.Client(timeout=5) as client:
        yield client


@pytest.fixture
def site_root(tmp_path: pathlib.Path) -> pathlib.Path:
    """A small fixture website, with a secret file just outside its root."""
    root = tmp_path / "site"
    (root / "about").mkdir(parents=True)
    (root / "index.html").write_bytes("<html><body>Héllo home</body></html>".encode())
    (root / "about" / "index.html").write_text("<html>about</html>", encoding="utf-8")
    (root / "notes.txt").write_text("plain notes", encoding="utf-8")
    (root / "data.json").write_text('{"a": 1}', encoding="utf-8")
    (root / "doc.pdf").write_bytes(b"%PDF-1.4 fake")
    (root / "blob.bin").write_bytes(b"\x00\x01")
    (tmp_path / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    return root


@pytest.fixture
def site(site_root: pathlib.Path) -> Iterator[SiteServer]:
    """A running SiteServer over ``site_root``."""
    with SiteServer(site_root) as server:
        yield server


def test_site_url_helpers(site: SiteServer) -> None:
    """base_url and url() build loopback URLs."""
    assert site.base_url.startswith("http://127.0.0.1:")
    assert site.url("/a/b") == site.base_url + "/a/b"
    assert site.url("a") == site.base_url + "/a"


def test_static_files_and_content_types(site: SiteServer, web: httpx.Client) -> None:
    """Static files are served with suffix-based content types."""
    r = web.get(site.url("/"))
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html"
    assert r.content == "<html><body>Héllo home</body></html>".encode()
    assert int(r.headers["content-length"]) == len(r.content)

    assert web.get(site.url("about/")).text == "<html>about</html>"
    assert web.get(site.url("about")).text == "<html>about</html>"
    expected = {
        "notes.txt": "text/plain",
        "data.json": "application/json",
        "doc.pdf": "application/pdf",
        "blob.bin": "application/octet-stream",
        "index.html": "text/html",
    }
    for path, ctype in expected.items():
        resp = web.get(site.url(path))
        assert resp.status_code == 200, path
        assert resp.headers["content-type"] == ctype, path
    assert ("GET", "/notes.txt") in site.requests


def test_head_has_headers_but_no_body(site: SiteServer, web: httpx.Client) -> None:
    """HEAD answers like GET without a body."""
    r = web.head(site.url("notes.txt"))
    assert r.status_code == 200
    assert r.headers["content-length"] == str(len("plain notes"))
    assert r.content == b""
    assert site.requests[-1] == ("HEAD", "/notes.txt")


def test_missing_file_is_404_html(site: SiteServer, web: httpx.Client) -> None:
    """Missing files give a small HTML 404."""
    r = web.get(site.url("missing.html"))
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "404" in r.text


def test_path_traversal_refused(site: SiteServer) -> None:
    """Paths escaping the root are refused."""
    for raw in (
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/about/../../secret.txt",
        "/..%2fsecret.txt",
    ):
        conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=2)
        try:
            conn.request("GET", raw)
            resp = conn.getresponse()
            body = resp.read()
        finally:
            conn.close()
        assert resp.status in (403, 404), raw
        assert b"TOP SECRET" not in body, raw


def test_route_overrides_static_with_status_and_headers(
    site: SiteServer, web: httpx.Client
) -> None:
    """Routes override static files with their status and headers."""
    site.route("/notes.txt", status=418, body="teapot", headers={"X-Test": "yes"})
    r = web.get(site.url("notes.txt"))
    assert r.status_code == 418
    assert r.text == "teapot"
    assert r.headers["x-test"] == "yes"
    assert r.headers["content-type"] == "text/html; charset=utf-8"

    site.route("/custom", body=b"{}", headers={"Content-Type": "application/json"})
    r = web.get(site.url("custom?x=1"))
    assert r.headers["content-type"] == "application/json"
    assert r.content == b"{}"


def test_redirect(site: SiteServer, web: httpx.Client) -> None:
    """Redirect routes send Location as given."""
    site.route("/old", redirect="/about/")
    site.route("/away", redirect=site.url("notes.txt"), status=301)
    r = web.get(site.url("old"))
    assert r.status_code == 302
    assert r.headers["location"] == "/about/"
    r = web.get(site.url("old"), follow_redirects=True)
    assert r.status_code == 200
    assert r.text == "<html>about</html>"
    r = web.get(site.url("away"))
    assert r.status_code == 301
    assert r.headers["location"] == site.url("notes.txt")


def test_delay_triggers_client_read_timeout(site: SiteServer, web: httpx.Client) -> None:
    """A delayed route trips a short client read timeout."""
    site.route("/slow-start", body="late", delay=1.0)
    with pytest.raises(httpx.ReadTimeout):
        web.get(site.url("slow-start"), timeout=0.2)


def test_drip_delivers_full_body_slowly(site: SiteServer, web: httpx.Client) -> None:
    """A drip route delivers the whole body in timed chunks."""
    body = b"0123456789" * 5
    site.route("/drip", body=body, drip=(10, 0.05))
    t0 = time.monotonic()
    chunks: list[bytes] = []
    with web.stream("GET", site.url("drip")) as r:
        assert r.status_code == 200
        assert r.headers["content-length"] == str(len(body))
        first_at = None
        for chunk in r.iter_raw():
            if first_at is None:
                first_at = time.monotonic() - t0
            chunks.append(chunk)
    elapsed = time.monotonic() - t0
    assert b"".join(chunks) == body
    assert len(chunks) >= 2
    assert elapsed >= 4 * 0.05 * 0.9
    assert first_at is not None
    assert first_at < elapsed / 2


def test_reset_produces_httpx_error(site: SiteServer, web: httpx.Client) -> None:
    """A reset route aborts the connection."""
    site.route("/reset", reset=True)
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        web.get(site.url("reset"), timeout=2)
    assert ("GET", "/reset") in site.requests


def test_gzip_bomb_headers_and_payload(site: SiteServer, web: httpx.Client) -> None:
    """A gzip bomb is small on the wire and huge inflated."""
    n = 5_000_000
    site.route("/bomb", gzip_bomb=n)
    with web.stream("GET", site.url("bomb")) as r:
        assert r.status_code == 200
        assert r.headers["content-encoding"] == "gzip"
        assert r.headers["content-type"].startswith("text/html")
        compressed = b"".join(r.iter_raw())
    assert len(compressed) == int(r.headers["content-length"])
    assert len(compressed) < n // 100
    inflated = zlib.decompressobj(31).decompress(compressed, 4096)
    assert inflated == b"\0" * 4096
    assert len(zlib.decompress(compressed, 31)) == n
    assert len(web.get(site.url("bomb")).content) == n  # httpx inflates all of it


def test_site_stop_is_prompt_with_request_in_flight(site_root: pathlib.Path) -> None:
    """stop() returns quickly even with a sleeping handler."""
    server = SiteServer(site_root).start()
    server.route("/forever", delay=30)
    errors: list[BaseException] = []

    def fetch() -> None:
        try:
            httpx.get(server.url("forever"), timeout=10)
        except httpx.HTTPError as exc:
            errors.append(exc)

    worker = threading.Thread(target=fetch)
    worker.start()
    deadline = time.monotonic() + 2
    while ("GET", "/forever") not in server.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    t0 = time.monotonic()
    server.stop()
    assert time.monotonic() - t0 < 2.0
    worker.join(3)
    assert not worker.is_alive()
    assert errors, "in-flight request should fail once the server stops"
