"""One batch run: a producer claims the rows into a bounded queue, workers fetch,
evaluate and store them, a heartbeat keeps the run and its claims alive
(:class:`BatchRun`). How a batch is started, in this process or its shards, is
:mod:`leadengine.batch.local`.

Several batches may run on one database at once: each URL is claimed in the store
before it is fetched, so no URL is evaluated (or paid for) twice; a URL another live
run has claimed is left to it ("being evaluated by run N"). A run beats every few
seconds, so one whose process was killed is seen as interrupted and its URLs come back.
Rows are claimed a few at a time and their results written in groups, half a second
apart at most (:mod:`leadengine.store.results`): a killed batch does again at most the
rows it finished in its last half second. The library never prints: progress goes to
``on_progress`` or to the ``leadengine.progress`` logger.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable

from leadengine.batch.hosts import HostGates
from leadengine.batch.input import Row
from leadengine.batch.options import BatchOptions
from leadengine.batch.summary import Summary, failure_reason
from leadengine.batch.turns import JUDGE, TurnReader, Turns
from leadengine.config import Settings
from leadengine.config.redact import safe_message
from leadengine.errors import BATCH_STOPS, FetchError, LeadEngineError, StoreError
from leadengine.judgement.evaluation import Evaluation
from leadengine.judgement.evaluators import Evaluator, make_evaluator
from leadengine.pipeline import evaluate_site
from leadengine.retrieval.knowledge_base import KnowledgeBase
from leadengine.store import Claim, Outcome, RunKey, Store
from leadengine.store.results import FLUSH_EVERY, FLUSH_SIZE
from leadengine.website.fetch import make_client
from leadengine.website.guard import PRIVATE_REFUSED
from leadengine.website.load import load_site
from leadengine.website.render import Renderer
from leadengine.website.robots import RobotsPolicy
from leadengine.website.urls import normalise_url

_SKIPS_EVERY = 2.0
HEARTBEAT_EVERY = 5.0
#: Rows claimed in one transaction, whatever the concurrency (a claim per row cost about
#: 3 ms of CPU a URL at concurrency 1; claimed rows wait in this run's queue, their claims
#: renewed by its heartbeat).
CLAIM_CHUNK = 16
#: The plain progress lines of a batch without ``on_progress`` (INFO, every
#: ``log_every`` seconds): the library never prints, the CLI shows them on stderr.
progress_log = logging.getLogger("leadengine.progress")


class BatchRun:
    """One batch: a producer reads the rows into a bounded queue and workers claim,
    fetch, evaluate and store them; a heartbeat keeps the run and its claims alive.
    What the workers share (the summary, the per-host gates, the URLs seen) lives here,
    so each step is a method of its own.

    ``concurrency`` is the number of sites fetched and read at once, and of an LLM
    evaluator's requests in flight at once (:meth:`LLMEvaluator.limit_in_flight
    <leadengine.judgement.evaluators.llm.LLMEvaluator.limit_in_flight>`): there are twice as many
    workers, so while ``concurrency`` sites wait for the LLM's answers as many more are
    fetched and read, and a request goes out as soon as another's answer is in. (With
    ``concurrency`` workers doing both, fewer requests than places were in flight while
    sites were read, judged and checked, and the cores waited on the LLM.) A site's
    host gate is held while it is fetched, not while it is judged (judging sends
    nothing to the host)."""

    def __init__(self, name: str, settings: Settings, kb: KnowledgeBase, store: Store,
                 options: BatchOptions, evaluator: Evaluator | None = None) -> None:
        """Nothing is written yet (see :meth:`start`): an evaluator that cannot be made
        (a missing API key) leaves no run behind."""
        self.name = name
        self.settings, self.kb, self.store, self.options = settings, kb, store, options
        self.snapshots = store.snapshots(options.max_age)
        self.evaluator = evaluator if evaluator is not None else make_evaluator(settings, kb)
        self.summary = Summary()
        #: Workers: twice ``concurrency`` (see the class's docstring).
        self.workers = 2 * options.concurrency
        # Claimed rows wait here at most a claim's worth at a time: a shard that read
        # further ahead would hold rows another shard, out of work, could be doing.
        self.queue: asyncio.Queue[tuple[Row, str] | None] = asyncio.Queue(
            maxsize=CLAIM_CHUNK)
        #: Sites fetched and read at once.
        self.fetching = asyncio.Semaphore(options.concurrency)
        #: The CPU-heavy steps (each page read, each site judged) one per loop turn, so
        #: the answers waiting on the sockets are read between them (see
        #: :mod:`leadengine.batch.turns`).
        self.turns = Turns()
        self.reader = TurnReader(self.turns)
        self.evaluator.limit_in_flight(options.concurrency)
        #: At most ``per_host`` sites of one host at once, started ``host_delay`` apart.
        self.hosts = HostGates(options.per_host, settings.host_delay)
        self.seen: set[str] = set()
        self.last_log = self.last_skips = time.monotonic()
        # Set by start(). Results are keyed by the configured model: a model switched to
        # mid-batch (the configured one retired) answers under the same key, so a rerun
        # of the same command resumes where this one stopped.
        self.key = RunKey(0, kb.version, self.evaluator.name, self.evaluator.configured_model)
        #: The evaluator's switches of model written to the run's record so far.
        self.noted = 0
        self.known: dict[str, str] = {}
        #: URLs failed for a reason this run's settings remove (:meth:`find_unblocked`),
        #: claimed as failures stored before ``unblocked_since`` (the run's start) may be.
        self.unblocked: set[str] = set()
        self.unblocked_since: float | None = None
        #: URLs this very run stored before (see :meth:`adopt`): their error, or None.
        self.ours: dict[str, str | None] = {}
        self.retry_since: float | None = None
        #: Outcomes not written yet (see :meth:`flush`).
        self.pending: list[Outcome] = []
        #: Told ("start" | "end", url) around each URL this process evaluates (a shard
        #: tells its parent which URL it was on if it dies).
        self.on_url: Callable[[str, str], None] | None = None
        #: Where homepages built by JavaScript are rendered (set by :meth:`process`).
        self.renderer: Renderer | None = None
        #: The day's quota is used up, or the model is gone with none to take over
        #: (:data:`~leadengine.errors.BATCH_STOPS`): no row is started from now on, those
        #: being evaluated finish (paid for), and :meth:`process` raises this once they
        #: are stored. The rows not reached stay to do.
        self.quota: LeadEngineError | None = None

    def start(self) -> None:
        """Record the run and read which URLs are stored already."""
        # Runs killed without a word give their claimed URLs back now, not in minutes.
        self.store.settle()
        # Failures stored from now on are another live run's: not ours to retry.
        self.retry_since = time.time() if self.options.retry_failed else None
        self.key = self.store.open_run(self.name, self.key.kb_version, self.key.provider,
                                       self.key.model, self.options.started_by)
        self.summary.run_id = self.key.run_id
        self.known = self.store.states(self.key)
        self.find_unblocked()
        self.note_switches()  # made before any request (a model the catalogue retired)

    def adopt(self, key: RunKey, retry_since: float | None) -> None:
        """Work under a run another process started (a shard of its batch). Rows this run
        stored already (a shard started again after its process died) count as this
        run's work, not as done before."""
        self.key, self.retry_since = key, retry_since
        self.summary.run_id = key.run_id
        self.known = self.store.states(key)
        self.find_unblocked()
        self.ours = {row["url"]: row["error"] for row in self.store.errors(key.run_id)}
        self.ours.update((url, None) for url in self.store.urls_of_run(key.run_id))

    def find_unblocked(self) -> None:
        """The failed URLs this run tries again without ``retry_failed``: those refused
        as private addresses, when private addresses are now allowed."""
        if not self.settings.allow_private or self.options.retry_failed:
            return
        self.unblocked = {url for url, error in self.store.failures(self.key).items()
                          if PRIVATE_REFUSED in error}
        run = self.store.run(self.key.run_id)
        self.unblocked_since = float(run["started_at"]) if run else time.time()

    async def process(self, rows: Iterable[Row]) -> None:
        """Work through ``rows`` in this process: the workers fetch, read, evaluate and
        store (``concurrency`` sites in each stage at once); results are written in
        groups (:meth:`flush`), the last of them before this returns or raises."""
        # One robots.txt per origin for the whole batch (read with the client of the
        # first site of the origin); one Chromium for the pages built by JavaScript.
        robots = RobotsPolicy(None, self.settings)
        finished = asyncio.Event()
        self.renderer = Renderer(self.settings) if self.settings.render != "never" else None

        async def workers() -> None:
            try:
                await asyncio.gather(*(self.work(robots) for _ in range(self.workers)))
            finally:
                finished.set()

        try:
            await asyncio.gather(self.produce(rows), workers(), self.flush_often(finished))
        except BaseException:
            with contextlib.suppress(StoreError):
                self.flush()  # what finished before the stop is kept
            raise
        finally:
            await Renderer.close_quietly(self.renderer)
        if self.quota is not None:
            raise self.quota

    async def flush_often(self, finished: asyncio.Event) -> None:
        """Write the results waiting every :data:`FLUSH_EVERY` seconds until the workers
        have finished, and then the last of them."""
        while not finished.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), FLUSH_EVERY)
            self.flush()

    def flush(self) -> None:
        """Write the outcomes and page snapshots waiting, in one transaction."""
        outcomes, self.pending = self.pending, []
        pages = self.snapshots.take()
        if outcomes or pages:
            self.store.record_outcomes(self.key, outcomes, pages)

    async def heartbeat(self) -> None:
        # Shows the run alive (its counters with it) and renews its claims; a beat the
        # database refuses is tried again at the next one.
        while True:
            await asyncio.sleep(HEARTBEAT_EVERY)
            with contextlib.suppress(StoreError):
                self.store.heartbeat(self.key.run_id, self.summary.skips(),
                                     self.options.lease)

    # -- reading -----------------------------------------------------------------------

    async def produce(self, rows: Iterable[Row]) -> None:
        """Queue the rows to do, claimed :data:`CLAIM_CHUNK` at a time; then one end
        marker per worker, even on failure, so that no worker waits for ever."""
        try:
            chunk: list[tuple[Row, str]] = []
            for row in rows:
                if self.quota is not None:
                    break
                url = self.admit(row)
                if url is not None:
                    chunk.append((row, url))
                if len(chunk) >= CLAIM_CHUNK:
                    await self.queue_claimed(chunk)
                    chunk = []
            await self.queue_claimed(chunk)
        finally:
            for _ in range(self.workers):
                await self.queue.put(None)

    async def queue_claimed(self, chunk: list[tuple[Row, str]]) -> None:
        """Claim the rows of ``chunk`` in one transaction and queue those this run got
        (the unblocked ones as retried failures: see :meth:`find_unblocked`)."""
        if not chunk:
            return
        urls = [url for _, url in chunk]
        claims = self.store.claim_urls(self.key, [u for u in urls if u not in self.unblocked],
                                       retry_since=self.retry_since, lease=self.options.lease)
        again = [u for u in urls if u in self.unblocked]
        if again:
            claims.update(self.store.claim_urls(self.key, again,
                                                retry_since=self.unblocked_since,
                                                lease=self.options.lease))
        for row, url in chunk:
            if self.count_claim(claims[url]):
                await self.queue.put((row, url))

    def admit(self, row: Row) -> str | None:
        """Count ``row`` and return its URL if it is to do; a row that cannot be read or
        has no valid URL is recorded as failed, a duplicate or a stored one skipped."""
        self.summary.total += 1
        if row.error is not None:
            self.record_failure(row, row.raw or f"(line {row.line})", row.error,
                                f"{self.name} line {row.line}")
            self.log_progress()
            return None
        try:
            url = normalise_url(row.raw)
        except LeadEngineError as exc:
            self.record_failure(row, row.raw or f"(row {row.index})", str(exc),
                                exc.url if isinstance(exc, FetchError) else row.raw)
            self.log_progress()
            return None
        if url in self.seen:
            self.summary.duplicates += 1
            self.skipped()
            return None
        self.seen.add(url)
        if url in self.ours:
            error = self.ours[url]
            if error is None:
                self.summary.done += 1
            else:
                self.summary.fail(failure_reason(error, url))
            return None
        return None if self.count_stored(self.known.get(url), url) else url

    def count_stored(self, state: str | None, url: str) -> bool:
        """Count a row whose result is stored as skipped; False: it is to do."""
        if state == "done":
            self.summary.skipped_done += 1
        elif state == "failed" and url in self.unblocked:
            self.summary.unblocked += 1
            return False
        elif state == "failed" and not self.options.retry_failed:
            self.summary.skipped_failed += 1
        else:
            return False
        self.skipped()
        return True

    # -- working -----------------------------------------------------------------------

    async def work(self, robots: RobotsPolicy) -> None:
        while (item := await self.queue.get()) is not None:
            if self.quota is not None:
                continue  # not started: it stays to do (the run's end frees its claim)
            row, url = item
            if self.on_url is not None:
                self.on_url("start", url)
            await self.work_one(robots, row, url)
            if self.on_url is not None:
                self.on_url("end", url)

    def count_claim(self, claim: Claim) -> bool:
        """Whether this run got the row's claim; a row another run has, or has finished
        since the batch started, is counted and skipped."""
        if claim.state == "claimed":
            return True
        if claim.state == "elsewhere":
            self.summary.elsewhere += 1
            if claim.run_id is not None:
                self.summary.elsewhere_runs.add(claim.run_id)
        elif claim.state == "done":
            self.summary.skipped_done += 1
        else:
            self.summary.skipped_failed += 1
        self.skipped()
        return False

    async def work_one(self, robots: RobotsPolicy, row: Row, url: str) -> None:
        """Fetch, evaluate and store one claimed row. Each site is fetched with a client
        of its own, closed when it is read: its robots.txt and pages share its
        connections, and no pool holds the connections of sites done with (an httpx pool
        looks at each of its connections against the others every time it places a
        request: one client for a batch's 64 sites at once cost about 0.5 ms of CPU a
        request more, ``bench/bench_fetch_pools.py``)."""
        try:
            # The host's gate, then a place among the sites fetched at once.
            async with self.hosts.held(url), self.fetching, make_client(self.settings) as client:
                site = await load_site(url, self.settings, client, self.snapshots, robots,
                                       reader=self.reader, renderer=self.renderer)
            await self.turns.take(JUDGE)  # the facts, retrieval and prompt: CPU work
            evaluation = await evaluate_site(site, self.kb, self.settings, self.evaluator)
        except BATCH_STOPS as exc:
            # Every later row would fail alike: stop starting rows; this one stays to do.
            self.quota = self.quota or exc
            self.note_switches()
            return
        except LeadEngineError as exc:
            self.record_failure(row, url, str(exc),
                                exc.url if isinstance(exc, FetchError) else url)
        except Exception as exc:
            self.record_failure(row, url, f"unexpected {type(exc).__name__}: {exc}", url)
        else:
            self.record_result(row, url, evaluation)
        if len(self.evaluator.switches) > self.noted:
            self.note_switches()
        self.log_progress()

    # -- recording ---------------------------------------------------------------------

    def note_switches(self) -> None:
        """Each new switch of the evaluator's model goes into the summary and, at once,
        the run's record."""
        switches = self.evaluator.switches
        for note in switches[self.noted:]:
            if note not in self.summary.switches:
                self.summary.switches.append(note)
            with contextlib.suppress(StoreError):
                self.store.note_run(self.key.run_id, note)
        self.noted = len(switches)

    def record_result(self, row: Row, url: str, evaluation: Evaluation) -> None:
        self.keep(Outcome(row.index, url, row.passthrough, evaluation.model_dump(mode="json")))
        self.summary.done += 1
        self.summary.tokens += sum(v for k, v in evaluation.tokens.items()
                                   if k in ("prompt", "completion"))
        self.summary.cost_usd += evaluation.cost_usd or 0.0

    def record_failure(self, row: Row, url: str, message: str, where: str) -> None:
        # Messages can carry a server's reply or a URL's user:password: both the stored
        # error and the summary's reason are redacted.
        message, where = safe_message(message), safe_message(where)
        self.keep(Outcome.failed(row.index, url, message, row.passthrough))
        self.summary.fail(failure_reason(message, where))

    def keep(self, outcome: Outcome) -> None:
        """Hold ``outcome`` for the next group write (at once past :data:`FLUSH_SIZE`)."""
        self.pending.append(outcome)
        if len(self.pending) >= FLUSH_SIZE:
            self.flush()

    def skipped(self) -> None:
        # Skips have no row of their own to count them with, so they are written now
        # and then (and at the end); a killed run loses at most a few seconds of them.
        if time.monotonic() - self.last_skips >= _SKIPS_EVERY:
            self.last_skips = time.monotonic()
            self.store.count_skips(self.key.run_id, self.summary.skips())
        self.log_progress()

    def log_progress(self) -> None:
        if self.options.on_progress is not None:
            self.options.on_progress(self.summary)
            return
        if time.monotonic() - self.last_log >= self.options.log_every:
            self.last_log = time.monotonic()
            if progress_log.isEnabledFor(logging.INFO):
                progress_log.info("%s", safe_message(self.summary.line()))
