"""Where batch results live: SQLite by default (one file, WAL), any SQLAlchemy URL
(e.g. ``postgresql://...``) through the same SQLAlchemy Core code.

Every result is committed as it completes. An evaluation is unique per (url,
knowledge-base version, provider, model), so re-running a batch skips what is
done and can never store a row twice. Schema changes are a plain list of
functions (:data:`MIGRATIONS`), each applied once and recorded, under a lock so
that two processes opening a new database at once do not both apply them.

Several batches may share one database: a URL is *claimed* (:meth:`Store.claim`)
before it is fetched, so two runs never pay for the same URL; a claim is a lease
that the run renews while it works (:meth:`Store.heartbeat`) and that comes back when
the run dies. A run records its process id, host and a heartbeat, so a run whose
process was killed is shown as ``interrupted``, not ``running`` for ever.

The commands that only read open a SQLite file read-only when they cannot write
it, and any database problem is one :class:`StoreError` line, never a traceback.
"""

from __future__ import annotations

import json
import os
import socket
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.errors import ConfigError, StoreError
from leadengine.redact import safe_message
from leadengine.web.fetch import Page

#: The default store, used by every command that reads or writes results.
DEFAULT_DB = "leadengine.db"

#: The counters of a run: evaluated and failed grow with each saved row; the skips
#: (rows not attempted) are written by :meth:`Store.count_skips`.
RUN_COUNTERS = ("evaluated", "failed", "skipped_done", "skipped_failed", "duplicates")
#: ``elsewhere``: rows left to the other live run that had claimed them (see _m006).
SKIP_COUNTERS = ("skipped_done", "skipped_failed", "duplicates", "elsewhere")
#: Orders of :meth:`Store.evaluations`.
Order = Literal["stored", "score", "input"]
#: Seconds a claimed URL stays reserved for its run. Runs renew their claims with each
#: heartbeat (every few seconds), so this only matters when a run dies: its URLs come
#: back after at most this long (at once when its death is noticed, see ``settle``).
CLAIM_LEASE = 300.0
#: A ``running`` run whose heartbeat is older than this is taken as dead (a batch beats
#: every few seconds; this is for a host where its process id cannot be checked).
STALE_AFTER = 120.0
#: The PostgreSQL advisory lock held while the schema is migrated ("lead" in ASCII).
_MIGRATION_LOCK = 0x6C656164
#: Seconds SQLite waits for another process's write lock before giving up.
_BUSY_TIMEOUT_MS = 10_000

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
    # Who runs it and when it last showed signs of life (see _m006_run_liveness).
    sa.Column("pid", sa.Integer),
    sa.Column("hostname", sa.String(255)),
    sa.Column("heartbeat_at", sa.Float),
    sa.Column("elsewhere", sa.Integer, nullable=False, server_default="0"),
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
#: A URL being evaluated, under one configuration, by one run until ``expires_at``.
claims = sa.Table(
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


def _m005_claims(conn: Connection) -> None:
    claims.create(conn, checkfirst=True)


def _m006_run_liveness(conn: Connection) -> None:
    # As in _m004: a database made by this version has the columns from _m001 already.
    present = {column["name"] for column in sa.inspect(conn).get_columns("runs")}
    for name, kind in (("pid", "INTEGER"), ("hostname", "VARCHAR(255)"),
                       ("heartbeat_at", "FLOAT"), ("elsewhere", "INTEGER NOT NULL DEFAULT 0")):
        if name not in present:
            conn.execute(sa.text(f"ALTER TABLE runs ADD COLUMN {name} {kind}"))


#: Applied in order, once each; never edit one that has shipped, append a new one.
MIGRATIONS: list[Callable[[Connection], None]] = [_m001_initial, _m002_indexes,
                                                  _m003_page_snapshots, _m004_run_counters,
                                                  _m005_claims, _m006_run_liveness]


ClaimState = Literal["claimed", "elsewhere", "done", "failed"]


@dataclass(frozen=True)
class Claim:
    """The outcome of :meth:`Store.claim`."""

    #: ``claimed``: this run evaluates the URL; ``elsewhere``: another live run does
    #: (``run_id``); ``done`` / ``failed``: a result was stored meanwhile.
    state: ClaimState
    run_id: int | None = None


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
    path = _sqlite_file(db)
    return path is not None and not path.exists()


def _sqlite_file(db: str | Path) -> Path | None:
    """The file of a SQLite database; None for another database, memory or a URI."""
    try:
        url = sa.engine.make_url(database_url(db))
    except sa.exc.ArgumentError:
        return None
    name = url.database
    if url.get_backend_name() != "sqlite" or not name or name == ":memory:" \
            or name.startswith("file:"):
        return None
    return Path(name)


class Store:
    """Runs, evaluations, errors and claims in one database."""

    def __init__(self, db: str | Path = DEFAULT_DB, create: bool = True,
                 read_only: bool | None = None) -> None:
        """``create=False``: a database file that does not exist is an error (the commands
        that only read must not leave an empty one behind). ``read_only``: open without
        writing anything (no migration); by default a SQLite file is opened so when it
        is only read (``create=False``) and cannot be written (a read-only file, folder
        or disk)."""
        if not create and missing_database(db):
            raise ConfigError(f"no results database at {db} (run `leadengine batch` first, "
                              "or pass --db)")
        self.url = database_url(db)
        self.path = _sqlite_file(db)
        self.name = self._display_name(db)
        if self.path is not None:
            _check_location(self.path, self.name)
        writable = self.path is None or not self.path.exists() or _writable(self.path)
        if read_only is None:
            read_only = not create and not writable
        if not read_only and not writable:
            raise StoreError(f"{self.name} is read-only (the file or its folder): a batch "
                             "writes its results; pick another file with --db")
        self.read_only = read_only
        self.engine: Engine = self._engine(self._engine_url(immutable=False))
        if not read_only:
            self.migrate()
            return
        try:
            self._check_schema()
        except StoreError as exc:
            # WAL on a read-only folder: SQLite cannot create the -shm file it reads
            # through. Nobody can be writing there, so the file is read as immutable.
            if self.path is None or "unable to open" not in exc.cause:
                raise
            self.engine.dispose()
            self.engine = self._engine(self._engine_url(immutable=True))
            self._check_schema()

    def _display_name(self, db: str | Path) -> str:
        """``db`` as the messages name it: the path as given, a URL without password."""
        if self.path is not None:
            return str(db)
        try:
            return sa.engine.make_url(self.url).render_as_string(hide_password=True)
        except sa.exc.ArgumentError:
            return safe_message(str(db))

    def _engine_url(self, immutable: bool) -> str | sa.engine.URL:
        if not self.read_only or self.path is None:
            return self.url
        # SQLite's own read-only mode (a URI filename), so nothing is ever written, not
        # even the journal-mode switch; a path is %-escaped as URI filenames require.
        query = {"mode": "ro", "uri": "true", **({"immutable": "1"} if immutable else {})}
        location = quote(str(self.path.expanduser().resolve()))
        return sa.engine.URL.create("sqlite", database=f"file:{location}", query=query)

    def _engine(self, url: str | sa.engine.URL) -> Engine:
        try:
            engine = sa.create_engine(url)
        except ImportError:
            raise ConfigError(f"cannot open database {self.name}: its driver is not "
                              "installed (for PostgreSQL: pip install "
                              "'leadengine[postgres]')") from None
        except sa.exc.ArgumentError as exc:
            raise ConfigError(f"cannot open database {self.name}: {exc}") from None
        if engine.dialect.name == "sqlite":
            sa.event.listen(engine, "connect",
                            _sqlite_read_only if self.read_only else _sqlite_pragmas)
        sa.event.listen(engine, "handle_error", self._translate)
        return engine

    def _translate(self, context: sa.engine.ExceptionContext) -> None:
        """Every database failure becomes one line that says what to do (a unique-key
        conflict is left to the code that expects it)."""
        error = context.sqlalchemy_exception
        if not isinstance(error, sa.exc.DBAPIError) or isinstance(error,
                                                                  sa.exc.IntegrityError):
            return
        cause = _first_line(context.original_exception)
        raise StoreError(_describe(self.name, cause), cause)

    def migrate(self) -> None:
        """Apply the migrations this database lacks. A lock is held from the check to
        the last one (SQLite: an immediate transaction; PostgreSQL: an advisory lock),
        so processes opening one new database at once wait for each other instead of
        creating the same tables twice."""
        if self._current():
            return
        with self.engine.connect() as conn:
            _lock_schema(conn)
            tables = set(sa.inspect(conn).get_table_names())
            if self.path is not None and tables and migrations_table.name not in tables:
                # Tables but none of ours: another program's SQLite file (a PostgreSQL
                # database, by contrast, is often shared with other tables).
                raise StoreError(f"{self.name} is not a results database (it holds another "
                                 "program's tables): pick another file with --db")
            migrations_table.create(conn, checkfirst=True)
            done = set(conn.scalars(sa.select(migrations_table.c.version)))
            for version, migration in enumerate(MIGRATIONS, 1):
                if version not in done:
                    migration(conn)
                    conn.execute(migrations_table.insert().values(version=version,
                                                                  applied_at=time.time()))
            conn.commit()

    def _current(self) -> bool:
        """Whether every migration is applied (checked without a lock: the usual case)."""
        with self.engine.connect() as conn:
            if not sa.inspect(conn).has_table(migrations_table.name):
                return False
            done = set(conn.scalars(sa.select(migrations_table.c.version)))
        return done >= set(range(1, len(MIGRATIONS) + 1))

    def _check_schema(self) -> None:
        """A store opened read-only cannot migrate: it must be a results database of
        this version's schema already."""
        with self.engine.connect() as conn:
            tables = set(sa.inspect(conn).get_table_names())
        if not tables:
            raise StoreError(f"{self.name} is not a results database (it is empty)")
        if migrations_table.name not in tables:
            raise StoreError(f"{self.name} is not a results database (it holds another "
                             "program's tables)")
        if not self._current():
            raise StoreError(f"{self.name} was written by an older leadengine and is "
                             "read-only here, so it cannot be upgraded: copy it to a folder "
                             "you can write to and use the copy (--db)")

    # -- runs -------------------------------------------------------------------------

    def start_run(self, input_name: str, kb_version: str, provider: str, model: str) -> int:
        now = time.time()
        with self.engine.begin() as conn:
            result = conn.execute(runs.insert().values(
                started_at=now, input=input_name, kb_version=kb_version,
                provider=provider, model=model, status="running", pid=os.getpid(),
                hostname=_hostname(), heartbeat_at=now))
            key = result.inserted_primary_key
            assert key is not None
            return int(key[0])

    def finish_run(self, run_id: int, status: str = "done",
                   skips: Mapping[str, int] | None = None) -> None:
        """Record how the run ended; the URLs it still had claimed come back at once."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                finished_at=now, heartbeat_at=now, status=status, **_skips(skips)))
            conn.execute(claims.delete().where(claims.c.run_id == run_id))

    def count_skips(self, run_id: int, skips: Mapping[str, int]) -> None:
        """Record how many rows the run has skipped so far (``SKIP_COUNTERS``)."""
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id).values(**_skips(skips)))

    def heartbeat(self, run_id: int, skips: Mapping[str, int] | None = None,
                  lease: float = CLAIM_LEASE) -> None:
        """The run is alive: note the time and its skip counters, and renew its claims."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                heartbeat_at=now, **_skips(skips)))
            conn.execute(claims.update().where(claims.c.run_id == run_id).values(
                expires_at=now + lease))

    def runs(self) -> list[dict[str, Any]]:
        """Every run with its own counters (``RUN_COUNTERS``), oldest first; a run whose
        process is gone is ``interrupted`` (see :meth:`settle`)."""
        with self.engine.connect() as conn:
            found = [dict(r._mapping) for r in conn.execute(sa.select(runs).order_by(runs.c.id))]
        return self._settled(found)

    def run(self, run_id: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(runs).where(runs.c.id == run_id)).first()
        return None if row is None else self._settled([dict(row._mapping)])[0]

    def settle(self) -> list[int]:
        """Mark the ``running`` runs whose process is gone as ``interrupted`` and free
        their claims; returns their ids. (A killed process runs no handler: this is
        how its run stops being ``running`` for ever.)"""
        with self.engine.connect() as conn:
            found = [dict(r._mapping) for r in conn.execute(
                sa.select(runs).where(runs.c.status == "running"))]
        before = {run["id"] for run in found if run["status"] == "running"}
        return [run["id"] for run in self._settled(found)
                if run["id"] in before and run["status"] == "interrupted"]

    def _settled(self, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        now = time.time()
        dead = [run for run in found if run["status"] == "running" and _is_dead(run, now)]
        for run in dead:
            run["status"] = "interrupted"
            run["finished_at"] = run.get("heartbeat_at") or run["started_at"]
        if dead and not self.read_only:
            with self.engine.begin() as conn:
                for run in dead:
                    # Only if it has not beaten since it was read: a slow run that is
                    # alive after all keeps its status and its claims.
                    conn.execute(runs.update().where(
                        runs.c.id == run["id"], runs.c.status == "running",
                        sa.func.coalesce(runs.c.heartbeat_at, 0.0)
                        <= (run.get("heartbeat_at") or 0.0)).values(
                        status="interrupted", finished_at=run["finished_at"]))
                    conn.execute(claims.delete().where(claims.c.run_id == run["id"]))
        return found

    # -- claims -----------------------------------------------------------------------

    def claim(self, run_id: int, url: str, kb_version: str, provider: str, model: str,
              retry_since: float | None = None, lease: float = CLAIM_LEASE) -> Claim:
        """Reserve ``url`` for ``run_id`` before it is fetched, in one transaction: a
        claim another run holds (not expired) is left alone, and a result stored since
        the batch read its list of done rows is found here. ``retry_since``: the run
        retries failures, except those stored at or after this time (by another run
        meanwhile); None: every stored failure counts."""
        key = (url, kb_version, provider, model)
        now = time.time()
        with self.engine.begin() as conn:
            _take_claim(conn, key, run_id, now, now + lease)
            holder = conn.execute(sa.select(claims.c.run_id)
                                  .where(*_key(claims, key))).scalar()
            if holder != run_id:
                return Claim("elsewhere", holder)
            if conn.execute(sa.select(evaluations.c.id).where(*_key(evaluations, key))
                            .limit(1)).first() is not None:
                state: ClaimState = "done"
            else:
                failed_at = conn.execute(sa.select(errors.c.created_at)
                                         .where(*_key(errors, key))).scalar()
                if failed_at is None or (retry_since is not None and failed_at < retry_since):
                    return Claim("claimed")
                state = "failed"
            conn.execute(claims.delete().where(*_key(claims, key), claims.c.run_id == run_id))
        return Claim(state)

    # -- results ----------------------------------------------------------------------

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
        """Store an evaluation (replacing a failure of the same URL) and release the
        run's claim on it, in one transaction."""
        key = (url, kb_version, evaluation["provider"], evaluation["model"])

        def save(conn: Connection) -> None:
            conn.execute(errors.delete().where(*_key(errors, key)))
            conn.execute(evaluations.delete().where(*_key(evaluations, key)))
            conn.execute(evaluations.insert().values(
                run_id=run_id, row_index=row_index, url=url, kb_version=kb_version,
                provider=key[2], model=key[3], fit_score=evaluation["fit_score"],
                data=json.dumps(evaluation, ensure_ascii=False),
                passthrough=json.dumps(passthrough, ensure_ascii=False),
                created_at=time.time()))
            conn.execute(claims.delete().where(*_key(claims, key), claims.c.run_id == run_id))
            # Same transaction as the row: the count survives a kill exactly as the row does.
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                evaluated=runs.c.evaluated + 1))

        self._write(save)

    def save_error(self, run_id: int, row_index: int, url: str, kb_version: str,
                   provider: str, model: str, error: str, passthrough: dict[str, str]) -> None:
        """Store a failure; the message and the URL are stored redacted (keys,
        Authorization values and URL credentials masked, control characters escaped)."""
        url, error = safe_message(url), safe_message(error)
        key = (url, kb_version, provider, model)

        def save(conn: Connection) -> None:
            conn.execute(errors.delete().where(*_key(errors, key)))
            conn.execute(errors.insert().values(
                run_id=run_id, row_index=row_index, url=url, kb_version=kb_version,
                provider=provider, model=model, error=error,
                passthrough=json.dumps(passthrough, ensure_ascii=False),
                created_at=time.time()))
            conn.execute(claims.delete().where(*_key(claims, key), claims.c.run_id == run_id))
            conn.execute(runs.update().where(runs.c.id == run_id).values(
                failed=runs.c.failed + 1))

        self._write(save)

    def _write(self, save: Callable[[Connection], None]) -> None:
        """Run a delete-then-insert transaction; once more if another run inserted the
        same key in between (PostgreSQL: two runs recording the same bad row)."""
        try:
            with self.engine.begin() as conn:
                save(conn)
        except sa.exc.IntegrityError:
            with self.engine.begin() as conn:
                save(conn)

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

        def save(conn: Connection) -> None:
            conn.execute(page_snapshots.delete().where(page_snapshots.c.url == page.url))
            conn.execute(page_snapshots.insert().values(url=page.url, **values))

        # Two runs may fetch the same page (a shared subpage) at once: the second write
        # replaces the first.
        self.store._write(save)


