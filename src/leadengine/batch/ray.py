"""``leadengine batch --engine ray``: one batch sharded into Ray tasks on a cluster.

The same batch code as the local engine in shards (:mod:`leadengine.batch.shard`), run
once per shard inside a Ray task that fetches, reads and evaluates its rows and writes to
the shared PostgreSQL store. The driver (this process) records one run for the batch,
beats for it and ends it; every shard works under that run, as a local shard works under
its parent's, and reports its progress to an actor the driver reads, so the progress bar
moves as it does locally. Rows are sharded by their normalised URL, so a URL's duplicates
meet in one shard and are counted as duplicates, as locally. Everything that makes the
local engine safe to stop and rerun holds across the cluster because it lives in the
database: a URL is claimed (by the run, with the host:pid of the worker) before it is
fetched, and a result is stored under the same keys (URL, knowledge-base version,
provider, model). So:

* a worker killed mid-shard: Ray runs the task again (``max_retries``); the new attempt
  takes back its run's claims at once and counts what the dead one stored as this
  batch's work (the summary says so: nothing "already done" that this batch did);
* the driver killed: Ray stops its tasks and the run shows as interrupted; the same
  command run again skips what is stored and evaluates the rest; nothing is evaluated
  twice;
* ``--retry-failed``, duplicates and ``export`` read and write the same tables as ever.

LLM rate limits hold for the whole cluster: one Ray actor holds the token buckets
(:class:`leadengine.judgement.ratelimit.RateLimiter`) and every shard's evaluator waits on it.

Ray is an optional extra (``pip install 'leadengine[ray]'``), imported only here and
only when a batch asks for it, so ``leadengine --help`` never loads it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from leadengine.batch.handout import split_rows
from leadengine.batch.input import Row, input_name, read_rows
from leadengine.batch.options import BatchOptions
from leadengine.batch.shards import merge, share_host_limits
from leadengine.batch.summary import Summary
from leadengine.config import Settings
from leadengine.errors import BATCH_STOPS, ConfigError, LeadEngineError
from leadengine.retrieval.knowledge_base import KnowledgeBase
from leadengine.store import RunKey, Store

if TYPE_CHECKING:
    from leadengine.batch.run import BatchRun
    from leadengine.judgement.evaluators import Evaluator

#: Seconds to wait for a cluster's address to answer before saying it cannot be reached
#: (Ray itself retries for about a minute).
CONNECT_TIMEOUT = 5.0
#: Times Ray runs a shard again after its worker process died (killed, out of memory).
SHARD_RETRIES = 3
#: Seconds between two progress reports of a shard, and two updates of the driver's.
PROGRESS_EVERY = 0.5
INSTALL_HINT = "pip install 'leadengine[ray]'"


@dataclasses.dataclass(frozen=True)
class RayOptions:
    """How a batch runs on Ray."""

    #: ``None``: start a Ray instance on this machine; ``auto``: the cluster this machine
    #: belongs to; ``host:port`` (a head node's GCS) or ``ray://host:port`` (Ray Client).
    address: str | None = None
    #: Shards (one Ray task each, 1 CPU); ``None``: one per CPU of the cluster.
    shards: int | None = None


def import_ray() -> Any:
    """The ``ray`` module, or ConfigError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(f"--engine ray needs Ray, which is not installed: "
                          f"{INSTALL_HINT}") from None
    return ray


def check_database(store: Store) -> None:
    """ConfigError unless ``store`` is PostgreSQL: the cluster's workers share it."""
    check_database_url(store.url)


def check_database_url(url: str) -> None:
    """ConfigError unless the database at ``url`` is PostgreSQL (checked before the
    database is opened: a refused command leaves no SQLite file behind)."""
    if not url.startswith("postgresql"):
        raise ConfigError("--engine ray needs a PostgreSQL database (--db postgresql://...): "
                          "the cluster's workers all write to it, and SQLite is a file on "
                          "one machine")


def check_reachable(address: str | None, timeout: float = CONNECT_TIMEOUT) -> None:
    """ConfigError naming ``address`` if nothing answers there (``host:port`` or
    ``ray://host:port``; ``auto`` and a local instance are left to Ray)."""
    if address is None or address == "auto":
        return
    target = address if "://" in address else f"tcp://{address}"
    parts = urlsplit(target)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or not port:
        raise ConfigError(f"--address {address}: expected auto, host:port or "
                          "ray://host:port")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {reason}") from None


