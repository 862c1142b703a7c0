"""The knowledge base in the workspace: list its files and sections, view one rendered,
and edit one, saved only when the knowledge base still loads (see
:mod:`leadengine.app.knowledge_files`).

Pages: ``/knowledge``, ``/knowledge/{path}``, ``/knowledge/{path}/edit`` and a form post
to ``/knowledge/{path}``. API: ``GET /api/knowledge`` (files, sections, version),
``GET /api/knowledge/{path}`` (a file's text) and ``PUT /api/knowledge/{path}`` (save,
or create a new file).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, Field

from leadengine.app.knowledge_files import (
    MAX_TEXT,
    Refused,
    Saved,
    digest,
    is_linked,
    knowledge_root,
    loader_files,
    locate,
    read_text,
    render_markdown,
    save,
)
from leadengine.app.shared import check_api_csrf, form_refusal, render, user, workspace
from leadengine.errors import KnowledgeError
from leadengine.knowledge import Document, Knowledge, parse_document
from leadengine.store import record

router = APIRouter()


class KnowledgeText(BaseModel):
    """A PUT body: the file's whole new text and, optionally, the ``sha256`` of the text
    the edit started from (a file changed since is refused with 409)."""

    model_config = {"extra": "forbid"}
    text: str = Field(description=f"the file's whole text, at most {MAX_TEXT} bytes "
                                  "in UTF-8 (413 over)")
    base: str | None = None


class Problem(BaseModel):
    """Why a request was refused: a message, or the list of a body's validation errors."""

    detail: str | list[dict[str, Any]]


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The refusals a route may answer with, for its OpenAPI description."""
    said = {403: "a cookie session without the X-CSRF-Token header",
            404: "no knowledge file is, or may be, at this path (the detail says why)",
            409: "the file changed since the edit started (base)",
            413: f"the text is over {MAX_TEXT} bytes",
            422: "the knowledge base would not load with this text (the loader's message)"}
    return {status: {"model": Problem, "description": said[status]} for status in statuses}


def root_of(request: Request) -> Path:
    """The knowledge directory of this workspace (its settings', else the CLI's)."""
    settings = workspace(request).settings
    return knowledge_root(settings.knowledge_dir if settings is not None else None)


def version(root: Path) -> tuple[str | None, str | None]:
    """The knowledge version and None, or None and why the knowledge base does not load
    (file names relative to the knowledge directory)."""
    try:
        return Knowledge.from_dir(root).version, None
    except KnowledgeError as exc:
        return None, str(exc).replace(str(root) + os.sep, "")


def describe(root: Path, rel: str) -> dict[str, Any]:
    """One file for the list: its sections, word count, front-matter rules, whether the
    workspace may open it (not through a symbolic link), and its own load error."""
    editable = not is_linked(root, rel)
    info: dict[str, Any] = {"path": rel, "editable": editable, "sections": [],
                            "rules": [], "words": 0, "error": None}
    if not editable:
        return info  # what a link points at is not shown (the loader still reads it)
    try:
        doc = parse_document(rel, (root / rel).read_bytes())
    except KnowledgeError as exc:
        info["error"] = str(exc)
        return info
    info["sections"] = [{"heading": s.heading, "level": s.level}
                        for s in doc.sections if s.heading is not None]
    info["rules"] = sorted(doc.rules_data or {})
    info["words"] = len(doc.content.split())
    return info


def overview(root: Path) -> dict[str, Any]:
    """The knowledge base as the list shows it: version (None when it does not load),
    the loader's error, and every file the loader reads."""
    kb_version, error = version(root)
    return {"version": kb_version, "error": error,
            "files": [describe(root, rel) for rel in loader_files(root)]}


def file_link(rel: str, suffix: str = "") -> str:
    """The page of a knowledge file (its path URL-quoted, ``/`` kept)."""
    return "/knowledge/" + quote(rel) + suffix


def refusal_page(request: Request, refused: Refused) -> HTMLResponse:
    return render(request, "knowledge_file.html", status_code=refused.status,
                  refused=str(refused), path=None)


def edit_page(request: Request, rel: str, text: str, base: str, error: str = "",
              status_code: int = 200) -> HTMLResponse:
    return render(request, "knowledge_edit.html", status_code=status_code, path=rel,
                  text=text, base=base, error=error, link=file_link(rel))


# --- pages ----------------------------------------------------------------------------


