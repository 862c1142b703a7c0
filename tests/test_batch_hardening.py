"""Hostile input files, damaged or read-only databases, two batches on one database,
killed runs and leaked keys: the batch keeps every lead it can read, says which line of
which file is wrong, evaluates each URL once however many processes share the store,
and stores no secret."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import multiprocessing
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leadengine import KnowledgeBase, Settings
from leadengine.batch import BatchOptions, Row, read_rows, run_batch
from leadengine.cli import cli
from leadengine.errors import ConfigError, LeadEngineError, LLMError, StoreError
from leadengine.store import Claim, Store
from tests.conftest import REPO, SITES
from tests.fakes.site_server import SiteServer
from tests.test_batch import db  # noqa: F401 (the SQLite / PostgreSQL fixture)

FAST = Settings(provider="heuristic", retrieval_method="keyword", allow_private=True,
                timeout=2.0, page_deadline=4.0, max_pages=0, host_delay=0.0)
BATCH = ["--provider", "heuristic", "--allow-private", "--max-pages", "0",
         "--host-delay", "0"]
KEY = ("kb", "heuristic", "rules-v1")


def runner() -> CliRunner:
    return CliRunner(env={"LEADENGINE_RETRIEVAL": "keyword"})


def rows_of(path: Path, encoding: str | None = None) -> list[tuple[int, str, str | None]]:
    """(line, raw, error) of every row read."""
    return [(r.line, r.raw, r.error) for r in read_rows(path, encoding)]


def slow_route(sites: SiteServer, delay: float) -> str:
    """A new path on the fixture server answering a real page after ``delay`` seconds."""
    page = (SITES / "yangon-school" / "index.html").read_text(encoding="utf-8")
    route = f"slow-{uuid.uuid4().hex[:8]}/"
    sites.route(f"/{route}", body=page, delay=delay)
    return route


# -- input files ---------------------------------------------------------------------


def test_an_unbalanced_quote_costs_one_row_not_the_rest(sites: SiteServer,
                                                       tmp_path: Path) -> None:
    """The issue's case: a stray quote on line 3 used to fold lines 3-5 into one empty
    row ("(empty): not a web address"), losing three leads without a word."""
    leads = tmp_path / "leads.csv"
    hotel = sites.url("bangkok-hotel/")
    leads.write_text("name,url,owner\n"
                     f"Smile,{sites.url('bangkok-dental-fb-only/')},Nok\n"
                     f'"Hotel,{hotel},Aung\n'
                     f"School,{sites.url('yangon-school/')},Mya\n"
                     f"Cafe,{sites.url('mandalay-restaurant/')},Su\n", encoding="utf-8")
    db_file = tmp_path / "r.db"
    result = runner().invoke(cli, ["batch", str(leads), "--db", str(db_file), *BATCH])
    assert result.exit_code == 0, result.output
    assert "3 evaluated, 1 failed" in result.stderr
    assert "unbalanced quote" in result.stderr.split("failures by reason:")[1]
    [error] = Store(db_file).errors()
    assert error["error"] == (
        f'{leads} line 3: unbalanced quote (a " opens a field that never closes; lines '
        "3-5, to the end of the file, would be read as one row): fix the quote; the other "
        "lines are read as usual")
    assert error["url"] == f'"Hotel,{hotel},Aung'  # the line itself names the bad row
    assert {r["input"]["owner"] for r in Store(db_file).evaluations()} == {"Nok", "Mya", "Su"}


def test_a_stray_quote_closed_by_a_later_row_still_folds_nothing(tmp_path: Path) -> None:
    leads = tmp_path / "leads.csv"
    leads.write_text('name,url,owner\n"Hotel,https://b.example/,Aung\n'
                     '"Say ""hi""",https://c.example/,Mya\n'
                     'x,https://d.example/,"Nok\nBangkok"\n', encoding="utf-8")
    rows = rows_of(leads)
    assert [(line, raw) for line, raw, _ in rows] == [
        (2, '"Hotel,https://b.example/,Aung'), (3, "https://c.example/"),
        (4, "https://d.example/")]
    assert rows[0][2] is not None and "lines 2-3 would be read as one row" in rows[0][2]
    assert rows[1][2] is None and rows[2][2] is None


