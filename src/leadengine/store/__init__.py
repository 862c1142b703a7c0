"""Where batch results live: SQLite by default (one file, WAL), any SQLAlchemy URL
(e.g. ``postgresql://...``) through the same SQLAlchemy Core code.

* :mod:`~leadengine.store.database`: :class:`Store`, what the batch, the commands and
  the workspace call;
* :mod:`~leadengine.store.engine`: how a database is opened (SQLite pragmas,
  read-only files, PostgreSQL URLs, retries on a busy file);
* :mod:`~leadengine.store.schema`: the tables and their migrations;
* :mod:`~leadengine.store.claims`: URLs claimed by a run, leases and dead runs;
* :mod:`~leadengine.store.results`: a run's outcomes and pages written in one go;
* :mod:`~leadengine.store.snapshots`: fetched pages kept and reused;
* :mod:`~leadengine.store.workspace`: the workspace's leads board, statuses and notes;
* :mod:`~leadengine.store.board`: the workspace's tables and the board's rows;
* :mod:`~leadengine.store.people`: the workspace's people, their tokens, the activity log;
* :mod:`~leadengine.store.outbox`: the webhooks' durable outbox;
* :mod:`~leadengine.store.migrations`: the schema's migrations.

The names below are what callers outside the package use.
"""

from leadengine.store.answers import answers_of, board_questions
from leadengine.store.claims import CLAIM_LEASE, STALE_AFTER, Claim, ClaimState
from leadengine.store.database import Order, Store
from leadengine.store.engine import DEFAULT_DB, database_url, missing_database
from leadengine.store.migrations import MIGRATIONS
from leadengine.store.outbox import Delivery, delivered, deliveries, due, failed, fan_out
from leadengine.store.people import (
    Person,
    active_person,
    activity,
    add_person,
    anyone,
    people,
    person_with_token,
    record,
    revoke_person,
    seen,
    token_key,
)
from leadengine.store.results import Outcome
from leadengine.store.schema import RUN_COUNTERS, SKIP_COUNTERS, RunKey
from leadengine.store.snapshots import SnapshotCache
from leadengine.store.workspace import (
    BANDS,
    FACETS,
    MAX_NOTE,
    SORTS,
    STATUSES,
    BoardQuery,
    board,
    export_records,
    facets,
    is_id,
    lead,
    scored,
    update,
    with_standing,
)

__all__ = [
    "BANDS",
    "CLAIM_LEASE",
    "DEFAULT_DB",
    "FACETS",
    "MAX_NOTE",
    "MIGRATIONS",
    "RUN_COUNTERS",
    "SKIP_COUNTERS",
    "SORTS",
    "STALE_AFTER",
    "STATUSES",
    "BoardQuery",
    "Claim",
    "ClaimState",
    "Delivery",
    "Order",
    "Outcome",
    "Person",
    "RunKey",
    "SnapshotCache",
    "Store",
    "active_person",
    "activity",
    "add_person",
    "answers_of",
    "anyone",
    "board",
    "board_questions",
    "database_url",
    "delivered",
    "deliveries",
    "due",
    "export_records",
    "facets",
    "failed",
    "fan_out",
    "is_id",
    "lead",
    "missing_database",
    "people",
    "person_with_token",
    "record",
    "revoke_person",
    "scored",
    "seen",
    "token_key",
    "update",
    "with_standing",
]
