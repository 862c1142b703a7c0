"""People in the workspace: each with their own token (``leadengine users``), what they
change recorded under their name, revocation that takes effect at once, the old team
token as a deprecated admin, and wrong tokens throttled per client and per account."""

from __future__ import annotations

import logging
import re
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from leadengine.app import create_app
from leadengine.app.access import Throttle
from leadengine.cli import cli
from leadengine.config import Settings
from leadengine.store import Store, add_person
from tests.conftest import KNOWLEDGE
from tests.test_app import TOKEN, fill

PERSON_TOKEN = re.compile(r"le_[0-9a-f]{12}_[A-Za-z0-9_-]{43}")


def add(db: Path, *args: str) -> str:
    """``leadengine users add ... --db db``: the token it printed."""
    result = CliRunner().invoke(cli, ["users", "add", *args, "--db", str(db)])
    assert result.exit_code == 0, result.stderr
    assert PERSON_TOKEN.fullmatch(result.stdout.strip()), result.stdout
    return result.stdout.strip()


def csrf_of(page: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert match
    return match.group(1)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return fill(tmp_path / "r.db")


def test_users_add_list_revoke_from_the_command_line(db: Path) -> None:
    token = add(db, "Aye Aye", "--admin")
    other = add(db, "Somchai P.")
    assert token != other
    # Only a hash is kept: the token is nowhere in the database file.
    raw = db.read_bytes() + (db.with_suffix(".db-wal").read_bytes()
                             if db.with_suffix(".db-wal").exists() else b"")
    assert token.encode() not in raw and token[16:].encode() not in raw
    listed = CliRunner().invoke(cli, ["users", "list", "--db", str(db)])
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["name", "role", "added", "last", "login", "state"]
    assert lines[1].startswith("Aye Aye ") and " admin " in lines[1]
    assert lines[2].startswith("Somchai P. ") and " member " in lines[2]
    assert lines[2].endswith("active")
    again = CliRunner().invoke(cli, ["users", "add", "aye aye", "--db", str(db)])
    assert again.exit_code == 1 and again.stderr == (
        "error: 'Aye Aye' is already a person here (revoke them first to give a new "
        "token)\n")
    revoked = CliRunner().invoke(cli, ["users", "revoke", "somchai p.", "--db", str(db)])
    assert revoked.exit_code == 0
    assert revoked.stderr == "revoked Somchai P.: their token no longer works\n"
    listed = CliRunner().invoke(cli, ["users", "list", "--db", str(db)]).stdout
    assert re.search(r"Somchai P\. .* revoked \d{4}-\d\d-\d\d \d\d:\d\d$", listed, re.M)
    missing = CliRunner().invoke(cli, ["users", "revoke", "Nobody", "--db", str(db)])
    assert missing.exit_code == 1 and "nobody called 'Nobody'" in missing.stderr
    for bad in ("", "   ", "a\x00b", "x" * 101):
        result = CliRunner().invoke(cli, ["users", "add", bad, "--db", str(db)])
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, bad
        assert "Traceback" not in result.output


def test_users_list_never_creates_a_database(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["users", "list", "--db", str(tmp_path / "no.db")])
    assert result.exit_code == 1 and "no results database" in result.stderr
    assert not (tmp_path / "no.db").exists()


def test_each_person_is_recorded_and_revocation_is_immediate(db: Path) -> None:
    ann, bob = add(db, "Ann", "--admin"), add(db, "Bob")
    app = create_app(None, db, None)  # people only: no team token
    api = TestClient(app, headers={"Authorization": f"Bearer {bob}"})
    lead_id = api.get("/api/leads").json()["rows"][0]["id"]
    assert api.patch(f"/api/leads/{lead_id}", json={"status": "contacted",
                                                   "note": "Rang"}).status_code == 200
    # Ann logs in at the page with her token; her note is hers.
    browser = TestClient(app, follow_redirects=False)
    assert browser.get("/").status_code == 303
    assert browser.post("/login", data={"token": ann, "next": "/"}).status_code == 303
    csrf = csrf_of(browser.get("/").text)
    assert browser.post(f"/leads/{lead_id}", data={"note": "Booked a demo", "csrf": csrf}
                        ).status_code == 303
    history = api.get(f"/api/leads/{lead_id}").json()["history"]
    assert [(e["kind"], e["who"]) for e in history] == [
        ("status", "Bob"), ("note", "Bob"), ("note", "Ann")]
    # Revoked: the token is refused at once, and so is the open session.
    CliRunner().invoke(cli, ["users", "revoke", "Ann", "--db", str(db)])
    assert browser.get("/").status_code == 303  # back to the login page
    refused = TestClient(app).get("/api/leads", headers={"Authorization": f"Bearer {ann}"})
    assert refused.status_code == 401
    assert refused.json() == {"detail": "that token is not valid (revoked, mistyped or "
                                        "not this workspace's)"}
    assert api.get("/api/leads").status_code == 200  # Bob is still in
    for n, bad in enumerate(("", "le_", "le_zz_yy", ann[:-1], ann + "x", "Bearer", "x" * 400)):
        answer = TestClient(app, client=(f"192.0.2.{n}", 1)).get(
            "/api/leads", headers={"Authorization": f"Bearer {bad}"})
        assert answer.status_code == 401, bad


def test_the_team_token_still_works_as_a_deprecated_admin(db: Path) -> None:
    app = create_app(None, db, TOKEN)
    api = TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})
    answer = api.get("/api/leads")
    assert answer.status_code == 200 and answer.headers["Deprecation"] == "true"
    page = api.get("/settings").text
    assert 'id="people"' in page  # an admin: may add people
    assert "old shared team token" in page


