"""Webhooks from the workspace: a real receiver on 127.0.0.1 that fails its first
delivery still gets every event once delivered, signed; a restart loses none; private,
unreachable, slow and always-failing receivers are given up on (and logged) without
ever holding up a page."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from fastapi.testclient import TestClient

from leadengine.app import create_app
from leadengine.app.webhook_schema import LeadEvaluated, LeadStatusChanged
from leadengine.app.webhooks import sign
from leadengine.cli.serve import serve
from leadengine.config import Settings
from leadengine.store import STATUSES, Store, fan_out
from leadengine.store import update as update_lead
from leadengine.store.outbox import webhook_deliveries_table
from tests.test_app import TOKEN, evaluation, fill

SECRET = "whsec-0123456789abcdef"


class Receiver:
    """An HTTP server that records what it is sent and answers as ``answers`` says
    (status codes, one per request, then 200; ``delay`` seconds before each answer)."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.answers: list[int] = []
        self.delay = 0.0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                time.sleep(outer.delay)
                outer.received.append(({k.lower(): v for k, v in self.headers.items()},
                                       body))
                status = outer.answers.pop(0) if outer.answers else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body in self.received]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()


def settings(*urls: str, min_fit: int = 0) -> Settings:
    return Settings(webhooks=urls, webhook_min_fit=min_fit,
                    env={"LEADENGINE_WEBHOOK_SECRET": SECRET})


def workspace(db: Path, config: Settings, allow_private: bool = True,
              backoff: tuple[float, ...] = (0.2, 0.2, 0.2), timeout: float = 5.0
              ) -> TestClient:
    app = create_app(config, db, TOKEN, allow_private=allow_private)
    hooks = app.state.workspace.webhooks
    hooks.backoff, hooks.poll, hooks.timeout = backoff, 0.05, timeout
    return TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})


