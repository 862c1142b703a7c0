"""The workspace's settings status: which evaluator is active and whether each
provider's API key is set (never the key), the database, the knowledge base and its
version, and whether private addresses may be fetched; the people who may log in (an
admin adds and revokes them here) and what they did lately."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from leadengine.app.batch_routes import base_settings, providers
from leadengine.app.shared import form_refusal, is_admin, render, user, workspace
from leadengine.app.webhooks import shown_target
from leadengine.config import PROVIDERS, Settings
from leadengine.errors import LeadEngineError
from leadengine.store import activity, add_person, deliveries, people, revoke_person

router = APIRouter()


@router.get("/settings", response_class=HTMLResponse)
def settings_page(request: Request) -> HTMLResponse:
    return _page(request)


def _page(request: Request, added: str = "", token: str = "", error: str = "",
          status_code: int = 200) -> HTMLResponse:
    """The settings page (``added`` and ``token``: a person just added, and their token,
    shown this once)."""
    space = workspace(request)
    settings = base_settings(request)
    try:
        from leadengine.pipeline import load_knowledge

        kb = load_knowledge(settings)
        kb_dir, kb_version = str(kb.root), kb.version
    except LeadEngineError as exc:
        kb_dir, kb_version = "cannot be loaded", str(exc)
    admin = is_admin(request)
    return render(request, "settings.html", status_code=status_code,
                  providers=providers(settings), keys_to_add=keys_to_add(settings),
                  db=space.store.name, kb_dir=kb_dir, kb_version=kb_version,
                  retrieval=settings.retrieval_method, allow_private=space.allow_private,
                  team_token=space.sessions.token is not None,
                  people=people(space.store.engine) if admin else [],
                  activity=activity(space.store.engine, 30) if admin else [],
                  webhooks=[shown_target(url) for url in
                            (space.webhooks.targets if space.webhooks else ())],
                  min_fit=space.webhooks.min_fit if space.webhooks else 0,
                  deliveries=[{**d, "target": shown_target(d["target"])}
                              for d in deliveries(space.store.engine, 30)],
                  added=added, token=token, error=error)


@router.post("/settings/people", response_model=None)
def add_someone(request: Request, csrf: Annotated[str, Form()] = "",
                name: Annotated[str, Form()] = "", admin: Annotated[str, Form()] = ""
                ) -> Response:
    """Add a person (admins only): the page shows their token, this once."""
    refused = form_refusal(request, csrf) or _not_admin(request)
    if refused is not None:
        return refused
    try:
        person, token = add_person(workspace(request).store.engine, name, admin=bool(admin),
                                   by=user(request))
    except ValueError as exc:
        return _page(request, error=str(exc), status_code=400)
    return _page(request, added=person.name, token=token)


@router.post("/settings/people/revoke", response_model=None)
def revoke_someone(request: Request, csrf: Annotated[str, Form()] = "",
                   name: Annotated[str, Form()] = "") -> Response:
    """Revoke a person (admins only): their token and sessions stop working."""
    refused = form_refusal(request, csrf) or _not_admin(request)
    if refused is not None:
        return refused
    try:
        revoke_person(workspace(request).store.engine, name, by=user(request))
    except ValueError as exc:
        return _page(request, error=str(exc), status_code=400)
    return RedirectResponse("/settings#people", 303)


def _not_admin(request: Request) -> HTMLResponse | None:
    if is_admin(request):
        return None
    return render(request, "missing.html", status_code=403,
                  what="admin rights here (ask an admin to add or revoke people)")


def keys_to_add(settings: Settings) -> list[tuple[str, str]]:
    """(provider, the variable its API key is read from) for every provider that needs a
    key and has none here: what an admin sets to add it."""
    env = settings.environ()
    return [(name, provider.key_env) for name, provider in PROVIDERS.items()
            if provider.key_required and provider.key_env and not env.get(provider.key_env)]
