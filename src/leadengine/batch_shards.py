"""A batch on every core: its rows split into shards, each run by its own process.

``--workers N`` (default: one per core) starts up to N processes, each running the
whole pipeline (fetch, read, evaluate, store) on its share of the rows, under the
batch's one run: one event loop per core, where one loop feeding a pool of page
readers left the loop itself the bottleneck (it fetched, evaluated and stored every
row). Rows are sharded by normalised URL (a URL's duplicates meet in one shard, as the
Ray engine does); a batch of few rows runs in this process.

The parent keeps the run (its heartbeat renews every shard's claims), merges the
shards' progress for the progress bar, and shares the LLM rate limits out: each shard
gets 1/N of the requests and tokens per minute and per day, so together they never
exceed the provider's limits.

A shard whose process dies (killed, out of memory) is started again and carries on
(stored rows are skipped; its claims are the run's own). A URL that was being read
when its shard died twice is recorded as failed with one line, so one page that kills
its reader cannot stop the batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import multiprocessing
import queue
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from leadengine.batch_input import Row
from leadengine.batch_summary import Summary
from leadengine.errors import LeadEngineError

if TYPE_CHECKING:
    from leadengine.batch import BatchRun
    from leadengine.evaluators import Evaluator

#: Rows per shard at least: a smaller batch uses fewer processes (each costs about a
#: second of start-up CPU).
MIN_ROWS_PER_SHARD = 16
#: Times a shard's process may die before the batch stops.
SHARD_RETRIES = 3
#: Seconds between two progress messages of a shard.
PROGRESS_EVERY = 0.1
#: Said for a URL whose shard died twice while reading it.
KILLED_TWICE = ("a batch process stopped (killed, or out of memory) while evaluating it, "
                "twice")


def shard_count(workers: int, rows: int) -> int:
    """Processes for a batch of ``rows`` rows with ``workers`` allowed (1: this one)."""
    return max(1, min(workers, rows // MIN_ROWS_PER_SHARD))


def shard_key(row: Row) -> str:
    """What a row is sharded by: its normalised URL (duplicates meet), else its index."""
    from leadengine.batch import normalise_url

    if row.error is None:
        with contextlib.suppress(LeadEngineError):
            return normalise_url(row.raw)
    return f"#{row.index}"


def split_rows(rows: Sequence[Row], shards: int) -> list[list[Row]]:
    """``rows`` in ``shards`` lists (input order kept within each), empty ones dropped."""
    parts: list[list[Row]] = [[] for _ in range(shards)]
    for row in rows:
        parts[zlib.crc32(shard_key(row).encode("utf-8", "replace")) % shards].append(row)
    return [part for part in parts if part]


def merge(summaries: Sequence[Summary], into: Summary) -> Summary:
    """``into`` holding the sum of the shards' counters (its run id and start kept)."""
    for name in ("total", "done", "failed", "skipped_done", "skipped_failed",
                 "duplicates", "elsewhere", "tokens", "cost_usd", "reused_pages"):
        setattr(into, name, sum(getattr(part, name) for part in summaries))
    into.elsewhere_runs = set().union(*(part.elsewhere_runs for part in summaries))
    into.reasons = Counter()
    for part in summaries:
        into.reasons.update(part.reasons)
    return into


