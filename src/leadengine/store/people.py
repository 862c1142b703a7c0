"""The workspace's people and what they did (migration 10).

A person has a name, an admin flag and a token: ``le_<key>_<secret>``, printed once by
``leadengine users add`` and stored as the SHA-256 of its secret only (a random 256-bit
secret needs no slow hash: nobody can guess one from its hash). The ``key`` is public
and names the account a token claims to be, so wrong tokens are throttled per account
as well as per client, and a token is checked by one indexed lookup and a
constant-time comparison. A revoked person keeps their row (their name stays on what
they did) with ``revoked_at`` set; their token and sessions stop working at once.

``activity`` records what people did outside a lead's own history: a knowledge file
saved, a person added or revoked (a lead's status and notes are in ``lead_events``; a
batch's starter in ``runs.started_by``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.store.engine import write_retrying

#: What a token looks like: ``le_``, the account's key (12 hex digits), ``_``, the secret.
TOKEN = re.compile(r"le_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
#: Longest name accepted.
MAX_NAME = 100

metadata = sa.MetaData()
people_table = sa.Table(
    "people", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(MAX_NAME), nullable=False),
    # The name casefolded: unique among people not revoked (checked when adding).
    sa.Column("name_key", sa.String(MAX_NAME), nullable=False),
    sa.Column("token_key", sa.String(12), nullable=False, unique=True),
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("admin", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("created_by", sa.String(200), nullable=False),
    sa.Column("revoked_at", sa.Float),
    sa.Column("last_seen_at", sa.Float),
)
activity_table = sa.Table(
    "activity", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("who", sa.String(200), nullable=False),
    # knowledge.save, person.add, person.revoke
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("subject", sa.Text, nullable=False),
)


def create_people(conn: Connection) -> None:
    """``people`` and ``activity``, and who started a run (migration 10)."""
    for table in (people_table, activity_table):
        table.create(conn, checkfirst=True)
    present = {column["name"] for column in sa.inspect(conn).get_columns("runs")}
    if "started_by" not in present:
        conn.execute(sa.text("ALTER TABLE runs ADD COLUMN started_by VARCHAR(200)"))


@dataclass(frozen=True)
class Person:
    """Someone who may use the workspace (``revoked_at`` None while they may)."""

    name: str
    admin: bool
    created_at: float
    created_by: str
    revoked_at: float | None = None
    last_seen_at: float | None = None
    key: str = ""


def check_name(name: str) -> str:
    """``name`` stripped, or ValueError saying what is wrong with it."""
    name = unicodedata.normalize("NFC", name.strip())
    if not name:
        raise ValueError("a person needs a name")
    if len(name) > MAX_NAME:
        raise ValueError(f"a name has at most {MAX_NAME} characters")
    if any(unicodedata.category(c)[0] == "C" for c in name):
        raise ValueError("a name cannot hold control characters")
    return name


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_key(token: str) -> str | None:
    """The account a token claims to be (its key), None when it is not a person's
    token at all."""
    match = TOKEN.fullmatch(token)
    return match.group(1) if match else None


def add_person(engine: Engine, name: str, admin: bool = False, by: str = "cli"
               ) -> tuple[Person, str]:
    """A new person and their token (shown once: only its hash is kept). ValueError when
    the name is empty, too long, or someone not revoked has it already."""
    name = check_name(name)
    key, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
    now = time.time()
    p = people_table

    def save(conn: Connection) -> None:
        taken = conn.scalar(sa.select(p.c.name).where(
            p.c.name_key == name.casefold(), p.c.revoked_at.is_(None)))
        if taken is not None:
            raise ValueError(f"{taken!r} is already a person here (revoke them first to "
                             "give a new token)")
        conn.execute(p.insert().values(name=name, name_key=name.casefold(), token_key=key,
                                       token_hash=_hash(secret), admin=admin, created_at=now,
                                       created_by=by[:200]))
        _record(conn, by, "person.add", name + (" (admin)" if admin else ""))

    write_retrying(engine, save)
    return Person(name, admin, now, by, key=key), f"le_{key}_{secret}"


def revoke_person(engine: Engine, name: str, by: str = "cli") -> Person:
    """Revoke the person called ``name`` (ignoring case): their token and sessions stop
    working. ValueError when nobody not revoked has that name."""
    p = people_table
    wanted = unicodedata.normalize("NFC", name.strip()).casefold()
    found: list[Person] = []

    def save(conn: Connection) -> None:
        row = conn.execute(sa.select(p).where(p.c.name_key == wanted,
                                              p.c.revoked_at.is_(None))).first()
        if row is None:
            raise ValueError(f"nobody called {name.strip()!r} may use the workspace "
                             "(see `leadengine users list`)")
        now = time.time()
        conn.execute(p.update().where(p.c.id == row.id).values(revoked_at=now))
        _record(conn, by, "person.revoke", row.name)
        found.append(replace(_person(row), revoked_at=now))

    write_retrying(engine, save)
    return found[0]


def _person(row: Any) -> Person:
    return Person(row.name, bool(row.admin), row.created_at, row.created_by, row.revoked_at,
                  row.last_seen_at, row.token_key)


def people(engine: Engine, revoked: bool = True) -> list[Person]:
    """Everyone, in the order they were added (``revoked=False``: those who may still
    use the workspace)."""
    p = people_table
    query = sa.select(p).order_by(p.c.id)
    if not revoked:
        query = query.where(p.c.revoked_at.is_(None))
    with engine.connect() as conn:
        return [_person(row) for row in conn.execute(query)]


def anyone(engine: Engine) -> bool:
    """Whether at least one person may use the workspace."""
    p = people_table
    with engine.connect() as conn:
        return conn.scalar(sa.select(p.c.id).where(p.c.revoked_at.is_(None)).limit(1)) \
            is not None


def person_with_token(engine: Engine, token: str) -> Person | None:
    """The person whose token ``token`` is, if it is one and they are not revoked."""
    match = TOKEN.fullmatch(token)
    if match is None:
        return None
    p = people_table
    with engine.connect() as conn:
        row = conn.execute(sa.select(p).where(p.c.token_key == match.group(1))).first()
    if row is None or not hmac.compare_digest(row.token_hash, _hash(match.group(2))):
        return None
    return None if row.revoked_at is not None else _person(row)


def active_person(engine: Engine, key: str) -> Person | None:
    """The person with token key ``key`` (a session's), unless revoked."""
    p = people_table
    with engine.connect() as conn:
        row = conn.execute(sa.select(p).where(p.c.token_key == key,
                                              p.c.revoked_at.is_(None))).first()
    return None if row is None else _person(row)


def seen(engine: Engine, key: str) -> None:
    """Note that the person with token key ``key`` just logged in."""
    p = people_table

    def save(conn: Connection) -> None:
        conn.execute(p.update().where(p.c.token_key == key).values(last_seen_at=time.time()))

    write_retrying(engine, save)


def record(engine: Engine, who: str, kind: str, subject: str) -> None:
    """Add a line to the activity log."""
    write_retrying(engine, lambda conn: _record(conn, who, kind, subject))


def _record(conn: Connection, who: str, kind: str, subject: str) -> None:
    conn.execute(activity_table.insert().values(at=time.time(), who=who[:200], kind=kind,
                                                subject=subject[:2000]))


def activity(engine: Engine, limit: int = 50) -> list[dict[str, Any]]:
    """The latest lines of the activity log, newest first."""
    a = activity_table
    with engine.connect() as conn:
        rows = conn.execute(sa.select(a.c.at, a.c.who, a.c.kind, a.c.subject)
                            .order_by(a.c.id.desc()).limit(limit))
        return [dict(row._mapping) for row in rows]
