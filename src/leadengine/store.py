"""Where batch results live: SQLite by default (one file, WAL), any SQLAlchemy URL
(e.g. ``postgresql://...``) through the same SQLAlchemy Core code.

Every result is committed as it completes. An evaluation is unique per (url,
knowledge-base version, provider, model), so re-running a batch skips what is
done and can never store a row twice. Schema changes are a plain list of
functions (:data:`MIGRATIONS`), each applied once and recorded.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.errors import ConfigError
from leadengine.web.fetch import Page

#: The default store, used by every command that reads or writes results.
DEFAULT_DB = "leadengine.db"

#: The counters of a run: evaluated and failed grow with each saved row; the skips
#: (rows not attempted) are written by :meth:`Store.count_skips`.
RUN_COUNTERS = ("evaluated", "failed", "skipped_done", "skipped_failed", "duplicates")
SKIP_COUNTERS = ("skipped_done", "skipped_failed", "duplicates")
#: Orders of :meth:`Store.evaluations`.
Order = Literal["stored", "score", "input"]

metadata = sa.MetaData()
runs = sa.Table(
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


evaluations = sa.Table(
    "evaluations", metadata, *_result_columns(),
    sa.Column("fit_score", sa.Integer, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.UniqueConstraint("url", "kb_version", "provider", "model", name="uq_evaluation"),
)
errors = sa.Table(
    "errors", metadata, *_result_columns(),
    sa.Column("error", sa.Text, nullable=False),
    sa.UniqueConstraint("url", "kb_version", "provider", "model", name="uq_error"),
)
page_snapshots = sa.Table(
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


def _m001_initial(conn: Connection) -> None:
    for table in (runs, evaluations, errors):
        table.create(conn, checkfirst=True)


def _m002_indexes(conn: Connection) -> None:
    # Plain SQL: an sa.Index object would attach itself to the table and be created
    # again by the next _m001 in the same process.
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_evaluations_run "
                         "ON evaluations (run_id)"))
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_evaluations_fit "
                         "ON evaluations (fit_score)"))


def _m003_page_snapshots(conn: Connection) -> None:
    page_snapshots.create(conn, checkfirst=True)


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


#: Applied in order, once each; never edit one that has shipped, append a new one.
MIGRATIONS: list[Callable[[Connection], None]] = [_m001_initial, _m002_indexes,
                                                  _m003_page_snapshots, _m004_run_counters]


def database_url(db: str | Path) -> str:
    """A SQLAlchemy URL for ``--db``: a URL as given, a file path as SQLite."""
    text = str(db)
    if text.startswith(("postgresql://", "postgres://")):
        # SQLAlchemy's default PostgreSQL driver is psycopg2; we ship psycopg 3.
        return "postgresql+psycopg://" + text.split("://", 1)[1]
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).expanduser()}"


def missing_database(db: str | Path) -> bool:
    """True when ``db`` is a SQLite file that does not exist (opening it would create it)."""
    try:
        url = sa.engine.make_url(database_url(db))
    except sa.exc.ArgumentError:
        return False
    name = url.database
    if url.get_backend_name() != "sqlite" or not name or name == ":memory:" \
            or name.startswith("file:"):
        return False
    return not Path(name).exists()


class Store:
    """Runs, evaluations and errors in one database."""

    def __init__(self, db: str | Path = DEFAULT_DB, create: bool = True) -> None:
        """``create=False``: a database file that does not exist is an error (the commands
        that only read must not leave an empty one behind)."""
        if not create and missing_database(db):
            raise ConfigError(f"no results database at {db} (run `leadengine batch` first, "
                              "or pass --db)")
        self.url = database_url(db)
        try:
            self.engine: Engine = sa.create_engine(self.url)
        except ImportError:
            raise ConfigError(f"cannot open database {db}: its driver is not installed "
                              "(for PostgreSQL: pip install 'leadengine[postgres]')") from None
        except sa.exc.ArgumentError as exc:
            raise ConfigError(f"cannot open database {db}: {exc}") from None
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            self.migrate()
        except sa.exc.OperationalError as exc:
            raise ConfigError(f"cannot open database {db}: {exc.orig}") from None

    def migrate(self) -> None:
        with self.engine.begin() as conn:
            migrations_table.create(conn, checkfirst=True)
            done = set(conn.scalars(sa.select(migrations_table.c.version)))
            for version, migration in enumerate(MIGRATIONS, 1):
                if version not in done:
                    migration(conn)
                    conn.execute(migrations_table.insert().values(version=version,
                                                                  applied_at=time.time()))

    def start_run(self, input_name: str, kb_version: str, provider: str, model: str) -> int:
        with self.engine.begin() as conn:
            result = conn.execute(runs.insert().values(
                started_at=time.time(), input=input_name, kb_version=kb_version,
                provider=provider, model=model, status="running"))
            key = result.inserted_primary_key
            assert key is not None
            return int(key[0])

    def finish_run(self, run_id: int, status: str = "done",
                   skips: Mapping[str, int] | None = None) -> None:
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                finished_at=time.time(), status=status, **_skips(skips)))

    def count_skips(self, run_id: int, skips: Mapping[str, int]) -> None:
        """Record how many rows the run has skipped so far (``SKIP_COUNTERS``)."""
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id).values(**_skips(skips)))

    def states(self, kb_version: str, provider: str, model: str) -> dict[str, str]:
        """``{url: "done" | "failed"}`` for every URL stored under this configuration
        (two queries for a whole batch instead of two per row)."""
        found: dict[str, str] = {}
        with self.engine.connect() as conn:
            for table, state in ((errors, "failed"), (evaluations, "done")):
                query = sa.select(table.c.url).where(table.c.kb_version == kb_version,
                                                     table.c.provider == provider,
                                                     table.c.model == model)
                found.update((url, state) for url in conn.scalars(query))
        return found

    def save_evaluation(self, run_id: int, row_index: int, url: str, kb_version: str,
                        evaluation: dict[str, Any], passthrough: dict[str, str]) -> None:
        key = (url, kb_version, evaluation["provider"], evaluation["model"])
        with self.engine.begin() as conn:
            conn.execute(errors.delete().where(*_key(errors, key)))
            conn.execute(evaluations.delete().where(*_key(evaluations, key)))
            conn.execute(evaluations.insert().values(
                run_id=run_id, row_index=row_index, url=url, kb_version=kb_version,
                provider=key[2], model=key[3], fit_score=evaluation["fit_score"],
                data=json.dumps(evaluation, ensure_ascii=False),
                passthrough=json.dumps(passthrough, ensure_ascii=False),
                created_at=time.time()))
            # Same transaction as the row: the count survives a kill exactly as the row does.
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                evaluated=runs.c.evaluated + 1))

    def save_error(self, run_id: int, row_index: int, url: str, kb_version: str,
                   provider: str, model: str, error: str, passthrough: dict[str, str]) -> None:
        key = (url, kb_version, provider, model)
        with self.engine.begin() as conn:
            conn.execute(errors.delete().where(*_key(errors, key)))
            conn.execute(errors.insert().values(
                run_id=run_id, row_index=row_index, url=url, kb_version=kb_version,
                provider=provider, model=model, error=error,
                passthrough=json.dumps(passthrough, ensure_ascii=False),
                created_at=time.time()))
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                failed=runs.c.failed + 1))

    def evaluations(self, run_id: int | None = None, min_score: int | None = None,
                    order: Order = "stored") -> Iterator[dict[str, Any]]:
        """Stored evaluations (with ``input`` passthrough columns): in storage order, by
        fit score (highest first) or in input order (run, then row)."""
        columns = {"stored": (evaluations.c.id,),
                   "score": (evaluations.c.fit_score.desc(), evaluations.c.id),
                   "input": (evaluations.c.run_id, evaluations.c.row_index,
                             evaluations.c.id)}[order]
        query = sa.select(evaluations).order_by(*columns)
        if run_id is not None:
            query = query.where(evaluations.c.run_id == run_id)
        if min_score is not None:
            query = query.where(evaluations.c.fit_score >= min_score)
        with self.engine.connect() as conn:
            for row in conn.execute(query):
                record = {"run_id": row.run_id, "row_index": row.row_index,
                          "input": json.loads(row.passthrough), **json.loads(row.data)}
                record["url"] = record.get("url") or row.url
                yield record

    def errors(self, run_id: int | None = None) -> list[dict[str, Any]]:
        query = sa.select(errors).order_by(errors.c.id)
        if run_id is not None:
            query = query.where(errors.c.run_id == run_id)
        with self.engine.connect() as conn:
            return [{"run_id": r.run_id, "row_index": r.row_index, "url": r.url,
                     "error": r.error, "input": json.loads(r.passthrough)}
                    for r in conn.execute(query)]

    def runs(self) -> list[dict[str, Any]]:
        """Every run with its own counters (``RUN_COUNTERS``), oldest first."""
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(sa.select(runs).order_by(runs.c.id))]

    def run(self, run_id: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(runs).where(runs.c.id == run_id)).first()
        return None if row is None else dict(row._mapping)

    def snapshots(self, max_age: float | None) -> SnapshotCache:
        """A page cache over this store: fetched pages are saved, and with ``max_age``
        (seconds) a page fetched that recently is reused instead of fetched again."""
        return SnapshotCache(self, max_age)

    def latest(self, url: str) -> dict[str, Any] | None:
        """The most recent stored evaluation of ``url``."""
        query = (sa.select(evaluations).where(evaluations.c.url == url)
                 .order_by(evaluations.c.id.desc()).limit(1))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else json.loads(row.data)

    def latest_error(self, url: str) -> dict[str, Any] | None:
        """The most recent stored failure of ``url`` (``run_id``, ``url``, ``error``)."""
        query = (sa.select(errors).where(errors.c.url == url)
                 .order_by(errors.c.id.desc()).limit(1))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else {"run_id": row.run_id, "url": row.url,
                                         "error": row.error}


class SnapshotCache:
    """Page snapshots in the store (see :meth:`Store.snapshots`)."""

    def __init__(self, store: Store, max_age: float | None) -> None:
        self.store = store
        self.max_age = max_age
        self.reused = 0

    def get_page(self, url: str) -> Page | None:
        if self.max_age is None:
            return None
        query = sa.select(page_snapshots).where(
            page_snapshots.c.url == url,
            page_snapshots.c.fetched_at >= time.time() - self.max_age)
        with self.store.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        self.reused += 1
        return Page(url=row.url, final_url=row.final_url, status=row.status,
                    content_type=row.content_type, html=zlib.decompress(row.html).decode(),
                    encoding=row.encoding, truncated=row.truncated, fetched_at=row.fetched_at)

    def put_page(self, page: Page) -> None:
        values = {"final_url": page.final_url, "status": page.status,
                  "content_type": page.content_type, "encoding": page.encoding,
                  "truncated": page.truncated, "fetched_at": page.fetched_at,
                  "html": zlib.compress(page.html.encode("utf-8"), 6)}
        with self.store.engine.begin() as conn:
            conn.execute(page_snapshots.delete().where(page_snapshots.c.url == page.url))
            conn.execute(page_snapshots.insert().values(url=page.url, **values))


def _skips(skips: Mapping[str, int] | None) -> dict[str, int]:
    skips = skips or {}
    return {name: int(skips[name]) for name in SKIP_COUNTERS if name in skips}


def _key(table: sa.Table, key: tuple[str, str, str, str]) -> list[Any]:
    url, kb_version, provider, model = key
    return [table.c.url == url, table.c.kb_version == kb_version,
            table.c.provider == provider, table.c.model == model]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()
