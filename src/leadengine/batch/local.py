"""A batch on this machine: :func:`run_batch` reads the input, then works through its
rows in this process or, with more than one worker and rows enough, in shard processes
of its own (:mod:`leadengine.batch.shards`).

Input is a text file of URLs (one per line, ``#`` comments allowed) or a CSV with a
``url`` (or ``website``) column, separated by commas, semicolons or tabs; every other
CSV column passes through to the output. ``-`` reads standard input, and a pipe works
as well as a file. A row may also name a saved HTML file or a folder (its index.html).
Rows are normalised and de-duplicated; a row without a valid URL is recorded as an
error, never dropped, and so is a line that cannot be read (an unbalanced quote does
not fold the rows after it into one: see :func:`~leadengine.batch.input.read_rows`).
Rows already done under the same knowledge-base version, provider and model are
skipped, so re-running an interrupted batch resumes it; failed rows are retried with
``retry_failed``. Each run keeps its own counters in the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from leadengine.batch.input import Row, input_name, read_rows
from leadengine.batch.options import BatchOptions
from leadengine.batch.run import BatchRun
from leadengine.batch.shards import default_workers, run_shards, shard_count
from leadengine.batch.summary import Summary
from leadengine.config import Settings
from leadengine.judgement.evaluators import Evaluator
from leadengine.retrieval.knowledge_base import KnowledgeBase
from leadengine.store import Store


async def run_batch(input_path: Path | str, settings: Settings, kb: KnowledgeBase,
                    store: Store, options: BatchOptions | None = None, *,
                    rows: Iterable[Row] | None = None, encoding: str | None = None,
                    evaluator: Evaluator | None = None) -> Summary:
    """Evaluate every row of ``input_path`` and store the results as they complete
    (how: ``options``). ``rows``: the input already read (a pipe read once to count it);
    ``input_path`` then only names the run. ``encoding``: the input's, when it is not
    UTF-8 (see :func:`~leadengine.batch.input.read_rows`). ``evaluator``: the one the
    settings make, made already (the Ray engine's shares its rate limits). Cancelling
    the task marks the run ``interrupted``.

    The input is read once, whole, before the run is recorded: a missing file, a CSV
    without a url column or a file that cannot be read (its encoding, a NUL byte) is an
    error here, not an ``interrupted`` run halfway through its rows."""
    rows = list(read_rows(input_path, encoding) if rows is None else rows)
    batch = BatchRun(input_name(input_path), settings, kb, store, options or BatchOptions(),
                     evaluator)
    return await run_rows(batch, rows)


async def run_rows(batch: BatchRun, rows: list[Row]) -> Summary:
    """Start ``batch``'s run, work through ``rows`` (in shard processes when the settings
    allow more than one worker and there are rows enough) and record how the run ended
    (``interrupted`` on any exception or cancellation, which is re-raised)."""
    batch.start()
    batch.log_progress()  # the run is recorded: a progress bar or page can name it
    beat = asyncio.create_task(batch.heartbeat())
    workers = batch.settings.workers
    shards = shard_count(default_workers() if workers is None else workers, len(rows))
    try:
        if shards > 1:
            await run_shards(batch, rows, shards)
        else:
            await batch.process(rows)
            batch.summary.reused_pages = batch.snapshots.reused
    except BaseException:
        beat.cancel()
        batch.store.finish_run(batch.key.run_id, "interrupted", batch.summary.skips())
        raise
    beat.cancel()
    batch.store.finish_run(batch.key.run_id, "done", batch.summary.skips())
    return batch.summary
