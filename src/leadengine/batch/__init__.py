"""Many URLs: a batch reads its input (a CSV, a sheet, a list, a pipe), evaluates every
row through the pipeline and stores each result as it completes, resumable after any
stop.

* :mod:`~leadengine.batch.local`: :func:`run_batch`, a batch on this machine;
* :mod:`~leadengine.batch.run`: :class:`BatchRun`, the run; :mod:`~leadengine.batch.options`:
  :class:`BatchOptions`, how it runs;
* :mod:`~leadengine.batch.input` and :mod:`~leadengine.batch.lines`: the input's rows,
  whatever its encoding, delimiter or damage;
* :mod:`~leadengine.batch.summary`: what a run did, in one line;
* :mod:`~leadengine.batch.shards` (the parent), :mod:`~leadengine.batch.shard` (a
  shard's process), :mod:`~leadengine.batch.messages` (what they say),
  :mod:`~leadengine.batch.handout` and :mod:`~leadengine.batch.preload`: the run on
  every core, in processes of its own;
* :mod:`~leadengine.batch.turns`: the CPU-heavy steps taking turns of the event loop;
* :mod:`~leadengine.batch.ray`: the same run on a Ray cluster;
* :mod:`~leadengine.batch.discover`: the businesses a directory lists, rows for a batch.

The names below are what callers outside the package use.
"""

from leadengine.batch.discover import COLUMNS as DISCOVER_COLUMNS
from leadengine.batch.discover import Discovery, discover
from leadengine.batch.input import STDIN, Row, input_is_seekable, read_rows, sniff_delimiter
from leadengine.batch.local import run_batch
from leadengine.batch.options import BatchOptions
from leadengine.batch.preload import warm
from leadengine.batch.ray import RayOptions, check_database_url, run_batch_on_ray
from leadengine.batch.run import CLAIM_CHUNK, BatchRun, progress_log
from leadengine.batch.summary import Summary, failure_reason

__all__ = [
    "CLAIM_CHUNK", "DISCOVER_COLUMNS", "STDIN", "BatchOptions", "BatchRun", "Discovery",
    "RayOptions", "Row", "Summary", "check_database_url", "discover", "failure_reason",
    "input_is_seekable", "progress_log", "read_rows", "run_batch", "run_batch_on_ray",
    "sniff_delimiter", "warm",
]
