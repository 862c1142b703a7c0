"""The workspace's pages: the leads board, a lead, the runs, and logging in."""

from __future__ import annotations

import json
import math
from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from leadengine import report
from leadengine.app.auth import COOKIE, safe_next
from leadengine.app.server import render, session, set_session_cookie, user, workspace
from leadengine.store_workspace import BANDS, SORTS, STATUSES, BoardQuery, board, lead, update

router = APIRouter()


def board_query(sort: str = "-fit_score", band: str = "", status: str = "", run: str = "",
                q: str = "", page: str = "1") -> BoardQuery:
    """A board query from request parameters, forgiving: a value it cannot use is
    ignored (no 422 page for a hand-edited URL)."""
    return BoardQuery(
        sort=sort if sort.lstrip("-") in SORTS else "-fit_score",
        band=band if band in BANDS else None,
        status=status if status in STATUSES else None,
        run_id=int(run) if run.isdigit() else None,
        q=q[:200], page=int(page) if page.isdigit() and int(page) > 0 else 1)


@router.get("/", response_class=HTMLResponse)
def board_page(request: Request, sort: str = "-fit_score", band: str = "", status: str = "",
               run: str = "", q: str = "", page: str = "1") -> HTMLResponse:
    query = board_query(sort, band, status, run, q, page)
    total, rows = board(workspace(request).store.engine, query)
    params = {"sort": query.sort, "band": query.band or "", "status": query.status or "",
              "run": "" if query.run_id is None else str(query.run_id), "q": query.q}

    def link(**changes: Any) -> str:
        merged = {**params, "page": str(query.page), **changes}
        return "/?" + urlencode({k: v for k, v in merged.items() if v not in ("", None)})

    def sort_link(column: str) -> str:
        """The column's header link: flips its order, or starts it (numbers high first)."""
        if query.sort in (column, f"-{column}"):
            flipped = column if query.sort.startswith("-") else f"-{column}"
        else:
            flipped = f"-{column}" if column in ("fit_score", "run_id") else column
        return link(sort=flipped, page=1)

    runs = [run_["id"] for run_ in workspace(request).store.runs()]
    return render(request, "board.html", rows=rows, total=total, query=query,
                  pages=max(1, math.ceil(total / query.per_page)), link=link,
                  sort_link=sort_link, statuses=STATUSES, bands=list(BANDS), runs=runs)


def href(value: Any) -> str | None:
    """``value`` as a link target if it is an http(s) URL (never ``javascript:``)."""
    text = str(value or "")
    return text if urlsplit(text).scheme in ("http", "https") else None


@router.get("/leads/{lead_id}", response_class=HTMLResponse)
def lead_page(request: Request, lead_id: int) -> HTMLResponse:
    found = lead(workspace(request).store.engine, lead_id)
    if found is None:
        return render(request, "missing.html", status_code=404, what=f"lead {lead_id}")
    data = found["data"]
    return render(
        request, "lead.html", lead=found, data=data, href=href, statuses=STATUSES,
        found=[(label, evidence, href(evidence))
               for label, evidence in report.found_signals(data)],
        missing=report.missing_signals(data),
        contacts=[(kind, value, href(value)) for kind, value in report.contacts(data)],
        maturity=report.maturity(data), sources=report.sources(data),
        provenance=report.provenance(data), text=report.render_report(data, "text"),
        raw=json.dumps(data, ensure_ascii=False, indent=2))


@router.post("/leads/{lead_id}", response_model=None)
def lead_post(request: Request, lead_id: int, csrf: Annotated[str, Form()] = "",
              status: Annotated[str, Form()] = "", note: Annotated[str, Form()] = ""
              ) -> Response:
    space = workspace(request)
    if not space.sessions.check_csrf(session(request), csrf):
        return render(request, "missing.html", status_code=403,
                      what="a valid form (reload the page and try again)")
    found = lead(space.store.engine, lead_id)
    if found is None:
        return render(request, "missing.html", status_code=404, what=f"lead {lead_id}")
    if status and status not in STATUSES:
        return render(request, "missing.html", status_code=400, what=f"status {status}")
    update(space.store.engine, found["url"], user(request), status=status or None,
           note=note)
    return RedirectResponse(f"/leads/{lead_id}", 303)


@router.get("/runs", response_class=HTMLResponse)
def runs_page(request: Request) -> HTMLResponse:
    return render(request, "runs.html", runs=workspace(request).store.runs())


@router.get("/login", response_model=None)
def login_page(request: Request, next: str = "/") -> Response:
    if not workspace(request).sessions.required or session(request) is not None:
        return RedirectResponse(safe_next(next), 303)
    return render(request, "login.html", next=safe_next(next), error="")


@router.post("/login", response_model=None)
def login(request: Request, token: Annotated[str, Form()] = "",
          name: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/") -> Response:
    sessions = workspace(request).sessions
    if not sessions.check_token(token):
        return render(request, "login.html", status_code=401, next=safe_next(next),
                      error="That is not the team token.")
    cookie, _ = sessions.issue(name)
    response = RedirectResponse(safe_next(next), 303)
    set_session_cookie(request, response, cookie)
    return response


@router.post("/logout", response_model=None)
def logout(request: Request, csrf: Annotated[str, Form()] = "") -> Response:
    if not workspace(request).sessions.check_csrf(session(request), csrf):
        return render(request, "missing.html", status_code=403, what="a valid form")
    response = RedirectResponse("/login", 303)
    response.delete_cookie(COOKIE, path="/")
    return response
