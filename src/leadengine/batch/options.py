"""How a batch runs: :class:`BatchOptions`, given to :func:`leadengine.batch.run_batch`
(and, shared out, to each shard)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from leadengine.batch.summary import Summary
from leadengine.store import CLAIM_LEASE


@dataclass(frozen=True)
class BatchOptions:
    """How a batch runs. ``on_progress`` is called after every row (a progress bar);
    without it a plain progress line is logged to ``leadengine.progress`` (INFO) every
    ``log_every`` seconds. Every fetched page is kept as a snapshot; with ``max_age``
    (seconds) a snapshot that recent is reused. ``lease``: how long a URL stays claimed
    without a heartbeat. ``concurrency``: sites fetched and read at once (and LLM
    requests in flight); ``per_host``: sites of one host at once. ``started_by``: the
    workspace's person who started it (kept with the run)."""

    retry_failed: bool = False
    concurrency: int = 16
    per_host: int = 2
    log_every: float = 5.0
    on_progress: Callable[[Summary], None] | None = None
    max_age: float | None = None
    lease: float = CLAIM_LEASE
    started_by: str | None = None
