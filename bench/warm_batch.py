"""A batch in a process that has run one before: ``bench_batch``'s warm reference.

Run by :mod:`bench.bench_batch` as a subprocess, with the environment of its batch
commands::

    python -m bench.warm_batch WARMUP_INPUT INPUT --db DB --base-url URL
                               [--concurrency 64] [--provider custom]

In one process, through the Python API (:func:`leadengine.batch.run_batch`, the
settings and knowledge base built as ``leadengine batch`` builds them, with its
options: ``--max-pages 0``, ``--no-cache``, ``--method keyword``, private addresses
allowed): a batch of ``WARMUP_INPUT`` on its own database (the imports, the data, the
knowledge base's index: what any first batch of a process pays), then, timed, the batch
of ``INPUT`` on ``DB``, its shards forked from this process as the command's are. What
the timed batch costs is the engine's own work, without Python's start-up: the case of
a process that runs batch after batch (a script on the Python API, a long-lived
worker).

Prints one JSON line: ``wall_s`` (the timed batch), ``cpu_s`` (this process and the
shards it waited for, during the timed batch: ``getrusage``), ``evaluated``,
``failed``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from pathlib import Path

from leadengine.batch import BatchOptions, run_batch
from leadengine.cli.common import _knowledge, _settings
from leadengine.store import Store


def cpu_s() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warmup", type=Path)
    parser.add_argument("input", type=Path)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--provider", default="custom")
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    settings = _settings(provider=args.provider, base_url=args.base_url,
                         retrieval_method="keyword", use_cache=False, allow_private=True,
                         max_pages=0)
    kb = _knowledge(settings)

    def batch(input_path: Path, db: Path) -> tuple[float, float, int, int]:
        store = Store(str(db))
        started, cpu = time.perf_counter(), cpu_s()
        summary = asyncio.run(run_batch(input_path, settings, kb, store,
                                        BatchOptions(concurrency=args.concurrency,
                                                     per_host=args.concurrency)))
        wall, cpu = time.perf_counter() - started, cpu_s() - cpu
        return wall, cpu, summary.done, summary.failed

    batch(args.warmup, args.db.with_name(args.db.stem + "-warmup.db"))
    wall, cpu, done, failed = batch(args.input, args.db)
    print(json.dumps({"wall_s": wall, "cpu_s": cpu, "evaluated": done, "failed": failed}))


if __name__ == "__main__":
    main()
