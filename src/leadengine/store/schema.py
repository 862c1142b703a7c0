"""The store's tables and the key a stored row is identified by (the migrations that
make them: :mod:`leadengine.store.migrations`; the workspace's own tables:
:mod:`leadengine.store.board`). The table objects are named ``*_table`` so that they are never
confused with the :class:`~leadengine.store.Store` methods that read them
(``Store.errors()`` reads ``errors_table``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

#: The counters of a run: evaluated and failed grow with each saved row; the skips
#: (rows not attempted) are written by :meth:`Store.count_skips`.
RUN_COUNTERS = ("evaluated", "failed", "skipped_done", "skipped_failed", "duplicates")
#: ``elsewhere``: rows left to the other live run that had claimed them (see _m006).
SKIP_COUNTERS = ("skipped_done", "skipped_failed", "duplicates", "elsewhere")


@dataclass(frozen=True)
class RunKey:
    """A run and the configuration it evaluates under: what every row it stores,
    claims or looks up is keyed by (a URL is evaluated once per knowledge-base
    version, provider and model)."""

    run_id: int
    kb_version: str
    provider: str
    model: str


#: Text that sorts and compares as code points: SQLite's BINARY, PostgreSQL's "C"
#: collation (the generic type with a collation: the same DDL without importing the
#: PostgreSQL dialect, 45 ms of every command's start, when the database is SQLite).
CODE_POINT_TEXT = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")


def loads_stored(text: str) -> Any:
    """Stored JSON, or None when a row holds something else."""
    try:
        return json.loads(text)
    except ValueError:
        return None


metadata = sa.MetaData()
runs_table = sa.Table(
    "runs", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float),
    sa.Column("input", sa.Text, nullable=False),
    sa.Column("kb_version", sa.String(64), nullable=False),
    sa.Column("provider", sa.String(64), nullable=False),
    sa.Column("model", sa.String(200), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    # What the run itself did (see _m004_run_counters): rows move to a later run when
    # they are retried, so counting rows per run_id would rewrite history.
    *(sa.Column(name, sa.Integer, nullable=False, server_default="0")
      for name in RUN_COUNTERS),
    # Who runs it and when it last showed signs of life (see _m006_run_liveness).
    sa.Column("pid", sa.Integer),
    sa.Column("hostname", sa.String(255)),
    sa.Column("heartbeat_at", sa.Float),
    sa.Column("elsewhere", sa.Integer, nullable=False, server_default="0"),
    # What the run had to change on its way, one line each (see _m009_run_notes): a
    # retired model it switched from.
    sa.Column("notes", sa.Text),
    # The person who started it from the workspace (see _m010_people); None: the CLI.
    sa.Column("started_by", sa.String(200)),
)


def _result_columns() -> list[sa.Column[Any]]:
    """Columns every stored row has: where it came from and the configuration it was
    evaluated under (its identity for resuming)."""
    return [
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("row_index", sa.Integer, nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("kb_version", sa.String(64), nullable=False),
        sa.Column("provider", sa.String(64), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("passthrough", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    ]


evaluations_table = sa.Table(
    "evaluations", metadata, *_result_columns(),
    sa.Column("fit_score", sa.Integer, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.UniqueConstraint("url", "kb_version", "provider", "model", name="uq_evaluation"),
)
errors_table = sa.Table(
    "errors", metadata, *_result_columns(),
    sa.Column("error", sa.Text, nullable=False),
    sa.UniqueConstraint("url", "kb_version", "provider", "model", name="uq_error"),
)
page_snapshots_table = sa.Table(
    "page_snapshots", metadata,
    sa.Column("url", sa.Text, primary_key=True),
    sa.Column("final_url", sa.Text, nullable=False),
    sa.Column("status", sa.Integer, nullable=False),
    sa.Column("content_type", sa.String(100), nullable=False),
    sa.Column("encoding", sa.String(40), nullable=False),
    sa.Column("truncated", sa.Boolean, nullable=False),
    #: zlib-compressed UTF-8 HTML.
    sa.Column("html", sa.LargeBinary, nullable=False),
    sa.Column("fetched_at", sa.Float, nullable=False),
)
migrations_table = sa.Table(
    "schema_migrations", metadata,
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("applied_at", sa.Float, nullable=False),
)
#: A URL being evaluated, under one configuration, by one run until ``expires_at``.
claims_table = sa.Table(
    "claims", metadata,
    sa.Column("url", sa.Text, primary_key=True),
    sa.Column("kb_version", sa.String(64), primary_key=True),
    sa.Column("provider", sa.String(64), primary_key=True),
    sa.Column("model", sa.String(200), primary_key=True),
    sa.Column("run_id", sa.Integer, nullable=False),
    #: host:pid of the process holding it (for whoever looks at the table).
    sa.Column("owner", sa.String(300), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)


def same_key(table: sa.Table, key: RunKey, url: str) -> list[Any]:
    """The WHERE clause of ``url`` under the key's configuration (any run)."""
    return [table.c.url == url, table.c.kb_version == key.kb_version,
            table.c.provider == key.provider, table.c.model == key.model]


def of_urls(table: sa.Table, key: RunKey, urls: Sequence[str]) -> list[Any]:
    """The WHERE clause of any of ``urls`` under the key's configuration (any run)."""
    return [table.c.url.in_(urls), table.c.kb_version == key.kb_version,
            table.c.provider == key.provider, table.c.model == key.model]


# -- migrations ------------------------------------------------------------------------