def _skips(skips: Mapping[str, int] | None) -> dict[str, int]:
    skips = skips or {}
    return {name: int(skips[name]) for name in SKIP_COUNTERS if name in skips}


def _key(table: sa.Table, key: tuple[str, str, str, str]) -> list[Any]:
    url, kb_version, provider, model = key
    return [table.c.url == url, table.c.kb_version == kb_version,
            table.c.provider == provider, table.c.model == model]


def _take_claim(conn: Connection, key: tuple[str, str, str, str], run_id: int, now: float,
                expires_at: float) -> None:
    """Insert the claim, or take over one that has expired: one atomic statement."""
    url, kb_version, provider, model = key
    values = {"url": url, "kb_version": kb_version, "provider": provider, "model": model,
              "run_id": run_id, "owner": f"{_hostname()}:{os.getpid()}",
              "expires_at": expires_at}
    free = (claims.c.expires_at < now) | (claims.c.run_id == run_id)
    columns = [claims.c.url, claims.c.kb_version, claims.c.provider, claims.c.model]
    taken = {"run_id": run_id, "owner": values["owner"], "expires_at": expires_at}
    if conn.dialect.name == "sqlite":
        from sqlalchemy.dialects import sqlite

        conn.execute(sqlite.insert(claims).values(**values).on_conflict_do_update(
            index_elements=columns, set_=taken, where=free))
        return
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        conn.execute(postgresql.insert(claims).values(**values).on_conflict_do_update(
            index_elements=columns, set_=taken, where=free))
        return
    # Any other database: free an expired claim, then insert if nobody holds one.
    conn.execute(claims.delete().where(*_key(claims, key), free))
    try:
        with conn.begin_nested():
            conn.execute(claims.insert().values(**values))
    except sa.exc.IntegrityError:
        pass


