"""The workspace's JSON API: ``/api/leads`` (the board), ``/api/leads/{id}`` (a lead, and
PATCH to set its status or add a note) and ``/api/runs``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, Field

from leadengine.app.pages import board_query
from leadengine.app.server import session, user, workspace
from leadengine.store_workspace import MAX_NOTE, STATUSES, board, lead, update

router = APIRouter(prefix="/api")


class LeadUpdate(BaseModel):
    """A PATCH body: a new status, a note, or both."""

    model_config = {"extra": "forbid"}
    status: str | None = None
    note: str | None = Field(default=None, max_length=MAX_NOTE)


@router.get("/leads")
def api_leads(request: Request, sort: str = "-fit_score", band: str = "", status: str = "",
              run: str = "", q: str = "", page: str = "1") -> dict[str, Any]:
    query = board_query(sort, band, status, run, q, page)
    total, rows = board(workspace(request).store.engine, query)
    return {"total": total, "page": query.page, "per_page": query.per_page, "rows": rows}


@router.get("/leads/{lead_id}")
def api_lead(request: Request, lead_id: int) -> dict[str, Any]:
    found = lead(workspace(request).store.engine, lead_id)
    if found is None:
        raise HTTPException(404, f"no lead {lead_id}")
    return found


@router.patch("/leads/{lead_id}")
def api_update(request: Request, lead_id: int, body: LeadUpdate) -> dict[str, Any]:
    space = workspace(request)
    if not request.state.bearer and not space.sessions.check_csrf(
            session(request), request.headers.get("x-csrf-token")):
        raise HTTPException(403, "a cookie session needs the X-CSRF-Token header")
    if body.status is not None and body.status not in STATUSES:
        raise HTTPException(422, f"status must be one of {', '.join(STATUSES)}")
    found = lead(space.store.engine, lead_id)
    if found is None:
        raise HTTPException(404, f"no lead {lead_id}")
    update(space.store.engine, found["url"], user(request), status=body.status,
           note=body.note)
    updated = lead(space.store.engine, lead_id)
    assert updated is not None
    return updated


@router.get("/runs")
def api_runs(request: Request) -> list[dict[str, Any]]:
    return workspace(request).store.runs()