def wait_for(check: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def store_lead(db: Path, name: str, score: int, index: int) -> None:
    """An evaluation stored by another process's batch (the CLI's, say)."""
    store = Store(db)
    run = store.start_run("later.csv", "kb", "heuristic", "rules-v1")
    store.save_evaluation(run, index, f"https://{name.lower()}.example/", "kb",
                          evaluation(name, score, signals={"phones": ["+6621234567"]}),
                          {"owner": "ann"})
    store.finish_run(run)
    store.engine.dispose()


def settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows count as settled at once (the outbox waits SETTLE seconds for late commits)."""
    monkeypatch.setattr("leadengine.store.outbox.SETTLE", 0.0)


def test_a_receiver_that_fails_once_gets_every_event_signed(
        tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    settle(monkeypatch)
    db = fill(tmp_path / "r.db")
    receiver.answers = [500]  # the first delivery fails
    with workspace(db, settings(receiver.url, min_fit=50)) as api:
        time.sleep(0.3)
        assert receiver.received == []  # the leads stored before are not sent
        store_lead(db, "Echo", 80, 0)
        store_lead(db, "Foxtrot", 20, 1)  # under min_fit: no event
        wait_for(lambda: len(receiver.received) >= 2)
        lead_id = next(r["id"] for r in api.get("/api/leads").json()["rows"]
                       if r["business_name"] == "Echo")
        api.patch(f"/api/leads/{lead_id}", json={"status": "contacted"})
        wait_for(lambda: len(receiver.received) >= 3)
        time.sleep(0.3)
        log = api.get("/settings").text
    assert len(receiver.received) == 3
    first, retried, changed = receiver.received
    assert first[0]["x-leadengine-delivery"] == retried[0]["x-leadengine-delivery"]
    assert first[1] == retried[1]  # the same bytes, so the same signature
    for headers, body in receiver.received:
        expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["x-leadengine-signature"], expected)
        assert headers["content-type"] == "application/json"
    evaluated = LeadEvaluated.model_validate_json(retried[1])
    assert evaluated.lead.business_name == "Echo" and evaluated.lead.fit_score == 80
    assert evaluated.lead.phones == ["+6621234567"] and evaluated.lead.owner == "ann"
    assert evaluated.lead.path == f"/leads/{evaluated.lead.id}"
    status = LeadStatusChanged.model_validate_json(changed[1])
    assert (status.status, status.previous_status, status.changed_by) == (
        "contacted", "new", "team")
    assert changed[0]["x-leadengine-event"] == "lead.status_changed"
    # The delivery log: the evaluation took two tries, the status change one; the
    # hook's path (as good as a password at Zapier or Make) is not shown.
    rows = re.findall(r'data-label="Event">([^<]+)</td>.*?data-label="Tries" class="num">'
                      r'(\d+)</td>\s*<td data-label="State">(\w+)', log, re.S)
    assert [(event.split(" · ")[0], tries, state) for event, tries, state in rows] == [
        ("lead.status_changed", "1", "delivered"), ("lead.evaluated", "2", "delivered")]
    assert "http://127.0.0.1:" in log and "/hook" not in log


def test_a_restart_loses_no_event(tmp_path: Path, receiver: Receiver,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    settle(monkeypatch)
    db = fill(tmp_path / "r.db")
    receiver.answers = [503] * 100
    with workspace(db, settings(receiver.url), backoff=(0.1,) * 50):
        time.sleep(0.2)
        store_lead(db, "Golf", 75, 0)
        wait_for(lambda: len(receiver.received) >= 1)
    # Down: the receiver is fixed, and a batch stores another lead meanwhile.
    receiver.answers = []
    store_lead(db, "Hotel", 60, 1)
    count = len(receiver.received)
    with workspace(db, settings(receiver.url)):
        wait_for(lambda: {e["lead"]["business_name"] for e in receiver.events()
                          [count:]} >= {"Golf", "Hotel"})
    names = [e["lead"]["business_name"] for e in receiver.events()[count:]]
    assert sorted(names) == ["Golf", "Hotel"]  # each once, after the restart


def test_always_failing_private_unreachable_and_slow_receivers_are_given_up(
        tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    settle(monkeypatch)
    db = fill(tmp_path / "r.db")
    caplog.set_level(logging.WARNING, logger="leadengine.webhooks")
    receiver.answers = [500] * 100
    slow = Receiver()
    slow.delay = 3.0
    unreachable = "http://127.0.0.1:9/nothing-listens"
    try:
        with workspace(db, settings(receiver.url, unreachable, slow.url),
                       backoff=(0.05, 0.05), timeout=0.5) as api:
            time.sleep(0.2)
            store_lead(db, "India", 90, 0)
            started = time.monotonic()
            assert api.get("/").status_code == 200  # pages never wait for a receiver
            assert time.monotonic() - started < 1.0
            wait_for(lambda: "gave up" in api.get("/settings").text
                     and api.get("/settings").text.count("gave up") >= 3, 20)
    finally:
        slow.server.shutdown()
    assert len(receiver.received) == 3  # the first try and two retries
    messages = [r.getMessage() for r in caplog.records]
    assert any("gave up on evaluation-" in m and "answered HTTP 500" in m for m in messages)
    assert any("no answer within 0.5 s" in m for m in messages)
    assert any("127.0.0.1:9" in m for m in messages)
    # Without --allow-private, a private receiver is refused by the SSRF guard at once.
    caplog.clear()
    with workspace(db, settings(receiver.url), allow_private=False) as api:
        time.sleep(0.2)
        store_lead(db, "Juliett", 90, 1)
        wait_for(lambda: any("private or local address" in r.getMessage()
                             for r in caplog.records))
    assert len(receiver.received) == 3  # nothing more reached it


def test_webhooks_need_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner(env={"LEADENGINE_TOKEN": TOKEN,
                            "LEADENGINE_WEBHOOKS": "https://hooks.example/x"}).invoke(serve, [])
    assert result.exit_code == 1 and result.stderr.startswith(
        "error: webhooks are set (LEADENGINE_WEBHOOKS) but LEADENGINE_WEBHOOK_SECRET is not")
    assert result.stderr.count("\n") == 1
    bad = CliRunner(env={"LEADENGINE_TOKEN": TOKEN,
                         "LEADENGINE_WEBHOOKS": "hooks.example/x"}).invoke(serve, [])
    assert bad.exit_code == 1 and "not an http(s) URL" in bad.stderr


def test_the_events_are_described_in_openapi(tmp_path: Path) -> None:
    db = fill(tmp_path / "r.db")
    spec = TestClient(create_app(None, db, TOKEN)).get(
        "/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert set(spec["webhooks"]) == {"lead.evaluated", "lead.status_changed"}
    schema = spec["components"]["schemas"]["LeadStatusChanged"]
    assert schema["properties"]["status"]["enum"] == list(STATUSES)
    assert sign("k", b"{}") == "sha256=" + hmac.new(b"k", b"{}", hashlib.sha256).hexdigest()


def test_the_outbox_starts_at_the_end_and_queues_each_event_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settle(monkeypatch)
    db = fill(tmp_path / "r.db")
    engine = Store(db).engine
    assert fan_out(engine, ["https://a.example/"]) == 0  # history is not sent
    store_lead(db, "Kilo", 70, 0)
    assert fan_out(engine, ["https://a.example/", "https://b.example/"]) == 2
    assert fan_out(engine, ["https://a.example/", "https://b.example/"]) == 0


def test_status_changes_of_several_leads_in_one_pass_each_name_their_previous_status(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settle(monkeypatch)
    db = fill(tmp_path / "r.db")
    engine = Store(db).engine
    fan_out(engine, ["https://a.example/"])  # the cursors start at the end
    store_lead(db, "Kilo", 70, 0)  # a newer evaluation of a lead: the event names it
    for url, who, status in [("https://0.example/", "ann", "contacted"),
                             ("https://kilo.example/", "bob", "contacted"),
                             ("https://0.example/", "ann", "replied"),
                             ("https://0.example/", "eve", "won")]:
        update_lead(engine, url, who, status=status)
    assert fan_out(engine, ["https://a.example/"]) == 5  # Kilo evaluated + 4 changes
    d = webhook_deliveries_table
    with engine.connect() as conn:
        bodies = [json.loads(body) for body in conn.scalars(
            sa.select(d.c.body).where(d.c.event == "lead.status_changed").order_by(d.c.id))]
    assert [(b["lead"].get("business_name"), b["previous_status"], b["status"],
             b["changed_by"]) for b in bodies] == [
        ("Alpha", "new", "contacted", "ann"), ("Kilo", "new", "contacted", "bob"),
        ("Alpha", "contacted", "replied", "ann"), ("Alpha", "replied", "won", "eve")]
