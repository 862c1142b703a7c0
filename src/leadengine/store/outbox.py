"""The webhooks' durable outbox (migration 11).

What happened is already written down, durably, where it happened: every stored
evaluation is a row of ``evaluations`` and every status change a row of ``lead_events``
(each committed with the work it reports). The outbox reads those logs from a cursor
(``webhook_cursors``, one per log) and turns each new row into one delivery per
webhook URL (``webhook_deliveries``: the exact body sent, its attempts, the next try,
the outcome), moving the cursor in the same transaction. So nothing is lost whoever
wrote the row (a CLI batch while the workspace was down included), and a restart only
resumes the deliveries and the cursor where they were.

Rows younger than :data:`SETTLE` seconds are read again next time (a delivery is
unique per event and URL, so twice is once): on PostgreSQL a transaction that took its
id earlier may commit after a later one, and the cursor must not step over it. The
first time the outbox runs, its cursors start at the end of the logs: a workspace that
turns webhooks on does not send the whole history.
"""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.store.board import board_fields, lead_events_table
from leadengine.store.engine import write_retrying
from leadengine.store.schema import evaluations_table

#: Seconds a log row is read again for (see the module's text).
SETTLE = 10.0
#: Rows of a log turned into deliveries at a time.
_FAN_OUT_BATCH = 200
#: The events, by the log they come from.
EVENTS = ("lead.evaluated", "lead.status_changed")

metadata = sa.MetaData()
webhook_cursors_table = sa.Table(
    "webhook_cursors", metadata,
    sa.Column("log", sa.String(40), primary_key=True),
    sa.Column("last_id", sa.Integer, nullable=False),
)
webhook_deliveries_table = sa.Table(
    "webhook_deliveries", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # "evaluation-12", "status-7": the event's id, as its body says.
    sa.Column("event_id", sa.String(60), nullable=False),
    sa.Column("event", sa.String(40), nullable=False),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("next_at", sa.Float),
    sa.Column("delivered_at", sa.Float),
    sa.Column("gave_up_at", sa.Float),
    sa.Column("last_status", sa.Integer),
    sa.Column("last_error", sa.Text),
    sa.UniqueConstraint("event_id", "target", name="uq_webhook_delivery"),
)


def create_outbox(conn: Connection) -> None:
    """The outbox's tables (migration 11)."""
    for table in (webhook_cursors_table, webhook_deliveries_table):
        table.create(conn, checkfirst=True)
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_webhook_deliveries_due "
                         "ON webhook_deliveries (delivered_at, gave_up_at, next_at)"))


@dataclass(frozen=True)
class Delivery:
    """One event's body on its way to one URL."""

    id: int
    event_id: str
    event: str
    target: str
    body: str
    attempts: int


def _iso(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, datetime.UTC).isoformat(timespec="seconds"
                                                                       ).replace("+00:00", "Z")


def _lead(row: Any) -> dict[str, Any]:
    """What an event says about a lead, from its evaluations row."""
    data, given = json.loads(row.data), json.loads(row.passthrough)
    fields = board_fields(row.url, data, given)
    signals = data.get("signals") if isinstance(data.get("signals"), dict) else {}
    location = data.get("location") if isinstance(data.get("location"), dict) else {}
    return {"id": row.id, "url": fields["url"], "path": f"/leads/{row.id}",
            "business_name": fields["business_name"], "business_type": fields["business_type"],
            "category": fields["category"], "city": fields["city"],
            "country": location.get("country") or "", "fit_score": int(row.fit_score),
            "primary_service": fields["primary_service"],
            "outreach_angle": str(data.get("outreach_angle") or ""),
            "phones": list(dict.fromkeys(signals.get("phones") or [])),
            "emails": list(dict.fromkeys(signals.get("emails") or [])),
            "owner": fields["owner"], "run_id": row.run_id,
            "answers": data.get("answers") if isinstance(data.get("answers"), dict) else {}}


def _cursor(conn: Connection, log: str, end: int) -> int:
    """The log's cursor; a new one starts at ``end`` (no history is sent)."""
    c = webhook_cursors_table
    found = conn.scalar(sa.select(c.c.last_id).where(c.c.log == log))
    if found is None:
        conn.execute(c.insert().values(log=log, last_id=end))
        return end
    return int(found)


