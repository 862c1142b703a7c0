"""Reading a batch's results: ``runs``, ``show`` and ``export``.

The same thin layer: parse options, call the library (:mod:`leadengine.store`,
:mod:`leadengine.output`), print. Only click and the shared CLI helpers are imported up
front, so ``leadengine --help`` stays fast.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO

import click

from leadengine.cli.common import _knowledge, _settings, _store, db_option, guarded
from leadengine.config import safe_message
from leadengine.errors import ConfigError, LeadEngineError

if TYPE_CHECKING:
    from leadengine.config import Settings
    from leadengine.store import Order


@click.command()
@db_option
@click.option("--format", "fmt",
              type=click.Choice(["csv", "crm-csv", "xlsx", "jsonl", "json"]), default=None,
              help="csv (default; flat, input columns first, safe to open in Excel), "
                   "crm-csv (CRM-named columns, plain values: to import into a CRM), xlsx "
                   "(Excel; needs -o), jsonl or json. Default: from the -o file's "
                   "extension, else csv.")
@click.option("--run", "run_id", type=int, default=None, help="Only this run's results.")
@click.option("--min-score", type=click.IntRange(0, 100), default=None,
              help="Only leads with at least this fit score.")
@click.option("--include-failed", is_flag=True,
              help="Also the rows that failed, with status and error columns.")
@click.option("--order", type=click.Choice(["score", "input"]), default=None,
              help="score: best fit first (default for csv and xlsx); input: as the rows "
                   "were read. json and jsonl default to the order stored.")
@click.option("--bom/--no-bom", default=None,
              help="Start the CSV with a UTF-8 byte-order mark, so Excel shows Thai and "
                   "Burmese. Default: yes when writing a file (-o, or > file), no in a "
                   "pipe or on a terminal.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Write to this file (default: stdout).")
@guarded
def export(db: str | None, fmt: str | None, run_id: int | None, min_score: int | None,
           include_failed: bool, order: str | None, bom: bool | None,
           output: Path | None) -> None:
    """Export stored evaluations (CSV is flat and CRM-ready, input columns first)."""
    from leadengine.output import WRITERS, write_xlsx

    fmt = fmt or _format_of(output)
    if fmt == "xlsx" and output is None and sys.stdout.isatty():
        raise ConfigError("xlsx is a binary file, not for the terminal: write it to a file "
                          "with -o leads.xlsx")
    store = _store(db, create=False)
    settings = _settings()
    if run_id is not None and store.run(run_id) is None:
        raise ConfigError(f"no run {run_id} in this database (see `leadengine runs`)")
    sort: Order = ("input" if order == "input" else "score" if order == "score"
                   or fmt in ("csv", "crm-csv", "xlsx") else "stored")
    from leadengine.store import with_standing

    records: Iterable[dict[str, Any]] = store.evaluations(
        run_id=run_id, min_score=min_score, order=sort, leads=fmt not in ("json", "jsonl"))
    if fmt not in ("json", "jsonl"):
        # The columns a team sorts by include where it has each lead (status, notes).
        records = with_standing(store.engine, records, settings.time_zone)
    failures = store.errors(run_id) if include_failed or fmt == "xlsx" else None
    interleave = sort == "input"
    if fmt == "xlsx":
        assert failures is not None
        target: Path | IO[bytes] = output if output is not None else sys.stdout.buffer
        count = write_xlsx(records, target, failures, include_failed, interleave)
    elif output is None:
        count = _write_stdout(fmt, records, failures, interleave, bom)
    else:
        encoding = "utf-8-sig" if fmt == "csv" and bom is not False else "utf-8"
        with output.open("w", encoding=encoding, newline="") as handle:
            count = WRITERS[fmt](records, handle, failures, interleave)
    if output is not None:
        from leadengine.output import counted

        failed = f" and {counted(len(failures), 'failure')}" if failures else ""
        click.echo(f"{counted(count, 'evaluation')}{failed} written to {output}", err=True)


def _format_of(output: Path | None) -> str:
    suffix = output.suffix.lower().lstrip(".") if output is not None else ""
    return suffix if suffix in ("xlsx", "jsonl", "json") else "csv"


def _write_stdout(fmt: str, records: Any, failures: list[dict[str, Any]] | None,
                  interleave: bool, bom: bool | None) -> int:
    import io

    from leadengine.output import WRITERS

    if fmt != "csv":
        return WRITERS[fmt](records, sys.stdout, failures, interleave)
    # CSV goes out as UTF-8 whatever the terminal's locale, so Thai and Burmese survive.
    with_bom = bom if bom is not None else _is_regular_file(sys.stdout)
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        if with_bom:
            sys.stdout.write("\ufeff")
        return WRITERS[fmt](records, sys.stdout, failures, interleave)
    out = io.TextIOWrapper(buffer, encoding="utf-8-sig" if with_bom else "utf-8",
                           newline="")
    try:
        return WRITERS[fmt](records, out, failures, interleave)
    finally:
        out.flush()
        out.detach()


def _is_regular_file(stream: TextIO) -> bool:
    """Whether ``stream`` is a file on disk (``> leads.csv``), not a pipe or a terminal."""
    import stat

    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


@click.command("runs")
@db_option
@guarded
def runs_command(db: str | None) -> None:
    """List batch runs: what each run evaluated, what failed, what it skipped because a
    result was already stored (done before, or failed before) or another run was
    evaluating it, and the machine and process that ran it (host:pid). A run whose
    process is gone shows as interrupted. Times are in the time_zone setting."""
    from leadengine.config import when

    zone = _settings().time_zone
    found = _store(db, create=False).runs()
    if not found:
        click.echo("no runs yet", err=True)
        return
    evaluators = [f"{run['provider']}/{run['model']}" for run in found]
    hosts = [f"{run['hostname']}:{run['pid']}" if run.get("hostname") else "-"
             for run in found]
    # Every column as wide as its widest value: the input, last, starts in one place.
    wide_host = max(len("host"), *map(len, hosts))
    wide_evaluator = max(len("evaluator"), *map(len, evaluators))
    click.echo(f"{'run':>4}  {'started':<16}  {'status':<11} {'evaluated':>9} {'failed':>6} "
               f"{'skipped':>7}  {'host':<{wide_host}}  {'evaluator':<{wide_evaluator}}  "
               "input")
    for run, evaluator, host in zip(found, evaluators, hosts, strict=True):
        started = when(run["started_at"], zone)
        skipped = run["skipped_done"] + run["skipped_failed"] + run["elsewhere"]
        click.echo(f"{run['id']:>4}  {started:<16}  {run['status']:<11} "
                   f"{run['evaluated']:>9} {run['failed']:>6} {skipped:>7}  "
                   f"{safe_message(host):<{wide_host}}  {evaluator:<{wide_evaluator}}  "
                   f"{safe_message(str(run['input']))}")
        for note in (run.get("notes") or "").splitlines():
            # What the run changed on its way: a retired model it switched from.
            click.echo(f"{'':>6}note: {safe_message(note)}")


@click.command()
@click.argument("url")
@db_option
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]),
              default=None,
              help="text: a readable report; markdown: a one-page lead brief; json: the "
                   "evaluation JSON. Default: text on a terminal, json when piped.")
@guarded
def show(url: str, db: str | None, fmt: str | None) -> None:
    """Print the stored evaluation of URL (a URL, domain, or saved HTML file or folder, as
    given to `batch`). For a URL that failed, say why on stderr and exit 1."""
    from leadengine.batch import failure_reason
    from leadengine.website import normalise_url

    settings = _settings()
    store = _store(db or settings.db, create=False)
    key = normalise_url(url)
    record = store.latest(key)
    if record is None:
        failure = store.latest_error(key)
        if failure is not None:
            raise LeadEngineError(f"{key} failed in run {failure['run_id']}: "
                                  f"{failure_reason(failure['error'], key)}")
        raise LeadEngineError(f"no stored evaluation for {url} in {store.url}")
    fmt = fmt or ("text" if sys.stdout.isatty() else "json")
    if fmt == "json":
        click.echo(json.dumps(record, ensure_ascii=False, indent=2))
        return
    from leadengine.output import render_report

    click.echo(render_report(record, fmt, _bands(settings)))


def _bands(settings: Settings) -> dict[str, int] | None:
    """The knowledge base's fit-score bands, so `show` names a score's band as `evaluate`
    did; None (the shipped rubric's) when the knowledge base cannot be read."""
    try:
        return _knowledge(settings).rules.rubric.bands
    except LeadEngineError:
        return None
