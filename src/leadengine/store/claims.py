"""Claims and liveness: how several batches share one database.

A URL is *claimed* (:func:`claim_url`) before it is fetched, so two runs never pay for
the same URL; a claim is a lease that the run renews while it works and that comes
back when the run dies. A run records its process id, host and a heartbeat, so a run
whose process was killed is seen as dead (:func:`is_dead`), not ``running`` for ever.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leadengine.store.schema import (
    RunKey,
    claims_table,
    errors_table,
    evaluations_table,
    of_urls,
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
    return claim_urls(conn, key, [url], retry_since, now, lease)[url]


def claim_urls(conn: Connection, key: RunKey, urls: Sequence[str],
               retry_since: float | None, now: float, lease: float) -> dict[str, Claim]:
    """:func:`claim_url` for many URLs at once: a few statements for all of them."""
    urls = list(dict.fromkeys(urls))
    if not urls:
        return {}
    take_claims(conn, key, urls, now, now + lease)
    holders = dict(conn.execute(sa.select(claims_table.c.url, claims_table.c.run_id)
                                .where(*of_urls(claims_table, key, urls))).all())
    ours = [url for url in urls if holders.get(url) == key.run_id]
    done = set(conn.scalars(sa.select(evaluations_table.c.url)
                            .where(*of_urls(evaluations_table, key, ours)))) if ours else set()
    failed_at = dict(conn.execute(sa.select(errors_table.c.url, errors_table.c.created_at)
                                  .where(*of_urls(errors_table, key, ours))).all()
                     ) if ours else {}
    claims: dict[str, Claim] = {}
    for url in urls:
        if holders.get(url) != key.run_id:
            claims[url] = Claim("elsewhere", holders.get(url))
        elif url in done:
            claims[url] = Claim("done")
        elif url in failed_at and (retry_since is None or failed_at[url] >= retry_since):
            claims[url] = Claim("failed")
        else:
            claims[url] = Claim("claimed")
    release(conn, key, [url for url in ours if claims[url].state != "claimed"])
    return claims


def release(conn: Connection, key: RunKey, urls: Sequence[str]) -> None:
    """Drop the key's run's claims on ``urls`` (a claim another run holds is left)."""
    if urls:
        conn.execute(claims_table.delete().where(*of_urls(claims_table, key, urls),
                                                 claims_table.c.run_id == key.run_id))


def take_claims(conn: Connection, key: RunKey, urls: Sequence[str], now: float,
                expires_at: float) -> None:
    """Insert the claims, or take over those that have expired: one atomic statement
    (SQLite, PostgreSQL)."""
    owner = f"{hostname()}:{os.getpid()}"
    rows = [{"url": url, "kb_version": key.kb_version, "provider": key.provider,
             "model": key.model, "run_id": key.run_id, "owner": owner,
             "expires_at": expires_at} for url in urls]
    free = (claims_table.c.expires_at < now) | (claims_table.c.run_id == key.run_id)
    columns = [claims_table.c.url, claims_table.c.kb_version, claims_table.c.provider,
               claims_table.c.model]
    taken = {"run_id": key.run_id, "owner": owner, "expires_at": expires_at}
    if conn.dialect.name in ("sqlite", "postgresql"):
        # The dialect in use only: importing PostgreSQL's took 45 ms of a SQLite batch's
        # first claim, in every shard.
        if conn.dialect.name == "sqlite":
            from sqlalchemy.dialects import sqlite

            conn.execute(sqlite.insert(claims_table).on_conflict_do_update(
                index_elements=columns, set_=taken, where=free), rows)
        else:
            from sqlalchemy.dialects import postgresql

            conn.execute(postgresql.insert(claims_table).on_conflict_do_update(
                index_elements=columns, set_=taken, where=free), rows)
        return
    # Any other database: free an expired claim, then insert if nobody holds one.
    for url, row in zip(urls, rows, strict=True):
        conn.execute(claims_table.delete().where(*same_key(claims_table, key, url), free))
        try:
            with conn.begin_nested():
                conn.execute(claims_table.insert().values(**row))
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
