"""The ``batch`` command (reading its results: :mod:`leadengine.cli.results`).

Added to the ``leadengine`` group by :mod:`leadengine.cli`; the same thin
layer: parse options, call the library (:mod:`leadengine.batch`,
:mod:`leadengine.store`, :mod:`leadengine.output.export`), print. Only click and the
shared CLI helpers are imported up front, so ``leadengine --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from leadengine.cli.common import (
    _evaluator,
    _knowledge,
    _run,
    _settings,
    _store,
    db_option,
    fetch_options,
    guarded,
    knowledge_option,
    llm_options,
    method_option,
    outreach_option,
    question_option,
)
from leadengine.config import safe_message
from leadengine.errors import ConfigError

if TYPE_CHECKING:
    from leadengine.batch import BatchOptions, Summary
    from leadengine.config import Settings
    from leadengine.retrieval import KnowledgeBase
    from leadengine.store import Store

T = TypeVar("T")

#: Said when a batch is stopped (Ctrl-C, SIGTERM): what was stored stays, and a rerun
#: of the same command carries on from there.
INTERRUPTED = "error: interrupted; run the same command again to resume"

@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(path_type=Path))
@db_option
@llm_options
@knowledge_option
@method_option
@click.option("--concurrency", type=click.IntRange(min=1), default=16, show_default=True,
              help="Sites fetched at the same time, and LLM requests in flight at the "
                   "same time (sites are fetched and read while others wait for the LLM).")
@click.option("--per-host", type=click.IntRange(min=1), default=2, show_default=True,
              help="Concurrent requests to one host.")
@click.option("--host-delay", type=click.FloatRange(min=0), default=None,
              help="Seconds between two sites on one host (default 0.5).")
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="Processes the batch runs in, each with its share of the URLs "
                   "(default: one per core; 0 or 1: this process only).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local",
              show_default=True,
              help="Where the batch runs: this machine, or a Ray cluster (shards share a "
                   "PostgreSQL --db; needs pip install 'leadengine[ray]').")
@click.option("--address", default=None, metavar="ADDRESS",
              help="With --engine ray: auto, host:port of the head node, or "
                   "ray://host:port (default: start Ray on this machine).")
@click.option("--retry-failed", is_flag=True, help="Evaluate rows that failed before again.")
@click.option("--max-age", type=click.FloatRange(min=0), default=None,
              help="Reuse stored page snapshots fetched at most this many seconds ago.")
@click.option("--encoding", default=None,
              help="The input's encoding when it is not UTF-8 or UTF-16 with a BOM, e.g. "
                   "cp874 for a sheet saved as CSV on Thai Windows.")
@question_option
@outreach_option
@fetch_options
@guarded
def batch(input_path: Path, db: str | None, provider: str | None, model: str | None,
          temperature: float | None, base_url: str | None, no_cache: bool, no_fallback: bool,
          knowledge_dir: Path | None, method: str | None,
          concurrency: int, per_host: int, host_delay: float | None, workers: int | None,
          engine: str, address: str | None, retry_failed: bool, max_age: float | None,
          encoding: str | None, questions: tuple[str, ...],
          outreach_language: str | None, outreach_writer: str | None,
          allow_private: bool | None,
          ignore_robots: bool | None, max_pages: int | None, render: str | None) -> None:
    """Evaluate every URL of INPUT: a CSV (comma, semicolon or tab separated) with a url
    or website column, or a text file of URLs; `-` reads standard input. Rows may also
    be saved HTML files or folders. Results are stored as they complete, so running the
    same command again resumes; batches started at the same time on one database share
    the work instead of evaluating a URL twice."""
    settings = _settings(provider=provider, model=model, temperature=temperature,
                         base_url=base_url, knowledge_dir=knowledge_dir,
                         retrieval_method=method, outreach_language=outreach_language,
                         outreach_writer=outreach_writer,
                         use_cache=False if no_cache else None,
                         fallback=False if no_fallback else None,
                         allow_private=allow_private,
                         respect_robots=False if ignore_robots else None,
                         max_pages=max_pages, render=render,
                         host_delay=host_delay, workers=workers)

    # The options' own conflicts first: a refused command opens (and leaves) no database.
    if address is not None and engine != "ray":
        raise ConfigError("--address names a Ray cluster: use it with --engine ray")
    from leadengine.batch import BatchOptions, check_database_url
    from leadengine.store import database_url

    if engine == "ray":
        check_database_url(database_url(db or settings.db))
    store = _store(db or settings.db)
    kb = _knowledge(settings, questions)
    # What to hear before the work starts (the offline evaluator, a model that retires
    # soon or was replaced at once); a missing key fails here. The batch makes its own.
    _evaluator(settings, kb)

    options = BatchOptions(retry_failed=retry_failed, concurrency=concurrency,
                           per_host=per_host, max_age=max_age)
    if engine == "ray":
        summary = _run_on_ray(input_path, settings, kb, store, address, options, encoding)
    else:
        summary = _run_local(input_path, settings, kb, store, options, encoding)
    lines = [summary.line(), *summary.failure_lines(), f"results: {store.url}"]
    # Failure reasons quote servers and input cells: no key or escape code gets through.
    click.echo("\n".join(safe_message(line) for line in lines), err=True)


def _run_local(input_path: Path, settings: Settings, kb: KnowledgeBase, store: Store,
               options: BatchOptions, encoding: str | None) -> Summary:
    """The batch on this machine: progress lines in a pipe, a progress bar on a terminal."""
    # Start-up, like the imports: what every page read consults (the taxonomy, gazetteer
    # and service catalogue) is loaded before the run starts, in this process, which its
    # shards are forked from (not on the first row).
    from leadengine.batch import run_batch, warm

    warm(kb)

    if sys.stderr.isatty():
        return _run_with_progress_bar(input_path, settings, kb, store, options, encoding)
    with _progress_lines():
        return _run_interruptible(run_batch(input_path, settings, kb, store, options,
                                            encoding=encoding))


def _run_on_ray(input_path: Path, settings: Settings, kb: KnowledgeBase, store: Store,
                address: str | None, options: BatchOptions, encoding: str | None
                ) -> Summary:
    """The batch on a Ray cluster; Ctrl-C stops its tasks (what is stored stays)."""
    from leadengine.batch import RayOptions, run_batch_on_ray

    click.echo(f"batch: running on Ray ({address or 'a local instance'})", err=True)
    try:
        if sys.stderr.isatty():
            # The shards' progress, as they report it (every half second).
            with _progress_bar(None, redraw=True) as (_, update):
                return run_batch_on_ray(input_path, settings, kb, store, RayOptions(address),
                                        dataclasses.replace(options, on_progress=update),
                                        encoding=encoding)
        with _progress_lines():
            return run_batch_on_ray(input_path, settings, kb, store, RayOptions(address),
                                    options, encoding=encoding)
    except KeyboardInterrupt:
        click.echo(INTERRUPTED, err=True)
        sys.exit(130)


@contextlib.contextmanager
def _progress_lines() -> Iterator[None]:
    """Show the batch's plain progress lines (the ``leadengine.progress`` logger) on
    stderr as "progress: ..." while the command runs. Installed per command and taken
    off after it, because the stderr of the moment is the one to write to (a test's
    runner swaps it for each command)."""
    import logging

    from leadengine.batch import progress_log

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("progress: %(message)s"))
    level, propagate = progress_log.level, progress_log.propagate
    progress_log.addHandler(handler)
    progress_log.setLevel(logging.INFO)
    # Shown once, here: not again by a handler someone set on the root logger.
    progress_log.propagate = False
    try:
        yield
    finally:
        progress_log.removeHandler(handler)
        progress_log.setLevel(level)
        progress_log.propagate = propagate


class _Terminated(Exception):
    """SIGTERM stopped the batch."""


def _run_interruptible(coro: Coroutine[Any, Any, T]) -> T:
    """Run a batch; Ctrl-C or SIGTERM cancels it (the run is then marked interrupted)
    and ends the command with one line and the shell's usual exit code."""
    try:
        return _run(_cancel_on_sigterm(coro))
    except KeyboardInterrupt:
        code = 130
    except _Terminated:
        code = 143
    click.echo(INTERRUPTED, err=True)
    sys.exit(code)


