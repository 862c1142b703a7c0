"""A batch on every core: its rows split into shards, each run by its own process.

``--workers N`` (default: one per core) starts up to N processes, each running the
whole pipeline (fetch, read, evaluate, store) on its share of the rows, under the
batch's one run: one event loop per core, where one loop feeding a pool of page
readers left the loop itself the bottleneck (it fetched, evaluated and stored every
row). The rows are split into groups by normalised URL (a URL's duplicates meet in one
group, so in one shard, as the Ray engine does), and the groups are handed out as the
shards ask for them, fewer at a time as fewer are left
(:class:`leadengine.batch_handout.Handout`), so the shards finish together however
much their rows cost; a batch of few rows runs in this process.

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
import os
import time
from collections import Counter
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from leadengine.batch_handout import Handout, shard_key, shard_rows
from leadengine.batch_input import Row
from leadengine.batch_summary import Summary
from leadengine.errors import LeadEngineError

if TYPE_CHECKING:
    from leadengine.batch import BatchRun
    from leadengine.config import Settings
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


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def shard_count(workers: int, rows: int) -> int:
    """Processes for a batch of ``rows`` rows with ``workers`` allowed (1: this one)."""
    return max(1, min(workers, rows // MIN_ROWS_PER_SHARD))


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


def shard_main(job: ShardJob, events: Connection, more: Connection) -> None:
    """A shard's process: the batch's pipeline on its rows (``job.rows``, then those the
    parent hands out on ``more`` when asked), its progress and the URLs it starts and
    ends sent to the parent on ``events`` (a pipe: a send is one write, no feeder
    thread, so telling costs microseconds a URL)."""
    from leadengine.batch import BatchOptions, BatchRun
    from leadengine.batch_preload import knowledge_for
    from leadengine.evaluators import make_evaluator
    from leadengine.store import Store

    rows = shard_rows(job.rows, events, more)
    settings = dataclasses.replace(job.settings, workers=0)
    kb = knowledge_for(job.kb)  # the fork server's, its index built, when it is this one
    evaluator = make_evaluator(settings, kb)
    share_limits(evaluator, job.shards)
    sent = [0.0]

    def progress(summary: Summary) -> None:
        if time.monotonic() - sent[0] >= PROGRESS_EVERY:
            sent[0] = time.monotonic()
            events.send(("progress", summary))

    options = BatchOptions(retry_failed=job.retry_failed, concurrency=job.concurrency,
                           per_host=job.per_host, on_progress=progress,
                           max_age=job.max_age, lease=job.lease)
    store = Store(job.db)
    batch = BatchRun(job.name, settings, kb, store, options, evaluator)
    batch.adopt(job.key, job.retry_since)
    batch.on_url = lambda what, url: events.send((what, url))
    try:
        asyncio.run(batch.process(rows))
    except LeadEngineError as exc:
        events.send(("error", exc))
        return
    batch.summary.reused_pages = batch.snapshots.reused
    events.send(("done", batch.summary))
    events.close()


@dataclasses.dataclass
class Shard:
    """The parent's view of one shard: its process, its pipe, what it said."""

    job: ShardJob
    process: Any = None
    events: Connection | None = None
    latest: Summary = dataclasses.field(default_factory=Summary)
    finished: bool = False
    deaths: int = 0
    #: The URLs it has started and not ended.
    in_flight: set[str] = dataclasses.field(default_factory=set)
    #: Where the parent answers its asks for more rows.
    more: Connection | None = None
    #: Every row handed to it (a process started again is given them all).
    given: list[Row] = dataclasses.field(default_factory=list)