def test_cells_with_line_breaks_are_one_row(tmp_path: Path) -> None:
    """Excel writes a cell typed with Alt+Enter as a quoted field over several lines:
    that is a row, not an unbalanced quote."""
    leads = tmp_path / "leads.csv"
    with leads.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", "url", "address"])
        writer.writerow(["Smile", "https://a.example/", "12 Sukhumvit\nKhlong Toei, Bangkok"])
        writer.writerow(['Two\nlines "quoted"', "https://b.example/", "x"])
        writer.writerow(["School", "c.example", "Yangon"])
    rows = list(read_rows(leads))
    assert [(r.line, r.raw, r.error) for r in rows] == [
        (2, "https://a.example/", None), (4, "https://b.example/", None),
        (6, "c.example", None)]
    assert rows[0].passthrough["address"] == "12 Sukhumvit\nKhlong Toei, Bangkok"
    assert rows[1].passthrough["name"] == 'Two\nlines "quoted"'


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                      "utf-8-sig"])
def test_utf16_and_bom_files_are_read(tmp_path: Path, encoding: str) -> None:
    leads = tmp_path / "leads.csv"
    leads.write_bytes("name,url\r\nคลินิกฟันยิ้มสวย,https://a.example/\r\n"
                      "မြန်မာ,b.example\r\n".encode(encoding))
    rows = list(read_rows(leads))
    assert [(r.raw, r.passthrough) for r in rows] == [
        ("https://a.example/", {"name": "คลินิกฟันยิ้มสวย"}), ("b.example", {"name": "မြန်မာ"})]