@router.get("/knowledge", response_class=HTMLResponse)
def knowledge_page(request: Request) -> HTMLResponse:
    try:
        root = root_of(request)
    except Refused as refused:
        return refusal_page(request, refused)
    return render(request, "knowledge.html", link=file_link, **overview(root))


def _file_or_refusal(request: Request, rel: str) -> Path | HTMLResponse:
    """The knowledge file at ``rel``, or the page saying why it cannot be opened."""
    try:
        return locate(root_of(request), rel)
    except Refused as refused:
        return refusal_page(request, refused)


@router.get("/knowledge/{rel:path}/edit", response_class=HTMLResponse)
def knowledge_edit_page(request: Request, rel: str) -> HTMLResponse:
    path = _file_or_refusal(request, rel)
    if isinstance(path, HTMLResponse):
        return path
    return edit_page(request, rel, read_text(path), digest(path.read_bytes()))


@router.get("/knowledge/{rel:path}", response_class=HTMLResponse)
def knowledge_file_page(request: Request, rel: str) -> HTMLResponse:
    path = _file_or_refusal(request, rel)
    if isinstance(path, HTMLResponse):
        return path
    raw = path.read_bytes()
    try:
        doc: Document | None = parse_document(rel, raw)
        error = ""
    except KnowledgeError as exc:
        doc, error = None, str(exc)
    return render(request, "knowledge_file.html", path=rel, refused="", error=error,
                  html=render_markdown(doc.content) if doc is not None else "",
                  rules=_rule_counts(doc), source=read_text(path),
                  edit=file_link(rel, "/edit"))


@router.post("/knowledge/{rel:path}", response_model=None)
def knowledge_save(request: Request, rel: str, csrf: Annotated[str, Form()] = "",
                   text: Annotated[str, Form()] = "", base: Annotated[str, Form()] = ""
                   ) -> Response:
    """Save the edit form. Only an existing file: a new one is created with the API."""
    forged = form_refusal(request, csrf)
    if forged is not None:
        return forged
    text = text.replace("\r\n", "\n")  # a browser sends a textarea's lines with CRLF
    try:
        root = root_of(request)
        locate(root, rel)
    except Refused as refused:
        return refusal_page(request, refused)
    try:
        saved = save(root, rel, text, base or None)
    except Refused as refused:
        return edit_page(request, rel, text, base, str(refused), refused.status)
    recorded(request, saved)
    return RedirectResponse(file_link(rel), 303)


def recorded(request: Request, saved: Saved) -> None:
    """Put a save in the activity log, under who made it."""
    what = "created" if saved.created else "saved"
    record(workspace(request).store.engine, user(request), "knowledge.save",
           f"{saved.path} {what} (version {saved.version})")


def _rule_counts(doc: Document | None) -> list[tuple[str, int | None]]:
    """The front matter's rule sections and how many entries each has (None for a
    mapping such as ``rubric``)."""
    data = (doc.rules_data or {}) if doc is not None else {}
    return [(name, len(value) if isinstance(value, list) else None)
            for name, value in data.items()]


# --- API ------------------------------------------------------------------------------


@router.get("/api/knowledge", responses=problems(404))
def api_knowledge(request: Request) -> dict[str, Any]:
    try:
        return overview(root_of(request))
    except Refused as refused:
        raise HTTPException(refused.status, str(refused)) from None


@router.get("/api/knowledge/{rel:path}", responses=problems(404))
def api_knowledge_file(request: Request, rel: str) -> dict[str, Any]:
    try:
        path = locate(root_of(request), rel)
    except Refused as refused:
        raise HTTPException(refused.status, str(refused)) from None
    raw = path.read_bytes()
    return {"path": rel, "text": read_text(path), "sha256": digest(raw)}


@router.put("/api/knowledge/{rel:path}", responses=problems(403, 404, 409, 413, 422))
def api_knowledge_save(request: Request, response: Response, rel: str, body: KnowledgeText
                       ) -> dict[str, Any]:
    """Save a file's text, or create a new ``.md`` file with a plain name (201)."""
    check_api_csrf(request)
    try:
        saved = save(root_of(request), rel, body.text, body.base)
    except Refused as refused:
        raise HTTPException(refused.status, str(refused)) from None
    recorded(request, saved)
    response.status_code = 201 if saved.created else 200
    return {"path": saved.path, "created": saved.created, "version": saved.version,
            "sha256": saved.sha256}
