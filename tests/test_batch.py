"""Batch runs: bad rows recorded, passthrough kept, resume after SIGKILL with every row
exactly once, exports."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from leadengine import KnowledgeBase, Settings
from leadengine.batch import BatchOptions, read_rows, run_batch
from leadengine.cli import cli
from leadengine.store import Store
from leadengine.website.urls import normalise_url
from tests.conftest import REPO, SITES, postgres_database
from tests.fakes.site_server import SiteServer


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh results database: a SQLite file, and (when TEST_POSTGRES_URL points at a
    server, as in .ci/run) a new PostgreSQL database, so both run the same tests."""
    if request.param == "sqlite":
        yield str(tmp_path / "results.db")
        return
    with postgres_database() as url:
        yield url


def count(db: str, table: str) -> int:
    import sqlalchemy as sa

    from leadengine.store import database_url

    engine = sa.create_engine(database_url(db))
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(f"select count(*) from {table}")).scalar() or 0)
    finally:
        engine.dispose()


FAST = Settings(provider="heuristic", retrieval_method="keyword", allow_private=True,
                timeout=1.0, page_deadline=2.0, max_pages=0, host_delay=0.0)


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_rows_are_read_from_csv_or_text(tmp_path: Path) -> None:
    leads = write_csv(tmp_path / "leads.csv", [
        {"Name": "A", "Website": "a.example", "Owner": "Nok"},
        {"Name": "B", "Website": "", "Owner": "Aung"}])
    rows = list(read_rows(leads))
    assert [(r.index, r.raw, r.passthrough) for r in rows] == [
        (1, "a.example", {"Name": "A", "Owner": "Nok"}),
        (2, "", {"Name": "B", "Owner": "Aung"})]
    urls = tmp_path / "urls.txt"
    urls.write_text("# leads\nhttps://a.example\n\nb.example/about\n", encoding="utf-8")
    assert [r.raw for r in read_rows(urls)] == ["https://a.example", "b.example/about"]
    assert normalise_url("HTTPS://A.Example") == "https://a.example/"


def test_a_batch_records_every_row_and_resumes(sites: SiteServer, tmp_path: Path,
                                               kb: KnowledgeBase, db: str) -> None:
    gone = f"no-such-site-{uuid.uuid4().hex[:8]}/"  # unique: the server outlives the test
    sites.route("/batch-slow/", body="<p>late</p>", delay=3.0)
    leads = write_csv(tmp_path / "leads.csv", [
        {"name": "Smile", "url": sites.url("bangkok-dental-fb-only/"), "owner": "Nok"},
        {"name": "School", "url": sites.url("yangon-school/"), "owner": "Aung"},
        {"name": "Again", "url": sites.url("yangon-school/"), "owner": "dup"},
        {"name": "Bad", "url": "not a url", "owner": "x"},
        {"name": "Gone", "url": sites.url(gone), "owner": "y"},
        {"name": "Slow", "url": sites.url("batch-slow/"), "owner": "z"},
    ])
    store = Store(db)
    summary = asyncio.run(run_batch(leads, FAST, kb, store, BatchOptions(concurrency=3)))
    assert (summary.total, summary.done, summary.failed, summary.duplicates) == (6, 2, 3, 1)
    done = {r["url"]: r for r in store.evaluations()}
    assert set(done) == {sites.url("bangkok-dental-fb-only/"), sites.url("yangon-school/")}
    assert done[sites.url("bangkok-dental-fb-only/")]["input"] == {"name": "Smile",
                                                                    "owner": "Nok"}
    failures = {e["input"]["name"]: e["error"] for e in store.errors()}
    assert failures["Bad"].startswith("not a url: not a valid URL")
    assert failures["Gone"].endswith("HTTP 404 Not Found")
    assert "took longer than 2s" in failures["Slow"] or "timed out" in failures["Slow"]

    again = asyncio.run(run_batch(leads, FAST, kb, store))
    assert (again.done, again.skipped) == (0, 4)
    assert len(list(store.evaluations())) == 2 and len(store.errors()) == 3
    sites.route(f"/{gone}", body="<title>Now here | Bangkok</title><p>Bangkok clinic.</p>")
    retried = asyncio.run(run_batch(leads, FAST, kb, store, BatchOptions(retry_failed=True)))
    assert retried.done == 1
    assert len(list(store.evaluations())) == 3 and len(store.errors()) == 2