def test_an_admin_adds_and_revokes_people_on_the_settings_page(db: Path) -> None:
    admin, member = add(db, "Ann", "--admin"), add(db, "Bob")
    app = create_app(None, db, None)
    browser = TestClient(app, follow_redirects=False)
    browser.post("/login", data={"token": admin, "next": "/"})
    csrf = csrf_of(browser.get("/settings").text)
    added = browser.post("/settings/people", data={"csrf": csrf, "name": "Kyaw"})
    match = PERSON_TOKEN.search(added.text)
    assert added.status_code == 200 and match and "Kyaw" in added.text
    kyaw = TestClient(app, headers={"Authorization": f"Bearer {match.group(0)}"})
    assert kyaw.get("/api/leads").status_code == 200
    assert PERSON_TOKEN.search(browser.get("/settings").text) is None  # shown once
    twice = browser.post("/settings/people", data={"csrf": csrf, "name": "kyaw"})
    assert twice.status_code == 400 and "already a person here" in twice.text
    empty = browser.post("/settings/people", data={"csrf": csrf, "name": " "})
    assert empty.status_code == 400 and "a person needs a name" in empty.text
    assert browser.post("/settings/people/revoke", data={"csrf": csrf, "name": "Kyaw"}
                        ).status_code == 303
    assert kyaw.get("/api/leads").status_code == 401
    activity = browser.get("/settings").text
    assert "person.add: Kyaw" in activity and "person.revoke: Kyaw" in activity
    # A member sees no people and may not add anyone.
    other = TestClient(app, follow_redirects=False)
    other.post("/login", data={"token": member, "next": "/"})
    page = other.get("/settings").text
    assert 'id="people"' not in page and "Bob" in page
    refused = other.post("/settings/people", data={"csrf": csrf_of(page), "name": "Eve"})
    assert refused.status_code == 403
    assert "Eve" not in TestClient(app, headers={
        "Authorization": f"Bearer {admin}"}).get("/settings").text


