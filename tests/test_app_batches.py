"""New batches in the workspace: a CSV upload or a list of URLs runs in the background
with the batch code the CLI uses, its progress streams as server-sent events, failures
are listed with their reasons and can be retried; one URL can be evaluated; server
inputs are web addresses only, the SSRF guard holds, uploads and request rates are
limited."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from leadengine.app import create_app
from leadengine.app.jobs import MAX_ROWS, NOT_WEB, read_upload, web_url
from leadengine.app.limits import RequestLimits
from leadengine.config import Settings
from leadengine.errors import ConfigError
from leadengine.store import Store
from tests.conftest import KNOWLEDGE, SITES
from tests.fakes.site_server import SiteServer
from tests.test_app import TOKEN, evaluation, fill

SETTINGS = Settings(knowledge_dir=KNOWLEDGE, host_delay=0.0, retrieval_method="keyword",
                    use_cache=False)


def make_client(db: Path, allow_private: bool = True, token: str | None = TOKEN
                ) -> TestClient:
    client = TestClient(create_app(SETTINGS, db, token, allow_private=allow_private),
                        follow_redirects=False)
    if token is not None:
        client.headers["Authorization"] = f"Bearer {token}"
    return client


@pytest.fixture
def api(tmp_path: Path) -> TestClient:
    return make_client(fill(tmp_path / "r.db"))


def wait_done(api: TestClient, job_id: int, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = api.get(f"/api/batches/{job_id}").json()
        if job["state"] in ("done", "failed", "stopped"):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.05)


def test_a_csv_upload_runs_in_the_background_and_stores_its_leads(
        api: TestClient, sites: SiteServer, tmp_path: Path) -> None:
    csv = ("url,owner\n"
           f"{sites.url('bangkok-dental-fb-only/')},Nok\n"
           f"{sites.url('yangon-school/')},Aung\n"
           f"{sites.url('no-such-site/')},Nok\n"
           "/etc/passwd,Eve\n")
    created = api.post("/api/batches", files={"file": ("leads.csv", csv.encode(), "text/csv")})
    assert created.status_code == 201, created.text
    job_id = created.json()["id"]
    assert created.json()["url"] == f"/batches/{job_id}"
    job = wait_done(api, job_id)
    assert job["state"] == "done", job
    assert job["name"] == "leads.csv" and job["provider"] == "heuristic"
    progress = job["progress"]
    assert (progress["total"], progress["handled"], progress["done"], progress["failed"]) \
        == (4, 4, 2, 2)
    # The leads are on the board, with the input's columns; the run is recorded.
    rows = api.get(f"/api/leads?run={job['run_id']}").json()["rows"]
    assert sorted(r["owner"] for r in rows) == ["Aung", "Nok"]
    # Each lead names the knowledge-base version it was judged with.
    version = api.get("/api/knowledge").json()["version"]
    assert api.get(f"/api/leads/{rows[0]['id']}").json()["kb_version"] == version
    assert f'<code id="kb-version">{version}</code>' in api.get(f"/leads/{rows[0]['id']}").text
    runs = {run["id"]: run for run in api.get("/api/runs").json()}
    assert runs[job["run_id"]]["status"] == "done"
    # Each failure with its reason; the local path was never read.
    failures = api.get(f"/api/batches/{job_id}/failures").json()
    reasons = {f["url"]: f["error"] for f in failures}
    assert any("404" in error for url, error in reasons.items() if "no-such-site" in url)
    assert reasons["/etc/passwd"] == NOT_WEB
    # Numbered as the file's rows are (1 = the first row under the header), here and
    # on the batch's page.
    assert sorted(f["row"] for f in failures) == [3, 4]
    page = api.get(f"/batches/{job_id}").text
    assert re.findall(r'<tr><td class="num">(\d+)</td>', page) == [
        str(f["row"]) for f in failures]


def test_pasted_urls_are_numbered_from_one(api: TestClient, sites: SiteServer) -> None:
    job = wait_done(api, api.post("/api/batches", json={"urls": [
        sites.url("yangon-school/"), sites.url("no-such-site-either/")]}).json()["id"])
    assert [f["row"] for f in api.get(f"/api/batches/{job['id']}/failures").json()] == [2]
    assert '<tr><td class="num">2</td>' in api.get(f"/batches/{job['id']}").text


def test_progress_streams_as_server_sent_events(api: TestClient, sites: SiteServer) -> None:
    created = api.post("/api/batches", json={"urls": [sites.url("yangon-school/"),
                                                      sites.url("london-bakery/")]})
    job_id = created.json()["id"]
    events: list[tuple[str, dict[str, Any]]] = []
    with api.stream("GET", f"/api/batches/{job_id}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        name = ""
        for line in stream.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
                if name == "end":
                    break
    assert events[-1][0] == "end" and events[-1][1]["state"] == "done"
    assert events[-1][1]["progress"]["done"] == 2
    handled = [data["progress"]["handled"] for _, data in events]
    assert handled == sorted(handled)  # progress only moves forward


def test_retry_failed_runs_the_failed_rows_again(api: TestClient, sites: SiteServer) -> None:
    sites.route("/app-batch-flaky/", status=503, body=b"down")
    url = sites.url("app-batch-flaky/")
    job = wait_done(api, api.post("/api/batches", json={"urls": [url]}).json()["id"])
    assert job["progress"]["failed"] == 1
    sites.route("/app-batch-flaky/", body=(SITES / "yangon-school" / "index.html").read_bytes())
    retried = api.post(f"/api/batches/{job['id']}/retry")
    assert retried.status_code == 201
    again = wait_done(api, retried.json()["id"])
    assert again["retry_failed"] is True and again["progress"]["done"] == 1, again
    # Nothing failed is left to retry.
    assert api.post(f"/api/batches/{again['id']}/retry").status_code == 400


def test_the_ssrf_guard_holds_unless_the_server_allows_private_addresses(
        tmp_path: Path, sites: SiteServer) -> None:
    guarded = make_client(fill(tmp_path / "g.db"), allow_private=False)
    job = wait_done(guarded, guarded.post(
        "/api/batches", json={"urls": [sites.url("yangon-school/")]}).json()["id"])
    assert job["progress"]["failed"] == 1
    failure = guarded.get(f"/api/batches/{job['id']}/failures").json()[0]["error"]
    assert "private" in failure.lower() or "127.0.0.1" in failure
    refused = guarded.post("/api/evaluate", json={"url": sites.url("yangon-school/")})
    assert refused.status_code == 400 and "private" in refused.json()["detail"].lower()


def test_evaluate_one_url(api: TestClient, sites: SiteServer) -> None:
    found = api.post("/api/evaluate", json={"url": sites.url("bangkok-dental-fb-only/")})
    assert found.status_code == 200, found.text
    data = found.json()
    assert 0 <= data["fit_score"] <= 100 and data["business_name"]
    assert data["provider"] == "heuristic"
    for bad in ("file:///etc/passwd", "/etc/passwd", "C:\\secrets.txt", "~/x.html"):
        refused = api.post("/api/evaluate", json={"url": bad})
        assert refused.status_code == 400 and refused.json()["detail"] == NOT_WEB, bad
    assert api.post("/api/evaluate", json={"url": "x", "extra": 1}).status_code == 422


@pytest.mark.parametrize("raw, url", [
    ("https://a.example/", "https://a.example/"), ("http://a.example", "http://a.example"),
    ("a.example", "https://a.example"), ("a.example:8080/x", "https://a.example:8080/x"),
    ("localhost:8000", "https://localhost:8000"), ("README.md", "https://README.md"),
    ("file:///etc/passwd", None), ("/srv/site/index.html", None), ("./site", None),
    ("../x", None), ("~/x", None), ("C:\\x.html", None), ("javascript:alert(1)", None),
    ("examples/site/index.html", None), ("0", None), ("", None), ("a .example", None),
    ("ftp://a.example/", None), ("https://a.example:99999/", None), ("[", None),
    ("http://[::1", None), ("http://[::1]:8000/", "http://[::1]:8000/"),
])
def test_only_web_addresses_are_read(raw: str, url: str | None) -> None:
    """A web address is made explicit; anything that could name a file is refused (a
    bare "examples/site/index.html" would be a local file to the CLI)."""
    assert web_url(raw) == url


def test_upload_limits(api: TestClient) -> None:
    too_many = "url\n" + "".join(f"https://s{i}.example/\n" for i in range(MAX_ROWS + 1))
    with pytest.raises(ConfigError, match="over 10,000 rows"):
        read_upload(too_many.encode(), "big.csv")
    with pytest.raises(ConfigError, match="no URLs"):
        read_upload(b"url\n", "empty.csv")
    with pytest.raises(ConfigError, match="over 2 MB"):
        read_upload(b"x" * (3 * 1024 * 1024), "huge.csv")
    # A list the CLI cannot read is refused with its message, naming the upload only.
    refused = api.post("/api/batches", files={"file": ("leads.csv", b"url\n\x00bad\n")})
    assert refused.status_code == 400
    assert "leads.csv" in refused.json()["detail"] and "/tmp" not in refused.json()["detail"]
    # The body limit stops a huge upload before it is read.
    huge = api.post("/api/batches", content=b"x" * (3 * 1024 * 1024),
                    headers={"Content-Type": "text/csv"})
    assert huge.status_code == 413
    assert api.post("/api/batches", content=b"{}",
                    headers={"Content-Type": "text/plain"}).status_code == 415
    empty = api.post("/api/batches", json={"urls": []})
    assert empty.status_code == 400 and empty.json()["detail"].startswith("urls:")


def test_evaluate_and_batches_are_rate_limited_per_caller(tmp_path: Path) -> None:
    clock = [0.0]
    limits = RequestLimits({"batch": 2}, clock=lambda: clock[0])
    assert [limits.wait("batch", "a") for _ in range(3)][:2] == [0.0, 0.0]
    assert limits.wait("batch", "a") == pytest.approx(30.0)
    assert limits.wait("batch", "b") == 0.0  # another caller has its own bucket
    clock[0] = 30.0
    assert limits.wait("batch", "a") == 0.0
    api = make_client(fill(tmp_path / "r.db"))
    api.app.state.workspace.limits = RequestLimits({"batch": 1, "evaluate": 1})  # type: ignore[attr-defined]
    assert api.post("/api/batches", json={"urls": ["/x"]}).status_code == 201
    limited = api.post("/api/batches", json={"urls": ["/x"]})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    api.post("/api/evaluate", json={"url": "/x"})
    assert api.post("/api/evaluate", json={"url": "/x"}).status_code == 429


def test_a_cookie_session_needs_the_csrf_header_for_the_api(tmp_path: Path) -> None:
    client = make_client(fill(tmp_path / "r.db"), token=TOKEN)
    del client.headers["Authorization"]
    client.post("/login", data={"token": TOKEN, "name": "ann", "next": "/"})
    assert client.post("/api/batches", json={"urls": ["a.example"]}).status_code == 403
    page = client.get("/batches").text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert csrf
    ok = client.post("/api/batches", json={"urls": ["/x"]},
                     headers={"X-CSRF-Token": csrf.group(1)})
    assert ok.status_code == 201


def test_the_new_batch_page_starts_a_batch_and_shows_its_progress(
        tmp_path: Path, sites: SiteServer) -> None:
    client = make_client(fill(tmp_path / "r.db"))
    del client.headers["Authorization"]
    client.post("/login", data={"token": TOKEN, "name": "ann", "next": "/"})
    page = client.get("/batches")
    assert page.status_code == 200 and 'name="file"' in page.text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text)
    assert csrf
    # Without the CSRF field: refused.
    assert client.post("/batches", data={"urls": "a.example"}).status_code == 403
    empty = client.post("/batches", data={"csrf": csrf.group(1), "urls": " "})
    assert empty.status_code == 400 and "paste some URLs" in empty.text
    started = client.post("/batches", data={"csrf": csrf.group(1),
                                             "urls": sites.url("yangon-school/") + "\n"
                                             + "<script>alert(1)</script>\n",
                                             "provider": "heuristic"})
    assert started.status_code == 303
    location = started.headers["location"]
    job_id = int(location.rsplit("/", 1)[1])
    client.headers["Authorization"] = f"Bearer {TOKEN}"
    wait_done(client, job_id)
    shown = client.get(location).text
    assert 'id="retry"' in shown and "<script>alert(1)</script>" not in shown
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown  # the failed row, escaped
    assert client.get("/batches").text.count(f'href="/batches/{job_id}"') == 1


def test_a_provider_that_is_not_configured_is_refused(api: TestClient) -> None:
    refused = api.post("/api/batches", json={"urls": ["a.example"], "provider": "groq"})
    assert refused.status_code == 400 and "not configured" in refused.json()["detail"]


def test_the_board_selection_is_evaluated_again(tmp_path: Path, sites: SiteServer) -> None:
    db = tmp_path / "r.db"
    store = Store(db)
    run = store.start_run("x.csv", "kb", "heuristic", "rules-v1")
    store.save_evaluation(run, 0, sites.url("yangon-school/"), "kb",
                          evaluation("School", 50), {"owner": "Aung"})
    store.finish_run(run)
    store.engine.dispose()
    client = make_client(db)
    lead_id = client.get("/api/leads").json()["rows"][0]["id"]
    del client.headers["Authorization"]
    client.post("/login", data={"token": TOKEN, "name": "ann", "next": "/"})
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/batches").text)
    assert csrf
    started = client.post("/batches/reevaluate", data={"csrf": csrf.group(1),
                                                       "ids": [str(lead_id), "999"]})
    assert started.status_code == 303, started.text
    client.headers["Authorization"] = f"Bearer {TOKEN}"
    job = wait_done(client, int(started.headers["location"].rsplit("/", 1)[1]))
    assert job["progress"]["done"] == 1, job
    rows = client.get(f"/api/leads?run={job['run_id']}").json()["rows"]
    assert [r["owner"] for r in rows] == ["Aung"]


def test_settings_show_the_provider_and_whether_its_key_is_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk_secret_value_123")
    client = make_client(fill(tmp_path / "r.db"))
    page = client.get("/settings").text
    assert "gsk_secret_value_123" not in page
    assert re.search(r"<td>groq</td>.*?<td>set</td>", page, re.S)
    assert "the SSRF guard is off" in page  # this test server allows private addresses
    # How to add the providers without a key: their variable, and a restart.
    adding = page[page.index('id="add-key"'):]
    assert "restart <code>leadengine serve</code>" in adding
    assert "<code>ANTHROPIC_API_KEY=…</code>" in adding
    assert "GROQ_API_KEY" not in adding  # set already


def test_a_running_batch_can_be_stopped_and_its_run_says_interrupted(
        api: TestClient, sites: SiteServer) -> None:
    sites.route("/app-batch-slow/", body="<html><body><p>Slow</p></body></html>", delay=3.0)
    job_id = api.post("/api/batches", json={"urls": [sites.url("app-batch-slow/")]}).json()["id"]
    deadline = time.monotonic() + 10
    while api.get(f"/api/batches/{job_id}").json()["run_id"] is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    # A second batch waits for the first.
    queued = api.post("/api/batches", json={"urls": [sites.url("yangon-school/")]}).json()
    assert api.get(f"/api/batches/{queued['id']}").json()["state"] == "queued"
    assert api.post(f"/api/batches/{job_id}/stop").status_code == 200
    job = wait_done(api, job_id, timeout=10)
    assert job["state"] == "stopped"
    runs = {run["id"]: run for run in api.get("/api/runs").json()}
    assert runs[job["run_id"]]["status"] == "interrupted"
    # The queued one then runs.
    assert wait_done(api, queued["id"])["state"] == "done"


def test_a_lone_surrogate_in_a_json_body_is_a_422_not_a_500(api: TestClient) -> None:
    bad = b'{"urls": ["\\ud800"]}'
    assert api.post("/api/evaluate", content=b'{"url": "\\ud800"}',
                    headers={"Content-Type": "application/json"}).status_code in (400, 422)
    assert api.post("/api/batches", content=bad,
                    headers={"Content-Type": "application/json"}).status_code in (201, 400)
    answer = api.patch("/api/leads/1", content=b'{"note": "\\ud800"}',
                       headers={"Content-Type": "application/json"})
    assert answer.status_code == 422 and "ud800" not in answer.text
