"""The workspace's settings status: which evaluator is active and whether each
provider's API key is set (never the key), the database, the knowledge base and its
version, and whether private addresses may be fetched."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from leadengine.app.batch_routes import base_settings, providers
from leadengine.app.shared import render, workspace
from leadengine.config import PROVIDERS, Settings
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
                  keys_to_add=keys_to_add(settings),
                  db=space.store.name, kb_dir=kb_dir, kb_version=kb_version,
                  retrieval=settings.retrieval_method, allow_private=space.allow_private)


def keys_to_add(settings: Settings) -> list[tuple[str, str]]:
    """(provider, the variable its API key is read from) for every provider that needs a
    key and has none here: what an admin sets to add it."""
    env = settings.environ()
    return [(name, provider.key_env) for name, provider in PROVIDERS.items()
            if provider.key_required and provider.key_env and not env.get(provider.key_env)]