def share_limits(evaluator: Evaluator, shards: int) -> None:
    """Give ``evaluator`` 1/``shards`` of its provider's rate limits (at least one
    request a minute, a day)."""
    limiter = getattr(evaluator, "limiter", None)
    if limiter is None or shards <= 1:
        return
    from leadengine.ratelimit import RateLimiter

    rpm = max(1, int(limiter.requests.capacity) // shards) if limiter.requests else None
    tpm = max(1, int(limiter.tokens.capacity) // shards) if limiter.tokens else None
    rpd = max(1, limiter.day.limit // shards) if limiter.day else None
    evaluator.limiter = RateLimiter(rpm, tpm, rpd=rpd, name=limiter.name)  # type: ignore[attr-defined]


@dataclasses.dataclass(frozen=True)
class ShardJob:
    """What a shard's process is given."""

    index: int
    shards: int
    name: str
    settings: Any
    kb: Any
    db: str
    key: Any
    retry_since: float | None
    concurrency: int
    per_host: int
    max_age: float | None
    lease: float
    retry_failed: bool
    rows: list[Row]


def shard_main(job: ShardJob, events: Any) -> None:
    """A shard's process: the batch's pipeline on its rows (sent after start), its
    progress and the URLs it starts and ends sent to the parent."""
    from leadengine.batch import BatchOptions, BatchRun
    from leadengine.evaluators import make_evaluator
    from leadengine.store import Store

    rows = job.rows
    settings = dataclasses.replace(job.settings, workers=0)
    evaluator = make_evaluator(settings, job.kb)
    share_limits(evaluator, job.shards)
    sent = [0.0]

    def progress(summary: Summary) -> None:
        if time.monotonic() - sent[0] >= PROGRESS_EVERY:
            sent[0] = time.monotonic()
            events.put(("progress", job.index, summary))

    options = BatchOptions(retry_failed=job.retry_failed, concurrency=job.concurrency,
                           per_host=job.per_host, on_progress=progress,
                           max_age=job.max_age, lease=job.lease)
    store = Store(job.db)
    batch = BatchRun(job.name, settings, job.kb, store, options, evaluator)
    batch.adopt(job.key, job.retry_since)
    batch.on_url = lambda what, url: events.put((what, job.index, url))
    try:
        asyncio.run(batch.process(rows))
    except LeadEngineError as exc:
        events.put(("error", job.index, exc))
        return
    batch.summary.reused_pages = batch.snapshots.reused
    events.put(("done", job.index, batch.summary))


async def run_shards(batch: BatchRun, rows: list[Row], shards: int) -> None:
    """Run ``batch`` (started) in ``shards`` processes; its summary holds their sum.
    Any exception (a shard's LeadEngineError, a cancellation) stops every process."""
    parts = split_rows(rows, shards)
    # A fork server with the batch imported: a shard starts in milliseconds, and shares
    # nothing (threads, database connections) with this process.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["leadengine.batch"])
    events = context.Queue()
    per_shard = max(1, -(-batch.options.concurrency // len(parts)))
    jobs = [ShardJob(index, len(parts), batch.name, batch.settings, batch.kb,
                     batch.store.url, batch.key, batch.retry_since, per_shard,
                     batch.options.per_host, batch.options.max_age, batch.options.lease,
                     batch.options.retry_failed, part) for index, part in enumerate(parts)]
    by_url = {shard_key(row): row for row in rows}
    latest = [Summary() for _ in parts]
    finished: dict[int, Summary] = {}
    in_flight: list[set[str]] = [set() for _ in parts]
    deaths = [0] * len(parts)
    suspects: Counter[str] = Counter()
    processes: dict[int, Any] = {}

    def start(index: int) -> None:
        process = context.Process(target=shard_main, args=(jobs[index], events),
                                  daemon=True)
        process.start()
        processes[index] = process

    def handle(event: tuple[str, int, Any]) -> None:
        what, index, value = event
        if what == "start":
            in_flight[index].add(value)
        elif what == "end":
            in_flight[index].discard(value)
        elif what == "progress":
            latest[index] = value
        elif what == "done":
            latest[index] = finished[index] = value
        elif what == "error":
            raise value
        merge(latest, batch.summary)

    try:
        for index in range(len(parts)):
            start(index)
        while len(finished) < len(parts):
            try:
                handle(events.get(timeout=0.05))
                while True:
                    handle(events.get_nowait())
            except queue.Empty:
                pass
            batch.log_progress()
            await asyncio.sleep(0)
            for index, process in list(processes.items()):
                if index in finished or process.is_alive():
                    continue
                await asyncio.sleep(0.05)  # its last events may still be in the pipe
                with contextlib.suppress(queue.Empty):
                    while True:
                        handle(events.get_nowait())
                if index in finished:
                    continue
                deaths[index] += 1
                if deaths[index] > SHARD_RETRIES:
                    raise LeadEngineError(
                        f"a batch process died {deaths[index]} times (killed, or out of "
                        "memory); what was stored stays: run the same command again to "
                        "resume")
                for url in in_flight[index]:
                    suspects[url] += 1
                    if suspects[url] >= 2 and url in by_url:
                        row = by_url[url]
                        batch.store.record_error(batch.key, row.index, url,
                                                 f"{url}: {KILLED_TWICE}", row.passthrough)
                in_flight[index].clear()
                start(index)
    finally:
        for process in processes.values():
            if process.is_alive():
                process.terminate()
        for process in processes.values():
            process.join(timeout=5)
        events.close()
