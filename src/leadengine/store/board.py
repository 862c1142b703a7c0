"""The workspace's tables and the leads board's rows.

``lead_status`` and ``lead_events`` (migration 7, :func:`create_tables`) hold each lead's
status and notes with their history; ``lead_board`` (migration 8, :func:`create_board`)
one narrow row per evaluation with what the board shows, sorts, filters and searches
by. Whoever stores evaluations writes those rows in their transaction
(:func:`forget_leads`, :func:`index_new_leads`); :func:`catch_up` indexes what was
stored or deleted behind the board's back. The board's queries are
:mod:`leadengine.store.workspace`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.output.report import city
from leadengine.store.answers import forget_answers, index_answers, lead_answers_table
from leadengine.store.engine import write_retrying
from leadengine.store.schema import CODE_POINT_TEXT, evaluations_table
from leadengine.store.schema import loads_stored as _loads

#: What ``lead_board`` keeps of an evaluation (and its input's ``owner``), as shown.
BOARD_FIELDS = ("business_name", "business_type", "category", "city", "primary_service",
                "angle", "owner")
#: The fields a board row is found by with ``q`` (a substring, ignoring case).
SEARCHED = ("business_name", "business_type", "primary_service", "city", "owner", "url",
            "angle")
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
#: Sort keys compare as code points (see :data:`CODE_POINT_TEXT`).
_KEY = CODE_POINT_TEXT
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
        # Plain SQL, as in migrations._m002: an sa.Index would attach to the table.
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
    index_answers(conn, [(row["id"], data) for row, data, _ in stored])


def forget_leads(conn: Connection, evaluation_ids: sa.Select[Any]) -> None:
    """Delete the board rows of the evaluations ``evaluation_ids`` selects (before a new
    evaluation replaces them)."""
    conn.execute(lead_board_table.delete().where(
        lead_board_table.c.evaluation_id.in_(evaluation_ids.scalar_subquery())))
    forget_answers(conn, evaluation_ids)


def index_leads(conn: Connection) -> None:
    """Write the board rows the stored evaluations lack (all of them once, in migration
    8; afterwards only those an older leadengine stores) and drop those of evaluations
    gone."""
    e, b, a = evaluations_table, lead_board_table, lead_answers_table
    conn.execute(b.delete().where(~sa.exists().where(e.c.id == b.c.evaluation_id)))
    answers = sa.inspect(conn).has_table(a.name)  # migration 12 (8 runs before it)
    if answers:
        conn.execute(a.delete().where(~sa.exists().where(e.c.id == a.c.evaluation_id)))
    missing = _evaluations().where(~sa.exists().where(b.c.evaluation_id == e.c.id))
    last = 0
    while True:
        found = conn.execute(missing.where(e.c.id > last).limit(_FILL_BATCH)).all()
        if not found:
            return
        conn.execute(b.insert(), [_board_row(row) for row in found])
        if answers:
            index_answers(conn, [(row.id, _loads(row.data)) for row in found])
        last = found[-1].id


def catch_up(engine: Engine) -> None:
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