async def _cancel_on_sigterm(coro: Coroutine[Any, Any, T]) -> T:
    # Without a handler SIGTERM ends the process on the spot and the run stays
    # 'running' for ever; cancelling instead lets the batch record that it stopped.
    # (asyncio.run already turns Ctrl-C into the same cancellation.)
    import asyncio
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    terminated: list[bool] = []

    def terminate() -> None:
        terminated.append(True)
        if task is not None:
            task.cancel()

    # Windows, or not the main thread: SIGTERM keeps its default.
    unsupported = (NotImplementedError, RuntimeError, ValueError)
    with contextlib.suppress(*unsupported):
        loop.add_signal_handler(signal.SIGTERM, terminate)
    try:
        return await coro
    except asyncio.CancelledError:
        if terminated:
            raise _Terminated from None
        raise
    finally:
        with contextlib.suppress(*unsupported):
            loop.remove_signal_handler(signal.SIGTERM)


@contextlib.contextmanager
def _progress_bar(total: int | None, redraw: bool = False
                  ) -> Iterator[tuple[Any, Callable[[Summary], None]]]:
    """A rich progress bar on stderr (done, failed, rate, ETA, spend so far) and the
    function that moves it (and, with ``redraw``, redraws it). Redrawn by the batch's
    own loop (:func:`_redrawn`) or by that function, not by rich's refresh thread: the
    local engine forks its shards from this process, which it does only while no other
    thread runs."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn("[bold]batch"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[failed]} failed"),
               TextColumn("{task.fields[rate]:.1f}/s"), TextColumn("${task.fields[cost]:.4f}"),
               TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, console=Console(stderr=True), auto_refresh=False) as bar:
        task = bar.add_task("batch", total=total, failed=0, rate=0.0, cost=0.0)

        def update(summary: Summary) -> None:
            elapsed = max(1e-6, time.monotonic() - summary.started)
            bar.update(task, total=total or summary.total or None,
                       completed=summary.handled, failed=summary.failed,
                       rate=summary.done / elapsed, cost=summary.cost_usd)
            if redraw:
                bar.refresh()

        yield bar, update


def _run_with_progress_bar(input_path: Path, settings: Settings, kb: KnowledgeBase,
                           store: Store, options: BatchOptions,
                           encoding: str | None = None) -> Summary:
    """The local batch with a progress bar on a terminal."""
    from leadengine.batch import read_rows, run_batch

    # The bar needs the total up front: the input is read once, here (a few hundred
    # bytes a row), and the batch works through the rows read.
    rows = list(read_rows(input_path, encoding))
    with _progress_bar(len(rows)) as (bar, update):
        watched = dataclasses.replace(options, on_progress=update)
        return _run_interruptible(_redrawn(bar, run_batch(input_path, settings, kb, store,
                                                          watched, rows=rows)))


#: Seconds between two redraws of the progress bar.
REDRAW_EVERY = 0.25


async def _redrawn(bar: Any, work: Coroutine[Any, Any, Summary]) -> Summary:
    """``work``'s result, with ``bar`` redrawn every :data:`REDRAW_EVERY` seconds while
    it runs (the elapsed time and ETA move even while no row ends)."""
    import asyncio

    async def redraw() -> None:
        while True:
            await asyncio.sleep(REDRAW_EVERY)
            bar.refresh()

    redrawing = asyncio.create_task(redraw())
    try:
        return await work
    finally:
        redrawing.cancel()
