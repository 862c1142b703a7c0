"""The workspace's settings status: which evaluator is active and whether each
provider's API key is set (never the key), the database, the knowledge base and its
version, and whether private addresses may be fetched."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from leadengine.app.batch_routes import base_settings, providers
from leadengine.app.shared import render, workspace
from leadengine.errors import LeadEngineError

router = APIRouter()


@router.get("/settings", response_class=HTMLResponse)
def settings_page(request: Request) -> HTMLResponse:
    space = workspace(request)
    settings = base_settings(request)
    try:
        from leadengine.pipeline import load_knowledge

        kb = load_knowledge(settings)
        kb_dir, kb_version = str(kb.root), kb.version
    except LeadEngineError as exc:
        kb_dir, kb_version = "cannot be loaded", str(exc)
    return render(request, "settings.html", providers=providers(settings),
                  db=space.store.name, kb_dir=kb_dir, kb_version=kb_version,
                  retrieval=settings.retrieval_method, allow_private=space.allow_private)