def connect(ray: Any, address: str | None) -> None:
    """Join the cluster at ``address`` (or start one here); ConfigError if it fails."""
    check_reachable(address)
    if ray.is_initialized():
        return
    # Ray's own notices (token authentication, a local instance started...) are for
    # whoever runs the cluster, not for the salesperson's terminal: only its errors pass.
    quiet = logging.getLogger("ray")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "this machine"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"cannot reach the Ray cluster at {where}: {first}") from None
    finally:
        quiet.setLevel(level)


class ClusterLimiter:
    """The evaluator's rate limiter, kept by one actor for the whole cluster (the same
    calls as :class:`~leadengine.judgement.ratelimit.RateLimiter`)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.waited = 0.0

    async def acquire(self, tokens: int = 0) -> None:
        self.waited += await self.actor.acquire.remote(tokens)

    def settle(self, budgeted: int, used: int) -> None:
        self.actor.settle.remote(budgeted, used)


class LimitsHolder:
    """The body of the rate-limit actor: one RateLimiter that every shard waits on."""

    def __init__(self, rpm: int | None, tpm: int | None, rpd: int | None, name: str,
                 tpd: int | None = None) -> None:
        from leadengine.judgement.ratelimit import RateLimiter

        self.limiter = RateLimiter(rpm, tpm, rpd=rpd, name=name, tpd=tpd)

    async def acquire(self, tokens: int) -> float:
        """Wait until a request may go; the seconds waited."""
        before = self.limiter.waited
        await self.limiter.acquire(tokens)
        return self.limiter.waited - before

    def settle(self, budgeted: int, used: int) -> None:
        self.limiter.settle(budgeted, used)


def limits_of(evaluator: Evaluator
              ) -> tuple[int | None, int | None, int | None, str, int | None] | None:
    """The rate limits of ``evaluator``'s provider, or None if it has none to share."""
    return evaluator.rate_limits_to_share()


@dataclasses.dataclass(frozen=True)
class ShardTask:
    """What a shard's Ray task is given: its rows, and the batch's run to work under."""

    name: str
    settings: Settings
    db: str
    rows: list[Row]
    options: BatchOptions
    key: RunKey
    retry_since: float | None
    index: int


class ProgressHolder:
    """The body of the progress actor: each shard's latest summary, for the driver's
    progress bar or lines."""

    def __init__(self) -> None:
        self.latest: dict[int, Summary] = {}

    def report(self, index: int, summary: Summary) -> None:
        self.latest[index] = summary

    def snapshot(self) -> dict[int, Summary]:
        return dict(self.latest)


def run_shard(task: ShardTask, kb: KnowledgeBase, limits: Any, progress: Any) -> Summary:
    """One shard, inside a Ray task: the local engine on its rows, under the batch's run
    (a shard Ray runs again after its worker died counts what the dead attempt stored as
    this batch's work, as a local shard does), its progress sent to ``progress``."""
    from leadengine.batch.run import BatchRun
    from leadengine.judgement.evaluators import make_evaluator

    settings = dataclasses.replace(task.settings, workers=0)
    evaluator = make_evaluator(settings, kb)
    if limits is not None:
        evaluator.use_limiter(ClusterLimiter(limits))
    sent = [0.0]

    def report(summary: Summary) -> None:
        if time.monotonic() - sent[0] >= PROGRESS_EVERY:
            sent[0] = time.monotonic()
            progress.report.remote(task.index, summary)

    options = dataclasses.replace(task.options, on_progress=report)
    store = Store(task.db)
    try:
        batch = BatchRun(task.name, settings, kb, store, options, evaluator)
        batch.adopt(task.key, task.retry_since)
        asyncio.run(batch.process(task.rows))
        batch.summary.reused_pages = batch.snapshots.reused
        progress.report.remote(task.index, batch.summary)
        return batch.summary
    finally:
        store.engine.dispose()


def run_batch_on_ray(input_path: Path | str, settings: Settings, kb: KnowledgeBase,
                     store: Store, cluster: RayOptions, options: BatchOptions | None = None,
                     *, encoding: str | None = None) -> Summary:
    """Evaluate every row of ``input_path`` on a Ray cluster, storing results in
    ``store`` (PostgreSQL) as they complete (how: ``options``, shared out over the
    shards), under one run that this process records, beats for and ends, as the local
    engine's parent does; its progress goes to ``options.on_progress`` (or the progress
    log) as the shards report it. ConfigError before any work if Ray is not installed,
    the store is not PostgreSQL or the cluster cannot be reached."""
    from leadengine.batch.run import BatchRun
    from leadengine.judgement.evaluators import make_evaluator

    check_database(store)
    ray = import_ray()
    # The same checks as the local engine, here and not in a task: a missing API key
    # or an unreadable input is one line at the terminal.
    evaluator = make_evaluator(settings, kb)
    rows = list(read_rows(input_path, encoding))
    options = options or BatchOptions()
    connect(ray, cluster.address)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    parts = split_rows(rows, max(1, min(cluster.shards or cpus, len(rows) or 1)))
    batch = BatchRun(input_name(input_path), settings, kb, store, options, evaluator)
    return asyncio.run(_drive(ray, batch, parts, evaluator))


