"""Where the store's database is and how it is opened: ``--db`` as a SQLAlchemy URL,
SQLite's connection settings, and database failures as one line that says what to do.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.config import safe_message
from leadengine.errors import ConfigError, StoreError

#: The default store, used by every command that reads or writes results.
DEFAULT_DB = "leadengine.db"
#: Seconds SQLite waits for another process's write lock before giving up.
BUSY_TIMEOUT_MS = 10_000


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
    path = sqlite_file(db)
    return path is not None and not path.exists()


def sqlite_file(db: str | Path) -> Path | None:
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


def check_location(path: Path, name: str) -> None:
    """A clear error for a --db path that cannot be a database file."""
    path = path.expanduser()
    if path.is_dir():
        raise StoreError(f"{name} is a folder: give a database file, such as "
                         f"{path / DEFAULT_DB}")
    if not path.exists() and not path.parent.is_dir():
        raise StoreError(f"cannot create {name}: the folder {path.parent} does not exist")


def writable(path: Path) -> bool:
    """Whether SQLite can write ``path``: the file, and its folder (the journal)."""
    path = path.expanduser()
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def describe(name: str, cause: str) -> str:
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
                f"{BUSY_TIMEOUT_MS // 1000} s ({cause}); try again")
    if "unable to open" in lower:
        return f"cannot open {name} ({cause}): check the folder exists and may be written"
    if "disk is full" in lower or "no space" in lower:
        return f"cannot write {name}: the disk is full ({cause})"
    return f"database error on {name}: {cause}"


def sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    import sqlite3

    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Switching a new file to WAL needs a lock that another process opening the same
    # file at that moment may hold, and SQLite then answers "locked" at once instead of
    # waiting the busy timeout: wait here.
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
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


def sqlite_read_only(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA query_only=1")
    cursor.close()


#: Times a delete-then-insert transaction is tried when other runs keep inserting the
#: same key in between.
WRITE_TRIES = 8


def write_retrying(engine: Engine, save: Callable[[Connection], None]) -> None:
    """Run a delete-then-insert transaction; again if another run inserted the same key
    in between (PostgreSQL: runs recording the same bad row; shards of a Ray batch do
    it many times over), up to :data:`WRITE_TRIES` times."""
    for attempt in range(WRITE_TRIES):
        try:
            with engine.begin() as conn:
                save(conn)
            return
        except sa.exc.IntegrityError:
            if attempt == WRITE_TRIES - 1:
                raise
            time.sleep(0.001 * 2 ** attempt)


def display_name(db: str | Path, url: str, path: Path | None) -> str:
    """``db`` as the messages name it: the path as given, a URL without password."""
    if path is not None:
        return str(db)
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return safe_message(str(db))


def engine_url(url: str, read_only_file: Path | None, immutable: bool) -> str | sa.engine.URL:
    """The URL to open: ``url``, or for a SQLite file opened read-only, SQLite's own
    read-only mode (a URI filename), so nothing is ever written, not even the
    journal-mode switch; a path is %-escaped as URI filenames require."""
    if read_only_file is None:
        return url
    query = {"mode": "ro", "uri": "true", **({"immutable": "1"} if immutable else {})}
    location = quote(str(read_only_file.expanduser().resolve()))
    return sa.engine.URL.create("sqlite", database=f"file:{location}", query=query)


def open_engine(url: str | sa.engine.URL, name: str, read_only: bool) -> Engine:
    """The engine of the database called ``name`` in messages: SQLite's pragmas set on
    each connection, and every database failure made one line that says what to do."""
    try:
        engine = sa.create_engine(url)
    except ImportError:
        raise ConfigError(f"cannot open database {name}: its driver is not "
                          "installed (for PostgreSQL: pip install "
                          "'leadengine[postgres]')") from None
    except sa.exc.ArgumentError as exc:
        raise ConfigError(f"cannot open database {name}: {exc}") from None
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", sqlite_read_only if read_only else sqlite_pragmas)

    def translate(context: sa.engine.ExceptionContext) -> None:
        # A unique-key conflict is left to the code that expects it.
        error = context.sqlalchemy_exception
        if not isinstance(error, sa.exc.DBAPIError) or isinstance(error,
                                                                  sa.exc.IntegrityError):
            return
        cause = first_line(context.original_exception)
        raise StoreError(describe(name, cause), cause)

    sa.event.listen(engine, "handle_error", translate)
    return engine
