"""The workspace's batch pages: ``/batches`` (upload a CSV or paste URLs, pick the
provider; the batches so far), ``/batches/{id}`` (live progress over server-sent
events, the failures with their reasons, "retry failed", "stop") and
``POST /batches/reevaluate`` (the board's selection), on the functions of
:mod:`leadengine.app.batch_routes` that the API uses too."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from leadengine.app.batch_routes import (
    base_settings,
    caller,
    failures,
    providers,
    question_lines,
    retry,
    start,
)
from leadengine.app.jobs import MAX_ROWS, MAX_UPLOAD, read_upload, rows_of_urls
from leadengine.app.leads import row_id
from leadengine.app.shared import form_refusal, render, workspace
from leadengine.config import safe_message
from leadengine.errors import ConfigError

router = APIRouter()


@router.get("/batches", response_class=HTMLResponse)
def batches_page(request: Request) -> HTMLResponse:
    return _batches_form(request)


def _batches_form(request: Request, error: str = "", status_code: int = 200,
                  urls: str = "") -> HTMLResponse:
    settings = base_settings(request)
    return render(request, "batches.html", status_code=status_code, error=error, urls=urls,
                  providers=providers(settings), jobs=workspace(request).jobs.all(),
                  max_rows=MAX_ROWS, max_mb=MAX_UPLOAD // (1024 * 1024))


@router.post("/batches", response_model=None)
async def batches_post(request: Request, csrf: Annotated[str, Form()] = "",
                       urls: Annotated[str, Form()] = "",
                       provider: Annotated[str, Form()] = "",
                       model: Annotated[str, Form()] = "",
                       questions: Annotated[str, Form()] = "",
                       file: Annotated[UploadFile | None, File()] = None) -> Response:
    refused = form_refusal(request, csrf)
    if refused is not None:
        return refused
    space = workspace(request)
    wait = space.limits.wait("batch", caller(request))
    if wait > 0:
        return _batches_form(request, f"Too many batches started: try again in "
                                      f"{wait:.0f} s.", 429, urls)
    try:
        if file is not None and file.filename:
            data = await file.read(MAX_UPLOAD + 1)
            name = file.filename
        elif urls.strip():
            data, name = urls.encode("utf-8"), "pasted URLs"
        else:
            raise ConfigError("choose a CSV file or paste some URLs")
        rows = await asyncio.to_thread(read_upload, data, name)
        job = start(request, name, rows, provider or None, model or None,
                    questions=question_lines(questions))
    except ConfigError as exc:
        return _batches_form(request, safe_message(str(exc)), 400, urls)
    return RedirectResponse(f"/batches/{job.id}", 303)


@router.get("/batches/{job_id}", response_class=HTMLResponse)
def batch_page(request: Request, job_id: int) -> HTMLResponse:
    job = workspace(request).jobs.get(job_id)
    if job is None:
        return render(request, "missing.html", status_code=404,
                      what=f"batch {job_id} (batches are listed until the server "
                           "restarts; their runs stay under Runs)")
    return render(request, "batch.html", job=job.as_dict(),
                  failures=failures(request, job), final=job.final)


@router.post("/batches/{job_id}/retry", response_model=None)
def batch_retry(request: Request, job_id: int, csrf: Annotated[str, Form()] = ""
                ) -> Response:
    refused = form_refusal(request, csrf)
    if refused is not None:
        return refused
    job = workspace(request).jobs.get(job_id)
    if job is None:
        return render(request, "missing.html", status_code=404, what=f"batch {job_id}")
    try:
        again = retry(request, job)
    except ConfigError as exc:
        return render(request, "missing.html", status_code=400,
                      what=f"a retry: {safe_message(str(exc))}")
    return RedirectResponse(f"/batches/{again.id}", 303)


@router.post("/batches/{job_id}/stop", response_model=None)
def batch_stop(request: Request, job_id: int, csrf: Annotated[str, Form()] = ""
               ) -> Response:
    refused = form_refusal(request, csrf)
    if refused is not None:
        return refused
    workspace(request).jobs.stop(job_id)
    return RedirectResponse(f"/batches/{job_id}", 303)


@router.post("/batches/reevaluate", response_model=None)
async def batch_reevaluate(request: Request) -> Response:
    """The board's selection (``ids``) evaluated again, as a new batch. Leads already
    evaluated with this knowledge base, provider and model are skipped (as a batch
    run again skips them): re-evaluating pays off after the knowledge base changed."""
    form = await request.form(max_fields=MAX_ROWS + 10)
    refused = form_refusal(request, str(form.get("csrf") or ""))
    if refused is not None:
        return refused
    from leadengine.store import lead

    ids = [i for v in form.getlist("ids") if isinstance(v, str) and (i := row_id(v))]
    engine = workspace(request).store.engine
    leads = [found for found in (lead(engine, i) for i in ids[:MAX_ROWS]) if found]
    if not leads:
        return render(request, "missing.html", status_code=400,
                      what="a selection (tick the leads to evaluate again)")
    rows = rows_of_urls([found["url"] for found in leads],
                        [{str(k): str(v) for k, v in (found.get("input") or {}).items()}
                         for found in leads])
    try:
        job = start(request, f"re-evaluate {len(rows)} leads", rows)
    except ConfigError as exc:
        return render(request, "missing.html", status_code=400,
                      what=f"a batch: {safe_message(str(exc))}")
    return RedirectResponse(f"/batches/{job.id}", 303)