async def _drive(ray: Any, batch: BatchRun, parts: list[list[Row]],
                 evaluator: Evaluator) -> Summary:
    """Record the run, start the shards' tasks, follow their progress, and end the run
    (``interrupted`` when anything stops it, the tasks cancelled)."""
    limits = limits_of(evaluator)
    holder = (ray.remote(num_cpus=0)(LimitsHolder).remote(*limits)
              if limits is not None else None)
    progress = ray.remote(num_cpus=0)(ProgressHolder).remote()
    options = batch.options
    per_shard = max(1, math.ceil(options.concurrency / len(parts))) if parts else 1
    # A host's sites are in every shard: each has its share of the per-host limits.
    per_host, settings = share_host_limits(options.per_host, batch.settings,
                                           max(1, len(parts)))
    shard_options = dataclasses.replace(options, concurrency=per_shard, per_host=per_host,
                                        on_progress=None)
    batch.start()
    batch.log_progress()  # the run is recorded: a progress bar can name it
    beat = asyncio.create_task(batch.heartbeat())
    task = ray.remote(num_cpus=1, max_retries=SHARD_RETRIES)(run_shard)
    kb_ref = ray.put(batch.kb)
    refs = [task.remote(ShardTask(batch.name, settings, batch.store.url, part,
                                  shard_options, batch.key, batch.retry_since, index),
                        kb_ref, holder, progress)
            for index, part in enumerate(parts)]
    try:
        summaries = await follow(ray, refs, progress, batch)
    except BaseException as exc:
        beat.cancel()
        for ref in refs:
            ray.cancel(ref, force=True)
        batch.store.finish_run(batch.key.run_id, "interrupted", batch.summary.skips())
        raise shard_error(exc) from None
    beat.cancel()
    merge(summaries, batch.summary)
    batch.summary.run_ids = [batch.key.run_id]
    batch.store.finish_run(batch.key.run_id, "done", batch.summary.skips())
    return batch.summary


async def follow(ray: Any, refs: list[Any], progress: Any, batch: BatchRun
                 ) -> list[Summary]:
    """:func:`gather`, with the shards' latest progress merged into ``batch``'s summary
    and shown every :data:`PROGRESS_EVERY` seconds while they work."""
    waiting = asyncio.create_task(asyncio.to_thread(gather, ray, refs))
    while not waiting.done():
        await asyncio.wait([waiting], timeout=PROGRESS_EVERY)
        latest = await asyncio.to_thread(ray.get, progress.snapshot.remote())
        if latest:
            merge(list(latest.values()), batch.summary)
            batch.log_progress()
    return waiting.result()


def gather(ray: Any, refs: list[Any]) -> list[Summary]:
    """The shards' summaries as they end. A shard that found the day's requests used up
    has stored what it started; the others are left to finish theirs (their requests in
    flight are paid for), and then that error is raised. Any other failure is raised
    at once."""
    pending, summaries, quota = list(refs), [], None
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        try:
            summaries += ray.get(done)
        except ray.exceptions.RayTaskError as exc:
            if not isinstance(exc.cause, BATCH_STOPS):
                raise
            quota = exc
    if quota is not None:
        raise quota
    return summaries


def shard_error(exc: BaseException) -> BaseException:
    """What to raise for a shard that failed: the engine's own error as the local engine
    raises it (a used-up daily quota, a database that went away), one line for a worker
    that kept dying; anything else as it is."""
    from ray import exceptions

    if isinstance(exc, exceptions.RayTaskError):
        cause = exc.cause
        if isinstance(cause, LeadEngineError):
            return cause
        lines = str(cause).strip().splitlines()
        detail = f": {lines[0]}" if lines else ""
        return LeadEngineError(f"a shard of the batch failed: {type(cause).__name__}{detail}")
    if isinstance(exc, (exceptions.WorkerCrashedError, exceptions.NodeDiedError)):
        return LeadEngineError(f"a Ray worker died {SHARD_RETRIES + 1} times running one "
                               "shard (killed, or out of memory); what was stored stays: "
                               "run the same command again to resume")
    return exc