def test_sigkill_then_resume_keeps_every_row_exactly_once(sites: SiteServer,
                                                           tmp_path: Path, db: str) -> None:
    page = (SITES / "bangkok-dental-fb-only" / "index.html").read_text(encoding="utf-8")
    sites.route("/kill-test/", body=page, delay=0.25)
    urls = [sites.url(f"kill-test/?lead={i}") for i in range(40)]
    (tmp_path / "urls.txt").write_text("\n".join(urls) + "\n", encoding="utf-8")
    env = {**os.environ, "LEADENGINE_ALLOW_PRIVATE": "1", "LEADENGINE_PROVIDER": "heuristic",
           "LEADENGINE_RETRIEVAL": "keyword", "LEADENGINE_MAX_PAGES": "0",
           "LEADENGINE_HOST_DELAY": "0"}
    command = [sys.executable, "-m", "leadengine", "batch", str(tmp_path / "urls.txt"),
               "--db", db, "--concurrency", "4", "--per-host", "4"]
    process = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and stored < 8:
        time.sleep(0.2)
        try:
            stored = count(db, "evaluations")
        except Exception:
            stored = 0
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert 8 <= stored < 40, stored
    finished = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True,
                              timeout=120)
    assert finished.returncode == 0, finished.stderr
    rows = [r["url"] for r in Store(db).evaluations()]
    assert sorted(rows) == sorted(normalise_url(u) for u in urls)  # each exactly once
    assert count(db, "errors") == 0
    assert "already done" in finished.stderr


def test_exports_round_trip_and_cli(sites: SiteServer, tmp_path: Path, db: str) -> None:
    leads = write_csv(tmp_path / "leads.csv", [
        {"name": "Smile", "url": sites.url("bangkok-dental-fb-only/"), "phone": "02"},
        {"name": "Agency", "url": sites.url("bangkok-marketing-agency/"), "phone": "03"}])
    runner = CliRunner(env={"LEADENGINE_RETRIEVAL": "keyword"})
    result = runner.invoke(cli, ["batch", str(leads), "--db", db, "--provider", "heuristic",
                                 "--allow-private", "--max-pages", "0"])
    assert result.exit_code == 0, result.output
    assert "2 evaluated, 0 failed" in result.stderr

    out = runner.invoke(cli, ["export", "--db", db, "--format", "csv"]).stdout
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][:3] == ["name", "phone", "url"]
    assert {row[0] for row in table[1:]} == {"Smile", "Agency"}
    header = table[0]
    assert "signal_facebook_only" in header and "maturity_measurement" in header

    lines = runner.invoke(cli, ["export", "--db", db, "--format", "jsonl"]).stdout.splitlines()
    assert [json.loads(line) for line in lines] == list(Store(db).evaluations())
    high = json.loads(runner.invoke(cli, ["export", "--db", db, "--format", "json",
                                          "--min-score", "70"]).stdout)
    assert [r["input"]["name"] for r in high] == ["Smile"]
    written = runner.invoke(cli, ["export", "--db", db, "-o", str(tmp_path / "o.csv")])
    assert "2 evaluations written" in written.stderr

    runs = runner.invoke(cli, ["runs", "--db", db]).stdout
    assert "done" in runs and "heuristic/rules-v1" in runs
    shown = json.loads(runner.invoke(cli, ["show", sites.url("bangkok-dental-fb-only/"),
                                           "--db", db]).stdout)
    assert shown["business_name"] == "Smile Bright Dental"
    missing = runner.invoke(cli, ["show", "https://nowhere.example/", "--db", db])
    assert missing.exit_code == 1 and missing.stderr.startswith("error: no stored evaluation")


