"""The team's workspace (``leadengine serve``): auth on every route, the board's
sorting, filtering and paging, status and notes with history, escaping, CSP, CSRF."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Mount, Route

from leadengine.app import create_app
from leadengine.app.server import MAX_BODY
from leadengine.cli.serve import serve
from leadengine.store import Store

TOKEN = "s3cret-team-token-0123456789"
XSS = "<script>alert(1)</script>"


def evaluation(name: str, score: int, **extra: Any) -> dict[str, Any]:
    return {"business_name": name, "business_type": "cafe", "fit_score": score,
            "primary_service": "Booking site", "provider": "heuristic", "model": "rules-v1",
            "reasoning": "Good fit.", "outreach_angle": f"Hello {name}, about bookings.",
            "signals": {"contact_form": True, "evidence": {"address": "1 Road, Bangkok",
                                                           "contact_form": "https://x.example/c"}},
            "sources": [{"path": "services.md", "heading": "Booking", "score": 1.0}],
            **extra}


def fill(path: Path, count: int = 0) -> Path:
    """A store with two runs: five named leads, and ``count`` more numbered ones."""
    store = Store(path)
    run = store.start_run("leads.csv", "kb", "heuristic", "rules-v1")
    leads = [("Alpha", 90, "ann"), ("Bravo", 45, "bob"), ("Charlie", 10, "ann"),
             (XSS, 75, "eve"), ("Delta", 69, "")]
    for index, (name, score, owner) in enumerate(leads):
        store.save_evaluation(run, index, f"https://{index}.example/", "kb",
                              evaluation(name, score), {"name": name, "owner": owner})
    store.finish_run(run)
    second = store.start_run("more.csv", "kb", "heuristic", "rules-v1")
    for index in range(count):
        store.save_evaluation(second, index, f"https://more{index}.example/", "kb",
                              evaluation(f"Lead {index:03}", index % 101), {"owner": "zed"})
    store.finish_run(second)
    store.engine.dispose()
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return fill(tmp_path / "r.db")


@pytest.fixture
def client(db: Path) -> TestClient:
    return TestClient(create_app(None, db, TOKEN), follow_redirects=False)


@pytest.fixture
def api(client: TestClient) -> TestClient:
    client.headers["Authorization"] = f"Bearer {TOKEN}"
    return client


def login(client: TestClient, name: str = "ann") -> str:
    """Log in through the form; returns a CSRF token from the board."""
    response = client.post("/login", data={"token": TOKEN, "name": name, "next": "/"})
    assert response.status_code == 303 and response.headers["location"] == "/"
    page = client.get("/").text
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert match
    return match.group(1)


def endpoints(routes: list[Any], prefix: str = "") -> list[tuple[str, Route | Mount]]:
    """(full path, route) of every route, into included routers (FastAPI >= 0.16x keeps
    them as ``_IncludedRouter`` entries of ``app.routes``)."""
    found: list[tuple[str, Route | Mount]] = []
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            found += endpoints(included.routes, prefix + route.include_context.prefix)
        else:
            # APIRoutes, the static Mount, and FastAPI's own /openapi.json Route.
            assert isinstance(route, APIRoute | Route | Mount), route
            found.append((prefix + route.path, route))
    return found


def test_every_route_but_login_and_static_needs_auth(client: TestClient) -> None:
    checked = 0
    for full, route in endpoints(client.app.routes):  # type: ignore[attr-defined]
        if isinstance(route, Mount):
            assert full == "/static"
            continue
        path = re.sub(r"\{[^}]+\}", "1", full)
        for method in route.methods:
            response = client.request(method, path)
            if full == "/login":
                assert response.status_code in (200, 401, 422), (method, path)
                continue
            checked += 1
            if path.startswith("/api/") or path == "/openapi.json":
                assert response.status_code == 401, (method, path)
            else:
                assert response.status_code == 303, (method, path)
                assert response.headers["location"].startswith("/login?next=")
    assert checked >= 30
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/api/leads", headers={"Authorization": "Bearer wrong"}
                      ).status_code == 401
    assert client.get("/docs").status_code == 303  # no unauthenticated docs either


def test_board_sorts_filters_and_pages(api: TestClient) -> None:
    body = api.get("/api/leads").json()
    assert body["total"] == 5
    assert [r["fit_score"] for r in body["rows"]] == [90, 75, 69, 45, 10]
    assert body["rows"][0]["band"] == "high" and body["rows"][3]["band"] == "medium"
    assert body["rows"][0]["city"] == "1 Road, Bangkok"
    assert [r["fit_score"] for r in api.get("/api/leads?sort=fit_score").json()["rows"]
            ] == [10, 45, 69, 75, 90]
    names = [r["business_name"] for r in api.get("/api/leads?sort=business_name").json()["rows"]]
    assert names == sorted(names, key=str.casefold)
    high = api.get("/api/leads?band=high").json()
    assert {r["business_name"] for r in high["rows"]} == {"Alpha", XSS}
    medium = api.get("/api/leads?band=medium").json()
    assert [r["fit_score"] for r in medium["rows"]] == [69, 45]
    assert api.get("/api/leads?q=ANN").json()["total"] == 2  # owner, case-insensitive
    assert api.get("/api/leads?q=bravo&band=low").json()["total"] == 0
    assert api.get("/api/leads?sort=nonsense&page=x").json()["total"] == 5
    board = api.get("/?sort=-fit_score").text
    assert 'href="/?sort=fit_score&amp;page=1"' in board  # the header flips the order
    assert 'href="/?sort=business_name&amp;page=1"' in board


def test_board_pages_in_sql(tmp_path: Path) -> None:
    client = TestClient(create_app(None, fill(tmp_path / "big.db", count=120), TOKEN),
                        headers={"Authorization": f"Bearer {TOKEN}"})
    first = client.get("/api/leads?run=2").json()
    assert first["total"] == 120 and len(first["rows"]) == 50
    third = client.get("/api/leads?run=2&page=3").json()
    assert len(third["rows"]) == 20
    seen = {r["id"] for page in (1, 2, 3)
            for r in client.get(f"/api/leads?run=2&page={page}").json()["rows"]}
    assert len(seen) == 120
    searched = client.get("/api/leads?q=lead 1&sort=-business_name").json()
    assert searched["total"] == 20 and searched["rows"][0]["business_name"] == "Lead 119"


def test_patch_status_and_note_keeps_history(api: TestClient) -> None:
    lead_id = api.get("/api/leads").json()["rows"][0]["id"]
    assert api.get(f"/api/leads/{lead_id}").json()["status"] == "new"
    updated = api.patch(f"/api/leads/{lead_id}", json={"status": "contacted",
                                                       "note": "Called the owner"}).json()
    assert updated["status"] == "contacted"
    api.patch(f"/api/leads/{lead_id}", json={"status": "replied"})
    history = api.get(f"/api/leads/{lead_id}").json()["history"]
    assert [(e["kind"], e["value"], e["who"]) for e in history] == [
        ("status", "contacted", "team"), ("note", "Called the owner", "team"),
        ("status", "replied", "team")]
    assert api.get("/api/leads?status=replied").json()["total"] == 1
    assert api.get("/api/leads?status=new").json()["total"] == 4
    assert api.patch(f"/api/leads/{lead_id}", json={"status": "bogus"}).status_code == 400
    assert api.patch(f"/api/leads/{lead_id}", json={"nope": 1}).status_code == 422
    assert api.patch("/api/leads/9999", json={"note": "x"}).status_code == 404
    assert api.patch(f"/api/leads/{lead_id}", content="status=won",
                     headers={"Content-Type": "text/plain"}).status_code == 422
    assert api.get("/api/runs").json()[0]["evaluated"] == 5


def test_page_text_is_escaped_and_csp_is_strict(client: TestClient) -> None:
    login(client)
    board = client.get("/")
    assert XSS not in board.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in board.text
    csp = board.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert board.headers["X-Frame-Options"] == "DENY"
    assert "<script>" not in board.text.replace('<script src="/static/app.js" defer>', "")
    xss_id = next(r["id"] for r in client.get("/api/leads").json()["rows"]
                  if r["business_name"] == XSS)
    page = client.get(f"/leads/{xss_id}")
    assert page.status_code == 200 and XSS not in page.text
    assert "Hello &lt;script&gt;" in page.text  # the outreach angle, escaped too


def test_login_cookie_then_pages(client: TestClient) -> None:
    assert client.get("/runs").headers["location"] == "/login?next=%2Fruns"
    assert client.post("/login", data={"token": "wrong"}).status_code == 401
    response = client.post("/login", data={"token": TOKEN, "next": "//evil.example/"})
    assert response.headers["location"] == "/"
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    runs = client.get("/runs")
    assert runs.status_code == 200 and "leads.csv" in runs.text
    client.cookies.clear()
    client.cookies.set("leadengine_session", "forged.0000")
    assert client.get("/").status_code == 303


def test_forms_need_the_csrf_token(client: TestClient) -> None:
    csrf = login(client, name="Ann")
    lead_id = client.get("/api/leads").json()["rows"][0]["id"]
    refused = client.post(f"/leads/{lead_id}", data={"status": "won", "csrf": "0" * 64})
    assert refused.status_code == 403
    assert client.patch(f"/api/leads/{lead_id}", json={"status": "won"}).status_code == 403
    saved = client.post(f"/leads/{lead_id}", data={"status": "contacted",
                                                  "note": "Left a voicemail", "csrf": csrf})
    assert saved.status_code == 303
    page = client.get(f"/leads/{lead_id}").text
    assert "Left a voicemail" in page and "<strong>Ann</strong>" in page
    assert client.patch(f"/api/leads/{lead_id}", json={"status": "won"},
                        headers={"X-CSRF-Token": csrf}).json()["status"] == "won"


def test_request_bodies_are_limited(api: TestClient) -> None:
    big = api.post("/login", content=b"x" * (MAX_BODY + 1),
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert big.status_code == 413


def test_serve_refuses_to_start_when_nobody_can_log_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(serve, ["--host", "0.0.0.0"])
    assert result.exit_code == 1 and result.stderr == (
        "error: nobody can log in: add a person first (`leadengine users add NAME --admin` "
        "prints their token), or pass --no-auth on 127.0.0.1 for a workspace only you can "
        "reach\n")
    assert not (tmp_path / "leadengine.db").exists()  # not created for nobody
    result = CliRunner().invoke(serve, ["--host", "0.0.0.0", "--no-auth"])
    assert result.exit_code == 1 and "loopback" in result.stderr


def test_serve_in_a_new_folder_creates_an_empty_store(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """As the README says: `LEADENGINE_TOKEN=... leadengine serve` in a new folder starts
    the workspace over a new, migrated database (the read commands still never create
    one: tests/test_batch_trust.py)."""
    import uvicorn

    monkeypatch.chdir(tmp_path)
    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: served.append(app))
    result = CliRunner(env={"LEADENGINE_TOKEN": TOKEN}).invoke(serve, [])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        "workspace: created an empty results database at leadengine.db (start a batch "
        "from the Batches page, or with `leadengine batch`)")
    assert (tmp_path / "leadengine.db").is_file() and len(served) == 1
    api = TestClient(served[0], headers={"Authorization": f"Bearer {TOKEN}"})
    assert api.get("/api/leads").json()["total"] == 0
    assert api.get("/api/runs").status_code == 200
    again = CliRunner(env={"LEADENGINE_TOKEN": TOKEN}).invoke(serve, [])
    assert again.exit_code == 0 and "created" not in again.stderr


@pytest.mark.parametrize("missing", ["uvicorn", "fastapi"])
def test_serve_without_the_serve_extra_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    """The CLI installs without the workspace's packages (pip install leadengine);
    `serve` then says which one is missing and the command that installs them."""
    monkeypatch.setitem(sys.modules, missing, None)
    for module in [m for m in sys.modules if m.startswith("leadengine.app")]:
        monkeypatch.delitem(sys.modules, module)
    result = CliRunner(env={"LEADENGINE_TOKEN": "a-team-token-of-24-chars"}).invoke(serve, [])
    assert result.exit_code == 1
    assert result.stderr == (f"error: the workspace needs {missing}, which is not installed: "
                             "pip install 'leadengine[serve]'\n")


def test_no_auth_still_guards_forms(db: Path) -> None:
    app = create_app(None, db, None)
    rebound = TestClient(app, base_url="http://attacker.example")
    assert rebound.get("/api/leads").status_code == 403  # DNS rebinding
    client = TestClient(app, base_url="http://127.0.0.1:8000", follow_redirects=False)
    assert client.get("/").status_code == 200
    lead_id = client.get("/api/leads").json()["rows"][0]["id"]
    assert client.post(f"/leads/{lead_id}", data={"status": "won"}).status_code == 403


def test_a_session_cookie_is_signed_timestamped_and_expires() -> None:
    from leadengine.app.auth import Sessions

    sessions = Sessions("t0ken")
    cookie, session = sessions.issue("ann")
    assert sessions.read(cookie) == session
    assert sessions.read(cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB")) is None
    assert Sessions("t0ken").read(cookie) is None  # another process's secret: logged out
    sessions.max_age = -1
    assert sessions.read(cookie) is None  # older than the session's life
    assert sessions.check_csrf(session, sessions.csrf(session))
    assert not sessions.check_csrf(session, sessions.csrf(sessions.issue("bob")[1]))
