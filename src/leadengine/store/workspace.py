"""The team's workspace over the results store: each lead's status and notes, with
their history, and the leads board's query (its tables and rows:
:mod:`leadengine.store.board`).

A lead is its URL: a status or a note follows the business when it is evaluated again
(another run, knowledge-base version or model stores a new evaluation row). The status
and history tables are created by migration 7 of :mod:`leadengine.store.schema`
(:func:`create_tables`).

The board reads only ``lead_board`` (migration 8, :func:`create_board`): one narrow row
per evaluation with what the board shows and sorts by (fit score, run, the name, type,
category, city, service, angle and owner, each with a casefolded ``<field>_key``) and a
casefolded ``search`` text for ``q``. Whoever stores evaluations writes it in their
transaction (:func:`forget_leads`, :func:`index_new_leads`), so every sort,
filter and search is SQL with LIMIT and OFFSET over indexed columns, and the
evaluations' JSON is never read for the board. The migration fills it for the rows
stored before; :func:`board` brings it up to date when evaluations were stored (by an
older leadengine) or deleted (by hand) behind its back (:func:`index_leads`). The text
columns compare as code points (PostgreSQL: ``COLLATE "C"``), so both databases order
text as Python's ``str.casefold`` then ``str`` order does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.config.times import DEFAULT_ZONE, when
from leadengine.judgement.bands import DEFAULT_BANDS
from leadengine.store.answers import lead_answers_table
from leadengine.store.board import (
    BOARD_FIELDS,
    board_fields,
    catch_up,
    lead_board_table,
    lead_events_table,
    lead_status_table,
)
from leadengine.store.engine import write_retrying
from leadengine.store.results import stored_record
from leadengine.store.schema import evaluations_table

#: A lead's statuses, in the order a lead moves through them.
STATUSES: tuple[str, ...] = ("new", "contacted", "replied", "qualified", "won", "lost")
#: Fit-score bands of the board (the shipped rubric's floors).
BANDS: dict[str, int] = dict(DEFAULT_BANDS)
#: The board's filters by a field's value (ignoring case), offered as dropdowns.
FACETS = ("category", "city", "angle", "owner")
#: The most frequent values a facet's dropdown offers (a city may be a full address).
FACET_LIMIT = 200
#: Board columns: the evaluation row's own and its status, and those read from its JSON
#: (and input) when it is stored.
SQL_SORTS = ("fit_score", "run_id", "id", "url", "status")
JSON_SORTS = ("business_name", "business_type", "primary_service", "city", "owner", "angle",
              "category")
SORTS = SQL_SORTS + JSON_SORTS
MAX_NOTE = 4000

# -- the board ---------------------------------------------------------------------------


def band(score: int) -> str:
    """``high``, ``medium`` or ``low``."""
    for name, floor in sorted(BANDS.items(), key=lambda item: -item[1]):
        if score >= floor:
            return name
    return "low"


@dataclass(frozen=True)
class BoardQuery:
    """What the board shows: ``sort`` is a column, ``-column`` for descending; the
    facets (:data:`FACETS`) match a value ignoring case, ``q`` a substring of
    :data:`SEARCHED`."""

    sort: str = "-fit_score"
    band: str | None = None
    status: str | None = None
    run_id: int | None = None
    q: str = ""
    page: int = 1
    per_page: int = 50
    category: str | None = None
    city: str | None = None
    angle: str | None = None
    owner: str | None = None
    #: ``question:value``: leads whose answer to the question is the value (ignoring
    #: case), e.g. ``delivery:yes``.
    answer: str | None = None


def _joined(query: BoardQuery | None = None) -> sa.FromClause:
    """Board rows with their status (no row: ``new``); only those when ``query``
    neither filters nor sorts by status."""
    b, s = lead_board_table, lead_status_table
    if query is not None and not query.status and query.sort.lstrip("-") != "status":
        return b
    return b.outerjoin(s, s.c.url == b.c.lead)


def _base() -> sa.Select[Any]:
    b, s = lead_board_table, lead_status_table
    return sa.select(b.c.evaluation_id, b.c.run_id, b.c.fit_score, b.c.created_at, b.c.url,
                     *(b.c[name] for name in BOARD_FIELDS), s.c.status
                     ).select_from(_joined())


def _row(row: Any) -> dict[str, Any]:
    """A board row from a :func:`_base` row."""
    score = int(row.fit_score)
    return {"id": row.evaluation_id, "url": row.url, "run_id": row.run_id,
            "fit_score": score, "band": band(score),
            **{name: row._mapping[name] for name in BOARD_FIELDS},
            "status": row.status or "new", "created_at": row.created_at}


def _filters(query: BoardQuery, ids: Collection[int] | None = None) -> list[Any]:
    b, s = lead_board_table, lead_status_table
    where: list[Any] = []
    if query.band in BANDS:
        floor = BANDS[query.band]
        where.append(b.c.fit_score >= floor)
        higher = [f for f in sorted(BANDS.values()) if f > floor]
        if higher:
            where.append(b.c.fit_score < higher[0])
    if query.status == "new":
        where.append(sa.or_(s.c.status.is_(None), s.c.status == "new"))
    elif query.status:
        where.append(s.c.status == query.status)
    if query.run_id is not None:
        where.append(b.c.run_id == query.run_id)
    for name in FACETS:
        value = getattr(query, name)
        if value:
            where.append(b.c[f"{name}_key"] == value.casefold())
    needle = query.q.strip().casefold()
    if needle:
        where.append(b.c.search.contains(needle, autoescape=True))
    if ids is not None:
        where.append(b.c.evaluation_id.in_(list(ids)))
    if query.answer and ":" in query.answer:
        question, _, value = query.answer.partition(":")
        where.append(answered(question.strip(), value.strip()))
    return where


def answered(question: str, value: str) -> Any:
    """The board's WHERE clause for leads whose answer to ``question`` is ``value``
    (ignoring case)."""
    a = lead_answers_table
    return sa.exists().where(a.c.evaluation_id == lead_board_table.c.evaluation_id,
                             a.c.question == question, a.c.value_key == value.casefold())


def _order(sort: str) -> list[Any]:
    """ORDER BY of ``sort`` (an unknown column: best fit first), ties by id in the same
    direction; text ignoring case, then spellings that differ only in case by code
    point (the order of the ``<field>_key, <field>`` indexes)."""
    b, s = lead_board_table, lead_status_table
    column = sort.lstrip("-")
    descending = sort.startswith("-")
    if column not in SORTS:
        column, descending = "fit_score", True
    own: dict[str, list[Any]] = {
        "fit_score": [b.c.fit_score], "run_id": [b.c.run_id], "id": [], "url": [b.c.url],
        # New (no row) sorts with "new" (STATUSES order would need a CASE).
        "status": [sa.func.coalesce(s.c.status, "new")]}
    columns = own[column] if column in own else [b.c[f"{column}_key"], b.c[column]]
    return [c.desc() if descending else c.asc() for c in (*columns, b.c.evaluation_id)]


def board(engine: Engine, query: BoardQuery) -> tuple[int, list[dict[str, Any]]]:
    """(total, the page's rows) of the leads board: one COUNT and one page query."""
    catch_up(engine)
    where = _filters(query)
    offset = (max(1, query.page) - 1) * query.per_page
    with engine.connect() as conn:
        total = conn.scalar(sa.select(sa.func.count()).select_from(_joined(query))
                            .where(*where))
        found = conn.execute(_base().where(*where).order_by(*_order(query.sort))
                             .limit(query.per_page).offset(offset))
        return int(total or 0), [_row(r) for r in found]


def facets(engine: Engine, limit: int = FACET_LIMIT) -> dict[str, list[str]]:
    """For each of :data:`FACETS`, the values on the board, alphabetical: the ``limit``
    most frequent, ignoring case (each as it is spelled most often)."""
    b = lead_board_table
    found: dict[str, list[str]] = {}
    with engine.connect() as conn:
        for name in FACETS:
            key, shown = b.c[f"{name}_key"], b.c[name]
            spellings = conn.execute(sa.select(key, shown, sa.func.count()).where(key != "")
                                     .group_by(key, shown)).all()
            found[name] = _top_values(spellings, limit)
    return found


def _top_values(spellings: Sequence[Any], limit: int) -> list[str]:
    """(key, spelling, count) rows -> the ``limit`` most frequent keys' commonest
    spellings, alphabetical."""
    counts: dict[str, int] = {}
    best: dict[str, tuple[int, str]] = {}
    for key, spelling, count in spellings:
        counts[key] = counts.get(key, 0) + count
        if key not in best or count > best[key][0]:
            best[key] = (count, spelling)
    top = sorted(counts, key=lambda key: (-counts[key], key))[:limit]
    return sorted((best[key][1] for key in top), key=lambda text: (text.casefold(), text))


def export_records(engine: Engine, query: BoardQuery,
                   ids: Collection[int] | None = None) -> Iterator[dict[str, Any]]:
    """Every evaluation the board ``query`` matches (all pages; only ``ids`` too when
    given), in its order, as :meth:`Store.evaluations` gives them to
    :mod:`leadengine.output.export` (``run_id``, ``row_index``, ``input`` and the evaluation)."""
    e, b = evaluations_table, lead_board_table
    catch_up(engine)
    select = (sa.select(e.c.run_id, e.c.row_index, e.c.url, e.c.data, e.c.passthrough)
              .select_from(_joined(query).join(e, e.c.id == b.c.evaluation_id))
              .where(*_filters(query, ids)).order_by(*_order(query.sort)))
    with engine.connect() as conn:
        for row in conn.execute(select):
            yield stored_record(row, lead=True)


#: Leads looked up in one query when an export is given where each stands.
_STANDING_CHUNK = 500


def with_standing(engine: Engine, records: Iterable[dict[str, Any]],
                  zone: str = DEFAULT_ZONE) -> Iterator[dict[str, Any]]:
    """``records`` (stored evaluations, as exports read them), each with ``standing``:
    where the team has the lead (``status``, ``last_note``, ``last_contact``: the time of
    its latest status change or note as ``YYYY-MM-DD HH:MM`` in ``zone``, None when
    nobody has touched it)."""
    chunk: list[dict[str, Any]] = []
    for record in records:
        chunk.append(record)
        if len(chunk) >= _STANDING_CHUNK:
            yield from _stand(engine, chunk, zone)
            chunk = []
    yield from _stand(engine, chunk, zone)


def _stand(engine: Engine, records: list[dict[str, Any]], zone: str
           ) -> list[dict[str, Any]]:
    urls = list({str(r.get("lead") or r.get("url") or "") for r in records})
    s, t = lead_status_table, lead_events_table
    with engine.connect() as conn:
        status = {url: value for url, value in conn.execute(
            sa.select(s.c.url, s.c.status).where(s.c.url.in_(urls)))} if urls else {}
        events = conn.execute(sa.select(t.c.url, t.c.kind, t.c.value, t.c.at)
                              .where(t.c.url.in_(urls)).order_by(t.c.id)).all() if urls else []
    notes: dict[str, str] = {}
    touched: dict[str, float] = {}
    for url, kind, value, at in events:
        touched[url] = at
        if kind == "note":
            notes[url] = value
    for record in records:
        url = str(record.get("lead") or record.get("url") or "")
        record["standing"] = {"status": status.get(url, "new"), "last_note": notes.get(url),
                              "last_contact": when(touched.get(url), zone) or None}
    return records


def scored(engine: Engine) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """(id, fit score, evaluation JSON) of every stored evaluation, read in pages (what
    a preview of a knowledge-base edit re-scores)."""
    e = evaluations_table
    with engine.connect() as conn:
        rows = conn.execution_options(yield_per=1000).execute(
            sa.select(e.c.id, e.c.fit_score, e.c.data).order_by(e.c.id))
        for row in rows:
            yield row.id, int(row.fit_score), json.loads(row.data)


# -- a lead ------------------------------------------------------------------------------


def lead(engine: Engine, evaluation_id: int) -> dict[str, Any] | None:
    """One stored evaluation as a board row plus ``kb_version`` (the knowledge base it
    was judged with), ``data`` (the evaluation JSON), ``input`` (the passthrough
    columns) and ``history``."""
    if not is_id(evaluation_id):
        return None
    e, s = evaluations_table, lead_status_table
    query = (sa.select(e.c.id, e.c.url, e.c.run_id, e.c.fit_score, e.c.data, e.c.passthrough,
                       e.c.created_at, e.c.kb_version, s.c.status)
             .select_from(e.outerjoin(s, s.c.url == e.c.url)).where(e.c.id == evaluation_id))
    with engine.connect() as conn:
        row = conn.execute(query).first()
        if row is None:
            return None
        data, given = json.loads(row.data), json.loads(row.passthrough)
        score = int(row.fit_score)
        found = {"id": row.id, "run_id": row.run_id, "fit_score": score, "band": band(score),
                 **board_fields(row.url, data, given), "status": row.status or "new",
                 "created_at": row.created_at, "kb_version": row.kb_version, "data": data,
                 "input": given, "history": _history(conn, row.url)}
    return found


def is_id(number: int) -> bool:
    """Whether ``number`` can be a row id (SQLite cannot even compare a larger one)."""
    return 0 < number < 2**63


def _history(conn: Connection, url: str) -> list[dict[str, Any]]:
    t = lead_events_table
    query = sa.select(t.c.kind, t.c.value, t.c.who, t.c.at).where(t.c.url == url)
    return [dict(r._mapping) for r in conn.execute(query.order_by(t.c.id))]


def lead_url(engine: Engine, evaluation_id: int) -> str | None:
    """The URL (the lead's identity in the workspace tables) of an evaluation row."""
    if not is_id(evaluation_id):
        return None
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