def _lock_schema(conn: Connection) -> None:
    """Hold the schema lock until ``conn`` commits (see :meth:`Store.migrate`)."""
    if conn.dialect.name == "sqlite":
        # pysqlite would only begin a transaction at the first INSERT, after the check;
        # BEGIN IMMEDIATE takes the write lock now (waiting up to the busy timeout).
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})


def _check_location(path: Path, name: str) -> None:
    """A clear error for a --db path that cannot be a database file."""
    path = path.expanduser()
    if path.is_dir():
        raise StoreError(f"{name} is a folder: give a database file, such as "
                         f"{path / DEFAULT_DB}")
    if not path.exists() and not path.parent.is_dir():
        raise StoreError(f"cannot create {name}: the folder {path.parent} does not exist")


def _writable(path: Path) -> bool:
    """Whether SQLite can write ``path``: the file, and its folder (the journal)."""
    path = path.expanduser()
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _describe(name: str, cause: str) -> str:
    """What a database failure means for someone at the terminal."""
    lower = cause.lower()
    if "file is not a database" in lower:
        return f"{name} is not a results database (file is not a SQLite database)"
    if "malformed" in lower:
        return (f"{name} is not a results database (the file is damaged: {cause}); restore "
                "a copy or start a new file with --db")
    if "readonly" in lower or "read-only" in lower:
        return f"{name} is read-only ({cause}): a batch must write; pick another file with --db"
    if "locked" in lower or "busy" in lower:
        return (f"{name} is busy: another process held it locked for over "
                f"{_BUSY_TIMEOUT_MS // 1000} s ({cause}); try again")
    if "unable to open" in lower:
        return f"cannot open {name} ({cause}): check the folder exists and may be written"
    if "disk is full" in lower or "no space" in lower:
        return f"cannot write {name}: the disk is full ({cause})"
    return f"database error on {name}: {cause}"


def _hostname() -> str:
    return socket.gethostname()


def _is_dead(run: Mapping[str, Any], now: float) -> bool:
    """Whether a ``running`` run has stopped without saying so: its process is gone
    from this host, or it has not beaten for :data:`STALE_AFTER` seconds."""
    last = run.get("heartbeat_at") or run["started_at"]
    if now - last > STALE_AFTER:
        return True
    pid = run.get("pid")
    # os.kill(pid, 0) only asks on POSIX (on Windows it would end the process).
    if not pid or run.get("hostname") != _hostname() or os.name != "posix":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # PermissionError: alive, someone else's
    return False


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    import sqlite3

    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
    # Switching a new file to WAL needs a lock that another process opening the same
    # file at that moment may hold, and SQLite then answers "locked" at once instead of
    # waiting the busy timeout: wait here.
    deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_read_only(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA query_only=1")
    cursor.close()