def test_a_sheet_saved_on_thai_windows_is_named_not_garbled(sites: SiteServer,
                                                           tmp_path: Path) -> None:
    leads = tmp_path / "leads.csv"
    leads.write_bytes(f"name,url\nคลินิกฟันยิ้มสวย,{sites.url('yangon-school/')}\n"
                      .encode("cp874"))
    with pytest.raises(ConfigError) as raised:
        list(read_rows(leads))
    assert str(raised.value) == (
        f'{leads} line 2: not UTF-8 text (it looks like Thai Windows text): save the sheet '
        'as "CSV UTF-8", or run again with --encoding cp874')
    assert next(read_rows(leads, "cp874")).passthrough == {"name": "คลินิกฟันยิ้มสวย"}
    db_file = tmp_path / "r.db"
    refused = runner().invoke(cli, ["batch", str(leads), "--db", str(db_file), *BATCH])
    assert refused.exit_code == 1 and "--encoding cp874" in refused.stderr
    result = runner().invoke(cli, ["batch", str(leads), "--db", str(db_file), *BATCH,
                                   "--encoding", "cp874"])
    assert result.exit_code == 0 and "1 evaluated" in result.stderr, result.output
    assert [r["input"] for r in Store(db_file).evaluations()] == [{"name": "คลินิกฟันยิ้มสวย"}]
    western = tmp_path / "western.csv"
    western.write_bytes("name,url\nCafé Crème,a.example\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"western\.csv line 2: .*--encoding cp1252$"):
        list(read_rows(western))
    with pytest.raises(ConfigError, match="unknown encoding 'klingon'"):
        list(read_rows(western, "klingon"))


def test_nul_bytes_and_workbooks_are_named_with_their_line(tmp_path: Path) -> None:
    nul = tmp_path / "leads.csv"
    nul.write_bytes(b"name,url\na,a.example\nb,b.example\nc\x00,c.example\n")
    with pytest.raises(ConfigError) as raised:
        list(read_rows(nul))
    assert str(raised.value) == (f"{nul} line 4 contains a NUL byte: is this a spreadsheet "
                                 'saved as .csv? Save it as "CSV UTF-8"')
    workbook = tmp_path / "book.csv"
    workbook.write_bytes(b"PK\x03\x04\x14\x00\x06\x00" + bytes(200))
    with pytest.raises(ConfigError, match=r"book\.csv line 1: this is an Excel workbook"):
        list(read_rows(workbook))


def test_long_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A notes cell past the csv module's 128 KiB limit is read; a URL cell past 2,000
    characters is a bad row; a line past the line limit is one too, and the rest is read."""
    leads = tmp_path / "leads.csv"
    leads.write_text("name,url,notes\n"
                     f"a,https://a.example/,{'n' * 200_000}\n"
                     f"b,https://b.example/{'x' * 2100},\n"
                     "c,https://c.example/,\n", encoding="utf-8")
    rows = list(read_rows(leads))
    assert [r.raw[:19] for r in rows] == ["https://a.example/", "https://b.example/x",
                                          "https://c.example/"]
    assert len(rows[0].passthrough["notes"]) == 200_000
    assert rows[1].error == (f"{leads} line 3: the url cell is 2,118 characters long; a web "
                             "address has at most 2,000 (is a column shifted?)")
    monkeypatch.setattr("leadengine.batch.input.FIELD_LIMIT", 100_000)
    monkeypatch.setattr("leadengine.batch.lines.FIELD_LIMIT", 100_000)
    cut = rows_of(leads)
    assert cut[0][:2] == (2, "(line 2)") and cut[0][2] is not None
    assert cut[0][2].startswith(f"{leads} line 2: is longer than ")
    assert cut[1:] == [(3, rows[1].raw, rows[1].error), (4, "https://c.example/", None)]


def test_an_unreadable_file_stops_before_any_work(sites: SiteServer, tmp_path: Path) -> None:
    route = slow_route(sites, 0.0)
    leads = tmp_path / "leads.csv"
    leads.write_bytes(b"url\n" + b"".join(sites.url(f"{route}?n={i}").encode() + b"\n"
                                          for i in range(3)) + b"\xff\xfe\x00broken\n")
    db_file = tmp_path / "r.db"
    before = len(sites.requests)
    result = runner().invoke(cli, ["batch", str(leads), "--db", str(db_file), *BATCH])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {leads} line 5: not UTF-8 text")
    assert Store(db_file).runs() == [] and len(sites.requests) == before


def test_stdin_may_be_utf16(sites: SiteServer, tmp_path: Path) -> None:
    db_file = tmp_path / "r.db"
    text = f"name\turl\r\nโรงเรียน\t{sites.url('yangon-school/')}\r\n"
    result = runner().invoke(cli, ["batch", "-", "--db", str(db_file), *BATCH],
                             input=text.encode("utf-16"))
    assert result.exit_code == 0 and "1 evaluated" in result.stderr, result.output
    assert [r["input"] for r in Store(db_file).evaluations()] == [{"name": "โรงเรียน"}]


CSV_BITS = [b'"', b'""', b",", b";", b"\t", b"\n", b"\r\n", b"\r", b" ", b"name", b"url",
            b"https://a.example/", b"b.example", b"\xe0\xb8\x81", b"\xff", b"\x00",
            b"url,name\n", b"#", b"\xef\xbb\xbf", b"\xff\xfe", b"x" * 50]


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(st.binary(max_size=600),
                      st.lists(st.sampled_from(CSV_BITS), max_size=60).map(b"".join)),
       suffix=st.sampled_from([".csv", ".txt"]))
def test_any_bytes_give_rows_or_a_clear_error(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"leads{suffix}"
        path.write_bytes(data)
        try:
            rows = list(read_rows(path))
        except LeadEngineError as exc:
            assert str(path) in str(exc) and "\n" not in str(exc)
            return
    assert all(isinstance(r, Row) for r in rows)
    for row in rows:
        assert row.error is None or row.error.startswith(f"{path} line {row.line}: ")


SAFE_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=15)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(SAFE_TEXT, min_size=1, max_size=10),
       junk=st.one_of(SAFE_TEXT.map(lambda t: f'"{t}'),
                      st.tuples(SAFE_TEXT, SAFE_TEXT).map(lambda p: f'{p[0]},"{p[1]}')),
       at=st.integers(min_value=0, max_value=10), delimiter=st.sampled_from([",", ";"]))
def test_a_broken_line_never_costs_another_lead(names: list[str], junk: str, at: int,
                                                delimiter: str) -> None:
    """N well-formed rows (names with quotes, commas, any script) and one line with a
    quote that never closes, anywhere: every good URL is still read."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["name", "url"])
    urls = [f"https://lead{i}.example/" for i in range(len(names))]
    lines = []
    for name, url in zip(names, urls, strict=True):
        line = io.StringIO()
        csv.writer(line, delimiter=delimiter, lineterminator="\n").writerow([name, url])
        lines.append(line.getvalue())
    lines.insert(min(at, len(lines)), junk + "\n")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "leads.csv"
        path.write_text(out.getvalue() + "".join(lines), encoding="utf-8")
        read = {r.raw for r in read_rows(path) if r.error is None}
    assert set(urls) <= read


# -- the database --------------------------------------------------------------------


def test_a_file_that_is_not_a_results_database(tmp_path: Path) -> None:
    junk = tmp_path / "leads.db"
    junk.write_bytes(b"name,url\nthis is a CSV saved under the wrong name\n" * 50)
    urls = tmp_path / "urls.txt"
    urls.write_text("a.example\n", encoding="utf-8")
    for args in (["batch", str(urls), *BATCH], ["export"], ["runs"], ["show", "a.example"]):
        result = runner().invoke(cli, [*args, "--db", str(junk)])
        assert result.exit_code == 1, args
        assert result.stderr == (f"error: {junk} is not a results database (file is not a "
                                 "SQLite database)\n"), args
    good = tmp_path / "good.db"
    store = Store(good)
    store.start_run("x", *KEY)
    store.engine.dispose()  # the last connection closed: the WAL is in the file
    cut = tmp_path / "cut.db"
    cut.write_bytes(good.read_bytes()[:good.stat().st_size // 2])  # a copy cut short
    result = runner().invoke(cli, ["export", "--db", str(cut)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {cut} is not a results database (the file is "
                                    "damaged: database disk image is malformed)")
    other = tmp_path / "crm.db"
    with contextlib.closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE contacts (name TEXT)")
    result = runner().invoke(cli, ["batch", str(urls), "--db", str(other), *BATCH])
    assert result.stderr == (f"error: {other} is not a results database (it holds another "
                             "program's tables): pick another file with --db\n")


def test_a_database_where_none_can_be(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("a.example\n", encoding="utf-8")
    missing = tmp_path / "no-such-folder" / "r.db"
    result = runner().invoke(cli, ["batch", str(urls), "--db", str(missing), *BATCH])
    assert result.exit_code == 1
    assert result.stderr == (f"error: cannot create {missing}: the folder {missing.parent} "
                             "does not exist\n")
    result = runner().invoke(cli, ["batch", str(urls), "--db", str(tmp_path), *BATCH])
    assert result.stderr == (f"error: {tmp_path} is a folder: give a database file, such as "
                             f"{tmp_path / 'leadengine.db'}\n")


@contextlib.contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Make ``paths`` read-only: chmod, and for root (whom chmod does not stop) the
    immutable attribute; skips the test where neither holds."""
    modes = {path: path.stat().st_mode for path in paths}
    immutable: list[Path] = []
    try:
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        for path in paths:
            if os.access(path, os.W_OK):
                done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
                if done.returncode != 0 or os.access(path, os.W_OK):
                    pytest.skip("cannot make a file read-only here (root without chattr)")
                immutable.append(path)
        yield
    finally:
        for path in reversed(immutable):
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        for path, mode in modes.items():
            path.chmod(mode)


def stored_batch(folder: Path, sites: SiteServer) -> Path:
    """A results database made by a batch in another process (so no -wal / -shm file is
    left open), with one evaluation and one failure."""
    folder.mkdir()
    db_file = folder / "leads.db"
    urls = folder.parent / f"{folder.name}.txt"
    urls.write_text(f"{sites.url('yangon-school/')}\n{sites.url('gone-' + uuid.uuid4().hex)}\n",
                    encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "leadengine", "batch", str(urls), "--db",
                           str(db_file), *BATCH], env={**os.environ, "LEADENGINE_RETRIEVAL":
                                                  "keyword"},
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return db_file


@pytest.mark.parametrize("folder_too", [False, True], ids=["file", "folder"])
def test_read_commands_work_on_a_read_only_database(sites: SiteServer, tmp_path: Path,
                                                    folder_too: bool) -> None:
    db_file = stored_batch(tmp_path / "shared", sites)
    # A run killed long ago: read-only, it is shown interrupted without being stored.
    with contextlib.closing(sqlite3.connect(db_file)) as conn, conn:
        conn.execute("UPDATE runs SET status = 'running', heartbeat_at = 0")
    files = sorted(p.name for p in db_file.parent.iterdir())
    stamp = db_file.stat().st_mtime_ns
    with read_only(*([db_file, db_file.parent] if folder_too else [db_file])):
        listed = runner().invoke(cli, ["runs", "--db", str(db_file)])
        assert listed.exit_code == 0, listed.stderr
        assert listed.stdout.splitlines()[1].split()[3:6] == ["interrupted", "1", "1"]
        exported = runner().invoke(cli, ["export", "--db", str(db_file), "--include-failed",
                                         "--format", "json"])
        assert exported.exit_code == 0, exported.stderr
        assert len(exported.stdout) > 100
        shown = runner().invoke(cli, ["show", sites.url("yangon-school/"), "--db", str(db_file),
                                      "--format", "json"])
        assert shown.exit_code == 0 and '"business_name"' in shown.stdout, shown.stderr
        urls = tmp_path / "urls.txt"
        urls.write_text("a.example\n", encoding="utf-8")
        refused = runner().invoke(cli, ["batch", str(urls), "--db", str(db_file), *BATCH])
        assert refused.exit_code == 1 and "is read-only" in refused.stderr
        assert Store(db_file, create=False).read_only
    assert db_file.stat().st_mtime_ns == stamp
    if folder_too:
        assert sorted(p.name for p in db_file.parent.iterdir()) == files  # no journal left
    with contextlib.closing(sqlite3.connect(db_file)) as conn:
        assert conn.execute("SELECT status FROM runs").fetchone() == ("running",)


def test_a_read_only_database_of_an_older_version_says_so(tmp_path: Path) -> None:
    db_file = tmp_path / "old.db"
    with contextlib.closing(sqlite3.connect(db_file)) as conn, conn:
        conn.executescript("""
            CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,
                applied_at FLOAT NOT NULL);
            INSERT INTO schema_migrations VALUES (1, 0), (2, 0), (3, 0), (4, 0);
            CREATE TABLE runs (id INTEGER PRIMARY KEY);""")
    with pytest.raises(StoreError, match="older leadengine and is read-only here"):
        Store(db_file, read_only=True)
    assert Store(db_file, create=False).read_only is False  # writable: it is upgraded instead


# -- two processes, one database -----------------------------------------------------


def _create(url: str, start: float, results: Any) -> None:
    while time.time() < start:
        time.sleep(0.001)
    try:
        Store(url)
        results.put("")
    except Exception as exc:  # reported to the test, whatever it is
        results.put(f"{type(exc).__name__}: {exc}")


def test_twenty_processes_create_one_new_database_at_once(db: str) -> None:  # noqa: F811
    """Without a migration lock 7 of 20 such starts failed ("table schema_migrations
    already exists")."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs fork (a spawned child would re-import everything)")
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    start = time.time() + 0.5
    workers = [context.Process(target=_create, args=(db, start, results)) for _ in range(20)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    assert [o for o in outcomes if o] == []
    versions = Store(db).engine.connect().exec_driver_sql(
        "SELECT count(*) FROM schema_migrations").scalar()
    from leadengine.store import MIGRATIONS

    assert versions == len(MIGRATIONS)


def test_two_batches_on_one_database_evaluate_each_url_once(sites: SiteServer,
                                                          tmp_path: Path, kb: KnowledgeBase,
                                                          db: str) -> None:  # noqa: F811
    """Before claims, two batches over the same 200 URLs made 347 LLM calls."""
    route = slow_route(sites, 0.15)
    urls = [sites.url(f"{route}?lead={i}") for i in range(24)]
    leads = tmp_path / "urls.txt"
    leads.write_text("\n".join(urls) + "\n", encoding="utf-8")
    Store(db)  # created once; the two batches open it each with their own Store
    summaries: list[Any] = [None, None]

    def batch(slot: int) -> None:
        summaries[slot] = asyncio.run(run_batch(leads, FAST, kb, Store(db),
                                                BatchOptions(concurrency=4, per_host=4)))

    threads = [threading.Thread(target=batch, args=(slot,)) for slot in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    first, second = summaries
    fetched = Counter(path for method, path in sites.requests if path.startswith(f"/{route}"))
    assert sorted(fetched) == sorted(u.split(str(sites.port), 1)[1] for u in urls)
    assert set(fetched.values()) == {1}  # every URL fetched exactly once in total
    assert first.done + second.done == 24 and first.failed == second.failed == 0
    for summary in (first, second):
        assert summary.done + summary.elsewhere + summary.skipped_done == 24
    assert first.elsewhere + second.elsewhere > 0  # they did overlap
    store = Store(db)
    assert len(list(store.evaluations())) == 24 and store.errors() == []
    assert _claims(store) == 0  # every claim released with its row
    assert {run["status"] for run in store.runs()} == {"done"}


def _claims(store: Store) -> int:
    with store.engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT count(*) FROM claims").scalar() or 0)


def test_claims_are_exclusive_leased_and_released(db: str) -> None:  # noqa: F811
    store = Store(db)
    mine, theirs = store.start_run("a", *KEY), store.start_run("b", *KEY)
    url = "https://a.example/"
    assert store.claim(mine, url, *KEY) == Claim("claimed")
    assert store.claim(mine, url, *KEY) == Claim("claimed")  # a run may renew its own
    assert store.claim(theirs, url, *KEY) == Claim("elsewhere", mine)
    # A claim not renewed in time comes back.
    assert store.claim(mine, "https://b.example/", *KEY, lease=-1) == Claim("claimed")
    assert store.claim(theirs, "https://b.example/", *KEY) == Claim("claimed")
    store.heartbeat(theirs, lease=-1)
    assert store.claim(mine, "https://b.example/", *KEY) == Claim("claimed")
    # Saving the row releases it; a late claimer finds it done, or failed.
    store.save_evaluation(mine, 1, url, "kb", {"provider": "heuristic", "model": "rules-v1",
                                               "fit_score": 50}, {})
    assert store.claim(theirs, url, *KEY) == Claim("done")
    store.save_error(mine, 2, "https://b.example/", *KEY, "HTTP 500", {})
    assert store.claim(theirs, "https://b.example/", *KEY) == Claim("failed")
    assert store.claim(theirs, "https://b.example/", *KEY, retry_since=0) == Claim("failed")
    assert store.claim(theirs, "https://b.example/", *KEY,
                       retry_since=time.time() + 1) == Claim("claimed")
    store.finish_run(theirs)
    assert _claims(store) == 0


def test_a_url_another_live_run_holds_is_left_to_it(sites: SiteServer, tmp_path: Path,
                                                    kb: KnowledgeBase) -> None:
    db_file = tmp_path / "r.db"
    store = Store(db_file)
    held, free = sites.url("yangon-school/?held=1"), sites.url("bangkok-hotel/")
    other = store.start_run("other.csv", kb.version, "heuristic", "rules-v1")
    assert store.claim(other, held, kb.version, "heuristic", "rules-v1").state == "claimed"
    leads = tmp_path / "urls.txt"
    leads.write_text(f"{held}\n{free}\n", encoding="utf-8")
    summary = asyncio.run(run_batch(leads, FAST, kb, store))
    assert (summary.done, summary.elsewhere) == (1, 1)
    assert "0 duplicates, 1 being evaluated by run 1, 0 pages" in summary.line()
    assert ("GET", "/yangon-school/?held=1") not in sites.requests
    assert store.run(summary.run_id)["elsewhere"] == 1  # type: ignore[index]
    store.finish_run(other)  # the other run ended without it: the URL is to do again
    assert asyncio.run(run_batch(leads, FAST, kb, store)).done == 1


def test_a_dead_runs_claims_come_back_at_once(sites: SiteServer, tmp_path: Path,
                                              kb: KnowledgeBase) -> None:
    db_file = tmp_path / "r.db"
    store = Store(db_file)
    url = sites.url("yangon-school/?orphan=1")
    dead = store.start_run("killed.csv", kb.version, "heuristic", "rules-v1")
    store.claim(dead, url, kb.version, "heuristic", "rules-v1")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with store.engine.begin() as conn:  # as if that process had run it, and been killed
        conn.exec_driver_sql(f"UPDATE runs SET pid = {gone.pid} WHERE id = {dead}")
    leads = tmp_path / "urls.txt"
    leads.write_text(url + "\n", encoding="utf-8")
    summary = asyncio.run(run_batch(leads, FAST, kb, store))
    assert (summary.done, summary.elsewhere) == (1, 0)
    assert store.run(dead)["status"] == "interrupted"  # type: ignore[index]


def test_a_killed_batch_is_shown_interrupted(sites: SiteServer, tmp_path: Path) -> None:
    route = slow_route(sites, 0.3)
    urls = tmp_path / "urls.txt"
    urls.write_text("\n".join(sites.url(f"{route}?n={i}") for i in range(30)) + "\n",
                    encoding="utf-8")
    db_file = tmp_path / "r.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "leadengine", "batch", str(urls), "--db", str(db_file), *BATCH,
         "--concurrency", "2", "--per-host", "2"],
        env={**os.environ, "LEADENGINE_RETRIEVAL": "keyword"}, cwd=REPO,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _stored(db_file) < 2:
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)  # no handler runs: nothing marks the run
    process.wait()
    with contextlib.closing(sqlite3.connect(db_file)) as conn:
        status, pid, host = conn.execute("SELECT status, pid, hostname FROM runs").fetchone()
        claimed = conn.execute("SELECT count(*) FROM claims").fetchone()[0]
    assert (status, pid, host) == ("running", process.pid, socket.gethostname())
    assert claimed >= 1
    listed = runner().invoke(cli, ["runs", "--db", str(db_file)])
    assert listed.stdout.splitlines()[1].split()[3] == "interrupted"
    with contextlib.closing(sqlite3.connect(db_file)) as conn:  # stored, with its claims freed
        assert conn.execute("SELECT status FROM runs").fetchone() == ("interrupted",)
        assert conn.execute("SELECT count(*) FROM claims").fetchone() == (0,)


def _stored(db_file: Path) -> int:
    try:
        with contextlib.closing(sqlite3.connect(db_file, timeout=5)) as conn:
            return int(conn.execute("SELECT count(*) FROM evaluations").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_run_silent_for_minutes_elsewhere_is_interrupted(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    quiet, alive = store.start_run("a", *KEY), store.start_run("b", *KEY)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE runs SET hostname = 'laptop-2'")
        conn.exec_driver_sql(f"UPDATE runs SET heartbeat_at = {time.time() - 600} "
                             f"WHERE id = {quiet}")
    assert [run["status"] for run in store.runs()] == ["interrupted", "running"]
    store.heartbeat(alive)
    assert store.settle() == []


# -- secrets ---------------------------------------------------------------------------


def test_stored_errors_and_the_summary_are_redacted(sites: SiteServer, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    key = "gsk_" + "A1b2C3d4E5f6G7h8I9j0K1l2"

    async def leaky(*_: Any) -> None:
        raise LLMError(f"groq answered 401 to Authorization: Bearer {key} for "
                       "https://nok:hunter22@crm.example/api")

    monkeypatch.setattr("leadengine.batch.run.evaluate_site", leaky)
    port = sites.port
    leads = tmp_path / "leads.csv"
    leads.write_text("name,url\n"
                     f"Keyed,http://nok:hunter22@127.0.0.1:{port}/yangon-school/\n"
                     "Bad port,https://nok:hunter22@bad.example:99999/\n"
                     "Escape,bad\x1b[31mred\n", encoding="utf-8")
    db_file = tmp_path / "r.db"
    result = runner().invoke(cli, ["batch", str(leads), "--db", str(db_file), *BATCH])
    assert result.exit_code == 0, result.output
    assert "0 evaluated, 3 failed" in result.stderr
    with contextlib.closing(sqlite3.connect(db_file)) as conn:
        stored = conn.execute("SELECT url, error FROM errors ORDER BY row_index").fetchall()
    exported = runner().invoke(cli, ["export", "--db", str(db_file), "--include-failed"]).stdout
    for text in (repr(stored), exported, result.stderr):
        assert "hunter22" not in text and key not in text and "\x1b" not in text
    assert "Authorization: [redacted]" in stored[0][1]
    assert stored[1][0] == "https://[redacted]@bad.example:99999/"
    assert stored[2][0] == "bad\\x1b[31mred"


def test_a_batch_beats_while_it_works(sites: SiteServer, tmp_path: Path, kb: KnowledgeBase,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    route = slow_route(sites, 0.4)
    leads = tmp_path / "urls.txt"
    leads.write_text(f"{sites.url(route)}\n", encoding="utf-8")
    beats: list[int] = []
    beat = Store.heartbeat

    def counted(self: Store, run_id: int, *args: Any, **kwargs: Any) -> None:
        beats.append(run_id)
        beat(self, run_id, *args, **kwargs)

    monkeypatch.setattr("leadengine.batch.run.HEARTBEAT_EVERY", 0.05)
    monkeypatch.setattr(Store, "heartbeat", counted)
    summary = asyncio.run(run_batch(leads, FAST, kb, Store(tmp_path / "r.db")))
    assert summary.done == 1 and len(beats) >= 3 and set(beats) == {summary.run_id}


def test_results_are_looked_up_by_an_index_not_a_scan(tmp_path: Path) -> None:
    # Claims and replacements find a URL's rows by (url, kb_version, provider, model):
    # the tables' unique constraints index exactly that.
    Store(tmp_path / "r.db")
    with contextlib.closing(sqlite3.connect(tmp_path / "r.db")) as conn:
        for table in ("evaluations", "errors"):
            plan = " ".join(str(row) for row in conn.execute(
                f"EXPLAIN QUERY PLAN SELECT id FROM {table} WHERE url = 'u' AND "
                "kb_version = 'k' AND provider = 'p' AND model = 'm'"))
            assert f"USING COVERING INDEX sqlite_autoindex_{table}_1" in plan, plan


def _descendants(pid: int) -> set[int]:
    """Every live process under ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; its parent has not reaped it yet


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_killed_batch_leaves_no_process_behind(sites: SiteServer, tmp_path: Path) -> None:
    """kill -9 of a running batch (an OOM killer, a closed terminal): every process it
    started (its shards) ends within seconds, none left blocked on a pipe forever."""
    route = slow_route(sites, 0.3)
    urls = tmp_path / "urls.txt"
    urls.write_text("\n".join(sites.url(f"{route}?n={i}") for i in range(60)) + "\n",
                    encoding="utf-8")
    db_file = tmp_path / "r.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "leadengine", "batch", str(urls), "--db", str(db_file), *BATCH,
         "--concurrency", "2", "--per-host", "2", "--workers", "2"],
        env={**os.environ, "LEADENGINE_RETRIEVAL": "keyword"}, cwd=REPO,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _stored(db_file) < 2:
        time.sleep(0.1)
    children = _descendants(process.pid)
    assert len(children) >= 2, "the batch started no shard processes"
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in children):
        time.sleep(0.1)
    left = [pid for pid in children if _alive(pid)]
    for pid in left:  # not to leave them to the next test
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} of the batch's {len(children)} processes outlived it"
