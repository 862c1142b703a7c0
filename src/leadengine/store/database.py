"""Where batch results live: SQLite by default (one file, WAL), any SQLAlchemy URL
(e.g. ``postgresql://...``) through the same SQLAlchemy Core code.

Every result is committed as it completes. An evaluation is unique per (url,
knowledge-base version, provider, model), so re-running a batch skips what is
done and can never store a row twice. The tables and their migrations are in
:mod:`leadengine.store.schema`; how a database is opened, in
:mod:`leadengine.store.engine`.

Several batches may share one database: a URL is *claimed* (:meth:`Store.claim_url`)
before it is fetched, so two runs never pay for the same URL; a claim is a lease
that the run renews while it works (:meth:`Store.heartbeat`) and that comes back when
the run dies (:mod:`leadengine.store.claims`). A run records its process id, host and
a heartbeat, so a run whose process was killed is shown as ``interrupted``, not
``running`` for ever.

What a run stores is keyed by a :class:`RunKey` (the run and its knowledge-base
version, provider and model): ``store.record_error(key, row_index, url, error,
passthrough)``. The positional forms (``save_error``, ``save_evaluation``, ``claim``)
stay for callers that hold a bare run id.

The commands that only read open a SQLite file read-only when they cannot write
it, and any database problem is one :class:`StoreError` line, never a traceback.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.errors import ConfigError, StoreError
from leadengine.store.claims import (
    CLAIM_LEASE,
    Claim,
    claim_urls,
    hostname,
    is_dead,
    mark_interrupted,
)
from leadengine.store.engine import (
    DEFAULT_DB,
    check_location,
    database_url,
    display_name,
    engine_url,
    missing_database,
    open_engine,
    sqlite_file,
    writable,
    write_retrying,
)
from leadengine.store.migrations import applied, apply_missing
from leadengine.store.results import Outcome, stored_record, write_outcomes, write_pages
from leadengine.store.schema import (
    SKIP_COUNTERS,
    RunKey,
    claims_table,
    errors_table,
    evaluations_table,
    migrations_table,
    runs_table,
)
from leadengine.store.snapshots import SnapshotCache
from leadengine.website.fetch import Page

#: Orders of :meth:`Store.evaluations`.
Order = Literal["stored", "score", "input"]


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
        self.path = sqlite_file(db)
        self.name = display_name(db, self.url, self.path)
        if self.path is not None:
            check_location(self.path, self.name)
        can_write = self.path is None or not self.path.exists() or writable(self.path)
        if read_only is None:
            read_only = not create and not can_write
        if not read_only and not can_write:
            raise StoreError(f"{self.name} is read-only (the file or its folder): a batch "
                             "writes its results; pick another file with --db")
        self.read_only = read_only
        self.engine: Engine = open_engine(self._engine_url(immutable=False), self.name,
                                          read_only)
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
            self.engine = open_engine(self._engine_url(immutable=True), self.name, read_only)
            self._check_schema()

    def _engine_url(self, immutable: bool) -> str | sa.engine.URL:
        return engine_url(self.url, self.path if self.read_only else None, immutable)

    def migrate(self) -> None:
        """Apply the migrations this database lacks, under the schema lock (SQLite: an
        immediate transaction; PostgreSQL: an advisory lock), so processes opening one
        new database at once wait for each other instead of creating the same tables
        twice."""
        if self._current():
            return

        def ours(tables: set[str]) -> None:
            if self.path is not None and tables and migrations_table.name not in tables:
                # Tables but none of ours: another program's SQLite file (a PostgreSQL
                # database, by contrast, is often shared with other tables).
                raise StoreError(f"{self.name} is not a results database (it holds another "
                                 "program's tables): pick another file with --db")

        with self.engine.connect() as conn:
            apply_missing(conn, ours)

    def _current(self) -> bool:
        """Whether every migration is applied (checked without a lock: the usual case)."""
        with self.engine.connect() as conn:
            return applied(conn)

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

    def open_run(self, input_name: str, kb_version: str, provider: str,
                 model: str, started_by: str | None = None) -> RunKey:
        """Start a run (:meth:`start_run`) and return the key its rows are stored under."""
        return RunKey(self.start_run(input_name, kb_version, provider, model, started_by),
                      kb_version, provider, model)

    def start_run(self, input_name: str, kb_version: str, provider: str, model: str,
                  started_by: str | None = None) -> int:
        """A new run's id; ``started_by``: the workspace's person who started it."""
        now = time.time()
        with self.engine.begin() as conn:
            result = conn.execute(runs_table.insert().values(
                started_at=now, input=input_name, kb_version=kb_version,
                provider=provider, model=model, status="running", pid=os.getpid(),
                hostname=hostname(), heartbeat_at=now,
                started_by=None if started_by is None else started_by[:200]))
            key = result.inserted_primary_key
            assert key is not None
            return int(key[0])

    def finish_run(self, run_id: int, status: str = "done",
                   skips: Mapping[str, int] | None = None) -> None:
        """Record how the run ended; the URLs it still had claimed come back at once."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(runs_table.update().where(runs_table.c.id == run_id).values(
                finished_at=now, heartbeat_at=now, status=status, **_skips(skips)))
            conn.execute(claims_table.delete().where(claims_table.c.run_id == run_id))

    def note_run(self, run_id: int, note: str) -> None:
        """Add a line to the run's notes (once: a note it has already is not repeated,
        whichever of its processes writes it)."""
        notes = runs_table.c.notes
        with self.engine.begin() as conn:
            conn.execute(runs_table.update().where(
                runs_table.c.id == run_id,
                sa.or_(notes.is_(None), ~notes.contains(note, autoescape=True))).values(
                notes=sa.case((notes.is_(None), note), else_=notes + "\n" + note)))

    def count_skips(self, run_id: int, skips: Mapping[str, int]) -> None:
        """Record how many rows the run has skipped so far (``SKIP_COUNTERS``)."""
        with self.engine.begin() as conn:
            conn.execute(runs_table.update().where(runs_table.c.id == run_id)
                         .values(**_skips(skips)))

    def heartbeat(self, run_id: int, skips: Mapping[str, int] | None = None,
                  lease: float = CLAIM_LEASE) -> None:
        """The run is alive: note the time and its skip counters, and renew its claims."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(runs_table.update().where(runs_table.c.id == run_id).values(
                heartbeat_at=now, **_skips(skips)))
            conn.execute(claims_table.update().where(claims_table.c.run_id == run_id).values(
                expires_at=now + lease))

    def runs(self) -> list[dict[str, Any]]:
        """Every run with its own counters (``RUN_COUNTERS``), oldest first; a run whose
        process is gone is ``interrupted`` (see :meth:`settle`)."""
        with self.engine.connect() as conn:
            query = sa.select(runs_table).order_by(runs_table.c.id)
            found = [dict(r._mapping) for r in conn.execute(query)]
        return self._settled(found)

    def run(self, run_id: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(runs_table).where(runs_table.c.id == run_id)).first()
        return None if row is None else self._settled([dict(row._mapping)])[0]

    def settle(self) -> list[int]:
        """Mark the ``running`` runs whose process is gone as ``interrupted`` and free
        their claims; returns their ids. (A killed process runs no handler: this is
        how its run stops being ``running`` for ever.)"""
        with self.engine.connect() as conn:
            found = [dict(r._mapping) for r in conn.execute(
                sa.select(runs_table).where(runs_table.c.status == "running"))]
        before = {run["id"] for run in found if run["status"] == "running"}
        return [run["id"] for run in self._settled(found)
                if run["id"] in before and run["status"] == "interrupted"]

    def _settled(self, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        now = time.time()
        dead = [run for run in found if run["status"] == "running" and is_dead(run, now)]
        for run in dead:
            run["status"] = "interrupted"
            run["finished_at"] = run.get("heartbeat_at") or run["started_at"]
        if dead and not self.read_only:
            with self.engine.begin() as conn:
                for run in dead:
                    mark_interrupted(conn, run)
        return found

    # -- claims -----------------------------------------------------------------------

    def claim_url(self, key: RunKey, url: str, retry_since: float | None = None,
                  lease: float = CLAIM_LEASE) -> Claim:
        """Reserve ``url`` for the key's run before it is fetched, in one transaction: a
        claim another run holds (not expired) is left alone, and a result stored since
        the batch read its list of done rows is found here. ``retry_since``: the run
        retries failures, except those stored at or after this time (by another run
        meanwhile); None: every stored failure counts."""
        return self.claim_urls(key, [url], retry_since, lease)[url]

    def claim_urls(self, key: RunKey, urls: list[str], retry_since: float | None = None,
                   lease: float = CLAIM_LEASE) -> dict[str, Claim]:
        """:meth:`claim_url` for many URLs, in one transaction (a batch claims its rows
        a few at a time)."""
        now = time.time()
        with self.engine.begin() as conn:
            return claim_urls(conn, key, urls, retry_since, now, lease)

    def claim(self, run_id: int, url: str, kb_version: str, provider: str, model: str,
              retry_since: float | None = None, lease: float = CLAIM_LEASE) -> Claim:
        """:meth:`claim_url` for a bare run id."""
        return self.claim_url(RunKey(run_id, kb_version, provider, model), url,
                              retry_since=retry_since, lease=lease)

    # -- results ----------------------------------------------------------------------

    def states(self, key: RunKey) -> dict[str, str]:
        """``{url: "done" | "failed"}`` for every URL stored under the key's
        configuration, by any run (two queries for a whole batch instead of two per
        row)."""
        found: dict[str, str] = {}
        with self.engine.connect() as conn:
            for table, state in ((errors_table, "failed"), (evaluations_table, "done")):
                query = sa.select(table.c.url).where(table.c.kb_version == key.kb_version,
                                                     table.c.provider == key.provider,
                                                     table.c.model == key.model)
                found.update((url, state) for url in conn.scalars(query))
        return found

    def failures(self, key: RunKey) -> dict[str, str]:
        """``{url: error}`` of the URLs stored as failed under the key's configuration."""
        e = errors_table
        query = sa.select(e.c.url, e.c.error).where(e.c.kb_version == key.kb_version,
                                                    e.c.provider == key.provider,
                                                    e.c.model == key.model)
        with self.engine.connect() as conn:
            return {url: error for url, error in conn.execute(query)}

    def urls_of_run(self, run_id: int | None = None) -> list[str]:
        """The URLs of the evaluations the run stored (None: of every run, once each)."""
        query = sa.select(evaluations_table.c.url).distinct()
        if run_id is not None:
            query = query.where(evaluations_table.c.run_id == run_id)
        with self.engine.connect() as conn:
            return list(conn.scalars(query))

    def record_evaluation(self, key: RunKey, row_index: int, url: str,
                          evaluation: dict[str, Any], passthrough: dict[str, str]) -> None:
        """Store an evaluation (replacing a failure of the same URL) and release the
        run's claim on it, in one transaction."""
        self.record_outcomes(key, [Outcome(row_index, url, passthrough, evaluation)])

    def save_evaluation(self, run_id: int, row_index: int, url: str, kb_version: str,
                        evaluation: dict[str, Any], passthrough: dict[str, str]) -> None:
        """:meth:`record_evaluation` for a bare run id; the provider and model are the
        evaluation's own."""
        key = RunKey(run_id, kb_version, evaluation["provider"], evaluation["model"])
        self.record_evaluation(key, row_index, url, evaluation, passthrough)

    def record_error(self, key: RunKey, row_index: int, url: str, error: str,
                     passthrough: dict[str, str]) -> None:
        """Store a failure; the message and the URL are stored redacted (keys,
        Authorization values and URL credentials masked, control characters escaped)."""
        self.record_outcomes(key, [Outcome.failed(row_index, url, error, passthrough)])

    def record_outcomes(self, key: RunKey, outcomes: list[Outcome],
                        pages: list[Page] | None = None) -> None:
        """Store many rows' outcomes (:func:`leadengine.store.results.write_outcomes`)
        and page snapshots in one transaction."""

        def save(conn: Connection) -> None:
            write_outcomes(conn, key, outcomes)
            write_pages(conn, pages or [])

        self._write(save)

    def save_error(self, run_id: int, row_index: int, url: str, kb_version: str,
                   provider: str, model: str, error: str, passthrough: dict[str, str]) -> None:
        """:meth:`record_error` for a bare run id."""
        self.record_error(RunKey(run_id, kb_version, provider, model), row_index, url, error,
                          passthrough)

    def _write(self, save: Callable[[Connection], None]) -> None:
        write_retrying(self.engine, save)

    def evaluations(self, run_id: int | None = None, min_score: int | None = None,
                    order: Order = "stored", leads: bool = False
                    ) -> Iterator[dict[str, Any]]:
        """Stored evaluations (with ``input`` passthrough columns), in storage, fit-score
        (highest first) or input order; ``leads``: each with its ``lead`` (row) URL."""
        columns = {"stored": (evaluations_table.c.id,),
                   "score": (evaluations_table.c.fit_score.desc(), evaluations_table.c.id),
                   "input": (evaluations_table.c.run_id, evaluations_table.c.row_index,
                             evaluations_table.c.id)}[order]
        query = sa.select(evaluations_table).order_by(*columns)
        if run_id is not None:
            query = query.where(evaluations_table.c.run_id == run_id)
        if min_score is not None:
            query = query.where(evaluations_table.c.fit_score >= min_score)
        with self.engine.connect() as conn:
            for row in conn.execute(query):
                yield stored_record(row, leads)

    def errors(self, run_id: int | None = None) -> list[dict[str, Any]]:
        query = sa.select(errors_table).order_by(errors_table.c.id)
        if run_id is not None:
            query = query.where(errors_table.c.run_id == run_id)
        with self.engine.connect() as conn:
            return [{"run_id": r.run_id, "row_index": r.row_index, "url": r.url,
                     "error": r.error, "input": json.loads(r.passthrough)}
                    for r in conn.execute(query)]

    def snapshots(self, max_age: float | None) -> SnapshotCache:
        """A page cache over this store: fetched pages are saved, and with ``max_age``
        (seconds) a page fetched that recently is reused instead of fetched again."""
        return SnapshotCache(self.engine, max_age)

    def latest(self, url: str) -> dict[str, Any] | None:
        """The most recent stored evaluation of ``url``."""
        query = (sa.select(evaluations_table).where(evaluations_table.c.url == url)
                 .order_by(evaluations_table.c.id.desc()).limit(1))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else json.loads(row.data)

    def latest_error(self, url: str) -> dict[str, Any] | None:
        """The most recent stored failure of ``url`` (``run_id``, ``url``, ``error``)."""
        query = (sa.select(errors_table).where(errors_table.c.url == url)
                 .order_by(errors_table.c.id.desc()).limit(1))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else {"run_id": row.run_id, "url": row.url,
                                         "error": row.error}


def _skips(skips: Mapping[str, int] | None) -> dict[str, int]:
    skips = skips or {}
    return {name: int(skips[name]) for name in SKIP_COUNTERS if name in skips}
