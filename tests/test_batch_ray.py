"""``batch --engine ray``: the same batch sharded into Ray tasks on a local Ray instance
(2 CPUs), writing to a shared PostgreSQL store (skipped without TEST_POSTGRES_URL)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from leadengine import KnowledgeBase, Settings
from leadengine.batch import BatchOptions, run_batch
from leadengine.batch.ray import (
    LimitsHolder,
    RayOptions,
    check_reachable,
    gather,
    run_batch_on_ray,
    shard_error,
)
from leadengine.batch.summary import Summary
from leadengine.errors import ConfigError, LeadEngineError, QuotaExhausted
from leadengine.store import Store
from leadengine.website.urls import normalise_url
from tests.conftest import REPO, SITES, postgres_database
from tests.fakes.site_server import SiteServer

ray = pytest.importorskip("ray")

FAST = Settings(provider="heuristic", retrieval_method="keyword", allow_private=True,
                timeout=2.0, page_deadline=4.0, max_pages=0, host_delay=0.0, workers=0)
#: Fields that differ between two runs of the same evaluation.
VOLATILE = {"id", "run_id", "created_at", "elapsed_s", "timings", "fetched_at"}


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray instance for the module; its GCS address."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()


@pytest.fixture
def pg() -> Iterator[str]:
    with postgres_database() as url:
        yield url


def stable(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in VOLATILE}


def fixture_urls() -> list[str]:
    return [f"{SITES / name}/" for name in sorted(os.listdir(SITES)) if name != "huge-page"]


def test_same_stored_evaluations_as_the_local_engine(cluster: str, kb: KnowledgeBase,
                                                     tmp_path: Path) -> None:
    urls = fixture_urls()
    source = tmp_path / "urls.txt"
    source.write_text("\n".join([*urls, urls[0], "not a url"]) + "\n", encoding="utf-8")
    with postgres_database() as local_db, postgres_database() as ray_db:
        local = asyncio.run(run_batch(source, FAST, kb, Store(local_db),
                                      BatchOptions(concurrency=4)))
        seen: list[tuple[int, int]] = []
        summary = run_batch_on_ray(source, FAST, kb, Store(ray_db), RayOptions(),
                                   BatchOptions(concurrency=4, on_progress=lambda s: seen.append(
                                       (s.run_id, s.handled))))
        assert (summary.done, summary.failed, summary.duplicates) == (
            local.done, local.failed, local.duplicates) == (len(urls), 1, 1)
        # One run for the batch, as locally (its shards work under it), and progress
        # as the shards report it, ending at every row.
        runs = Store(ray_db).runs()
        assert summary.run_ids == [summary.run_id] == [run["id"] for run in runs]
        assert runs[0]["status"] == "done" and runs[0]["evaluated"] == len(urls)
        assert seen and {run for run, _ in seen} == {summary.run_id}
        assert seen[0][1] == 0 and max(handled for _, handled in seen) <= len(urls) + 2
        by_url = {r["url"]: stable(r) for r in Store(local_db).evaluations()}
        on_ray = {r["url"]: stable(r) for r in Store(ray_db).evaluations()}
        assert on_ray == by_url and len(on_ray) == len(urls)
        assert [e["error"] for e in Store(ray_db).errors()] == [
            e["error"] for e in Store(local_db).errors()]
        # Run again: everything is stored, nothing is evaluated twice; as locally.
        again = run_batch_on_ray(source, FAST, kb, Store(ray_db), RayOptions(),
                                 BatchOptions(concurrency=4))
        local = asyncio.run(run_batch(source, FAST, kb, Store(local_db),
                                      BatchOptions(concurrency=4)))
        assert (again.done, again.skipped_done) == (0, len(urls))
        assert (again.failed, again.skipped_failed, again.duplicates) == (
            local.failed, local.skipped_failed, local.duplicates)


def slow_sites(sites: SiteServer, count: int, delay: float) -> list[str]:
    page = (SITES / "bangkok-dental-fb-only" / "index.html").read_text(encoding="utf-8")
    sites.route("/ray-slow/", body=page, delay=delay)
    return [sites.url(f"ray-slow/?lead={i}") for i in range(count)]


def worker_pids(db: str) -> list[int]:
    """The processes holding the batch's claims (its shards' Ray workers)."""
    with Store(db).engine.connect() as conn:
        owners = conn.exec_driver_sql("SELECT owner FROM claims").scalars().all()
    return sorted({int(owner.rsplit(":", 1)[1]) for owner in owners} - {os.getpid()})


def test_a_killed_worker_s_rows_are_retried(cluster: str, kb: KnowledgeBase,
                                            sites: SiteServer, pg: str,
                                            tmp_path: Path) -> None:
    urls = slow_sites(sites, 24, 0.3)
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(urls) + "\n", encoding="utf-8")
    result: dict[str, Any] = {}

    def drive() -> None:
        try:
            result["summary"] = run_batch_on_ray(source, FAST, kb, Store(pg), RayOptions(),
                                                 BatchOptions(concurrency=2, per_host=4))
        except BaseException as exc:  # reported below
            result["error"] = exc

    driver = threading.Thread(target=drive)
    driver.start()
    deadline = time.monotonic() + 60
    victim = None
    while victim is None and time.monotonic() < deadline:
        time.sleep(0.2)
        stored = len(list(Store(pg).evaluations()))
        pids = worker_pids(pg)
        if stored >= 2 and pids:
            victim = pids[0]
    assert victim is not None and victim != os.getpid()
    os.kill(victim, signal.SIGKILL)
    driver.join(timeout=120)
    assert "error" not in result, result.get("error")
    stored_urls = [r["url"] for r in Store(pg).evaluations()]
    assert sorted(stored_urls) == sorted(normalise_url(u) for u in urls)  # each once
    assert Store(pg).errors() == []
    # A truthful summary: one run, which did every row (the retried shard counts what
    # its dead attempt stored as this batch's work, not as "already done").
    summary, runs = result["summary"], Store(pg).runs()
    assert [run["status"] for run in runs] == ["done"] and summary.run_ids == [runs[0]["id"]]
    assert (summary.done, summary.skipped_done, summary.failed) == (24, 0, 0)
    assert runs[0]["evaluated"] == 24


def test_a_killed_driver_restarts_without_duplicates(cluster: str, sites: SiteServer,
                                                     pg: str, tmp_path: Path) -> None:
    urls = slow_sites(sites, 30, 0.3)
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(urls) + "\n", encoding="utf-8")
    env = {**os.environ, "LEADENGINE_ALLOW_PRIVATE": "1", "LEADENGINE_PROVIDER": "heuristic",
           "LEADENGINE_RETRIEVAL": "keyword", "LEADENGINE_MAX_PAGES": "0",
           "LEADENGINE_HOST_DELAY": "0"}
    command = [sys.executable, "-m", "leadengine", "batch", str(source), "--db", pg,
               "--engine", "ray", "--address", cluster, "--concurrency", "2",
               "--per-host", "4"]
    process = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    stored = 0
    while time.monotonic() < deadline and stored < 4:
        time.sleep(0.2)
        stored = len(list(Store(pg).evaluations()))
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert 4 <= stored < len(urls), stored
    finished = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True,
                              timeout=180)
    assert finished.returncode == 0, finished.stderr
    stored_urls = [r["url"] for r in Store(pg).evaluations()]
    assert sorted(stored_urls) == sorted(normalise_url(u) for u in urls)  # each once
    assert Store(pg).errors() == []
    assert "already done" in finished.stderr
    # Ray's own notices stay off the user's terminal; the summary names one run.
    assert finished.stdout == "" and "Token authentication" not in finished.stderr
    assert not [line for line in finished.stderr.splitlines()
                if not line.startswith(("batch: ", "run ", "progress: ", "results: "))]
    runs = Store(pg).runs()
    assert [run["status"] for run in runs] == ["interrupted", "done"]
    assert f"run {runs[1]['id']}:" in finished.stderr


def test_rate_limits_hold_across_processes(cluster: str) -> None:
    """Two tasks (two processes) share one token bucket: 6,000 tokens a minute (100 a
    second), the first takes them all, the second waits for its 50 (about 0.5 s)."""
    holder = ray.remote(num_cpus=0)(LimitsHolder).remote(None, 6000, None, "fake")

    def spend(actor: Any, tokens: int) -> float:
        from leadengine.batch.ray import ClusterLimiter

        limiter = ClusterLimiter(actor)
        asyncio.run(limiter.acquire(tokens))
        return limiter.waited

    task = ray.remote(num_cpus=1)(spend)
    assert ray.get(task.remote(holder, 6000)) == 0.0
    assert 0.3 <= ray.get(task.remote(holder, 50)) <= 0.6


def test_sqlite_is_refused_with_one_line(cluster: str, kb: KnowledgeBase,
                                         tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://example.com/\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^--engine ray needs a PostgreSQL database "
                                          r"\(--db postgresql://\.\.\.\): "):
        run_batch_on_ray(source, FAST, kb, Store(str(tmp_path / "r.db")), RayOptions())


def test_an_unreachable_cluster_is_named() -> None:
    started = time.monotonic()
    with pytest.raises(ConfigError, match=r"^cannot reach the Ray cluster at "
                                          r"127\.0\.0\.1:9: .*refused"):
        check_reachable("127.0.0.1:9")
    with pytest.raises(ConfigError, match=r"^cannot reach the Ray cluster at "
                                          r"ray://127\.0\.0\.1:9: "):
        check_reachable("ray://127.0.0.1:9")
    with pytest.raises(ConfigError, match="expected auto, host:port or ray://host:port"):
        check_reachable("nowhere")
    assert time.monotonic() - started < 15


def test_cli_bad_input_is_one_line(pg: str, tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://example.com/\n", encoding="utf-8")
    base = [sys.executable, "-m", "leadengine", "batch", str(source)]
    env = {**os.environ, "LEADENGINE_PROVIDER": "heuristic"}
    cases = {
        ("--engine", "ray", "--db", str(tmp_path / "r.db")):
            "error: --engine ray needs a PostgreSQL database",
        ("--engine", "ray", "--db", pg, "--address", "127.0.0.1:9"):
            "error: cannot reach the Ray cluster at 127.0.0.1:9",
        ("--address", "auto", "--db", str(tmp_path / "r.db")):
            "error: --address names a Ray cluster: use it with --engine ray",
    }
    for args, message in cases.items():
        done = subprocess.run([*base, *args], env=env, cwd=REPO, capture_output=True,
                              text=True, timeout=60)
        last = done.stderr.strip().splitlines()[-1]
        assert done.returncode != 0 and last.startswith(message), done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "r.db").exists()  # a refused command leaves no database


def test_help_does_not_import_ray() -> None:
    code = ("import sys\nfrom leadengine.cli import main\n"
            "sys.argv = ['leadengine', 'batch', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('ray' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert "--engine [local|ray]" in done.stdout and "--address ADDRESS" in done.stdout
    assert done.stderr.strip() == "False", done.stderr


def test_a_failed_shard_says_why_in_one_line() -> None:
    quota = QuotaExhausted("daily request limit of 1,000 reached for groq")
    assert shard_error(ray.exceptions.RayTaskError("run_shard", "tb", quota)) is quota
    other = shard_error(ray.exceptions.RayTaskError("run_shard", "tb", KeyError("x")))
    assert isinstance(other, LeadEngineError)
    assert str(other) == "a shard of the batch failed: KeyError: 'x'"
    died = shard_error(ray.exceptions.WorkerCrashedError())
    assert str(died).startswith("a Ray worker died 4 times running one shard")
    interrupt = KeyboardInterrupt()
    assert shard_error(interrupt) is interrupt


def test_a_shard_out_of_daily_quota_leaves_the_others_to_finish() -> None:
    """The shards' ends are gathered one by one: a used-up quota (every shard meets it,
    each storing what it had started) is raised once all have ended, so no shard's paid
    requests are cancelled; any other failure is raised at once."""
    quota = QuotaExhausted("daily request limit of 10 reached for groq")
    ends: dict[str, Any] = {"a": ray.exceptions.RayTaskError("run_shard", "tb", quota),
                            "b": Summary(done=4), "c": Summary(done=5)}
    waited: list[str] = []

    class FakeRay:
        exceptions = ray.exceptions

        @staticmethod
        def wait(pending: list[str], num_returns: int) -> tuple[list[str], list[str]]:
            waited.append(pending[0])
            return pending[:num_returns], pending[num_returns:]

        @staticmethod
        def get(done: list[str]) -> list[Summary]:
            found = [ends[ref] for ref in done]
            for end in found:
                if isinstance(end, BaseException):
                    raise end
            return found

    with pytest.raises(ray.exceptions.RayTaskError) as raised:
        gather(FakeRay(), ["a", "b", "c"])
    assert raised.value.cause is quota and waited == ["a", "b", "c"]
    assert [s.done for s in gather(FakeRay(), ["b", "c"])] == [4, 5]
    ends["b"] = ray.exceptions.RayTaskError("run_shard", "tb", KeyError("x"))
    with pytest.raises(ray.exceptions.RayTaskError):
        gather(FakeRay(), ["b", "c", "a"])
    assert waited[-1] == "b"  # raised at once: "c" and "a" not waited for
