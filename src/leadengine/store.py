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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.errors import ConfigError
from leadengine.web.fetch import Page

#: The default store, used by every command that reads or writes results.
DEFAULT_DB = "leadengine.db"

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


#: Applied in order, once each; never edit one that has shipped, append a new one.
MIGRATIONS: list[Callable[[Connection], None]] = [_m001_initial, _m002_indexes,
                                                  _m003_page_snapshots]


def database_url(db: str | Path) -> str:
    """A SQLAlchemy URL for ``--db``: a URL as given, a file path as SQLite."""
    text = str(db)
    if text.startswith(("postgresql://", "postgres://")):
        # SQLAlchemy's default PostgreSQL driver is psycopg2; we ship psycopg 3.
        return "postgresql+psycopg://" + text.split("://", 1)[1]
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).expanduser()}"


class Store:
    """Runs, evaluations and errors in one database."""

    def __init__(self, db: str | Path = DEFAULT_DB) -> None:
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

    def finish_run(self, run_id: int, status: str = "done") -> None:
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                finished_at=time.time(), status=status))

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

    def evaluations(self, run_id: int | None = None, min_score: int | None = None
                    ) -> Iterator[dict[str, Any]]:
        """Stored evaluations (with ``input`` passthrough columns), in storage order."""
        query = sa.select(evaluations).order_by(evaluations.c.id)
        if run_id is not None:
            query = query.where(evaluations.c.run_id == run_id)
        if min_score is not None:
            query = query.where(evaluations.c.fit_score >= min_score)
        with self.engine.connect() as conn:
            for row in conn.execute(query):
                yield {"run_id": row.run_id, "row_index": row.row_index,
                       "input": json.loads(row.passthrough), **json.loads(row.data)}

    def errors(self, run_id: int | None = None) -> list[dict[str, Any]]:
        query = sa.select(errors).order_by(errors.c.id)
        if run_id is not None:
            query = query.where(errors.c.run_id == run_id)
        with self.engine.connect() as conn:
            return [{"run_id": r.run_id, "row_index": r.row_index, "url": r.url,
                     "error": r.error, "input": json.loads(r.passthrough)}
                    for r in conn.execute(query)]

    def runs(self) -> list[dict[str, Any]]:
        counts = (sa.select(evaluations.c.run_id, sa.func.count().label("n"))
                  .group_by(evaluations.c.run_id).subquery())
        failed = (sa.select(errors.c.run_id, sa.func.count().label("n"))
                  .group_by(errors.c.run_id).subquery())
        query = (sa.select(runs, counts.c.n.label("done"), failed.c.n.label("failed"))
                 .outerjoin(counts, counts.c.run_id == runs.c.id)
                 .outerjoin(failed, failed.c.run_id == runs.c.id).order_by(runs.c.id))
        with self.engine.connect() as conn:
            return [{**dict(r._mapping), "done": r.done or 0, "failed": r.failed or 0}
                    for r in conn.execute(query)]

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
