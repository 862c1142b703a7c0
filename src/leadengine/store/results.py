"""Results written in groups: many rows' outcomes (evaluations and failures) and the
pages their sites fetched, in one transaction.

A batch hands its results over as they complete and the group is written a moment
later (:class:`leadengine.batch.BatchRun` flushes every :data:`FLUSH_EVERY` seconds, or
at :data:`FLUSH_SIZE` results, and always before the run ends): one commit and a few
statements per group instead of some ten statements and a commit per row (measured on
a 5 KB evaluation: 4.0 ms of CPU per row one by one; see ``bench/bench_store.py``).
Every row of a group keys on the same :class:`~leadengine.store.schema.RunKey`, so a
statement covers the group with ``url IN (...)``.

A process killed between two flushes loses the results it had not written yet: those
rows are done again when the batch resumes (their claims are the dead run's, freed when
its death is seen), never stored twice and never lost.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leadengine.config.redact import safe_message
from leadengine.store.board import forget_leads, index_new_leads
from leadengine.store.claims import release
from leadengine.store.schema import (
    RunKey,
    errors_table,
    evaluations_table,
    of_urls,
    page_snapshots_table,
    runs_table,
)
from leadengine.website.fetch import Page

#: Seconds a finished result may wait to be written with others: a write's fixed cost
#: (a transaction, eight statements) at 0.1 s was 1.5 ms of CPU a URL at 3-5 rows a
#: write, at 0.5 s 0.9 ms (most of it the rows' own).
FLUSH_EVERY = 0.5
#: Results that are written at once, without waiting for :data:`FLUSH_EVERY`.
FLUSH_SIZE = 64
#: zlib level of stored page snapshots: a snapshot is a cache; on 1.4 MB of real pages
#: level 1 compresses 2.7x faster than level 6 (9 vs 25 ms) for 18 % more bytes.
SNAPSHOT_LEVEL = 1


@dataclass(frozen=True)
class Outcome:
    """What became of one row: its evaluation (JSON-ready) or its error message."""

    row_index: int
    url: str
    passthrough: dict[str, str]
    evaluation: dict[str, Any] | None = None
    error: str | None = None

    @classmethod
    def failed(cls, row_index: int, url: str, error: str,
               passthrough: dict[str, str]) -> Outcome:
        """A failure, stored redacted (keys, Authorization values and URL credentials
        masked, control characters escaped): the message and the URL."""
        return cls(row_index, safe_message(url), passthrough, error=safe_message(error))


def stored_record(row: Any, lead: bool = False) -> dict[str, Any]:
    """An evaluations row as exports read it: ``run_id``, ``row_index``, ``input`` (its
    passthrough columns) and the evaluation, whose ``url`` is the row's when it has none;
    with ``lead``, also the row's URL as ``lead`` (what the workspace keys a lead by)."""
    record = {"run_id": row.run_id, "row_index": row.row_index,
              "input": json.loads(row.passthrough), **json.loads(row.data)}
    record["url"] = record.get("url") or row.url
    if lead:
        record["lead"] = row.url
    return record


def write_outcomes(conn: Connection, key: RunKey, outcomes: Sequence[Outcome]) -> None:
    """Store ``outcomes`` in ``conn``'s transaction: an evaluation replaces a stored
    failure or evaluation of its URL, a failure replaces a failure; the run's claims on
    the URLs are released and its counters raised in the same transaction, so the
    counts survive a kill exactly as the rows do. The last outcome of a URL counts."""
    if not outcomes:
        return
    latest = {outcome.url: outcome for outcome in outcomes}
    urls = list(latest)
    done = [o for o in latest.values() if o.evaluation is not None]
    failed = [o for o in latest.values() if o.evaluation is None]
    now = time.time()
    conn.execute(errors_table.delete().where(*of_urls(errors_table, key, urls)))
    if done:
        replaced = of_urls(evaluations_table, key, [o.url for o in done])
        forget_leads(conn, sa.select(evaluations_table.c.id).where(*replaced))
        conn.execute(evaluations_table.delete().where(*replaced))
        rows = [{"run_id": key.run_id, "row_index": o.row_index, "url": o.url,
                 "kb_version": key.kb_version, "provider": key.provider,
                 "model": key.model, "fit_score": o.evaluation["fit_score"],
                 "data": json.dumps(o.evaluation, ensure_ascii=False),
                 "passthrough": json.dumps(o.passthrough, ensure_ascii=False),
                 "created_at": now} for o in done if o.evaluation is not None]
        ids = _insert_returning_ids(conn, rows)
        # The board's rows (store/board.py), from what was just stored.
        index_new_leads(conn, [({**row, "id": new_id}, o.evaluation, o.passthrough)
                               for new_id, row, o in zip(ids, rows, done, strict=True)])
    if failed:
        conn.execute(errors_table.insert(), [
            {"run_id": key.run_id, "row_index": o.row_index, "url": o.url,
             "kb_version": key.kb_version, "provider": key.provider, "model": key.model,
             "error": o.error or "", "passthrough": json.dumps(o.passthrough,
                                                               ensure_ascii=False),
             "created_at": now} for o in failed])
    release(conn, key, urls)
    conn.execute(runs_table.update().where(runs_table.c.id == key.run_id).values(
        evaluated=runs_table.c.evaluated + len(done), failed=runs_table.c.failed + len(failed)))


def _insert_returning_ids(conn: Connection, rows: list[dict[str, Any]]) -> list[int]:
    """Insert the evaluation ``rows``; their new ids, in order (one statement where the
    database returns them in parameter order: SQLite, PostgreSQL)."""
    if conn.dialect.insert_executemany_returning_sort_by_parameter_order:
        statement = evaluations_table.insert().returning(evaluations_table.c.id,
                                                         sort_by_parameter_order=True)
        return [int(i) for i in conn.execute(statement, rows).scalars()]
    ids = []
    for row in rows:
        inserted = conn.execute(evaluations_table.insert().values(row)).inserted_primary_key
        assert inserted is not None
        ids.append(int(inserted[0]))
    return ids


def write_pages(conn: Connection, pages: Sequence[Page]) -> None:
    """Store ``pages`` as snapshots (a page fetched again replaces its snapshot; the last
    of the same address counts)."""
    if not pages:
        return
    latest = {page.url: page for page in pages}
    conn.execute(page_snapshots_table.delete().where(
        page_snapshots_table.c.url.in_(list(latest))))
    conn.execute(page_snapshots_table.insert(), [
        {"url": page.url, "final_url": page.final_url, "status": page.status,
         "content_type": page.content_type, "encoding": page.encoding,
         "truncated": page.truncated, "fetched_at": page.fetched_at,
         "html": zlib.compress(page.html.encode("utf-8"), SNAPSHOT_LEVEL)}
        for page in latest.values()])
