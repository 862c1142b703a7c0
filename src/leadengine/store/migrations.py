"""Schema changes: a plain list of functions (:data:`MIGRATIONS`), each applied once and
recorded, under a lock so that two processes opening a new database at once do not
both apply them."""

from __future__ import annotations

import time
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leadengine.store.answers import create_answers
from leadengine.store.board import create_board, create_tables
from leadengine.store.outbox import create_outbox
from leadengine.store.people import create_people
from leadengine.store.schema import (
    RUN_COUNTERS,
    claims_table,
    errors_table,
    evaluations_table,
    migrations_table,
    page_snapshots_table,
    runs_table,
)

#: The PostgreSQL advisory lock held while the schema is migrated ("lead" in ASCII).
_MIGRATION_LOCK = 0x6C656164


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
    create_tables(conn)


def _m008_lead_board(conn: Connection) -> None:
    # The board's columns (name, category, city, owner...) and search text, one row per
    # evaluation, so the board sorts, filters and searches in SQL; filled here for the
    # rows stored so far, by Store.record_evaluation from now on.
    create_board(conn)


def _m009_run_notes(conn: Connection) -> None:
    # As in _m004: a database made by this version has the column from _m001 already.
    present = {column["name"] for column in sa.inspect(conn).get_columns("runs")}
    if "notes" not in present:
        conn.execute(sa.text("ALTER TABLE runs ADD COLUMN notes TEXT"))


def _m010_people(conn: Connection) -> None:
    # People with their own tokens, the activity log, and who started a run.
    create_people(conn)


def _m011_webhook_outbox(conn: Connection) -> None:
    # The webhooks' outbox: cursors over the evaluations and lead events, deliveries.
    create_outbox(conn)


def _m012_lead_answers(conn: Connection) -> None:
    # The questions' answers, a row per evaluation and question, for the board.
    create_answers(conn)


#: Applied in order, once each; never edit one that has shipped, append a new one.
MIGRATIONS: list[Callable[[Connection], None]] = [_m001_initial, _m002_indexes,
                                                  _m003_page_snapshots, _m004_run_counters,
                                                  _m005_claims, _m006_run_liveness,
                                                  _m007_lead_workspace, _m008_lead_board,
                                                  _m009_run_notes, _m010_people,
                                                  _m011_webhook_outbox, _m012_lead_answers]


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
