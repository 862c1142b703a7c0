"""The workspace's JSON API: ``/api/leads`` (the board), ``/api/leads/{id}`` (a lead, and
PATCH to set its status or add a note), ``/api/runs``, and ``/api/export`` (the board's
leads as a CSV or XLSX download)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from leadengine.app.leads import EXPORTS, MAX_SELECTION, IdList, board_query, export_file
from leadengine.app.shared import check_api_csrf, user, workspace
from leadengine.store import (
    MAX_NOTE,
    STATUSES,
    BoardQuery,
    board,
    is_id,
    lead,
    update,
)

router = APIRouter(prefix="/api")


class LeadUpdate(BaseModel):
    """A PATCH body: a new status, a note, or both."""

    model_config = {"extra": "forbid"}
    status: str | None = None
    note: str | None = Field(default=None, max_length=MAX_NOTE)


@router.get("/leads")
def api_leads(request: Request, query: Annotated[BoardQuery, Depends(board_query)]
              ) -> dict[str, Any]:
    """A page of the board: the same parameters as the board page (``sort``, ``band``,
    ``status``, ``run``, ``category``, ``city``, ``angle``, ``owner``, ``q``, ``page``)."""
    total, rows = board(workspace(request).store.engine, query)
    return {"total": total, "page": query.page, "per_page": query.per_page, "rows": rows}


@router.get("/export", response_class=Response, responses={200: {
    "description": "The leads as a file (Content-Disposition: attachment)",
    "content": {media: {"schema": {"type": "string", "format": "binary"}}
                for media in EXPORTS.values()}}})
def api_export(request: Request, query: Annotated[BoardQuery, Depends(board_query)],
               fmt: Annotated[Literal["csv", "crm-csv", "xlsx"], Query(alias="format")] = "csv",
               ids: Annotated[list[IdList] | None, Query()] = None) -> Response:
    """The leads the board's parameters match (every page, in the board's order), only
    those of ``ids`` too when given (``ids=1&ids=2`` or ``ids=1,2``), as a download in
    the columns of ``leadengine export``: CSV (UTF-8 with a byte-order mark, as a file
    written by the CLI) or XLSX (its "Failures" sheet left empty: a board lists leads)."""
    return export_file(request, query, fmt, _selection(ids))


def _selection(ids: list[str] | None) -> list[int] | None:
    """The evaluation ids of an export's ``ids`` parameters (None: no selection)."""
    if not ids:
        return None
    found = [int(part) for value in ids for part in value.split(",")
             if part and is_id(int(part))]
    if len(found) > MAX_SELECTION:
        raise HTTPException(400, f"at most {MAX_SELECTION:,} ids")
    return found


@router.get("/leads/{lead_id}")
def api_lead(request: Request, lead_id: int) -> dict[str, Any]:
    found = lead(workspace(request).store.engine, lead_id)
    if found is None:
        raise HTTPException(404, f"no lead {lead_id}")
    return found


@router.patch("/leads/{lead_id}")
def api_update(request: Request, lead_id: int, body: LeadUpdate) -> dict[str, Any]:
    check_api_csrf(request)
    space = workspace(request)
    if body.status is not None and body.status not in STATUSES:
        raise HTTPException(400, f"status must be one of {', '.join(STATUSES)}")
    found = lead(space.store.engine, lead_id)
    if found is None:
        raise HTTPException(404, f"no lead {lead_id}")
    update(space.store.engine, found["url"], user(request), status=body.status,
           note=body.note)
    if space.webhooks is not None and body.status is not None:
        space.webhooks.wake()  # lead.status_changed goes out now, not at the next poll
    updated = lead(space.store.engine, lead_id)
    assert updated is not None
    return updated


@router.get("/runs")
def api_runs(request: Request) -> list[dict[str, Any]]:
    return workspace(request).store.runs()
