"""The knowledge base's forms (``/knowledge/forms/{section}``): target cities, rubric
weights, angles and message templates, each previewed on the stored leads and saved
through the same checks as the raw editor (:mod:`leadengine.app.knowledge_forms`)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from leadengine.app.knowledge_files import (
    Refused,
    digest,
    loaded,
    loader_files,
    locate,
    read_text,
    save,
)
from leadengine.app.knowledge_forms import (
    BANDS,
    OVERRIDDEN,
    RUBRIC_FIELDS,
    SECTIONS,
    FormError,
    Section,
)
from leadengine.app.knowledge_routes import recorded, root_of
from leadengine.app.shared import form_refusal, render, workspace
from leadengine.errors import KnowledgeError
from leadengine.judgement import Lead, Preview, rescore
from leadengine.knowledge import Knowledge, Rules, replace_section, section_value
from leadengine.store import scored

router = APIRouter()
#: Largest form accepted (fields): a knowledge base's templates fit many times over.
MAX_FIELDS = 2000


def owner(root: Path, section: Section) -> str:
    """The file whose ``section`` the form edits: the first that defines it (for the
    rubric, whose later files override earlier ones, the last), else the first file."""
    files = loader_files(root)
    if not files:
        raise Refused(404, "no knowledge files yet: add one in the raw editor first")
    having = [rel for rel in files
              if section_value(read_text(root / rel), section.key) is not None]
    if not having:
        return files[0]
    return having[-1] if section.key in OVERRIDDEN else having[0]


def preview_of(request: Request, before: Knowledge, after: Knowledge) -> Preview:
    """The stored leads re-scored under ``after`` (they were stored under ``before``)."""
    engine = workspace(request).store.engine
    leads = (Lead.of(i, score, data) for i, score, data in scored(engine))
    return rescore(leads, before.rules, after.rules)


def _page(request: Request, section: Section, rel: str, base: str, values: Any,
          error: str = "", preview: Preview | None = None, saved: bool = False,
          status_code: int = 200) -> HTMLResponse:
    return render(request, "knowledge_form.html", status_code=status_code, section=section,
                  sections=SECTIONS, path=rel, base=base, values=values, error=error,
                  preview=preview, saved=saved, rubric_fields=RUBRIC_FIELDS, bands=BANDS)


@router.get("/knowledge/forms/{name}", response_class=HTMLResponse)
def form_page(request: Request, name: str, saved: str = "") -> HTMLResponse:
    section = SECTIONS.get(name)
    if section is None:
        return render(request, "missing.html", status_code=404, what=f"form {name!r}")
    try:
        root = root_of(request)
        rel = owner(root, section)
        text = read_text(locate(root, rel))
        rules = Knowledge.from_dir(root).rules
    except Refused as refused:
        return render(request, "knowledge_file.html", status_code=refused.status,
                      refused=str(refused), path=None)
    except KnowledgeError as exc:
        return render(request, "knowledge_file.html", status_code=422, path=None,
                      refused=f"the knowledge base does not load ({exc}): fix it in the "
                              "raw editor first")
    values = section.rows(section_value(text, section.key), rules)
    return _page(request, section, rel, digest(text.encode()), values, saved=bool(saved))


@router.post("/knowledge/forms/{name}", response_model=None)
async def form_post(request: Request, name: str) -> Response:
    """Preview (``action=preview``) or save the form; the loader's message on the form
    when the knowledge base would not load with it, and nothing saved."""
    section = SECTIONS.get(name)
    if section is None:
        return render(request, "missing.html", status_code=404, what=f"form {name!r}")
    form = await request.form(max_fields=MAX_FIELDS)
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    refused = form_refusal(request, fields.get("csrf", ""))
    if refused is not None:
        return refused
    rel, base = fields.get("kb-path", ""), fields.get("kb-base", "")
    try:
        root = root_of(request)
        text = read_text(locate(root, rel))
    except Refused as refusal:
        return render(request, "knowledge_file.html", status_code=refusal.status,
                      refused=str(refusal), path=None)
    try:
        value = section.parse(fields)
    except FormError as exc:
        return _page(request, section, rel, base, _shown(section, fields), str(exc),
                     status_code=422)
    new_text = replace_section(text, section.key, value)
    # Loading the knowledge twice and re-scoring every lead: off the event loop.
    return await asyncio.to_thread(_preview_or_save, request, section, root, rel, base,
                                   text, new_text, value, fields.get("action") == "save")


def _preview_or_save(request: Request, section: Section, root: Path, rel: str, base: str,
                     text: str, new_text: str, value: Any, saving: bool) -> Response:
    shown = section.rows(value, Rules()) if section.key != "rubric" else value
    try:
        if saving:
            saved = save(root, rel, new_text, base or None)
            recorded(request, saved)
            return RedirectResponse(f"/knowledge/forms/{section.name}?saved=1", 303)
        after = loaded(root, rel, new_text.encode("utf-8"))
        before = Knowledge.from_dir(root)
    except Refused as refusal:
        return _page(request, section, rel, base, shown, str(refusal),
                     status_code=refusal.status)
    except KnowledgeError as exc:
        return _page(request, section, rel, base, shown, str(exc), status_code=422)
    started = time.perf_counter()
    preview = preview_of(request, before, after)
    preview.seconds = time.perf_counter() - started
    same = text == new_text
    return _page(request, section, rel, base, shown, "" if not same else
                 "Nothing changed.", preview=preview)


def _shown(section: Section, fields: dict[str, str]) -> Any:
    """What the form showed when a field could not be read: the fields as typed."""
    if section.key == "rubric":
        return {**{name: fields.get(name, "") for name in RUBRIC_FIELDS},
                "bands": {band: fields.get(f"band-{band}", "") for band in BANDS}}
    rows: dict[int, dict[str, str]] = {}
    for key, text in fields.items():
        number, _, field = key.partition("-")
        if number.isdigit() and field and field != "remove":
            rows.setdefault(int(number), {})[field] = text
    return [rows[number] for number in sorted(rows) if any(rows[number].values())]