async def run_shards(batch: BatchRun, rows: list[Row], shards: int) -> None:
    """Run ``batch`` (started) in ``shards`` processes; its summary holds their sum.
    Any exception (a shard's LeadEngineError, a cancellation) stops every process.

    The parent waits on the shards' pipes in its event loop (``add_reader``): an event
    is handled when it arrives, and a pipe's end (its process exited or died) decides
    whether the shard finished or is started again."""
    handout = Handout(rows, shards)
    context = start_processes()
    loop = asyncio.get_running_loop()
    per_shard = max(1, -(-batch.options.concurrency // shards))
    states = [Shard(ShardJob(index, shards, batch.name, batch.settings, batch.kb,
                             batch.store.url, batch.key, batch.retry_since, per_shard,
                             batch.options.per_host, batch.options.max_age,
                             batch.options.lease, batch.options.retry_failed, []))
              for index in range(shards)]
    by_url = {shard_key(row): row for row in rows}
    suspects: Counter[str] = Counter()
    ended: asyncio.Future[None] = loop.create_future()

    def start(shard: Shard) -> None:
        if not shard.given:
            shard.given = handout.take()
        # Started again, a shard is given every row it was handed: those its dead
        # process stored are skipped as this run's.
        shard.job = dataclasses.replace(shard.job, rows=list(shard.given))
        receive, send = context.Pipe(duplex=False)
        asked, answer = context.Pipe(duplex=False)
        shard.process = context.Process(target=shard_main, args=(shard.job, send, asked),
                                        daemon=True)
        shard.process.start()
        send.close()  # the child's ends: the pipes end when the child does
        asked.close()
        shard.events, shard.more = receive, answer
        loop.add_reader(receive.fileno(), readable, shard)

    def readable(shard: Shard) -> None:
        # One message a call: the loop calls again while the pipe has more (a poll()
        # first would build a selector each time).
        try:
            assert shard.events is not None
            try:
                message = shard.events.recv()
            except (EOFError, OSError):
                gone(shard)
            else:
                handle(shard, message)
            if all(state.finished for state in states) and not ended.done():
                ended.set_result(None)
        except BaseException as exc:  # raised in run_shards, not lost in a callback
            if not ended.done():
                ended.set_exception(exc)

    def handle(shard: Shard, event: tuple[str, Any]) -> None:
        what, value = event
        if what == "more":
            rows = handout.take()
            shard.given += rows
            assert shard.more is not None
            with contextlib.suppress(OSError):  # a dead shard: its pipe's end says so
                shard.more.send(rows)
        elif what == "start":
            shard.in_flight.add(value)
        elif what == "end":
            shard.in_flight.discard(value)
        elif what in ("progress", "done"):
            shard.latest, shard.finished = value, what == "done"
            merge([state.latest for state in states], batch.summary)
            batch.log_progress()
        elif what == "error":
            raise value

    def gone(shard: Shard) -> None:
        """The shard's pipe has ended: it finished, or its process died."""
        assert shard.events is not None and shard.more is not None
        loop.remove_reader(shard.events.fileno())
        shard.events.close()
        shard.more.close()
        shard.process.join(timeout=5)
        if shard.finished:
            return
        shard.deaths += 1
        if shard.deaths > SHARD_RETRIES:
            raise LeadEngineError(
                f"a batch process died {shard.deaths} times (killed, or out of memory); "
                "what was stored stays: run the same command again to resume")
        for url in shard.in_flight:
            suspects[url] += 1
            if suspects[url] >= 2 and url in by_url:
                row = by_url[url]
                batch.store.record_error(batch.key, row.index, url, f"{url}: {KILLED_TWICE}",
                                         row.passthrough)
        shard.in_flight.clear()
        start(shard)

    try:
        for shard in states:
            start(shard)
        await ended
    finally:
        for shard in states:
            if shard.events is not None and not shard.events.closed:
                loop.remove_reader(shard.events.fileno())
                shard.events.close()
            if shard.more is not None and not shard.more.closed:
                shard.more.close()
            if shard.process is not None and shard.process.is_alive():
                shard.process.terminate()
        for shard in states:
            if shard.process is not None:
                shard.process.join(timeout=5)


def start_processes() -> Any:
    """The multiprocessing context shards start in: a fork server with the batch
    imported, so a shard starts in milliseconds and shares nothing (threads, database
    connections) with this process. :func:`warm_up` starts it early."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["leadengine.batch_preload"])
    return context


#: The environment variable that tells the fork server which knowledge base to load.
PRELOAD_ENV = "_LEADENGINE_SHARD_KNOWLEDGE"


def preload_spec(settings: Settings) -> str:
    """What the fork server should load for a batch with ``settings``, as its
    environment carries it (:mod:`leadengine.batch_preload` reads it). An ``openai``
    embedder is not preloaded (it needs the key and the network)."""
    import json

    return json.dumps({
        "knowledge_dir": str(settings.knowledge_dir) if settings.knowledge_dir else None,
        "embedder": settings.embedder,
        "cache_dir": str(settings.cache_dir) if settings.cache_dir else None,
        "semantic_max_passages": settings.semantic_max_passages,
        "method": settings.retrieval_method if settings.use_rag else None,
    })


def warm_up(settings: Settings) -> None:
    """Start the fork server now if a batch with ``settings`` may use shards: it imports
    the pipeline and loads the batch's knowledge base with its retrieval index
    (:mod:`leadengine.batch_preload`) on another core while this process reads the
    knowledge base and the input, so the shards it forks start with all of it."""
    workers = settings.workers
    if (default_workers() if workers is None else workers) <= 1:
        return
    from multiprocessing import forkserver

    previous = os.environ.get(PRELOAD_ENV)
    # The fork server starts with this process's environment.
    os.environ[PRELOAD_ENV] = preload_spec(settings)
    try:
        start_processes()
        forkserver.ensure_running()
    finally:
        if previous is None:
            os.environ.pop(PRELOAD_ENV, None)
        else:
            os.environ[PRELOAD_ENV] = previous
