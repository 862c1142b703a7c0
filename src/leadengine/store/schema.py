"""The store's tables, the key a stored row is identified by, and the migrations.

Schema changes are a plain list of functions (:data:`MIGRATIONS`), each applied once
and recorded, under a lock so that two processes opening a new database at once do
not both apply them. The table objects are named ``*_table`` so that they are never
confused with the :class:`~leadengine.store.Store` methods that read them
(``Store.errors()`` reads ``errors_table``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

#: The counters of a run: evaluated and failed grow with each saved row; the skips
#: (rows not attempted) are written by :meth:`Store.count_skips`.
RUN_COUNTERS = ("evaluated", "failed", "skipped_done", "skipped_failed", "duplicates")
#: ``elsewhere``: rows left to the other live run that had claimed them (see _m006).
SKIP_COUNTERS = ("skipped_done", "skipped_failed", "duplicates", "elsewhere")
#: The PostgreSQL advisory lock held while the schema is migrated ("lead" in ASCII).
_MIGRATION_LOCK = 0x6C656164


@dataclass(frozen=True)
class RunKey:
    """A run and the configuration it evaluates under: what every row it stores,
    claims or looks up is keyed by (a URL is evaluated once per knowledge-base
    version, provider and model)."""

    run_id: int
    kb_version: str
    provider: str
    model: str


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


def _m001_initial(conn: Connection) -> None:
    for table in (runs_table, evaluations_table, errors_table):
        table.create(conn, checkfirst=True)


def _m002_indexes(conn: Connection) -> None:
    # Plain SQL: an sa.Index object would attach itself to the table and be created
    # again by the next _m001 in the same process.
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_evaluations_run "
                         "ON evaluations (run_id)"))
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_evaluations_fit "
                         "ON evaluations (fit_score)"))


def _m003_page_snapshots(conn: Connection) -> None:
    page_snapshots_table.create(conn, checkfirst=True)


def _m004_run_counters(conn: Connection) -> None:
    # A database made by this version already has the columns (_m001 creates ``runs``
    # from the current table definition); only older ones need them added.
    present = {column["name"] for column in sa.inspect(conn).get_columns("runs")}
    missing = [name for name in RUN_COUNTERS if name not in present]
    for name in missing:
        conn.execute(sa.text(f"ALTER TABLE runs ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0"))
    if "evaluated" in missing:
        # Older runs kept no counters: their rows still in the store are the best record.
        conn.execute(sa.text(
            "UPDATE runs SET "
            "evaluated = (SELECT count(*) FROM evaluations WHERE run_id = runs.id), "
            "failed = (SELECT count(*) FROM errors WHERE run_id = runs.id)"))


def _m005_claims(conn: Connection) -> None:
    claims_table.create(conn, checkfirst=True)


def _m006_run_liveness(conn: Connection) -> None:
    # As in _m004: a database made by this version has the columns from _m001 already.
    present = {column["name"] for column in sa.inspect(conn).get_columns("runs")}
    for name, kind in (("pid", "INTEGER"), ("hostname", "VARCHAR(255)"),
                       ("heartbeat_at", "FLOAT"), ("elsewhere", "INTEGER NOT NULL DEFAULT 0")):
        if name not in present:
            conn.execute(sa.text(f"ALTER TABLE runs ADD COLUMN {name} {kind}"))


def _m007_lead_workspace(conn: Connection) -> None:
    # The team's workspace: lead status and notes with history (leadengine serve).
    from leadengine.store.workspace import create_tables

    create_tables(conn)


def _m008_lead_board(conn: Connection) -> None:
    # The board's columns (name, category, city, owner...) and search text, one row per
    # evaluation, so the board sorts, filters and searches in SQL; filled here for the
    # rows stored so far, by Store.record_evaluation from now on.
    from leadengine.store.workspace import create_board

    create_board(conn)


def _m009_run_notes(conn: Connection) -> None:
    # As in _m004: a database made by this version has the column from _m001 already.
    present = {column["name"] for column in sa.inspect(conn).get_columns("runs")}
    if "notes" not in present:
        conn.execute(sa.text("ALTER TABLE runs ADD COLUMN notes TEXT"))


#: Applied in order, once each; never edit one that has shipped, append a new one.
MIGRATIONS: list[Callable[[Connection], None]] = [_m001_initial, _m002_indexes,
                                                  _m003_page_snapshots, _m004_run_counters,
                                                  _m005_claims, _m006_run_liveness,
                                                  _m007_lead_workspace, _m008_lead_board,
                                                  _m009_run_notes]


def applied(conn: Connection) -> bool:
    """Whether every migration is applied (checked without a lock: the usual case)."""
    if not sa.inspect(conn).has_table(migrations_table.name):
        return False
    done = set(conn.scalars(sa.select(migrations_table.c.version)))
    return done >= set(range(1, len(MIGRATIONS) + 1))


def apply_missing(conn: Connection, check: Callable[[set[str]], None]) -> None:
    """Apply the migrations ``conn``'s database lacks and commit. The schema lock is
    held from the check to the last one, so processes opening one new database at once
    wait for each other instead of creating the same tables twice. ``check`` sees the
    tables present first (and refuses a database that is not ours)."""
    _lock_schema(conn)
    check(set(sa.inspect(conn).get_table_names()))
    migrations_table.create(conn, checkfirst=True)
    done = set(conn.scalars(sa.select(migrations_table.c.version)))
    for version, migration in enumerate(MIGRATIONS, 1):
        if version not in done:
            migration(conn)
            conn.execute(migrations_table.insert().values(version=version,
                                                          applied_at=time.time()))
    conn.commit()


def _lock_schema(conn: Connection) -> None:
    """Hold the schema lock until ``conn`` commits (see :func:`apply_missing`)."""
    if conn.dialect.name == "sqlite":
        # pysqlite would only begin a transaction at the first INSERT, after the check;
        # BEGIN IMMEDIATE takes the write lock now (waiting up to the busy timeout).
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
