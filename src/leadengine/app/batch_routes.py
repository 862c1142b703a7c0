"""New batches in the workspace, and evaluating one URL: what the pages
(:mod:`leadengine.app.batch_pages`) and the API share, and the API:
``POST /api/evaluate``, ``POST /api/batches`` (a CSV upload or
``{"urls": [...]}``), ``GET /api/batches``, ``GET /api/batches/{id}``,
``GET /api/batches/{id}/events``, ``GET /api/batches/{id}/failures``,
``POST /api/batches/{id}/retry`` and ``/stop``. The pages and the API call the same
functions below.

Server inputs are web addresses only; the SSRF guard is on unless the server was
started with ``--allow-private`` (whatever the settings file says). Evaluating and
starting batches are rate-limited per caller (:mod:`leadengine.app.limits`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from starlette.datastructures import UploadFile as FormFile

from leadengine.app.jobs import (
    MAX_ROWS,
    MAX_UPLOAD,
    NOT_WEB,
    Job,
    read_upload,
    rows_of_urls,
    web_url,
)
from leadengine.app.shared import check_api_csrf, session, user, workspace
from leadengine.batch import Row
from leadengine.config import PROVIDERS, Settings, safe_message
from leadengine.errors import ConfigError, LeadEngineError

router = APIRouter()
#: Seconds between looks at a job for its event stream, and between keep-alives.
POLL = 0.25
KEEP_ALIVE = 15.0
#: Failures listed on a batch's page and by the API.
MAX_FAILURES = 500


# --- what the pages and the API share ---------------------------------------------------


def base_settings(request: Request) -> Settings:
    """The server's settings with the SSRF guard as the server was started."""
    space = workspace(request)
    settings = space.settings if space.settings is not None else Settings.from_env()
    return settings.with_options(allow_private=space.allow_private)


def providers(settings: Settings) -> list[dict[str, Any]]:
    """The providers a batch may use here: the offline evaluator, the active one, and
    those whose API key is set (never the key itself)."""
    env = settings.environ()
    active = _active(settings)
    catalogue = settings.model_catalogue()
    found = []
    for name, provider in PROVIDERS.items():
        key_set = bool(provider.key_env and env.get(provider.key_env))
        usable = (name == "heuristic" or name == active or key_set
                  or (name == "custom" and bool(settings.base_url)))
        if usable:
            default = provider.default_model or catalogue.default(name) or ""
            found.append({"name": name, "default_model": default,
                          "active": name == active, "key_set": key_set,
                          "key_required": provider.key_required})
    return found


def _active(settings: Settings) -> str:
    try:
        return settings.resolve_provider().name
    except ConfigError:
        return "heuristic"


def job_settings(request: Request, provider: str | None, model: str | None) -> Settings:
    """Settings for a batch with the chosen provider and model (ConfigError if the
    provider is not one offered here)."""
    settings = base_settings(request)
    if provider:
        offered = {p["name"] for p in providers(settings)}
        if provider not in offered:
            raise ConfigError(f"provider {provider!r} is not configured on this server "
                              f"(choose one of: {', '.join(sorted(offered))})")
    return settings.with_options(provider=provider or None, model=(model or "").strip()
                                 or None)


def caller(request: Request) -> str:
    """Whom a rate limit counts: the API token, a browser session, or this machine."""
    if request.state.bearer:
        return "token"
    current = session(request)
    return f"session:{current.nonce}" if current is not None else "local"


def check_limit(request: Request, kind: str) -> None:
    wait = workspace(request).limits.wait(kind, caller(request))
    if wait > 0:
        raise HTTPException(429, f"too many requests: try again in {wait:.0f} s",
                            headers={"Retry-After": str(max(1, round(wait)))})


def start(request: Request, name: str, rows: list[Row], provider: str | None = None,
          model: str | None = None, retry_failed: bool = False,
          questions: Sequence[str] = ()) -> Job:
    """Queue a batch (ConfigError: a provider not offered, a missing key, a question
    that cannot be asked)."""
    settings = job_settings(request, provider, model)
    return workspace(request).jobs.submit(name, rows, settings, retry_failed,
                                          user(request), questions)


