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

The shard's own process is :mod:`leadengine.batch.shard`; what the two say to each
other, :mod:`leadengine.batch.messages`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import multiprocessing
import os
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from leadengine.batch.handout import Handout, shard_key
from leadengine.batch.input import Row
from leadengine.batch.messages import (
    AskMore,
    Done,
    Ended,
    Failed,
    Progress,
    ShardEvent,
    ShardJob,
    Started,
    Stopped,
)
from leadengine.batch.shard import shard_main
from leadengine.batch.summary import Summary
from leadengine.errors import LeadEngineError

if TYPE_CHECKING:
    from leadengine.batch.run import BatchRun
    from leadengine.config import Settings
    from leadengine.retrieval.knowledge_base import KnowledgeBase

#: Rows per shard at least: a smaller batch uses fewer processes (each costs about a
#: second of start-up CPU).
MIN_ROWS_PER_SHARD = 16
#: Times a shard's process may die before the batch stops.
SHARD_RETRIES = 3
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
    for name in ("total", "done", "failed", "skipped_done", "skipped_failed", "unblocked",
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
    Any exception (a shard's LeadEngineError, a cancellation) stops every process."""
    await Supervisor(batch, rows, shards).run()


class Supervisor:
    """The parent's side of a sharded batch: starts the shards, answers their asks for
    rows, merges their progress, and starts again a shard whose process died.

    It waits on the shards' pipes in its event loop (``add_reader``): an event is handled
    when it arrives, and a pipe's end (its process exited or died) decides whether the
    shard finished or is started again."""

    def __init__(self, batch: BatchRun, rows: list[Row], shards: int) -> None:
        self.batch = batch
        self.handout = Handout(rows, shards)
        self.context = start_processes()
        self.forked = self.context.get_start_method() == "fork"
        prepare(batch.kb, batch.settings, self.forked)
        # Forked, a shard has the batch's knowledge base with its index; started by the
        # fork server, it is sent a copy without it and reads the index from the cache.
        kb = batch.kb if self.forked else dataclasses.replace(batch.kb)
        per_shard = max(1, -(-batch.options.concurrency // shards))
        # A host's sites are spread over the shards (rows are split by URL), so each shard
        # gets its share of the per-host limit and starts a host's sites N times the delay
        # apart: together they hold the batch's limits (at least one site of a host a
        # shard).
        per_host, settings = share_host_limits(batch.options.per_host, batch.settings, shards)
        self.states = [Shard(ShardJob(index, shards, batch.name, settings, kb,
                                      batch.store.url, batch.key, batch.retry_since,
                                      per_shard, per_host, batch.options.max_age,
                                      batch.options.lease, batch.options.retry_failed, [],
                                      self.forked))
                       for index in range(shards)]
        self.by_url = {shard_key(row): row for row in rows}
        self.suspects: Counter[str] = Counter()
        #: A shard's share of the day's LLM requests ran out, or its model is gone
        #: (raised once all have ended).
        self.stopped: LeadEngineError | None = None
        self.loop = asyncio.get_running_loop()
        self.ended: asyncio.Future[None] = self.loop.create_future()

    async def run(self) -> None:
        try:
            for shard in self.states:
                self.start(shard)
            await self.ended
            if self.stopped is not None:
                raise self.stopped
        finally:
            self.stop_all()

    def start(self, shard: Shard) -> None:
        """Start ``shard``'s process (again: with every row it was handed; those its dead
        process stored are skipped as this run's)."""
        if not shard.given:
            shard.given = self.handout.take()
        receive, send = self.context.Pipe(duplex=False)
        asked, answer = self.context.Pipe(duplex=False)
        # Forked, it closes the pipe ends it inherits but does not use: the other
        # shards' (a pipe ends only when every copy of its end is closed) and its own
        # pipes' parent ends (a shard that held the end it reads from would never see the
        # parent go, kill -9, blocked on it forever).
        others = (receive.fileno(), answer.fileno(), *(
            end.fileno() for state in self.states if state is not shard
            for end in (state.events, state.more) if end is not None and not end.closed))
        shard.job = dataclasses.replace(shard.job, rows=list(shard.given),
                                        others=others if self.forked else ())
        shard.process = self.context.Process(target=shard_main,
                                             args=(shard.job, send, asked), daemon=True)
        shard.process.start()
        send.close()  # the child's ends: the pipes end when the child does
        asked.close()
        shard.events, shard.more = receive, answer
        self.loop.add_reader(receive.fileno(), self.readable, shard)

    def readable(self, shard: Shard) -> None:
        """One message a call: the loop calls again while the pipe has more (a poll()
        first would build a selector each time)."""
        try:
            assert shard.events is not None
            try:
                message = shard.events.recv()
            except (EOFError, OSError):
                self.gone(shard)
            else:
                self.handle(shard, message)
            if all(state.finished for state in self.states) and not self.ended.done():
                self.ended.set_result(None)
        except BaseException as exc:  # raised in run(), not lost in a callback
            if not self.ended.done():
                self.ended.set_exception(exc)

    def handle(self, shard: Shard, event: ShardEvent) -> None:
        match event:
            case AskMore():
                rows = self.handout.take()
                shard.given += rows
                assert shard.more is not None
                with contextlib.suppress(OSError):  # a dead shard: its pipe's end says so
                    shard.more.send(rows)
            case Started(url):
                shard.in_flight.add(url)
            case Ended(url):
                shard.in_flight.discard(url)
            case Progress(summary) | Done(summary):
                shard.latest, shard.finished = summary, isinstance(event, Done)
                self.merged()
            case Stopped(error, summary):
                # The other shards go on with their own shares; the batch stops at the end.
                self.stopped, shard.latest, shard.finished = error, summary, True
                self.merged()
            case Failed(error):
                raise error

    def merged(self) -> None:
        merge([state.latest for state in self.states], self.batch.summary)
        self.batch.log_progress()

    def gone(self, shard: Shard) -> None:
        """The shard's pipe has ended: it finished, or its process died."""
        assert shard.events is not None and shard.more is not None
        self.loop.remove_reader(shard.events.fileno())
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
            self.suspects[url] += 1
            if self.suspects[url] >= 2 and url in self.by_url:
                row = self.by_url[url]
                self.batch.store.record_error(self.batch.key, row.index, url,
                                              f"{url}: {KILLED_TWICE}", row.passthrough)
        shard.in_flight.clear()
        self.start(shard)

    def stop_all(self) -> None:
        """Every shard's pipes closed and its process ended (terminated if alive)."""
        for shard in self.states:
            if shard.events is not None and not shard.events.closed:
                self.loop.remove_reader(shard.events.fileno())
                shard.events.close()
            if shard.more is not None and not shard.more.closed:
                shard.more.close()
            if shard.process is not None and shard.process.is_alive():
                shard.process.terminate()
        for shard in self.states:
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
            retriever.prepare()  # hybrid builds its semantic half
            # What retrieval loads on its first query (numpy's masked arrays...) too.
            kb.retrieve("website booking", method=settings.retrieval_method)
    if forked:
        # What the shards inherit is left out of the garbage collector's walks: theirs
        # no longer touch (and so copy) the pages they share, nor spend time on it.
        gc.freeze()