def test_llm_requests_in_flight_hold_to_the_concurrency_while_more_sites_are_read(
        sites: SiteServer, tmp_path: Path, kb: KnowledgeBase,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``concurrency`` bounds the LLM requests in flight and, apart, the sites fetched at
    once: while two requests wait for their answers the next two sites are fetched, so
    an answer is followed by the next request at once, not after another fetch."""
    from tests.fakes.openai_server import SMILE_ANSWER as answer
    from tests.fakes.openai_server import FakeOpenAI, Reply

    monkeypatch.setenv("LEADENGINE_API_KEY", "k")
    page = (SITES / "bangkok-dental-fb-only" / "index.html").read_text(encoding="utf-8")
    sites.route("/slow-lead/", body=page, delay=0.4)
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(sites.url(f"slow-lead/?n={i}") + "\n" for i in range(6)),
                    encoding="utf-8")
    with FakeOpenAI() as fake:
        fake.default = Reply.json(answer, delay=0.4)
        arrivals: list[float] = []
        fake.on_request = lambda record: arrivals.append(time.monotonic())
        settings = FAST.with_options(provider="custom", base_url=fake.base_url,
                                     use_cache=False, workers=0, llm_rpm=0, llm_tpm=0)
        summary = asyncio.run(run_batch(urls, settings, kb, Store(tmp_path / "l.db"),
                                        BatchOptions(concurrency=2, per_host=8)))
    assert summary.done == 6 and len(fake.chat_requests) == 6
    assert fake.max_in_flight == 2
    # Sites 3 and 4 were fetched while the first two requests waited: their requests
    # follow the first answers (0.4 s), where fetching them first took 0.8 s.
    assert arrivals[2] - arrivals[0] < 0.65, arrivals


def test_politeness_delay_spaces_sites_on_one_host(sites: SiteServer, tmp_path: Path,
                                                  kb: KnowledgeBase) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("\n".join(sites.url(f"yangon-school/?n={i}") for i in range(4)),
                    encoding="utf-8")
    started = time.monotonic()
    summary = asyncio.run(run_batch(urls, FAST.with_options(host_delay=0.3), kb,
                                    Store(tmp_path / "p.db"),
                                    BatchOptions(concurrency=4, per_host=4)))
    assert summary.done == 4
    assert time.monotonic() - started >= 0.9  # 4 starts, 0.3 s apart


def test_csv_without_a_url_column_is_a_clear_error(tmp_path: Path) -> None:
    bad = write_csv(tmp_path / "bad.csv", [{"name": "A", "phone": "1"}])
    result = CliRunner().invoke(cli, ["batch", str(bad), "--db", str(tmp_path / "x.db"),
                                      "--provider", "heuristic"])
    assert result.exit_code == 1
    assert "no url column" in result.stderr
    with pytest.raises(Exception, match="input file not found"):
        list(read_rows(tmp_path / "none.txt"))


def test_progress_bar_path(sites: SiteServer, tmp_path: Path, kb: KnowledgeBase,
                           capsys: pytest.CaptureFixture[str]) -> None:
    from leadengine.cli.batch import _run_with_progress_bar

    urls = tmp_path / "urls.txt"
    urls.write_text(f"{sites.url('yangon-school/')}\nnot a url\n", encoding="utf-8")
    seen: list[int] = []
    summary = _run_with_progress_bar(urls, FAST, kb, Store(tmp_path / "bar.db"),
                                     BatchOptions(concurrency=2, per_host=2))
    assert (summary.done, summary.failed, summary.handled) == (1, 1, 2)
    assert "2/2" in capsys.readouterr().err
    summary = asyncio.run(run_batch(urls, FAST, kb, Store(tmp_path / "bar.db"),
                                    BatchOptions(on_progress=lambda s: seen.append(s.handled))))
    # Once when the run is recorded (nothing handled yet), then both rows: one failed
    # before, one already done.
    assert seen == [0, 1, 2]


def test_page_snapshots_are_reused_within_max_age(sites: SiteServer, tmp_path: Path,
                                                  kb: KnowledgeBase, db: str) -> None:
    url = sites.url(f"yangon-school/?snap={uuid.uuid4().hex[:6]}")
    urls = tmp_path / "urls.txt"
    urls.write_text(url + "\n", encoding="utf-8")
    store = Store(db)
    settings = FAST.with_options(max_pages=2)
    first = asyncio.run(run_batch(urls, settings, kb, store))
    assert (first.done, first.reused_pages) == (1, 0)
    assert count(db, "page_snapshots") == 3  # homepage + 2 subpages
    before = len(sites.requests)
    again = asyncio.run(run_batch(urls, settings, kb, store,
                                  BatchOptions(retry_failed=True, max_age=3600)))
    assert again.skipped == 1  # done already: nothing fetched
    other = Store(db)
    with other.engine.begin() as conn:  # forget the evaluation, keep the snapshots
        import sqlalchemy as sa

        conn.execute(sa.text("delete from evaluations"))
    third = asyncio.run(run_batch(urls, settings, kb, other, BatchOptions(max_age=3600)))
    assert (third.done, third.reused_pages) == (1, 3)
    assert len(sites.requests) == before  # not a single request: all from snapshots
    stale = asyncio.run(run_batch(urls, settings, kb, other, BatchOptions(max_age=None)))
    assert stale.skipped == 1


def test_each_site_is_fetched_on_connections_of_its_own(tmp_path: Path, kb: KnowledgeBase
                                                       ) -> None:
    # A client per site, closed when the site is read: its robots.txt and pages share
    # its connection, and no pool keeps the connections of the sites done with (an
    # httpx pool's bookkeeping grows with every connection it holds).
    with SiteServer(SITES) as server:
        server.route("/robots.txt", body="User-agent: *\nAllow: /\n",
                     content_type="text/plain")
        names = ["bangkok-dental-fb-only", "yangon-school", "bangkok-hotel",
                 "mandalay-restaurant"]
        leads = tmp_path / "urls.txt"
        leads.write_text("\n".join(server.url(f"{name}/") for name in names) + "\n",
                         encoding="utf-8")
        summary = asyncio.run(run_batch(leads, FAST, kb, Store(tmp_path / "r.db"),
                                        BatchOptions(concurrency=1, per_host=1)))
        requests, ports = list(server.requests), list(server.ports)
    assert summary.done == len(names)
    assert [path for _, path in requests] == ["/robots.txt"] + [f"/{n}/" for n in names]
    # robots.txt and the first site on one connection; every other site on a new one.
    assert ports[0] == ports[1] and len(set(ports[1:])) == len(names)


def test_a_batch_reads_each_origins_robots_txt_once(tmp_path: Path, kb: KnowledgeBase
                                                    ) -> None:
    with SiteServer(SITES) as server:
        server.route("/robots.txt", body="User-agent: *\nDisallow: /private/\n",
                     content_type="text/plain")
        server.route("/private/", body="<title>Staff | Bangkok</title><p>Staff only.</p>")
        urls = [server.url("bangkok-dental-fb-only/"), server.url("yangon-school/"),
                server.url("bangkok-hotel/"), server.url("mandalay-restaurant/"),
                server.url("private/")]
        leads = tmp_path / "urls.txt"
        leads.write_text("\n".join(urls) + "\n", encoding="utf-8")
        store = Store(tmp_path / "results.db")
        summary = asyncio.run(run_batch(leads, FAST, kb, store,
                                        BatchOptions(concurrency=5, per_host=5)))
        robots_fetches = [path for _, path in server.requests if path == "/robots.txt"]
    assert (summary.done, summary.failed) == (4, 1)
    assert robots_fetches == ["/robots.txt"]
    assert store.errors()[0]["error"].endswith(
        "disallowed by the site's robots.txt (use --ignore-robots to override)")