def question_lines(text: str) -> list[str]:
    """The questions of a form's text area: one a line, blank lines skipped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def job_or_404(request: Request, job_id: int) -> Job:
    job = workspace(request).jobs.get(job_id)
    if job is None:
        raise HTTPException(404, f"no batch {job_id} (batches are kept until the server "
                                 "restarts; their runs stay in Runs)")
    return job


def failures(request: Request, job: Job) -> list[dict[str, Any]]:
    """The rows of the job's run that failed, with their reasons."""
    if job.run_id is None:
        return []
    found = workspace(request).store.errors(job.run_id)[:MAX_FAILURES]
    return [{"url": f["url"], "error": safe_message(f["error"]), "row": f["row_index"]}
            for f in found]


def retry_rows(request: Request, job: Job) -> list[Row]:
    """The failed rows of the job's run, to run again (their input columns kept)."""
    if job.run_id is None:
        raise ConfigError("the batch has not started: nothing to retry")
    found = workspace(request).store.errors(job.run_id)[:MAX_ROWS]
    if not found:
        raise ConfigError("no failed rows to retry")
    return rows_of_urls([f["url"] for f in found],
                        [{str(k): str(v) for k, v in (f["input"] or {}).items()}
                         for f in found])


def retry(request: Request, job: Job) -> Job:
    """A new batch of the job's failed rows, with its evaluator (ConfigError: nothing
    to retry)."""
    return start(request, f"retry of {job.name}", retry_rows(request, job),
                 job.settings.resolve_provider().name, job.settings.model,
                 retry_failed=True)


# --- the API ------------------------------------------------------------------------------


class EvaluateRequest(BaseModel):
    model_config = {"extra": "forbid"}
    url: str = Field(min_length=1, max_length=2000)
    provider: str | None = Field(default=None, max_length=40)
    model: str | None = Field(default=None, max_length=200)


class BatchRequest(BaseModel):
    model_config = {"extra": "forbid"}
    urls: list[Annotated[str, Field(min_length=1, max_length=2000)]] = Field(
        min_length=1, max_length=MAX_ROWS)
    name: str | None = Field(default=None, max_length=200)
    provider: str | None = Field(default=None, max_length=40)
    model: str | None = Field(default=None, max_length=200)
    retry_failed: bool = False
    #: Questions to answer for every lead of this batch ("Do they deliver?").
    questions: list[Annotated[str, Field(min_length=1, max_length=2000)]] = Field(
        default_factory=list, max_length=20)


class BatchCreated(BaseModel):
    id: int
    url: str


@router.post("/api/evaluate")
async def api_evaluate(request: Request, body: EvaluateRequest) -> dict[str, Any]:
    """Evaluate one web address now and return the evaluation (not stored: a batch
    stores its results)."""
    check_api_csrf(request)
    check_limit(request, "evaluate")
    url = web_url(body.url)
    if url is None:
        raise HTTPException(400, NOT_WEB)
    try:
        settings = job_settings(request, body.provider, body.model)
        from leadengine.pipeline import evaluate

        # Page reading is CPU work: off the server's event loop.
        evaluation = await asyncio.to_thread(evaluate, url, settings)
    except LeadEngineError as exc:
        raise HTTPException(400, safe_message(str(exc))) from None
    return evaluation.model_dump(mode="json")


_UPLOAD_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": BatchRequest.model_json_schema()},
    "multipart/form-data": {"schema": {
        "type": "object", "required": ["file"],
        "properties": {"file": {"type": "string", "format": "binary"},
                       "provider": {"type": "string"}, "model": {"type": "string"},
                       "retry_failed": {"type": "boolean"}}}}}}}