def _move(conn: Connection, log: str, last_id: int) -> None:
    c = webhook_cursors_table
    conn.execute(c.update().where(c.c.log == log, c.c.last_id < last_id)
                 .values(last_id=last_id))


def _queue(conn: Connection, events: list[tuple[str, str, dict[str, Any]]],
           targets: Sequence[str], now: float) -> int:
    """Deliveries of ``events`` ((id, type, body)) to every target, but those queued
    already; returns how many were added."""
    d = webhook_deliveries_table
    ids = [event_id for event_id, _, _ in events]
    have = {(row.event_id, row.target) for row in conn.execute(
        sa.select(d.c.event_id, d.c.target).where(d.c.event_id.in_(ids)))} if ids else set()
    rows = [{"event_id": event_id, "event": kind, "target": target,
             "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")),
             "created_at": now, "attempts": 0, "next_at": now}
            for event_id, kind, body in events for target in targets
            if (event_id, target) not in have]
    if rows:
        conn.execute(d.insert(), rows)
    return len(rows)


def fan_out(engine: Engine, targets: Sequence[str], min_fit: int = 0,
            now: float | None = None) -> int:
    """Turn the evaluations and status changes stored since the last call into
    deliveries to ``targets`` (a ``lead.evaluated`` only when its fit score is at least
    ``min_fit``); returns how many deliveries were queued."""
    if not targets:
        return 0
    added: list[int] = []

    def step(conn: Connection) -> None:
        moment = time.time() if now is None else now
        added.append(_evaluated(conn, targets, min_fit, moment)
                     + _status_changed(conn, targets, moment))

    write_retrying(engine, step)
    return added[0]


def _evaluated(conn: Connection, targets: Sequence[str], min_fit: int, now: float) -> int:
    e = evaluations_table
    end = conn.scalar(sa.select(sa.func.max(e.c.id))) or 0
    start = _cursor(conn, "evaluations", int(end))
    rows = conn.execute(sa.select(e.c.id, e.c.url, e.c.run_id, e.c.fit_score, e.c.data,
                                  e.c.passthrough, e.c.created_at)
                        .where(e.c.id > start).order_by(e.c.id).limit(_FAN_OUT_BATCH)).all()
    events = [(f"evaluation-{row.id}", "lead.evaluated",
               {"id": f"evaluation-{row.id}", "type": "lead.evaluated",
                "created_at": _iso(row.created_at), "lead": _lead(row)})
              for row in rows if row.fit_score >= min_fit]
    added = _queue(conn, events, targets, now)
    _move(conn, "evaluations", _settled(rows, start, now))
    return added


def _status_changed(conn: Connection, targets: Sequence[str], now: float) -> int:
    t = lead_events_table
    end = conn.scalar(sa.select(sa.func.max(t.c.id))) or 0
    start = _cursor(conn, "lead_events", int(end))
    scanned = conn.execute(sa.select(t.c.id, t.c.url, t.c.kind, t.c.value, t.c.who,
                                     t.c.at, t.c.at.label("created_at"))
                           .where(t.c.id > start).order_by(t.c.id)
                           .limit(_FAN_OUT_BATCH)).all()
    changes = [row for row in scanned if row.kind == "status"]
    urls = sorted({row.url for row in changes})
    before, leads = _previous_statuses(conn, urls, changes), _latest_leads(conn, urls)
    events = [(f"status-{row.id}", "lead.status_changed",
               {"id": f"status-{row.id}", "type": "lead.status_changed",
                "created_at": _iso(row.at), "lead": leads.get(row.url, {"url": row.url}),
                "status": row.value, "previous_status": before[row.id],
                "changed_by": row.who})
              for row in changes]
    added = _queue(conn, events, targets, now)
    _move(conn, "lead_events", _settled(scanned, start, now))
    return added


