"""The team's workspace over the results store: each lead's status and notes, with
their history, and the leads board's query.

A lead is its URL: a status or a note follows the business when it is evaluated again
(another run, knowledge-base version or model stores a new evaluation row). The tables
are created by migration 7 of :mod:`leadengine.store_schema`
(:func:`create_tables`).

The board sorts and filters by fit score, band, run and status in SQL, with LIMIT and
OFFSET, so a page of 10,000 leads reads 50 rows. Sorting by a field that lives in the
evaluation's JSON (name, type, service, city, owner) or searching text (``q``) reads the
rows the SQL filters leave and sorts them in Python: fine for tens of thousands of leads,
not for millions (a generated column or a search index would be the next step).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.report import DEFAULT_BANDS, city
from leadengine.store_engine import write_retrying
from leadengine.store_schema import evaluations_table

#: A lead's statuses, in the order a lead moves through them.
STATUSES: tuple[str, ...] = ("new", "contacted", "replied", "qualified", "won", "lost")
#: Fit-score bands of the board (the shipped rubric's floors).
BANDS: dict[str, int] = dict(DEFAULT_BANDS)
#: Board columns: those sorted in SQL, and those read from the evaluation's JSON.
SQL_SORTS = ("fit_score", "run_id", "id", "url", "status")
JSON_SORTS = ("business_name", "business_type", "primary_service", "city", "owner", "angle")
SORTS = SQL_SORTS + JSON_SORTS
MAX_NOTE = 4000

metadata = sa.MetaData()
#: A lead's current status (no row: ``new``).
lead_status_table = sa.Table(
    "lead_status", metadata,
    sa.Column("url", sa.Text, primary_key=True),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("updated_by", sa.String(200), nullable=False),
)
#: What happened to a lead: every status change and every note, oldest first.
lead_events_table = sa.Table(
    "lead_events", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("who", sa.String(200), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)


def create_tables(conn: Connection) -> None:
    """The workspace tables (migration 7)."""
    metadata.create_all(conn, checkfirst=True)
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_lead_events_url "
                         "ON lead_events (url)"))


def band(score: int) -> str:
    """``high``, ``medium`` or ``low``."""
    for name, floor in sorted(BANDS.items(), key=lambda item: -item[1]):
        if score >= floor:
            return name
    return "low"


@dataclass(frozen=True)
class BoardQuery:
    """What the board shows: ``sort`` is a column, ``-column`` for descending."""

    sort: str = "-fit_score"
    band: str | None = None
    status: str | None = None
    run_id: int | None = None
    q: str = ""
    page: int = 1
    per_page: int = 50


def _row(row: Any) -> dict[str, Any]:
    """A board row from an evaluations row joined with its status."""
    data = json.loads(row.data)
    passthrough = json.loads(row.passthrough)
    score = int(row.fit_score)
    return {"id": row.id, "url": data.get("url") or row.url, "run_id": row.run_id,
            "fit_score": score, "band": band(score),
            "business_name": str(data.get("business_name") or ""),
            "business_type": str(data.get("business_type") or ""),
            "primary_service": str(data.get("primary_service") or ""),
            "angle": str(data.get("angle") or ""),
            "city": city(data) if isinstance(data, dict) else "",
            "owner": str(passthrough.get("owner") or "") if isinstance(passthrough, dict)
            else "",
            "status": row.status or "new", "created_at": row.created_at}


def _base() -> sa.Select[Any]:
    e, s = evaluations_table, lead_status_table
    return (sa.select(e.c.id, e.c.url, e.c.run_id, e.c.fit_score, e.c.data, e.c.passthrough,
                      e.c.created_at, s.c.status)
            .select_from(e.outerjoin(s, s.c.url == e.c.url)))


def _filters(query: BoardQuery) -> list[Any]:
    e, s = evaluations_table, lead_status_table
    where: list[Any] = []
    if query.band in BANDS:
        floors = sorted(BANDS.values())
        floor = BANDS[query.band]
        where.append(e.c.fit_score >= floor)
        higher = [f for f in floors if f > floor]
        if higher:
            where.append(e.c.fit_score < higher[0])
    if query.status == "new":
        where.append(sa.or_(s.c.status.is_(None), s.c.status == "new"))
    elif query.status:
        where.append(s.c.status == query.status)
    if query.run_id is not None:
        where.append(e.c.run_id == query.run_id)
    return where


def _matches(row: dict[str, Any], needle: str) -> bool:
    fields = ("business_name", "business_type", "primary_service", "city", "owner", "url",
              "angle")
    return any(needle in str(row[f]).casefold() for f in fields)


def board(engine: Engine, query: BoardQuery) -> tuple[int, list[dict[str, Any]]]:
    """(total, the page's rows) of the leads board."""
    descending = query.sort.startswith("-")
    column = query.sort.lstrip("-")
    if column not in SORTS:
        column, descending = "fit_score", True
    where = _filters(query)
    offset = (max(1, query.page) - 1) * query.per_page
    needle = query.q.strip().casefold()
    with engine.connect() as conn:
        if column in SQL_SORTS and not needle:
            order = _sql_order(column, descending)
            total = conn.scalar(sa.select(sa.func.count()).select_from(
                _base().where(*where).subquery())) or 0
            found = conn.execute(_base().where(*where).order_by(*order)
                                 .limit(query.per_page).offset(offset))
            return int(total), [_row(r) for r in found]
        rows = [_row(r) for r in conn.execute(_base().where(*where).order_by(
            evaluations_table.c.id))]
    if needle:
        rows = [row for row in rows if _matches(row, needle)]
    rows.sort(key=lambda row: row["id"])
    rows.sort(key=lambda row: _key(row[column]), reverse=descending)
    return len(rows), rows[offset:offset + query.per_page]


def _key(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


def _sql_order(column: str, descending: bool) -> list[Any]:
    e, s = evaluations_table, lead_status_table
    target: Any = {"fit_score": e.c.fit_score, "run_id": e.c.run_id, "id": e.c.id,
                   "url": e.c.url,
                   # New (no row) sorts with "new" (STATUSES order would need a CASE).
                   "status": sa.func.coalesce(s.c.status, "new")}[column]
    return [target.desc() if descending else target.asc(),
            e.c.id.desc() if descending else e.c.id.asc()]


def lead(engine: Engine, evaluation_id: int) -> dict[str, Any] | None:
    """One stored evaluation as a board row plus ``data`` (the evaluation JSON),
    ``input`` (the passthrough columns) and ``history``."""
    with engine.connect() as conn:
        row = conn.execute(_base().where(evaluations_table.c.id == evaluation_id)).first()
        if row is None:
            return None
        found = _row(row)
        found["data"] = json.loads(row.data)
        found["input"] = json.loads(row.passthrough)
        found["history"] = _history(conn, row.url)
    return found


def _history(conn: Connection, url: str) -> list[dict[str, Any]]:
    t = lead_events_table
    query = sa.select(t.c.kind, t.c.value, t.c.who, t.c.at).where(t.c.url == url)
    return [dict(r._mapping) for r in conn.execute(query.order_by(t.c.id))]


def lead_url(engine: Engine, evaluation_id: int) -> str | None:
    """The URL (the lead's identity in the workspace tables) of an evaluation row."""
    with engine.connect() as conn:
        url = conn.scalar(sa.select(evaluations_table.c.url)
                          .where(evaluations_table.c.id == evaluation_id))
    return None if url is None else str(url)


def update(engine: Engine, url: str, who: str, status: str | None = None,
           note: str | None = None) -> None:
    """Set a lead's status and/or add a note, each recorded in its history (one
    transaction). A status it already has is not recorded again."""
    if status is not None and status not in STATUSES:
        raise ValueError(f"unknown status {status!r} (one of {', '.join(STATUSES)})")
    note = (note or "").strip()[:MAX_NOTE]
    who = who[:200]

    def save(conn: Connection) -> None:
        now = time.time()
        s, t = lead_status_table, lead_events_table
        if status is not None:
            current = conn.scalar(sa.select(s.c.status).where(s.c.url == url)) or "new"
            if current != status:
                conn.execute(s.delete().where(s.c.url == url))
                conn.execute(s.insert().values(url=url, status=status, updated_at=now,
                                               updated_by=who))
                conn.execute(t.insert().values(url=url, kind="status", value=status,
                                               who=who, at=now))
        if note:
            conn.execute(t.insert().values(url=url, kind="note", value=note, who=who,
                                           at=now))

    write_retrying(engine, save)