@router.post("/api/batches", status_code=201, openapi_extra=_UPLOAD_BODY)
async def api_create_batch(request: Request) -> BatchCreated:
    """Start a batch: a CSV or text list uploaded as ``file`` (multipart), or JSON
    ``{"urls": [...]}``. At most 10,000 rows and 2 MB."""
    check_api_csrf(request)
    check_limit(request, "batch")
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        if kind == "multipart/form-data":
            form = await request.form(max_files=1, max_fields=10)
            upload = form.get("file")
            if not isinstance(upload, FormFile):
                raise HTTPException(400, "send the list as the 'file' field")
            data = await upload.read(MAX_UPLOAD + 1)
            rows = await asyncio.to_thread(read_upload, data, upload.filename or "upload")
            job = start(request, upload.filename or "upload", rows,
                        _field(form.get("provider")), _field(form.get("model")),
                        _field(form.get("retry_failed")) in ("1", "true", "on"),
                        question_lines(_field(form.get("questions")) or ""))
        elif kind == "application/json":
            try:
                body = BatchRequest.model_validate_json(await request.body())
            except ValueError as exc:
                raise HTTPException(400, _first_error(exc)) from None
            job = start(request, body.name or f"{len(body.urls)} URLs (API)",
                        rows_of_urls(body.urls), body.provider, body.model,
                        body.retry_failed, body.questions)
        else:
            raise HTTPException(415, "send JSON {\"urls\": [...]} or a multipart upload")
    except ConfigError as exc:
        raise HTTPException(400, safe_message(str(exc))) from None
    return BatchCreated(id=job.id, url=f"/batches/{job.id}")


def _field(value: Any) -> str | None:
    return value.strip()[:200] if isinstance(value, str) and value.strip() else None


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "body"
        return f"{where}: {first.get('msg', 'invalid')}"
    return "the body is not valid JSON"


@router.get("/api/batches")
def api_batches(request: Request) -> list[dict[str, Any]]:
    """The batches since the server started, the newest first."""
    return [job.as_dict() for job in workspace(request).jobs.all()]


@router.get("/api/batches/{job_id}")
def api_batch(request: Request, job_id: int) -> dict[str, Any]:
    """A batch: its state, run, counters, rate, time left and cost."""
    return job_or_404(request, job_id).as_dict()


@router.get("/api/batches/{job_id}/failures")
def api_batch_failures(request: Request, job_id: int) -> list[dict[str, Any]]:
    return failures(request, job_or_404(request, job_id))


@router.post("/api/batches/{job_id}/retry", status_code=201)
def api_batch_retry(request: Request, job_id: int) -> BatchCreated:
    """A new batch of this one's failed rows."""
    check_api_csrf(request)
    check_limit(request, "batch")
    job = job_or_404(request, job_id)
    try:
        again = retry(request, job)
    except ConfigError as exc:
        raise HTTPException(400, safe_message(str(exc))) from None
    return BatchCreated(id=again.id, url=f"/batches/{again.id}")


@router.post("/api/batches/{job_id}/stop")
def api_batch_stop(request: Request, job_id: int) -> dict[str, Any]:
    check_api_csrf(request)
    job = job_or_404(request, job_id)
    workspace(request).jobs.stop(job.id)
    return job.as_dict()


@router.get("/api/batches/{job_id}/events", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}})
async def api_batch_events(request: Request, job_id: int) -> StreamingResponse:
    """Server-sent events: ``progress`` with the batch (as ``GET /api/batches/{id}``)
    whenever it changes, then ``end`` once it has finished."""
    job = job_or_404(request, job_id)
    return StreamingResponse(_events(request, job), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store",
                                      "X-Accel-Buffering": "no"})


async def _events(request: Request, job: Job) -> AsyncIterator[str]:
    seen, quiet = -1, 0.0
    while True:
        if job.version != seen:
            seen = job.version
            yield _event("progress", job.as_dict())
            quiet = 0.0
        if job.final:
            yield _event("end", job.as_dict())
            return
        if await request.is_disconnected():
            return
        await asyncio.sleep(POLL)
        quiet += POLL
        if quiet >= KEEP_ALIVE:
            quiet = 0.0
            yield ": keep-alive\n\n"


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
