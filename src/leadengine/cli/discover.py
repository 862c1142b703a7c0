"""``leadengine discover``: the businesses a directory page lists, as a CSV for
``leadengine batch`` (:mod:`leadengine.batch.discover`)."""

from __future__ import annotations

import asyncio
import csv
import sys
from pathlib import Path

import click

from leadengine.cli.common import _settings, _store, db_option, fetch_options, guarded
from leadengine.config import safe_message
from leadengine.errors import ConfigError
from leadengine.output import counted

#: Most businesses one command reads by default.
MAX_ROWS = 1000


@click.command()
@click.argument("url")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="CSV file to write (default: standard output).")
@click.option("--pages", type=click.IntRange(1, 200), default=5, show_default=True,
              help="Listing pages read at most (the first and its next pages).")
@click.option("--max-rows", type=click.IntRange(1, 100_000), default=MAX_ROWS,
              show_default=True, help="Businesses read at most.")
@db_option
@fetch_options
@guarded
def discover(url: str, output: Path | None, pages: int, max_rows: int, db: str | None,
             allow_private: bool | None, ignore_robots: bool | None,
             max_pages: int | None, render: str | None) -> None:
    """Find the businesses a directory or listing page lists (cards, tables, lists,
    schema.org ItemList, its next pages), read each one's page on the directory for the
    business's own website, phone and address, and write one row per business, ready
    for `leadengine batch` (its `website` column). Rows whose website is already in the
    results database are marked `known`. robots.txt, the per-host delay and the SSRF
    guard apply as for any fetch."""
    from leadengine.batch import DISCOVER_COLUMNS as COLUMNS
    from leadengine.batch import discover as run
    from leadengine.store import missing_database
    from leadengine.website import normalise_url

    settings = _settings(allow_private=allow_private, render=render,
                         respect_robots=False if ignore_robots else None)
    target = normalise_url(url)
    if not target.startswith(("http://", "https://")):
        raise ConfigError(f"{url}: discover reads a web page (http or https)")
    path = db or settings.db
    known = [] if missing_database(path) else _store(path, create=False).urls_of_run()
    found = asyncio.run(run(target, settings, pages, max_rows, known))
    out = output.open("w", encoding="utf-8", newline="") if output else sys.stdout
    try:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        for item in found.found:
            writer.writerow({k: safe_message(v) if k == "note" else v
                             for k, v in item.row().items()})
    finally:
        if output:
            out.close()
    websites = sum(1 for f in found.found if f.website)
    click.echo(f"discover: {counted(len(found.found), 'business', 'businesses')} on "
               f"{counted(found.pages, 'listing page')}, {websites} with a website, "
               f"{sum(1 for f in found.found if f.known)} already evaluated"
               + (f"; {found.stopped}" if found.stopped else "")
               + (f" -> {output}" if output else ""), err=True)
