"""The team's workspace over the results store: each lead's status and notes, with
their history, and the leads board's query.

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
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.output.report import DEFAULT_BANDS, city
from leadengine.store.engine import write_retrying
from leadengine.store.schema import evaluations_table

#: A lead's statuses, in the order a lead moves through them.
STATUSES: tuple[str, ...] = ("new", "contacted", "replied", "qualified", "won", "lost")
#: Fit-score bands of the board (the shipped rubric's floors).
BANDS: dict[str, int] = dict(DEFAULT_BANDS)
#: What ``lead_board`` keeps of an evaluation (and its input's ``owner``), as shown.
BOARD_FIELDS = ("business_name", "business_type", "category", "city", "primary_service",
                "angle", "owner")
#: The fields a board row is found by with ``q`` (a substring, ignoring case).
SEARCHED = ("business_name", "business_type", "primary_service", "city", "owner", "url",
            "angle")
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
#: Evaluations read per batch when ``lead_board`` is filled for stored rows.
_FILL_BATCH = 500

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
#: Sort keys compare as code points: SQLite's BINARY, PostgreSQL's "C" collation.
#: (The generic type with a collation: the same DDL without importing the PostgreSQL
#: dialect, 45 ms of every command's start, when the database is SQLite.)
_KEY = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
#: The board's copy of an evaluation: what it shows, sorts, filters and searches by.
lead_board_table = sa.Table(
    "lead_board", metadata,
    sa.Column("evaluation_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("run_id", sa.Integer, nullable=False),
    sa.Column("fit_score", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    # The evaluation row's URL: the lead's identity (lead_status, lead_events), in the
    # database's collation as there (PostgreSQL joins on an index only then).
    sa.Column("lead", sa.Text, nullable=False),
    # The URL as the evaluation gives it (the board's link text and sort), else the row's.
    sa.Column("url", _KEY, nullable=False),
    *(sa.Column(name, _KEY, nullable=False) for name in BOARD_FIELDS),
    *(sa.Column(f"{name}_key", _KEY, nullable=False) for name in BOARD_FIELDS),
    sa.Column("search", _KEY, nullable=False),
)
#: The indexes of ``lead_board``, name -> columns: a sort's columns and the id that
#: breaks its ties (so a page is read in index order, without sorting), and the lead's
#: URL its status is found by.
_BOARD_INDEXES = {"fit": "fit_score, evaluation_id", "run": "run_id, evaluation_id",
                  "url": "url, evaluation_id", "lead": "lead",
                  **{name: f"{name}_key, {name}, evaluation_id" for name in BOARD_FIELDS}}


def create_tables(conn: Connection) -> None:
    """The workspace tables (migration 7)."""
    for table in (lead_status_table, lead_events_table):
        table.create(conn, checkfirst=True)
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_lead_events_url "
                         "ON lead_events (url)"))


def create_board(conn: Connection) -> None:
    """``lead_board`` and its indexes, filled for the stored evaluations (migration 8)."""
    lead_board_table.create(conn, checkfirst=True)
    for name, columns in _BOARD_INDEXES.items():
        # Plain SQL, as in store_schema._m002: an sa.Index would attach to the table.
        conn.execute(sa.text(f"CREATE INDEX IF NOT EXISTS ix_lead_board_{name} "
                             f"ON lead_board ({columns})"))
    if sa.inspect(conn).has_table(evaluations_table.name):  # else nothing to fill
        index_leads(conn)


# -- the board's rows, written with each evaluation --------------------------------------


def _text(value: Any) -> str:
    return str(value or "")


def _category(value: Any) -> str:
    """An evaluation's ``category``: the taxonomy's ``{"value": ...}``, or a bare name."""
    return _text(value.get("value")) if isinstance(value, dict) else _text(value)


def board_fields(url: str, data: Any, passthrough: Any) -> dict[str, str]:
    """What the board shows of an evaluation (``data``, the stored JSON) whose row has
    ``url`` and the input columns ``passthrough``: ``url`` and :data:`BOARD_FIELDS`."""
    data = data if isinstance(data, dict) else {}
    given = passthrough if isinstance(passthrough, dict) else {}
    return {"url": _text(data.get("url")) or url,
            "business_name": _text(data.get("business_name")),
            "business_type": _text(data.get("business_type")),
            "category": _category(data.get("category")),
            "city": city(data),
            "primary_service": _text(data.get("primary_service")),
            "angle": _text(data.get("angle")),
            "owner": _text(given.get("owner"))}


def _board_row(row: Any) -> dict[str, Any]:
    """The ``lead_board`` row of an evaluations row (see :func:`_evaluations`)."""
    return board_row({"id": row.id, "run_id": row.run_id, "fit_score": row.fit_score,
                      "created_at": row.created_at, "url": row.url},
                     _loads(row.data), _loads(row.passthrough))


def board_row(stored: dict[str, Any], data: Any, passthrough: Any) -> dict[str, Any]:
    """The ``lead_board`` row of an evaluation: ``stored`` holds its row's ``id``,
    ``run_id``, ``fit_score``, ``created_at`` and ``url``; ``data`` and ``passthrough``
    are its decoded JSON."""
    shown = board_fields(stored["url"], data, passthrough)
    keys = {f"{name}_key": shown[name].casefold() for name in BOARD_FIELDS}
    search = "\n".join(shown[name] for name in SEARCHED).casefold()
    return {"evaluation_id": stored["id"], "run_id": stored["run_id"],
            "fit_score": stored["fit_score"], "created_at": stored["created_at"],
            "lead": stored["url"], **shown, **keys, "search": search}


def _evaluations() -> sa.Select[Any]:
    """What a board row is made of, of each evaluation, by id."""
    e = evaluations_table
    return sa.select(e.c.id, e.c.run_id, e.c.fit_score, e.c.created_at, e.c.url, e.c.data,
                     e.c.passthrough).order_by(e.c.id)


def _loads(text: str) -> Any:
    """Stored JSON, or None when a row holds something else."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def index_new_leads(conn: Connection, stored: Sequence[tuple[dict[str, Any], Any, Any]]
                    ) -> None:
    """Write the board rows of the evaluations just stored, each given as (its row as
    inserted, with its new ``id``; its evaluation; its passthrough), in the transaction
    that stored them (:func:`leadengine.store.results.write_outcomes`)."""
    if not stored:
        return
    # Rows left by evaluations deleted by hand whose ids SQLite hands out again.
    conn.execute(lead_board_table.delete().where(
        lead_board_table.c.evaluation_id.in_([row["id"] for row, _, _ in stored])))
    conn.execute(lead_board_table.insert(), [
        board_row(row, data, passthrough) for row, data, passthrough in stored])


