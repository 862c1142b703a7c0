"""The workspace's pages: the leads board, a lead, the runs, and logging in."""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from leadengine.app.auth import COOKIE, safe_next
from leadengine.app.leads import MAX_SELECTION, board_query, export_file, row_id
from leadengine.app.shared import (
    client_of,
    form_refusal,
    render,
    session,
    set_session_cookie,
    user,
    workspace,
)
from leadengine.output import (
    answers,
    contacts,
    found_signals,
    maturity,
    missing_signals,
    provenance,
    render_report,
    sources,
)
from leadengine.store import (
    BANDS,
    FACETS,
    STATUSES,
    BoardQuery,
    answers_of,
    board,
    board_questions,
    facets,
    lead,
    seen,
    update,
)

router = APIRouter()


def board_params(query: BoardQuery) -> dict[str, str]:
    """The request parameters of ``query`` without its page (those it has)."""
    params = {"sort": query.sort, "band": query.band or "", "status": query.status or "",
              "run": "" if query.run_id is None else str(query.run_id),
              **{name: getattr(query, name) or "" for name in FACETS}, "q": query.q,
              "answer": query.answer or ""}
    return {k: v for k, v in params.items() if v}


@router.get("/", response_class=HTMLResponse)
def board_page(request: Request, query: Annotated[BoardQuery, Depends(board_query)]
               ) -> HTMLResponse:
    engine = workspace(request).store.engine
    total, rows = board(engine, query)
    params = board_params(query)

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

    def export_link(fmt: str) -> str:
        return "/api/export?" + urlencode({"format": fmt, **params})

    options = facets(engine)
    picked: dict[str, str] = {}
    for name in FACETS:
        chosen = getattr(query, name) or ""
        same = [value for value in options[name] if value.casefold() == chosen.casefold()]
        if chosen and not same:  # a value typed into the URL stays selectable
            options[name].insert(0, chosen)
        picked[name] = same[0] if same else chosen
    runs = [run_["id"] for run_ in workspace(request).store.runs()]
    # A column per question the leads were asked (the most answered), filterable.
    questions = board_questions(engine)
    answers = answers_of(engine, [row["id"] for row in rows], questions)
    return render(request, "board.html", rows=rows, total=total, query=query,
                  questions=questions, answers=answers,
                  pages=max(1, math.ceil(total / query.per_page)), link=link,
                  sort_link=sort_link, export_link=export_link, statuses=STATUSES,
                  bands=list(BANDS), runs=runs, facets=options, picked=picked,
                  params=params)


def href(value: Any) -> str | None:
    """``value`` as a link target if it is an http(s) URL (never ``javascript:``)."""
    text = str(value or "")
    return text if urlsplit(text).scheme in ("http", "https") else None


def contact_link(kind: str, value: str) -> str | None:
    """A link for a contact: ``tel:`` for a phone (its digits), ``mailto:`` for an
    address, the URL for a social or chat link (http(s) only)."""
    if kind == "Phone":
        digits = re.sub(r"[^\d+]", "", value)
        return f"tel:{digits}" if len(digits) >= 6 else None
    if kind == "E-mail":
        return f"mailto:{value}" if re.fullmatch(r"[^\s@<>\"'()]+@[^\s@<>\"'()]+", value) \
            else None
    return href(value)


def where(data: dict[str, Any]) -> str:
    """Where the business is, as a rep reads it: its address, else its city, region and
    country (each once)."""
    found = data.get("location")
    location: dict[str, Any] = found if isinstance(found, dict) else {}
    if location.get("address"):
        parts = [str(location["address"])]
        country = str(location.get("country") or "")
        if country and country.casefold() not in parts[0].casefold():
            parts.append(country)
        return ", ".join(parts)
    names = [str(location.get(key) or "") for key in ("city", "region", "country")]
    return ", ".join(dict.fromkeys(name for name in names if name))


@router.post("/export", response_model=None)
async def export_post(request: Request) -> Response:
    """The board's selection form: the ticked leads (none ticked: every lead the
    board's filters match) as CSV or XLSX. A form post, so its CSRF token never ends up
    in a URL."""
    form = await request.form(max_fields=MAX_SELECTION + 50)
    refused = form_refusal(request, str(form.get("csrf") or ""))
    if refused is not None:
        return refused
    fields = {name: str(form.get(name) or "") for name in
              ("sort", "band", "status", "run", "q", "category", "city", "angle", "owner",
               "answer")}
    query = board_query(**{k: v for k, v in fields.items() if v})
    fmt = "xlsx" if form.get("format") == "xlsx" else "csv"
    ids = [i for v in form.getlist("ids") if isinstance(v, str) and (i := row_id(v))]
    return export_file(request, query, fmt, ids[:MAX_SELECTION] or None)


@router.get("/leads/{lead_id}", response_class=HTMLResponse)
def lead_page(request: Request, lead_id: int) -> HTMLResponse:
    found = lead(workspace(request).store.engine, lead_id)
    if found is None:
        return render(request, "missing.html", status_code=404, what=f"lead {lead_id}")
    data = found["data"]
    # "... High fit for X. Score: base 10, ... = 86.": the sum is folded away.
    why = str(data.get("reasoning") or "").partition(" Score: ")[::2]
    return render(
        request, "lead.html", lead=found, data=data, href=href, statuses=STATUSES,
        found=[(label, evidence, href(evidence))
               for label, evidence in found_signals(data)],
        missing=missing_signals(data),
        contacts=[(kind, value, contact_link(kind, value)) for kind, value in contacts(data)],
        where=where(data), maturity=maturity(data), answers=answers(data),
        why=why[0], score_terms=why[1], sources=sources(data),
        provenance=provenance(data), text=render_report(data, "text"),
        raw=json.dumps(data, ensure_ascii=False, indent=2))


@router.post("/leads/{lead_id}", response_model=None)
def lead_post(request: Request, lead_id: int, csrf: Annotated[str, Form()] = "",
              status: Annotated[str, Form()] = "", note: Annotated[str, Form()] = ""
              ) -> Response:
    refused = form_refusal(request, csrf)
    if refused is not None:
        return refused
    space = workspace(request)
    found = lead(space.store.engine, lead_id)
    if found is None:
        return render(request, "missing.html", status_code=404, what=f"lead {lead_id}")
    if status and status not in STATUSES:
        return render(request, "missing.html", status_code=400, what=f"status {status}")
    update(space.store.engine, found["url"], user(request), status=status or None,
           note=note)
    if space.webhooks is not None and status:
        space.webhooks.wake()  # lead.status_changed goes out now, not at the next poll
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
    space = workspace(request)
    who, wait = space.access.check(client_of(request), token, name)
    if who is None:
        refused = render(
            request, "login.html", status_code=429 if wait else 401, next=safe_next(next),
            error=f"Too many wrong tokens: try again in {wait} seconds." if wait else
            "That token is not valid: mistyped, revoked, or not this workspace's.")
        if wait:
            refused.headers["Retry-After"] = str(wait)
        return refused
    if who.key:
        seen(space.store.engine, who.key)
    cookie, _ = space.sessions.issue(who.name, who.key, who.admin)
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