def test_wrong_tokens_are_throttled_per_client_and_logged(
        db: Path, caplog: pytest.LogCaptureFixture) -> None:
    token = add(db, "Ann")
    app = create_app(None, db, None)
    guesser = TestClient(app, follow_redirects=False, client=("203.0.113.7", 4000))
    caplog.set_level(logging.WARNING, logger="leadengine.auth")
    answers = [guesser.post("/login", data={"token": f"guess-{n}", "next": "/"})
               for n in range(15)]
    assert [a.status_code for a in answers[:5]] == [401] * 5
    assert {a.status_code for a in answers[5:]} == {429}
    wait = int(answers[5].headers["Retry-After"])
    assert 1 <= wait <= 60 and "Too many wrong tokens" in answers[5].text
    # Throttled means not even looked at: the right token waits too, from that client.
    assert guesser.post("/login", data={"token": token}).status_code == 429
    api = guesser.get("/api/leads", headers={"Authorization": "Bearer guess"})
    assert api.status_code == 429 and int(api.headers["Retry-After"]) >= 1
    # Another client is not held up by this one.
    other = TestClient(app, follow_redirects=False, client=("198.51.100.2", 4000))
    assert other.post("/login", data={"token": token, "next": "/"}).status_code == 303
    failures = [r.getMessage() for r in caplog.records
                if r.getMessage().startswith("wrong token from")]
    assert len(failures) == 5 and all("203.0.113.7" in line for line in failures)
    assert any("login refused" in r.getMessage() for r in caplog.records)


def test_wrong_tokens_for_one_account_are_throttled_from_any_client(db: Path) -> None:
    token = add(db, "Ann")
    key = token[3:15]
    app = create_app(None, db, None)
    statuses = []
    for n in range(12):  # a different client each time: only the account adds up
        client = TestClient(app, client=(f"198.51.100.{n}", 4000))
        statuses.append(client.get("/api/leads", headers={
            "Authorization": f"Bearer le_{key}_{'A' * 42}{n % 10}"}).status_code)
    assert statuses[:10] == [401] * 10 and statuses[10:] == [429, 429]


def test_one_failure_is_forgiven_a_minute() -> None:
    now = [1000.0]
    throttle = Throttle(client_fails=3, account_fails=100, clock=lambda: now[0])
    for _ in range(3):
        assert throttle.wait("c", "team") == 0
        throttle.failed("c", "team")
    assert throttle.wait("c", "team") == 60
    now[0] += 30
    assert throttle.wait("c", "team") == 30
    now[0] += 30
    assert throttle.wait("c", "team") == 0  # one more try now
    throttle.failed("c", "team")
    assert throttle.wait("c", "team") == 60


def test_batches_and_knowledge_saves_record_who(tmp_path: Path) -> None:
    root = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, root)
    db = tmp_path / "r.db"
    token = add(db, "Thandar")
    app = create_app(Settings(knowledge_dir=root, provider="heuristic"), db, None)
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as api:
        started = api.post("/api/batches", json={"urls": ["http://127.0.0.1:9/"]})
        assert started.status_code == 201, started.text
        batch = started.json()["id"]
        deadline = time.monotonic() + 30
        while api.get(f"/api/batches/{batch}").json()["state"] not in ("done", "failed"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        current = api.get("/api/knowledge/strategy_efficiency.md").json()
        saved = api.put("/api/knowledge/strategy_efficiency.md",
                        json={"text": current["text"] + "\n", "base": current["sha256"]})
        assert saved.status_code == 200, saved.text
    runs = Store(db).runs()
    assert runs[-1]["started_by"] == "Thandar"
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT who, kind, subject FROM activity ORDER BY id").fetchall()
    assert rows[0][:2] == ("cli", "person.add")
    assert rows[-1][:2] == ("Thandar", "knowledge.save")
    assert rows[-1][2].startswith("strategy_efficiency.md saved (version ")


def test_a_person_added_in_the_library_logs_in(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    person, token = add_person(store.engine, "  Mya  ", admin=False, by="test")
    assert person.name == "Mya" and not person.admin
    app = create_app(None, store, None)
    assert TestClient(app).get("/api/leads", headers={
        "Authorization": f"Bearer {token}"}).status_code == 200
