"""A batch on every core: its rows split into shards, each run by its own process.

``--workers N`` (default: one per core) starts up to N processes, each running the
whole pipeline (fetch, read, evaluate, store) on its share of the rows, under the
batch's one run: one event loop per core, where one loop feeding a pool of page
readers left the loop itself the bottleneck (it fetched, evaluated and stored every
row). The rows are split into groups by normalised URL (a URL's duplicates meet in one
group, so in one shard, as the Ray engine does), and the groups are handed out as the
shards ask for them, fewer at a time as fewer are left
(:class:`leadengine.batch.handout.Handout`), so the shards finish together however
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
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from leadengine.batch.handout import Handout, shard_key, shard_rows
from leadengine.batch.input import Row
from leadengine.batch.summary import Summary
from leadengine.errors import BATCH_STOPS, LeadEngineError

if TYPE_CHECKING:
    from leadengine.batch.run import BatchRun
    from leadengine.config import Settings
    from leadengine.knowledge import KnowledgeBase

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
    # Each shard's evaluator switched on its own: one line for each switch, once.
    into.switches = list(dict.fromkeys(note for part in summaries for note in part.switches))
    into.reasons = Counter()
    for part in summaries:
        into.reasons.update(part.reasons)
    return into


def share_host_limits(per_host: int, settings: Settings, shards: int
                      ) -> tuple[int, Settings]:
    """A shard's share of the per-host limits: ``per_host`` sites of one host at once
    and ``settings.host_delay`` seconds between two, over ``shards`` shards."""
    return (max(1, per_host // shards),
            dataclasses.replace(settings, host_delay=settings.host_delay * shards))


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
    #: Forked from the batch's own process (see :func:`start_processes`), and the pipe
    #: ends of the other shards it holds, to close.
    forked: bool = False
    others: tuple[int, ...] = ()


def shard_main(job: ShardJob, events: Connection, more: Connection) -> None:
    """A shard's process: the batch's pipeline on its rows (``job.rows``, then those the
    parent hands out on ``more`` when asked), its progress and the URLs it starts and
    ends sent to the parent on ``events`` (a pipe: a send is one write, no feeder
    thread, so telling costs microseconds a URL)."""
    if job.forked:
        leave_parent(job.others)
    end_with_parent()
    from leadengine.batch.run import BatchOptions, BatchRun
    from leadengine.evaluators import make_evaluator
    from leadengine.store import Store

    rows = shard_rows(job.rows, events, more)
    settings = dataclasses.replace(job.settings, workers=0)
    kb = job.kb  # forked: the batch's own, its retrieval index built
    evaluator = make_evaluator(settings, kb)
    evaluator.share_limits(job.shards)
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
    except BATCH_STOPS as exc:
        # Its share of the day's requests is used up (or the model is gone with none to
        # take over); what it started is stored.
        batch.summary.reused_pages = batch.snapshots.reused
        events.send(("quota", (exc, batch.summary)))
        return
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
    forked = context.get_start_method() == "fork"
    prepare(batch.kb, batch.settings, forked)
    # Forked, a shard has the batch's knowledge base with its index; started by the fork
    # server, it is sent a copy without it and reads the index from the cache.
    kb = batch.kb if forked else dataclasses.replace(batch.kb)
    loop = asyncio.get_running_loop()
    per_shard = max(1, -(-batch.options.concurrency // shards))
    # A host's sites are spread over the shards (rows are split by URL), so each shard
    # gets its share of the per-host limit and starts a host's sites N times the delay
    # apart: together they hold the batch's limits (at least one site of a host a shard).
    per_host, settings = share_host_limits(batch.options.per_host, batch.settings, shards)
    states = [Shard(ShardJob(index, shards, batch.name, settings, kb,
                             batch.store.url, batch.key, batch.retry_since, per_shard,
                             per_host, batch.options.max_age,
                             batch.options.lease, batch.options.retry_failed, [], forked))
              for index in range(shards)]
    by_url = {shard_key(row): row for row in rows}
    suspects: Counter[str] = Counter()
    #: A shard's share of the day's LLM requests ran out, or its model is gone (raised
    #: once all have ended).
    quota: list[LeadEngineError | None] = [None]
    ended: asyncio.Future[None] = loop.create_future()

    def start(shard: Shard) -> None:
        if not shard.given:
            shard.given = handout.take()
        # Started again, a shard is given every row it was handed: those its dead
        # process stored are skipped as this run's. Forked, it closes the other shards'
        # pipes it inherits (a pipe ends only when every copy of its end is closed).
        receive, send = context.Pipe(duplex=False)
        asked, answer = context.Pipe(duplex=False)
        # Its own pipes' parent ends too: a shard that held the end it reads from would
        # never see the parent go (kill -9), blocked on it forever.
        others = (receive.fileno(), answer.fileno(), *(
            end.fileno() for state in states if state is not shard
            for end in (state.events, state.more) if end is not None and not end.closed))
        shard.job = dataclasses.replace(shard.job, rows=list(shard.given),
                                        others=others if forked else ())
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
        elif what == "quota":
            # The other shards go on with their own shares; the batch stops at the end.
            quota[0], (shard.latest, shard.finished) = value[0], (value[1], True)
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
        if quota[0] is not None:
            raise quota[0]
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
    """The multiprocessing context shards start in.

    On Linux, when this process runs no other thread and the embedding engine's OpenMP
    runtime is not multi-threaded (the command line's batch): **forked** from this
    process, so a shard starts in milliseconds with everything this one has loaded (the
    pipeline, the data, the knowledge base with its index: :func:`prepare`), sharing
    those pages of memory, at no start-up cost of its own. (A fork server of its own
    imported the pipeline again: about a second of CPU a batch, spent before the first
    shard could start.) Otherwise, where a fork is not safe (a batch run from a thread,
    as the workspace's jobs are): a **fork server** with the pipeline imported
    (:mod:`leadengine.batch.preload`), sharing nothing with this process."""
    threads = os.environ.get("OMP_NUM_THREADS", "1")
    if sys.platform.startswith("linux") and threading.active_count() == 1 \
            and threads == "1":
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["leadengine.batch.preload"])
    return context


def prepare(kb: KnowledgeBase, settings: Settings, forked: bool) -> None:
    """Before the shards start: ``kb``'s retrieval index built for the batch's method
    (the embedding model loaded, the passages' vectors read from the cache or, the first
    time after the knowledge base changed, computed and cached) and, for shards forked
    from here, the data every page read consults and the modules a shard imports on
    first use (:mod:`leadengine.batch.preload`): a forked shard starts with all of it, a
    fork server's reads the index from the cache; either way a knowledge base is
    embedded once per batch, not once per shard."""
    if forked:
        import leadengine.batch.preload

        leadengine.batch.preload.warm(kb)
    if settings.use_rag:
        # Nothing here may fail the batch: an index that cannot be built is left to the
        # shards, which report it on the rows it fails.
        with contextlib.suppress(Exception):
            retriever = kb.retriever(settings.retrieval_method)
            getattr(retriever, "semantic", None)  # hybrid builds its semantic half
            # What retrieval loads on its first query (numpy's masked arrays...) too.
            kb.retrieve("website booking", method=settings.retrieval_method)
    if forked:
        # What the shards inherit is left out of the garbage collector's walks: theirs
        # no longer touch (and so copy) the pages they share, nor spend time on it.
        gc.freeze()


#: Seconds between a shard's looks at whether its parent is still there.
PARENT_CHECK = 0.5


def end_with_parent() -> None:
    """A shard ends when the process that started it is gone (killed with -9, out of
    memory, its terminal closed), however busy it is: a thread looks every
    :data:`PARENT_CHECK` seconds whether the shard was handed to another parent and, if
    so, ends the shard as SIGTERM does. (Its pipes would tell it too, but only when it
    next reads or writes them; an LLM request in flight, or rows still to do, would
    otherwise go on being paid for.)"""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def leave_parent(others: Sequence[int]) -> None:
    """In a shard forked from the batch's process, inside its running event loop: the
    parent's signal wake-up and handlers are not this process's (a SIGTERM sent to the
    shard would otherwise be written to the parent's loop, which would stop the batch),
    and the other shards' pipe ends it inherited are closed."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for fd in others:
        with contextlib.suppress(OSError):
            os.close(fd)
