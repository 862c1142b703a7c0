"""A batch on every core (``--workers``): its rows in shard processes, each running the
whole pipeline. The same stored evaluations as one process; a killed shard carries on;
a URL whose shard dies twice on it fails alone; rate limits are shared out."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from leadengine.batch.handout import Handout, shard_rows, split_rows
from leadengine.batch.input import Row
from leadengine.batch.messages import AskMore
from leadengine.batch.shards import (
    KILLED_TWICE,
    default_workers,
    shard_count,
)
from leadengine.batch.summary import Summary
from leadengine.cli import cli
from leadengine.config import Settings
from leadengine.errors import LeadEngineError
from leadengine.judgement.evaluators import make_evaluator
from leadengine.judgement.evaluators.llm import LLMEvaluator
from leadengine.retrieval.knowledge_base import KnowledgeBase
from leadengine.store import Store
from leadengine.website.urls import normalise_url
from tests.conftest import REPO, SITES, write_kb
from tests.fakes.site_server import SiteServer

NAMES = ["bangkok-clinic-mature", "bangkok-restaurant-thai", "yangon-clinic-burmese",
         "mandalay-hotel-robots", "bangkok-tutoring-mixed", "london-bakery"]
ENV = {"LEADENGINE_ALLOW_PRIVATE": "1", "LEADENGINE_PROVIDER": "heuristic",
       "LEADENGINE_RETRIEVAL": "keyword", "LEADENGINE_MAX_PAGES": "0",
       "LEADENGINE_HOST_DELAY": "0"}


def export(db: Path, out: Path) -> dict[str, dict[str, object]]:
    result = CliRunner().invoke(cli, ["export", "--db", str(db), "--format", "json",
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    return {row["url"]: {k: v for k, v in row.items()
                         if k not in ("evaluated_at", "elapsed", "run", "run_id",
                                      "fetched_at", "elapsed_seconds")}
            for row in json.loads(out.read_text(encoding="utf-8"))}


def test_a_batch_in_shards_stores_what_one_process_stores(tmp_path: Path) -> None:
    stored, lines = {}, {}
    with SiteServer(SITES) as server:
        # 6 sites, each under 6 addresses, one row twice and a bad row: 38 rows, 2 shards.
        urls = [f"{server.base_url}/{n}/?v={v}" for n in NAMES for v in range(6)]
        rows = "url\n" + "\n".join([*urls, urls[0], "not a url"]) + "\n"
        (tmp_path / "leads.csv").write_text(rows, encoding="utf-8")
        for workers in ("0", "2"):
            db = tmp_path / f"w{workers}.db"
            result = CliRunner().invoke(cli, [
                "batch", str(tmp_path / "leads.csv"), "--db", str(db), "--provider",
                "heuristic", "--method", "keyword", "--workers", workers, "--host-delay",
                "0", "--allow-private", "--max-pages", "0"])
            assert result.exit_code == 0, result.output
            lines[workers] = next(line for line in result.output.splitlines()
                                  if line.startswith("run 1:")).split(";")[0]
            stored[workers] = export(db, tmp_path / f"w{workers}.json")
            assert len(Store(str(db)).runs()) == 1  # one run, whatever the processes
    assert len(stored["0"]) == len(urls)
    assert stored["2"] == stored["0"]
    assert lines["2"] == lines["0"] == ("run 1: 36 evaluated, 1 failed, 0 already done, "
                                        "1 duplicates, 0 pages from snapshots")


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (Linux ``/proc``)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def shard_pids(parent: int) -> list[int]:
    """The shard processes of a batch run by the command line: the children of its
    process ``parent``, which forks them (no fork server, no other child)."""
    return children(parent)


def start_batch(tmp_path: Path, urls: list[str], db: Path,
                concurrency: int = 2) -> subprocess.Popen[bytes]:
    (tmp_path / "urls.txt").write_text("\n".join(urls) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "leadengine", "batch", str(tmp_path / "urls.txt"),
               "--db", str(db), "--workers", "2", "--concurrency", str(concurrency),
               "--per-host", "8"]
    return subprocess.Popen(command, env={**os.environ, **ENV}, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_for(check: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.1)


def signal_a_shard(sites: SiteServer, tmp_path: Path, name: str, sig: int
                   ) -> tuple[subprocess.Popen[bytes], str, Path, list[str]]:
    """A 2-shard batch of 40 slow rows, one of whose shards is sent ``sig`` once a few
    rows are stored; the batch process (ended), its stderr, database and URLs."""
    page = (SITES / "bangkok-dental-fb-only" / "index.html").read_text(encoding="utf-8")
    sites.route(f"/{name}/", body=page, delay=0.2)
    urls = [sites.url(f"{name}/?lead={i}") for i in range(40)]
    db = tmp_path / f"{name}.db"
    process = start_batch(tmp_path, urls, db)
    try:
        wait_for(lambda: len(shard_pids(process.pid)) == 2 and db.exists()
                 and len(list(Store(str(db)).evaluations())) >= 4)
        victims = shard_pids(process.pid)
        assert len(victims) == 2
        os.kill(victims[0], sig)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    return process, err.decode(), db, urls


def test_a_killed_shard_carries_on_and_nothing_is_lost(sites: SiteServer,
                                                       tmp_path: Path) -> None:
    process, err, db, urls = signal_a_shard(sites, tmp_path, "shard-kill", signal.SIGKILL)
    assert process.returncode == 0, err
    stored = [r["url"] for r in Store(str(db)).evaluations()]
    assert sorted(stored) == sorted(normalise_url(u) for u in urls)  # each exactly once
    assert Store(str(db)).errors() == []
    # The rows the killed process stored are this run's work, not "already done".
    assert "run 1: 40 evaluated, 0 failed, 0 already done" in err


def test_a_url_whose_shard_dies_twice_on_it_fails_alone(sites: SiteServer,
                                                        tmp_path: Path) -> None:
    page = (SITES / "bangkok-dental-fb-only" / "index.html").read_text(encoding="utf-8")
    sites.route("/shard-fast/", body=page)
    sites.route("/shard-poison/", body=page, delay=60)
    urls = [sites.url(f"shard-fast/?lead={i}") for i in range(40)]
    poison = sites.url("shard-poison/")
    db = tmp_path / "r.db"
    # Two workers a shard: the one held by the poison page leaves the other to finish
    # the rows queued behind it in that shard.
    process = start_batch(tmp_path, [*urls, poison], db, concurrency=4)
    try:
        for _ in range(2):  # the fast rows finish; the shard on the poison URL is killed
            wait_for(lambda: db.exists() and len(list(Store(str(db)).evaluations())) == 40
                     and len(shard_pids(process.pid)) == 1)
            time.sleep(1.0)  # it has asked for the poison page
            pids = shard_pids(process.pid)
            assert len(pids) == 1
            os.kill(pids[0], signal.SIGKILL)
            wait_for(lambda victim=pids[0]: victim not in shard_pids(process.pid))
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err.decode()
    assert len(list(Store(str(db)).evaluations())) == 40
    assert [e["error"] for e in Store(str(db)).errors()] == [
        f"{normalise_url(poison)}: {KILLED_TWICE}"]


def test_small_batches_stay_in_one_process_and_rows_meet_their_duplicates() -> None:
    assert shard_count(2, 31) == 1 and shard_count(2, 32) == 2 and shard_count(8, 40) == 2
    rows = [Row(index=i, raw=raw, passthrough={}) for i, raw in enumerate(
        ["https://a.example/", "HTTPS://A.example", "https://b.example/x", "", "bad url"])]
    parts = split_rows(rows, 3)
    assert sorted(r.index for part in parts for r in part) == [0, 1, 2, 3, 4]
    assert any({0, 1} <= {r.index for r in part} for part in parts)


def test_each_shard_gets_its_share_of_the_rate_limits(kb: KnowledgeBase,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEADENGINE_API_KEY", "k")
    settings = Settings(provider="custom", base_url="http://127.0.0.1:9/v1", llm_rpm=30,
                        llm_tpm=6000, llm_rpd=1000, llm_tpd=90_000)
    evaluator = make_evaluator(settings, kb)
    assert isinstance(evaluator, LLMEvaluator)
    evaluator.share_limits(2)
    limiter = evaluator.limiter
    assert limiter.requests is not None and limiter.tokens is not None
    assert limiter.day is not None and limiter.day_tokens is not None
    assert (limiter.requests.capacity, limiter.tokens.capacity, limiter.day.limit,
            limiter.day_tokens.limit) == (15, 3000, 500, 45_000)
    # A request is still fitted to the provider's whole limit, not the shard's share.
    assert evaluator.request_cap() == 6000
    assert Summary().line().startswith("run 0: 0 evaluated")


def test_workers_option_is_checked_and_defaults_to_the_cores() -> None:
    result = CliRunner().invoke(cli, ["batch", "leads.csv", "--workers", "-1"])
    assert result.exit_code == 2 and "-1 is not in the range x>=0" in result.output
    assert default_workers() >= 1
    assert Settings().workers is None


def test_shards_are_forked_from_the_batch_only_where_a_fork_is_safe(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from leadengine.batch import shards as batch_shards

    monkeypatch.setattr(batch_shards.sys, "platform", "linux")
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert batch_shards.start_processes().get_start_method() == "fork"
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert batch_shards.start_processes().get_start_method() == "fork"
    # Another thread (the workspace runs batches in one), a multi-threaded OpenMP
    # runtime, another system: a fork server starts the shards, sharing nothing.
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert batch_shards.start_processes().get_start_method() == "forkserver"
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert batch_shards.start_processes().get_start_method() == "forkserver"
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(batch_shards.sys, "platform", "darwin")
    assert batch_shards.start_processes().get_start_method() == "forkserver"


def test_the_batch_builds_its_index_before_its_shards_start(tmp_path: Path) -> None:
    from leadengine.batch.shards import prepare

    root = write_kb(tmp_path / "kb", {"a.md": "# Clinics\nclinic bangkok booking " * 20,
                                      "b.md": "# Hotels\nhotel rooms yangon " * 20})
    settings = Settings(knowledge_dir=root, embedder="hash", cache_dir=tmp_path / "cache",
                        retrieval_method="hybrid")
    kb = KnowledgeBase.from_settings(settings)
    prepare(kb, settings, forked=False)
    # bm25 and the semantic half alike: a shard forked now has them, and the vectors are
    # cached for a fork server's shards to read.
    assert kb._index is not None
    assert set(kb._index._retrievers) == {"bm25", "hybrid", "semantic"}
    assert any((tmp_path / "cache").rglob("*"))
    bare = KnowledgeBase.from_settings(settings)
    prepare(bare, settings.with_options(use_rag=False), forked=False)
    assert bare._index is None  # without RAG, nothing is built
    # Before a fork, what the shards inherit is frozen out of the collector's walks.
    import gc

    gc.unfreeze()
    prepare(bare, settings.with_options(use_rag=False), forked=True)
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
    # An index that cannot be built (an embedder that needs a key it lacks) is left to
    # the shards, which report it on the rows: it does not stop the batch here.
    keyless = KnowledgeBase.from_dir(root, embedder="openai", cache_dir=tmp_path / "c2")
    prepare(keyless, settings, forked=False)
    with pytest.raises(LeadEngineError):
        keyless.retriever("hybrid").retrieve("clinic")


def test_shards_forked_after_prepare_start_with_the_page_regexes_compiled(
        tmp_path: Path) -> None:
    """A page's first read compiled the injection rules and the knowledge base's keyword
    regexes in each shard (about 20 ms before its first LLM request): compiled before
    the fork instead, a forked shard finds them in the caches it inherits."""
    from leadengine.batch.shards import prepare
    from leadengine.knowledge.keywords import KeywordCounter
    from leadengine.website import injection
    from leadengine.website.injection_rules import SCRIPTS

    kb = KnowledgeBase.from_settings(Settings())
    injection._compiled.cache_clear()
    KeywordCounter._cache.clear()
    try:
        prepare(kb, Settings(use_rag=False), forked=True)
    finally:
        import gc

        gc.unfreeze()
    patterns = {pattern for _, group in SCRIPTS for _, pattern in group}
    assert injection._compiled.cache_info().currsize == len(patterns) > 20
    counter = KeywordCounter._cache[id(kb.rules)][1]
    assert counter.phrases and counter is KeywordCounter.for_rules(kb.rules)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the shard: nothing compiled anew
        before = injection._compiled.cache_info()
        for _, group in SCRIPTS:
            for _, pattern in group:
                injection._compiled(pattern)
        after = injection._compiled.cache_info()
        same = KeywordCounter.for_rules(kb.rules) is counter
        os.write(write, b"1" if same and after.misses == before.misses else b"0")
        os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(child, 0)


def test_a_shard_sent_sigterm_is_started_again_and_the_batch_goes_on(
        sites: SiteServer, tmp_path: Path) -> None:
    """A forked shard does not keep its parent's signal handling: SIGTERM ends the shard
    alone (it would have reached the batch's own event loop, which stops the batch),
    and the shard is started again like one that was killed."""
    process, err, db, urls = signal_a_shard(sites, tmp_path, "shard-term", signal.SIGTERM)
    assert process.returncode == 0, err
    assert sorted(r["url"] for r in Store(str(db)).evaluations()) == sorted(
        normalise_url(u) for u in urls)
    assert "run 1: 40 evaluated, 0 failed, 0 already done" in err
    assert Store(str(db)).runs()[0]["status"] == "done"


def test_shards_forked_with_the_preloaded_index_store_what_one_process_stores(
        sites: SiteServer, tmp_path: Path) -> None:
    # In processes of their own (the command line's batch forks its shards). Hybrid
    # retrieval: the shards rank with the index the batch built before it forked them.
    urls = [f"{sites.base_url}/{n}/?v={v}" for n in NAMES for v in range(6)]
    (tmp_path / "urls.txt").write_text("\n".join(urls) + "\n", encoding="utf-8")
    env = {**os.environ, **ENV, "LEADENGINE_RETRIEVAL": "hybrid",
           "LEADENGINE_EMBEDDER": "hash", "LEADENGINE_CACHE_DIR": str(tmp_path / "cache")}
    stored = {}
    for workers in ("2", "0"):
        db = tmp_path / f"w{workers}.db"
        subprocess.run([sys.executable, "-m", "leadengine", "batch", str(tmp_path / "urls.txt"),
                        "--db", str(db), "--workers", workers], env=env, cwd=REPO,
                       check=True, capture_output=True, timeout=120)
        stored[workers] = export(db, tmp_path / f"w{workers}.json")
    assert len(stored["0"]) == len(urls)
    assert stored["2"] == stored["0"]
    assert all(row["sources"] for row in stored["0"].values())


def test_rows_are_handed_out_as_shards_ask_fewer_at_a_time() -> None:
    raws = [f"https://site{i % 300}.example/" for i in range(400)]  # 100 duplicates
    rows = [Row(index=i, raw=raw, passthrough={}) for i, raw in enumerate(raws)]
    handout = Handout(rows, shards=2)
    takes = []
    while batch := handout.take():
        takes.append(batch)
    assert handout.take() == []
    handed = [row.index for batch in takes for row in batch]
    assert sorted(handed) == list(range(400))  # every row once
    # A URL's duplicates are handed out together (they meet in one shard).
    where = {row.raw: n for n, batch in enumerate(takes) for row in batch}
    assert all(where[row.raw] == n for n, batch in enumerate(takes) for row in batch)
    # Half of what is left, shared by the two shards: a quarter first, one group last.
    sizes = [len(batch) for batch in takes]
    assert 80 <= sizes[0] <= 160 and sizes[-1] < 20 and len(takes) > 10
    assert sizes[:4] == sorted(sizes[:4], reverse=True)
    # Groups go in the order of their first rows: the input is worked through in order.
    firsts = [min(row.index for row in batch) for batch in takes]
    assert firsts[0] == 0 and firsts == sorted(firsts)


def test_a_shard_asks_for_rows_until_there_are_none() -> None:
    import multiprocessing

    rows = [Row(index=i, raw=f"https://a{i}.example/", passthrough={}) for i in range(5)]
    asks, events = multiprocessing.Pipe(duplex=False)
    more, answers = multiprocessing.Pipe(duplex=False)
    answers.send(rows[2:4])
    answers.send(rows[4:])
    answers.send([])
    assert [row.index for row in shard_rows(rows[:2], events, more)] == [0, 1, 2, 3, 4]
    assert [asks.recv() for _ in range(3)] == [AskMore()] * 3
    # A parent that is gone ends the rows.
    answers.close()
    assert [row.index for row in shard_rows(rows[:1], events, more)] == [0]


def test_a_shard_whose_share_of_the_daily_quota_runs_out_leaves_the_others_to_finish(
        sites: SiteServer, tmp_path: Path) -> None:
    """Each of two shards has half of the day's 10 requests: the one that runs out
    first stops starting rows but does not stop the other, whose requests in flight are
    paid for; the batch stops once both have, with every paid answer stored."""
    from tests.fakes.openai_server import SMILE_ANSWER as answer
    from tests.fakes.openai_server import FakeOpenAI, Reply

    urls = [sites.url(f"bangkok-dental-fb-only/?share={i}") for i in range(40)]
    (tmp_path / "urls.txt").write_text("\n".join(urls) + "\n", encoding="utf-8")
    db = tmp_path / "s.db"
    with FakeOpenAI() as fake:
        fake.default = Reply.json(answer, delay=0.3)
        env = {**os.environ, **ENV, "LEADENGINE_PROVIDER": "groq", "GROQ_API_KEY": "k",
               "LEADENGINE_LLM_RPD": "10", "LEADENGINE_LLM_RPM": "0",
               "LEADENGINE_LLM_TPM": "0"}
        done = subprocess.run(
            [sys.executable, "-m", "leadengine", "batch", str(tmp_path / "urls.txt"),
             "--db", str(db), "--workers", "2", "--concurrency", "4", "--base-url",
             fake.base_url, "--no-cache"],
            env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "daily request limit of 5 reached for groq" in done.stderr.splitlines()[-1]
    assert len(fake.chat_requests) == 10
    assert len(list(Store(str(db)).evaluations())) == 10 and Store(str(db)).errors() == []


def test_shards_share_the_per_host_limits(sites: SiteServer, tmp_path: Path) -> None:
    """Rows are split by URL, so one host's sites go to every shard: each shard has its
    share of ``--per-host`` (and starts them N times ``--host-delay`` apart), so the host
    never sees more than ``--per-host`` requests at once."""
    from leadengine.batch.shards import share_host_limits

    page = (SITES / "bangkok-dental-fb-only" / "index.html").read_text(encoding="utf-8")
    sites.route("/one-host/", body=page, delay=0.25)
    urls = [sites.url(f"one-host/?lead={i}") for i in range(40)]
    (tmp_path / "urls.txt").write_text("\n".join(urls) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "leadengine", "batch", str(tmp_path / "urls.txt"), "--db",
         str(tmp_path / "h.db"), "--workers", "2", "--concurrency", "8", "--per-host", "2"],
        env={**os.environ, **ENV}, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "run 1: 40 evaluated, 0 failed" in done.stderr
    assert sites.most_busy["/one-host/"] == 2
    assert [share_host_limits(n, Settings(host_delay=0.5), 2)[0] for n in (1, 2, 5)] == [
        1, 1, 2]
    assert share_host_limits(2, Settings(host_delay=0.5), 4)[1].host_delay == 2.0
