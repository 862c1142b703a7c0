"""The batch and store commands: ``batch``, ``export``, ``runs``, ``show``.

Added to the ``leadengine`` group by :mod:`leadengine.cli`; the same thin
layer: parse options, call the library (:mod:`leadengine.batch`,
:mod:`leadengine.store`, :mod:`leadengine.export`), print.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from leadengine.cli_common import (
    _knowledge,
    _run,
    _settings,
    fetch_options,
    guarded,
    knowledge_option,
    llm_options,
    method_option,
)
from leadengine.config import Settings
from leadengine.errors import LeadEngineError
from leadengine.knowledge import KnowledgeBase

db_option = click.option(
    "--db", default=None,
    help="Results database: a file path (SQLite) or a URL such as postgresql://... "
         "(default: $LEADENGINE_DB or ./leadengine.db).")


def _store(db: str | None) -> Any:
    from leadengine.store import DEFAULT_DB, Store

    return Store(db or os.environ.get("LEADENGINE_DB") or DEFAULT_DB)


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(path_type=Path))
@db_option
@llm_options
@knowledge_option
@method_option
@click.option("--concurrency", type=click.IntRange(min=1), default=16, show_default=True,
              help="Sites evaluated at the same time.")
@click.option("--per-host", type=click.IntRange(min=1), default=2, show_default=True,
              help="Concurrent requests to one host.")
@click.option("--host-delay", type=click.FloatRange(min=0), default=None,
              help="Seconds between two sites on one host (default 0.5).")
@click.option("--retry-failed", is_flag=True, help="Evaluate rows that failed before again.")
@click.option("--max-age", type=click.FloatRange(min=0), default=None,
              help="Reuse stored page snapshots fetched at most this many seconds ago.")
@fetch_options
@guarded
def batch(input_path: Path, db: str | None, provider: str | None, model: str | None,
          temperature: float | None, base_url: str | None, no_cache: bool,
          knowledge_dir: Path | None, method: str | None,
          concurrency: int, per_host: int, host_delay: float | None, retry_failed: bool,
          max_age: float | None, allow_private: bool | None, ignore_robots: bool | None,
          max_pages: int | None) -> None:
    """Evaluate every URL of INPUT (text file or CSV); results are stored as they complete,
    so running the same command again resumes."""
    from leadengine.batch import run_batch

    settings = _settings(provider=provider, model=model, temperature=temperature,
                         base_url=base_url, knowledge_dir=knowledge_dir,
                         retrieval_method=method,
                         use_cache=False if no_cache else None, allow_private=allow_private,
                         respect_robots=False if ignore_robots else None, max_pages=max_pages,
                         host_delay=host_delay)
    store = _store(db)
    kb = _knowledge(settings)
    if not sys.stderr.isatty():
        summary = _run(run_batch(input_path, settings, kb, store, retry_failed=retry_failed,
                                 concurrency=concurrency, per_host=per_host,
                                 max_age=max_age))
    else:
        summary = _run_with_progress_bar(input_path, settings, kb, store, retry_failed,
                                         concurrency, per_host, max_age)
    click.echo(f"{summary.line()}\nresults: {store.url}", err=True)


def _run_with_progress_bar(input_path: Path, settings: Settings, kb: KnowledgeBase,
                           store: Any, retry_failed: bool, concurrency: int,
                           per_host: int, max_age: float | None = None) -> Any:
    """A rich progress bar on a terminal: done, failed, rate, ETA, spend so far."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from leadengine.batch import read_rows, run_batch

    total = sum(1 for _ in read_rows(input_path))
    columns = [TextColumn("[bold]batch"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[failed]} failed"),
               TextColumn("{task.fields[rate]:.1f}/s"), TextColumn("${task.fields[cost]:.4f}"),
               TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("batch", total=total, failed=0, rate=0.0, cost=0.0)

        def update(summary: Any) -> None:
            elapsed = max(1e-6, time.monotonic() - summary.started)
            bar.update(task, completed=summary.handled, failed=summary.failed,
                       rate=summary.done / elapsed, cost=summary.cost_usd)

        return _run(run_batch(input_path, settings, kb, store, retry_failed=retry_failed,
                              concurrency=concurrency, per_host=per_host,
                              on_progress=update, max_age=max_age))


@click.command()
@db_option
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl", "json"]), default="csv",
              show_default=True)
@click.option("--run", "run_id", type=int, default=None, help="Only this run's results.")
@click.option("--min-score", type=click.IntRange(0, 100), default=None,
              help="Only leads with at least this fit score.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Write to this file (default: stdout).")
@guarded
def export(db: str | None, fmt: str, run_id: int | None, min_score: int | None,
           output: Path | None) -> None:
    """Export stored evaluations (CSV is flat and CRM-ready, input columns first)."""
    from leadengine.export import WRITERS

    records = _store(db).evaluations(run_id=run_id, min_score=min_score)
    if output is None:
        WRITERS[fmt](records, sys.stdout)
        return
    with output.open("w", encoding="utf-8", newline="") as handle:
        count = WRITERS[fmt](records, handle)
    click.echo(f"{count} evaluations written to {output}", err=True)


@click.command("runs")
@db_option
@guarded
def runs_command(db: str | None) -> None:
    """List batch runs."""
    import datetime

    for run in _store(db).runs():
        started = datetime.datetime.fromtimestamp(run["started_at"]).strftime("%Y-%m-%d %H:%M")
        click.echo(f"{run['id']:>4}  {started}  {run['status']:<11} {run['done']:>5} done "
                   f"{run['failed']:>4} failed  {run['provider']}/{run['model']}  "
                   f"{run['input']}")


@click.command()
@click.argument("url")
@db_option
@guarded
def show(url: str, db: str | None) -> None:
    """Print the stored evaluation of URL."""
    from leadengine.batch import normalise_url

    store = _store(db)
    record = store.latest(normalise_url(url))
    if record is None:
        raise LeadEngineError(f"no stored evaluation for {url} in {store.url}")
    click.echo(json.dumps(record, ensure_ascii=False, indent=2))
