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
* :mod:`~leadengine.store.workspace`: the workspace's leads board, statuses and notes.

The names below are what callers outside the package use.
"""

from leadengine.store.claims import CLAIM_LEASE, STALE_AFTER, Claim, ClaimState
from leadengine.store.database import Order, Store
from leadengine.store.engine import DEFAULT_DB, database_url, missing_database
from leadengine.store.migrations import MIGRATIONS
from leadengine.store.results import Outcome
from leadengine.store.schema import RUN_COUNTERS, SKIP_COUNTERS, RunKey
from leadengine.store.snapshots import SnapshotCache

__all__ = [
    "CLAIM_LEASE", "DEFAULT_DB", "MIGRATIONS", "RUN_COUNTERS", "SKIP_COUNTERS", "STALE_AFTER",
    "Claim", "ClaimState", "Order", "Outcome", "RunKey", "SnapshotCache", "Store",
    "database_url", "missing_database",
]
