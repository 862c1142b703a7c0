"""The questions' answers as the board reads them (migration 12): one row per stored
evaluation and question, its value as shown and casefolded, so the board shows a
column per question and filters by an answer in SQL. Written with the board's rows
(:mod:`leadengine.store.board`), from the evaluation's ``answers``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from leadengine.store.schema import CODE_POINT_TEXT, evaluations_table, loads_stored

#: Questions the board shows a column for, at most (the most answered first).
BOARD_QUESTIONS = 6

metadata = sa.MetaData()
lead_answers_table = sa.Table(
    "lead_answers", metadata,
    sa.Column("evaluation_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("question", sa.String(40), primary_key=True),
    sa.Column("value", CODE_POINT_TEXT, nullable=False),
    sa.Column("value_key", CODE_POINT_TEXT, nullable=False),
)


def answer_rows(evaluation_id: int, data: Any) -> list[dict[str, Any]]:
    """The ``lead_answers`` rows of one evaluation (its decoded JSON)."""
    found = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        return []
    rows = []
    for question, answer in found.items():
        if isinstance(answer, dict) and str(question):
            value = str(answer.get("value", "unknown"))[:300]
            rows.append({"evaluation_id": evaluation_id, "question": str(question)[:40],
                         "value": value, "value_key": value.casefold()})
    return rows


def create_answers(conn: Connection) -> None:
    """The table and its index, filled for the evaluations stored with answers
    (migration 12)."""
    lead_answers_table.create(conn, checkfirst=True)
    conn.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_lead_answers_value "
                         "ON lead_answers (question, value_key)"))
    e = evaluations_table
    if not sa.inspect(conn).has_table(e.name):
        return
    with_answers = sa.select(e.c.id, e.c.data).where(e.c.data.contains('"answers"'))
    rows = [row for found in conn.execute(with_answers)
            for row in answer_rows(found.id, loads_stored(found.data))]
    if rows:
        conn.execute(lead_answers_table.insert(), rows)


def index_answers(conn: Connection, stored: Iterable[tuple[int, Any]]) -> None:
    """Write the answers of evaluations just stored ((id, decoded JSON) each)."""
    rows = [row for evaluation_id, data in stored for row in answer_rows(evaluation_id, data)]
    if rows:
        ids = sorted({row["evaluation_id"] for row in rows})
        conn.execute(lead_answers_table.delete().where(
            lead_answers_table.c.evaluation_id.in_(ids)))
        conn.execute(lead_answers_table.insert(), rows)


def forget_answers(conn: Connection, evaluation_ids: sa.Select[Any]) -> None:
    conn.execute(lead_answers_table.delete().where(
        lead_answers_table.c.evaluation_id.in_(evaluation_ids.scalar_subquery())))


def board_questions(engine: Engine, limit: int = BOARD_QUESTIONS) -> list[str]:
    """The questions the board shows: the most answered, then by name."""
    a = lead_answers_table
    with engine.connect() as conn:
        found = conn.execute(sa.select(a.c.question, sa.func.count()).group_by(a.c.question)
                             .order_by(sa.func.count().desc(), a.c.question).limit(limit))
        return [row[0] for row in found]


def answers_of(engine: Engine, evaluation_ids: Sequence[int], questions: Sequence[str]
               ) -> dict[int, dict[str, str]]:
    """Each evaluation's answers to ``questions`` (the board page's rows)."""
    if not evaluation_ids or not questions:
        return {}
    a = lead_answers_table
    found: dict[int, dict[str, str]] = {}
    with engine.connect() as conn:
        for row in conn.execute(sa.select(a.c.evaluation_id, a.c.question, a.c.value).where(
                a.c.evaluation_id.in_(list(evaluation_ids)), a.c.question.in_(questions))):
            found.setdefault(row.evaluation_id, {})[row.question] = row.value
    return found
