"""The leads board's request parameters and its downloads, shared by the board's page
(:mod:`leadengine.app.pages`) and the JSON API (:mod:`leadengine.app.api`)."""

from __future__ import annotations

import io
import time
from typing import Annotated

from fastapi import Request
from fastapi.responses import Response
from pydantic import StringConstraints

from leadengine.app.shared import workspace
from leadengine.config import when
from leadengine.store import (
    BANDS,
    SORTS,
    STATUSES,
    BoardQuery,
    export_records,
    is_id,
    with_standing,
)


def number(text: str) -> int | None:
    """``text`` as a positive whole number written in ASCII digits (``"¹"`` is a digit
    to ``str.isdigit`` but not a number to ``int``), else None."""
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else None


def row_id(text: str) -> int | None:
    """``text`` as a row id (:func:`leadengine.store.is_id`), else None."""
    found = number(text)
    return found if found is not None and is_id(found) else None


#: The highest page number read (50 rows a page: far past any store).
MAX_PAGE = 1_000_000


def board_query(sort: str = "-fit_score", band: str = "", status: str = "", run: str = "",
                q: str = "", page: str = "1", category: str = "", city: str = "",
                angle: str = "", owner: str = "", answer: str = "") -> BoardQuery:
    """A board query from request parameters (also a FastAPI dependency), forgiving: a
    value it cannot use is ignored (no 422 page for a hand-edited URL)."""
    return BoardQuery(
        sort=sort if sort.lstrip("-") in SORTS else "-fit_score",
        band=band if band in BANDS else None,
        status=status if status in STATUSES else None,
        run_id=row_id(run),
        # A page past the last is an empty page; one past any database's integers too.
        q=q[:200], page=min(number(page) or 1, MAX_PAGE),
        category=_facet(category), city=_facet(city), angle=_facet(angle),
        owner=_facet(owner), answer=_facet(answer) if ":" in answer else None)


def _facet(value: str) -> str | None:
    """A facet filter's value (see :data:`FACETS`), None for none."""
    return value.strip()[:200] or None


#: Export formats of ``/api/export``: media type.
EXPORTS = {"csv": "text/csv", "crm-csv": "text/csv",
           "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
#: An export's ``ids`` parameter: evaluation ids, comma-separated.
IdList = Annotated[str, StringConstraints(pattern=r"^[0-9][0-9,]*$")]
#: The most ids one export selection may name.
MAX_SELECTION = 10_000


def export_file(request: Request, query: BoardQuery, fmt: str, selection: list[int] | None
                ) -> Response:
    """The board's matching leads (only ``selection`` if given) as a CSV or XLSX
    download (the API's GET and the board's form post both answer with it)."""
    from leadengine.output import write_crm_csv, write_csv, write_xlsx

    engine = workspace(request).store.engine
    space = workspace(request)
    records = with_standing(engine, export_records(engine, query, selection), space.zone)
    if fmt in ("csv", "crm-csv"):
        text = io.StringIO()
        if fmt == "csv":
            text.write("\ufeff")  # Excel reads Thai and Burmese right only with it
        (write_csv if fmt == "csv" else write_crm_csv)(records, text)
        body = text.getvalue().encode("utf-8")
    else:
        binary = io.BytesIO()
        write_xlsx(records, binary, [])
        body = binary.getvalue()
    suffix = "csv" if fmt == "crm-csv" else fmt
    stamp = when(time.time(), space.zone, seconds=True).replace("-", "").replace(":", "")
    name = f"leads-{'crm-' if fmt == 'crm-csv' else ''}{stamp.replace(' ', '-')}.{suffix}"
    media = EXPORTS[fmt] + ("; charset=utf-8" if suffix == "csv" else "")
    return Response(body, media_type=media,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
