"""Batch results people can trust: failures named with their reasons, each run's counts
kept as that run left them, SIGTERM and Ctrl-C recorded as interruptions, read commands
that never create a database, and input from stdin, pipes, semicolon CSVs and local
files, normalised the same way by batch, show and evaluate."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from leadengine import KnowledgeBase, Settings
from leadengine.batch import (
    BatchOptions,
    failure_reason,
    read_rows,
    run_batch,
    sniff_delimiter,
)
from leadengine.cli import cli
from leadengine.store import Store
from leadengine.website.fetch import normalise_target
from leadengine.website.urls import normalise_url
from tests.conftest import REPO, SITES
from tests.fakes.site_server import SiteServer

FAST = Settings(provider="heuristic", retrieval_method="keyword", allow_private=True,
                timeout=1.0, page_deadline=2.0, max_pages=0, host_delay=0.0)
BATCH = ["--provider", "heuristic", "--allow-private", "--max-pages", "0",
         "--host-delay", "0"]


def runner() -> CliRunner:
    return CliRunner(env={"LEADENGINE_RETRIEVAL": "keyword"})


def gone(sites: SiteServer) -> str:
    """A URL that answers 404 (unique: the server outlives the test)."""
    return sites.url(f"gone-{uuid.uuid4().hex[:8]}/")


def runs_table(db: Path) -> dict[int, dict[str, object]]:
    return {run["id"]: run for run in Store(db).runs()}


def test_the_summary_names_failure_reasons_and_export_can_include_failures(
        sites: SiteServer, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    leads = tmp_path / "leads.csv"
    leads.write_text("name,url\n"
                     f"Smile,{sites.url('bangkok-dental-fb-only/')}\n"
                     f"Gone1,{gone(sites)}\nGone2,{gone(sites)}\n"
                     "Bad,not a url\n", encoding="utf-8")
    result = runner().invoke(cli, ["batch", str(leads), "--db", str(db), *BATCH])
    assert result.exit_code == 0, result.output
    assert "1 evaluated, 3 failed" in result.stderr
    reasons = result.stderr.split("failures by reason:\n")[1].splitlines()
    assert reasons[0].split() == ["2", "HTTP", "404", "Not", "Found"]
    assert reasons[1].strip().startswith("1  not a valid URL or existing file")

    out = runner().invoke(cli, ["export", "--db", str(db), "--include-failed"]).stdout
    table = list(csv.DictReader(io.StringIO(out)))
    assert [(r["name"], r["status"]) for r in table] == [
        ("Smile", "evaluated"), ("Gone1", "failed"), ("Gone2", "failed"), ("Bad", "failed")]
    assert table[0]["error"] == "" and table[0]["business_name"] == "Smile Bright Dental"
    assert table[1]["error"].endswith(": HTTP 404 Not Found")
    assert table[3]["url"] == "not a url" and table[3]["fit_score"] == ""
    plain = list(csv.DictReader(io.StringIO(
        runner().invoke(cli, ["export", "--db", str(db)]).stdout)))
    assert [r["name"] for r in plain] == ["Smile"] and "status" not in plain[0]


def test_failure_reason_strips_the_location() -> None:
    assert failure_reason("https://a.example/: HTTP 404 Not Found") == "HTTP 404 Not Found"
    assert failure_reason("/tmp/x/index.html: file not found") == "file not found"
    assert failure_reason("not a url: not a valid URL", "not a url") == "not a valid URL"
    assert failure_reason("model said no") == "model said no"


def test_run_counts_stay_as_each_run_left_them(sites: SiteServer, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    path = f"later-{uuid.uuid4().hex[:8]}/"
    urls = tmp_path / "urls.txt"
    urls.write_text(f"{sites.url(path)}\n{sites.url('yangon-school/')}\n", encoding="utf-8")
    first = runner().invoke(cli, ["batch", str(urls), "--db", str(db), *BATCH])
    assert "1 evaluated, 1 failed" in first.stderr
    again = runner().invoke(cli, ["batch", str(urls), "--db", str(db), *BATCH])
    assert ("0 evaluated, 0 failed, 1 already done, 1 previously failed (use "
            "--retry-failed)") in again.stderr

    sites.route(f"/{path}", body="<title>Back | Yangon</title><p>Yangon school.</p>")
    retried = runner().invoke(cli, ["batch", str(urls), "--db", str(db), *BATCH,
                                    "--retry-failed"])
    assert "1 evaluated, 0 failed, 1 already done" in retried.stderr
    runs = runs_table(db)
    counts = {i: (r["evaluated"], r["failed"], r["skipped_done"], r["skipped_failed"])
              for i, r in runs.items()}
    assert counts == {1: (1, 1, 0, 0), 2: (0, 0, 1, 1), 3: (1, 0, 1, 0)}
    assert Store(db).errors() == []  # the failure itself is gone: the site works now

    listed = runner().invoke(cli, ["runs", "--db", str(db)]).stdout.splitlines()
    assert listed[0].split()[:6] == ["run", "started", "status", "evaluated", "failed",
                                     "skipped"]
    assert [line.split()[3:7] for line in listed[1:]] == [
        ["done", "1", "1", "0"], ["done", "0", "0", "2"], ["done", "1", "0", "1"]]


def test_an_old_database_gets_run_counters_from_its_rows(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at FLOAT NOT NULL,
            finished_at FLOAT, input TEXT NOT NULL, kb_version VARCHAR(64) NOT NULL,
            provider VARCHAR(64) NOT NULL, model VARCHAR(200) NOT NULL,
            status VARCHAR(20) NOT NULL);
        CREATE TABLE errors (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,
            row_index INTEGER NOT NULL, url TEXT NOT NULL, kb_version VARCHAR(64) NOT NULL,
            provider VARCHAR(64) NOT NULL, model VARCHAR(200) NOT NULL,
            passthrough TEXT NOT NULL, created_at FLOAT NOT NULL, error TEXT NOT NULL);
        CREATE TABLE evaluations (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,
            row_index INTEGER NOT NULL, url TEXT NOT NULL, kb_version VARCHAR(64) NOT NULL,
            provider VARCHAR(64) NOT NULL, model VARCHAR(200) NOT NULL,
            passthrough TEXT NOT NULL, created_at FLOAT NOT NULL,
            fit_score INTEGER NOT NULL, data TEXT NOT NULL);
        CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,
            applied_at FLOAT NOT NULL);
        INSERT INTO schema_migrations VALUES (1, 0), (2, 0), (3, 0);
        INSERT INTO runs VALUES (1, 0, 1, 'leads.csv', 'kb', 'heuristic', 'm', 'done');
        INSERT INTO errors VALUES (1, 1, 1, 'https://a.example/', 'kb', 'heuristic', 'm',
            '{}', 0, 'https://a.example/: HTTP 404 Not Found');
    """)
    conn.commit()
    conn.close()
    run = Store(db).runs()[0]
    assert (run["evaluated"], run["failed"], run["skipped_done"]) == (0, 1, 0)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_marks_the_run_interrupted(sites: SiteServer, tmp_path: Path,
                                            sig: signal.Signals) -> None:
    page = (SITES / "yangon-school" / "index.html").read_text(encoding="utf-8")
    route = f"slow-{uuid.uuid4().hex[:6]}/"
    sites.route(f"/{route}", body=page, delay=0.5)
    urls = tmp_path / "urls.txt"
    # 60 rows of 0.5 s at 2 at a time: 15 s at the least, so the signal always lands
    # mid-batch, however loaded the machine.
    urls.write_text("\n".join(sites.url(f"{route}?n={i}") for i in range(60)) + "\n",
                    encoding="utf-8")
    db = tmp_path / "r.db"
    env = {**os.environ, "LEADENGINE_RETRIEVAL": "keyword"}
    process = subprocess.Popen(
        [sys.executable, "-m", "leadengine", "batch", str(urls), "--db", str(db), *BATCH,
         "--concurrency", "2", "--per-host", "2"],
        env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    stored = 0
    while time.monotonic() < deadline and stored < 2:
        time.sleep(0.1)
        try:  # plain sqlite3: reading must not take the batch's locks or run migrations
            with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
                stored = conn.execute("SELECT count(*) FROM evaluations").fetchone()[0]
        except sqlite3.Error:
            stored = 0
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == (143 if sig == signal.SIGTERM else 130), stderr
    assert stderr.strip().splitlines()[-1] == ("error: interrupted; run the same command "
                                               "again to resume")
    run = Store(db).runs()[0]
    urls_stored = [r["url"] for r in Store(db).evaluations()]
    assert run["status"] == "interrupted" and run["finished_at"] is not None
    assert 2 <= len(urls_stored) < 60
    assert len(set(urls_stored)) == len(urls_stored) == run["evaluated"]


def test_read_commands_never_create_a_database(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["runs"], ["export"], ["export", "--format", "json"],
                 ["show", "example.com"]):
        result = runner().invoke(cli, args)
        assert result.exit_code == 1, args
        assert result.stderr == ("error: no results database at leadengine.db (run "
                                 "`leadengine batch` first, or pass --db)\n")
        other = runner().invoke(cli, [*args, "--db", "elsewhere.db"])
        assert other.exit_code == 1 and "no results database at elsewhere.db" in other.stderr
    assert list(tmp_path.iterdir()) == []


def test_export_of_a_run_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    Store(db)
    result = runner().invoke(cli, ["export", "--db", str(db), "--run", "99"])
    assert result.exit_code == 1
    assert result.stderr == "error: no run 99 in this database (see `leadengine runs`)\n"


def test_stdin_and_a_semicolon_csv(sites: SiteServer, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    text = (f"Name;Website;Owner\nSchool;{sites.url('yangon-school/')};Aung\n"
            f"Hotel;{sites.url('bangkok-hotel/')};Nok\n")
    result = runner().invoke(cli, ["batch", "-", "--db", str(db), *BATCH], input=text)
    assert result.exit_code == 0, result.output
    assert "2 evaluated, 0 failed" in result.stderr
    inputs = {r["url"]: r["input"] for r in Store(db).evaluations()}
    assert inputs[sites.url("yangon-school/")] == {"Name": "School", "Owner": "Aung"}
    assert Store(db).runs()[0]["input"] == "<stdin>"

    semicolons = tmp_path / "leads.csv"
    semicolons.write_text(text.replace(sites.url("bangkok-hotel/"), "a.example"),
                          encoding="utf-8-sig")
    rows = list(read_rows(semicolons))
    assert [(r.raw, r.passthrough["Owner"]) for r in rows] == [
        (sites.url("yangon-school/"), "Aung"), ("a.example", "Nok")]
    assert sniff_delimiter("name\turl\n") == "\t"
    assert sniff_delimiter('"Smile; Co",url\n') == ","
    assert sniff_delimiter("https://a.example/\n") == ","


def test_a_pipe_is_read_once_even_with_the_progress_bar(sites: SiteServer, tmp_path: Path,
                                                       kb: KnowledgeBase) -> None:
    from leadengine.cli.batch import _run_with_progress_bar

    lines = f"url,note\n{sites.url('yangon-school/')},a\n{sites.url('bangkok-hotel/')},b\n"
    for attempt, use_bar in enumerate((False, True)):
        fifo = tmp_path / f"leads-{attempt}.csv"
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_text, args=(lines,),
                                  kwargs={"encoding": "utf-8"})
        writer.start()
        store = Store(tmp_path / f"p{attempt}.db")
        if use_bar:
            summary = _run_with_progress_bar(fifo, FAST, kb, store,
                                             BatchOptions(concurrency=2, per_host=2))
        else:
            summary = asyncio.run(run_batch(fifo, FAST, kb, store))
        writer.join(timeout=5)
        assert (summary.total, summary.done) == (2, 2)
        assert {r["input"]["note"] for r in store.evaluations()} == {"a", "b"}


def test_local_files_and_folders_are_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    db = tmp_path / "r.db"
    folder = SITES / "yangon-school"
    monkeypatch.chdir(SITES)
    leads = tmp_path / "leads.txt"
    leads.write_text(f"{folder}\n{folder / 'index.html'}\n"
                     f"{(SITES / 'bangkok-hotel' / 'index.html').as_uri()}\n"
                     "mandalay-restaurant\nmissing-page.html\n", encoding="utf-8")
    result = runner().invoke(cli, ["batch", str(leads), "--db", str(db), *BATCH])
    assert result.exit_code == 0, result.output
    assert "3 evaluated, 1 failed, 0 already done, 1 duplicates" in result.stderr
    assert "1  file not found" in result.stderr
    stored = sorted(r["url"] for r in Store(db).evaluations())
    assert stored == sorted((SITES / name / "index.html").as_uri() for name in (
        "yangon-school", "bangkok-hotel", "mandalay-restaurant"))
    shown = runner().invoke(cli, ["show", "yangon-school", "--db", str(db),
                                  "--format", "json"])
    assert shown.exit_code == 0, shown.stderr
    assert '"business_name"' in shown.stdout


@pytest.mark.parametrize("target", ["localhost:8080/x", "LOCALHOST:8080", "127.0.0.1:9/a?b=1",
                                    "example.com", "Example.COM/About", "shop.example.co.th:8443",
                                    "https://Example.com", "[::1]:8080/x"])
def test_one_normaliser_for_batch_show_and_evaluate(target: str) -> None:
    url = normalise_url(target)
    assert normalise_url(normalise_target(target)) == url
    assert urls_scheme(url) == ("http" if target.lower().startswith(
        ("localhost", "127.", "[")) else "https")


def urls_scheme(url: str) -> str:
    return url.split("://")[0]


def test_host_and_port_work_in_evaluate_batch_and_show(sites: SiteServer, tmp_path: Path
                                                       ) -> None:
    db = tmp_path / "r.db"
    bare = sites.url("yangon-school/").split("://", 1)[1]  # 127.0.0.1:PORT/yangon-school/
    evaluated = runner().invoke(cli, ["evaluate", bare, "--format", "json", *BATCH[:5]])
    assert evaluated.exit_code == 0, evaluated.stderr
    urls = tmp_path / "urls.txt"
    urls.write_text(bare + "\n", encoding="utf-8")
    assert "1 evaluated" in runner().invoke(cli, ["batch", str(urls), "--db", str(db),
                                                  *BATCH]).stderr
    assert [r["url"] for r in Store(db).evaluations()] == [sites.url("yangon-school/")]
    shown = runner().invoke(cli, ["show", bare, "--db", str(db), "--format", "json"])
    assert shown.exit_code == 0, shown.stderr
    text = runner().invoke(cli, ["show", bare, "--db", str(db), "--format", "markdown"])
    assert text.exit_code == 0 and not text.stdout.lstrip().startswith("{")


def test_show_says_why_a_url_failed(sites: SiteServer, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    url = gone(sites)
    urls = tmp_path / "urls.txt"
    urls.write_text(url + "\n", encoding="utf-8")
    runner().invoke(cli, ["batch", str(urls), "--db", str(db), *BATCH])
    result = runner().invoke(cli, ["show", url, "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr == f"error: {url} failed in run 1: HTTP 404 Not Found\n"


def test_an_unreadable_input_records_no_run(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    bad = tmp_path / "bad.csv"
    bad.write_text("name;phone\nA;1\n", encoding="utf-8")
    for path, message in ((tmp_path / "none.csv", "input file not found"),
                          (bad, "no url column"), (tmp_path, "is a folder")):
        result = runner().invoke(cli, ["batch", str(path), "--db", str(db), *BATCH])
        assert result.exit_code == 1 and message in result.stderr, result.stderr
    assert Store(db).runs() == []


def test_a_used_up_daily_quota_stops_the_batch_without_failing_rows(
        sites: SiteServer, tmp_path: Path) -> None:
    """Past the provider's requests-per-day limit every row would fail alike: the batch
    stops with one line, and the rows not evaluated stay to do (not "failed")."""
    from tests.fakes.openai_server import SMILE_ANSWER as answer
    from tests.fakes.openai_server import FakeOpenAI, Reply

    db = tmp_path / "r.db"
    leads = tmp_path / "urls.txt"
    leads.write_text(f"{sites.url('bangkok-dental-fb-only/')}\n"
                     f"{sites.url('bangkok-hotel/')}\n{sites.url('bangkok-law-firm/')}\n",
                     encoding="utf-8")
    with FakeOpenAI() as fake:
        for _ in range(3):
            fake.queue(Reply.json(answer))
        result = CliRunner(env={"LEADENGINE_RETRIEVAL": "keyword", "GROQ_API_KEY": "k",
                                "LEADENGINE_LLM_RPD": "1"}).invoke(cli, [
            "batch", str(leads), "--db", str(db), "--provider", "groq", "--base-url",
            fake.base_url, "--allow-private", "--max-pages", "0", "--host-delay", "0",
            "--concurrency", "1", "--no-cache"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1].startswith(
        "error: daily request limit of 1 reached for groq")
    [run] = runs_table(db).values()
    assert run["status"] == "interrupted"
    assert (run["evaluated"], run["failed"]) == (1, 0)
    assert Store(db).errors() == []


def test_rows_in_flight_when_the_daily_quota_runs_out_are_finished_and_stored(
        sites: SiteServer, tmp_path: Path) -> None:
    """Three requests are in flight when the fourth row finds the day's requests used
    up: those three were paid for, so they are answered and stored before the batch
    stops; the rows not started stay to do."""
    from tests.fakes.openai_server import SMILE_ANSWER as answer
    from tests.fakes.openai_server import FakeOpenAI, Reply

    db = tmp_path / "q.db"
    leads = tmp_path / "urls.txt"
    leads.write_text("".join(sites.url(f"bangkok-dental-fb-only/?quota={i}") + "\n"
                             for i in range(8)), encoding="utf-8")
    with FakeOpenAI() as fake:
        fake.default = Reply.json(answer, delay=0.5)
        result = CliRunner(env={"LEADENGINE_RETRIEVAL": "keyword", "GROQ_API_KEY": "k",
                                "LEADENGINE_LLM_RPD": "3", "LEADENGINE_LLM_RPM": "0",
                                "LEADENGINE_LLM_TPM": "0"}).invoke(cli, [
            "batch", str(leads), "--db", str(db), "--provider", "groq", "--base-url",
            fake.base_url, "--allow-private", "--max-pages", "0", "--host-delay", "0",
            "--concurrency", "3", "--no-cache"])
    assert result.exit_code == 1
    assert "daily request limit of 3 reached for groq" in result.stderr.splitlines()[-1]
    assert len(fake.chat_requests) == 3
    assert len(list(Store(db).evaluations())) == 3 and Store(db).errors() == []
    [run] = runs_table(db).values()
    assert (run["status"], run["evaluated"], run["failed"]) == ("interrupted", 3, 0)


def test_a_rerun_that_allows_private_addresses_tries_the_rows_refused_as_private(
        sites: SiteServer, kb: KnowledgeBase, tmp_path: Path) -> None:
    """Rows refused as private are failures a setting fixes: run again with private
    addresses allowed, they are tried without --retry-failed (and the summary says so);
    a row that failed for another reason is still left to --retry-failed."""
    leads = tmp_path / "leads.txt"
    leads.write_text(f"{sites.url('yangon-school/')}\n{sites.url('no-such-trust-site/')}\n",
                     encoding="utf-8")
    store = Store(tmp_path / "r.db")
    guarded = FAST.with_options(allow_private=False)
    first = asyncio.run(run_batch(leads, guarded, kb, store))
    assert (first.done, first.failed) == (0, 2)
    assert all("a private or local address; refused" in e["error"] for e in store.errors())
    again = asyncio.run(run_batch(leads, FAST, kb, store))
    assert (again.done, again.failed, again.unblocked, again.skipped_failed) == (1, 1, 2, 0)
    assert "2 refused as private before, tried again (private addresses are allowed " \
        "now)" in again.line()
    third = asyncio.run(run_batch(leads, FAST, kb, store))
    # The 404 is an ordinary failure now: left to --retry-failed, as any other.
    assert (third.done, third.failed, third.unblocked, third.skipped_failed,
            third.skipped_done) == (0, 0, 0, 1, 1)
