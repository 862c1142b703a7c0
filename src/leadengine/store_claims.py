"""Claims and liveness: how several batches share one database.

A URL is *claimed* (:func:`claim_url`) before it is fetched, so two runs never pay for
the same URL; a claim is a lease that the run renews while it works and that comes
back when the run dies. A run records its process id, host and a heartbeat, so a run
whose process was killed is seen as dead (:func:`is_dead`), not ``running`` for ever.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leadengine.store_schema import (
    RunKey,
    claims_table,
    errors_table,
    evaluations_table,
    runs_table,
    same_key,
)

#: Seconds a claimed URL stays reserved for its run. Runs renew their claims with each
#: heartbeat (every few seconds), so this only matters when a run dies: its URLs come
#: back after at most this long (at once when its death is noticed, see ``settle``).
CLAIM_LEASE = 300.0
#: A ``running`` run whose heartbeat is older than this is taken as dead (a batch beats
#: every few seconds; this is for a host where its process id cannot be checked).
STALE_AFTER = 120.0

ClaimState = Literal["claimed", "elsewhere", "done", "failed"]


@dataclass(frozen=True)
class Claim:
    """The outcome of :meth:`Store.claim`."""

    #: ``claimed``: this run evaluates the URL; ``elsewhere``: another live run does
    #: (``run_id``); ``done`` / ``failed``: a result was stored meanwhile.
    state: ClaimState
    run_id: int | None = None


def claim_url(conn: Connection, key: RunKey, url: str, retry_since: float | None,
              now: float, lease: float) -> Claim:
    """Reserve ``url`` for the key's run inside ``conn``'s transaction (see
    :meth:`Store.claim_url`); a claim that cannot be kept is released again."""
    take_claim(conn, key, url, now, now + lease)
    holder = conn.execute(sa.select(claims_table.c.run_id)
                          .where(*same_key(claims_table, key, url))).scalar()
    if holder != key.run_id:
        return Claim("elsewhere", holder)
    if conn.execute(sa.select(evaluations_table.c.id)
                    .where(*same_key(evaluations_table, key, url)).limit(1)).first() is not None:
        state: ClaimState = "done"
    else:
        failed_at = conn.execute(sa.select(errors_table.c.created_at)
                                 .where(*same_key(errors_table, key, url))).scalar()
        if failed_at is None or (retry_since is not None and failed_at < retry_since):
            return Claim("claimed")
        state = "failed"
    release(conn, key, url)
    return Claim(state)


def release(conn: Connection, key: RunKey, url: str) -> None:
    """Drop the key's run's claim on ``url`` (a claim another run holds is left)."""
    conn.execute(claims_table.delete().where(*same_key(claims_table, key, url),
                                             claims_table.c.run_id == key.run_id))


def take_claim(conn: Connection, key: RunKey, url: str, now: float,
               expires_at: float) -> None:
    """Insert the claim, or take over one that has expired: one atomic statement."""
    values = {"url": url, "kb_version": key.kb_version, "provider": key.provider,
              "model": key.model, "run_id": key.run_id,
              "owner": f"{hostname()}:{os.getpid()}", "expires_at": expires_at}
    free = (claims_table.c.expires_at < now) | (claims_table.c.run_id == key.run_id)
    columns = [claims_table.c.url, claims_table.c.kb_version, claims_table.c.provider,
               claims_table.c.model]
    taken = {"run_id": key.run_id, "owner": values["owner"], "expires_at": expires_at}
    if conn.dialect.name == "sqlite":
        from sqlalchemy.dialects import sqlite

        conn.execute(sqlite.insert(claims_table).values(**values).on_conflict_do_update(
            index_elements=columns, set_=taken, where=free))
        return
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        conn.execute(postgresql.insert(claims_table).values(**values).on_conflict_do_update(
            index_elements=columns, set_=taken, where=free))
        return
    # Any other database: free an expired claim, then insert if nobody holds one.
    conn.execute(claims_table.delete().where(*same_key(claims_table, key, url), free))
    try:
        with conn.begin_nested():
            conn.execute(claims_table.insert().values(**values))
    except sa.exc.IntegrityError:
        pass


def mark_interrupted(conn: Connection, run: Mapping[str, Any]) -> None:
    """Record a dead ``running`` run (see :func:`is_dead`) as interrupted at
    ``run["finished_at"]``, and free its claims."""
    # Only if it has not beaten since it was read: a slow run that is alive after all
    # keeps its status and its claims.
    conn.execute(runs_table.update().where(
        runs_table.c.id == run["id"], runs_table.c.status == "running",
        sa.func.coalesce(runs_table.c.heartbeat_at, 0.0)
        <= (run.get("heartbeat_at") or 0.0)).values(
        status="interrupted", finished_at=run["finished_at"]))
    conn.execute(claims_table.delete().where(claims_table.c.run_id == run["id"]))


def hostname() -> str:
    return socket.gethostname()


def is_dead(run: Mapping[str, Any], now: float) -> bool:
    """Whether a ``running`` run has stopped without saying so: its process is gone
    from this host, or it has not beaten for :data:`STALE_AFTER` seconds."""
    last = run.get("heartbeat_at") or run["started_at"]
    if now - last > STALE_AFTER:
        return True
    pid = run.get("pid")
    # os.kill(pid, 0) only asks on POSIX (on Windows it would end the process).
    if not pid or run.get("hostname") != hostname() or os.name != "posix":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # PermissionError: alive, someone else's
    return False