def forget_leads(conn: Connection, evaluation_ids: sa.Select[Any]) -> None:
    """Delete the board rows of the evaluations ``evaluation_ids`` selects (before a new
    evaluation replaces them)."""
    conn.execute(lead_board_table.delete().where(
        lead_board_table.c.evaluation_id.in_(evaluation_ids.scalar_subquery())))


def index_leads(conn: Connection) -> None:
    """Write the board rows the stored evaluations lack (all of them once, in migration
    8; afterwards only those an older leadengine stores) and drop those of evaluations
    gone."""
    e, b = evaluations_table, lead_board_table
    conn.execute(b.delete().where(~sa.exists().where(e.c.id == b.c.evaluation_id)))
    missing = _evaluations().where(~sa.exists().where(b.c.evaluation_id == e.c.id))
    last = 0
    while True:
        found = conn.execute(missing.where(e.c.id > last).limit(_FILL_BATCH)).all()
        if not found:
            return
        conn.execute(b.insert(), [_board_row(row) for row in found])
        last = found[-1].id


def _catch_up(engine: Engine) -> None:
    """Index the evaluations stored (by an older leadengine) or deleted (by hand) behind
    the board's back, if any: the number of rows or the newest id differ then (a new
    evaluation always has the highest id)."""
    e, b = evaluations_table, lead_board_table
    stored, indexed = ((sa.select(sa.func.count()).select_from(table).scalar_subquery(),
                        sa.select(sa.func.max(column)).scalar_subquery())
                       for table, column in ((e, e.c.id), (b, b.c.evaluation_id)))
    with engine.connect() as conn:
        found = conn.execute(sa.select(*stored, *indexed)).one()
    if tuple(found[:2]) != tuple(found[2:]):
        write_retrying(engine, index_leads)


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
    return where


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
    _catch_up(engine)
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
    _catch_up(engine)
    select = (sa.select(e.c.run_id, e.c.row_index, e.c.url, e.c.data, e.c.passthrough)
              .select_from(_joined(query).join(e, e.c.id == b.c.evaluation_id))
              .where(*_filters(query, ids)).order_by(*_order(query.sort)))
    with engine.connect() as conn:
        for row in conn.execute(select):
            record = {"run_id": row.run_id, "row_index": row.row_index,
                      "input": json.loads(row.passthrough), **json.loads(row.data)}
            record["url"] = record.get("url") or row.url
            yield record


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