def _previous_statuses(conn: Connection, urls: list[str], changes: Sequence[Any]
                       ) -> dict[int, str]:
    """Each status change's previous status ("new" for a lead's first), from one
    query over the leads' status rows."""
    if not changes:
        return {}
    t = lead_events_table
    last: dict[str, str] = {}
    previous: dict[int, str] = {}
    wanted = {row.id for row in changes}
    for row in conn.execute(sa.select(t.c.id, t.c.url, t.c.value).where(
            t.c.url.in_(urls), t.c.kind == "status", t.c.id <= max(wanted))
            .order_by(t.c.id)):
        if row.id in wanted:
            previous[row.id] = last.get(row.url) or "new"
        last[row.url] = row.value
    return previous


def _latest_leads(conn: Connection, urls: list[str]) -> dict[str, dict[str, Any]]:
    """What an event says about each lead, from its latest evaluation (one query)."""
    if not urls:
        return {}
    e = evaluations_table
    latest = (sa.select(sa.func.max(e.c.id)).where(e.c.url.in_(urls))
              .group_by(e.c.url).scalar_subquery())
    rows = conn.execute(sa.select(e.c.id, e.c.url, e.c.run_id, e.c.fit_score, e.c.data,
                                  e.c.passthrough).where(e.c.id.in_(latest)))
    return {row.url: _lead(row) for row in rows}


def _settled(rows: Sequence[Any], start: int, now: float) -> int:
    """The id the cursor may move to: the last row before the first one younger than
    :data:`SETTLE` seconds (that one and those after it are read again)."""
    last = start
    for row in rows:
        if row.created_at > now - SETTLE:
            break
        last = row.id
    return last


def due(engine: Engine, limit: int = 20, now: float | None = None,
        lease: float = 120.0) -> list[Delivery]:
    """Up to ``limit`` deliveries whose time has come, each taken for ``lease`` seconds
    (another workspace process on the same database leaves it alone meanwhile)."""
    d = webhook_deliveries_table
    moment = time.time() if now is None else now
    taken: list[Delivery] = []

    def take(conn: Connection) -> None:
        taken.clear()
        rows = conn.execute(sa.select(d).where(
            d.c.delivered_at.is_(None), d.c.gave_up_at.is_(None), d.c.next_at <= moment)
            .order_by(d.c.next_at, d.c.id).limit(limit)).all()
        for row in rows:
            claimed = conn.execute(d.update().where(d.c.id == row.id,
                                                    d.c.next_at == row.next_at)
                                   .values(next_at=moment + lease))
            if claimed.rowcount == 1:
                taken.append(Delivery(row.id, row.event_id, row.event, row.target, row.body,
                                      row.attempts))

    write_retrying(engine, take)
    return list(taken)


def delivered(engine: Engine, delivery: Delivery, status: int) -> None:
    d = webhook_deliveries_table

    def save(conn: Connection) -> None:
        conn.execute(d.update().where(d.c.id == delivery.id).values(
            attempts=delivery.attempts + 1, delivered_at=time.time(), last_status=status,
            last_error=None, next_at=None))

    write_retrying(engine, save)


def failed(engine: Engine, delivery: Delivery, error: str, status: int | None,
           retry_in: float | None) -> None:
    """A try that failed: tried again in ``retry_in`` seconds, or never (None)."""
    d = webhook_deliveries_table
    now = time.time()

    def save(conn: Connection) -> None:
        conn.execute(d.update().where(d.c.id == delivery.id).values(
            attempts=delivery.attempts + 1, last_status=status, last_error=error[:500],
            next_at=None if retry_in is None else now + retry_in,
            gave_up_at=now if retry_in is None else None))

    write_retrying(engine, save)


def deliveries(engine: Engine, limit: int = 30) -> list[dict[str, Any]]:
    """The latest deliveries, newest first (the settings page's log)."""
    d = webhook_deliveries_table
    with engine.connect() as conn:
        rows = conn.execute(sa.select(d.c.event_id, d.c.event, d.c.target, d.c.created_at,
                                      d.c.attempts, d.c.next_at, d.c.delivered_at,
                                      d.c.gave_up_at, d.c.last_status, d.c.last_error)
                            .order_by(d.c.id.desc()).limit(limit))
        return [dict(row._mapping) for row in rows]
