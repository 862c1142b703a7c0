"""The workspace's FastAPI application: :func:`create_app` over one results store, with
its routers (what the routes share: :mod:`leadengine.app.shared`).

Security on every response: a Content-Security-Policy without inline scripts or
styles (the JavaScript is ``static/app.js``), no framing, no sniffing, no referrer;
request bodies over :data:`MAX_BODY` bytes are refused before they are read; every
route but ``/login`` and ``/static/...`` needs the team token or a session (401 for
``/api/...``, a redirect to ``/login`` for pages).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import jinja2
from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from leadengine.app import (
    api,
    batch_pages,
    batch_routes,
    discover_page,
    knowledge_form_routes,
    knowledge_routes,
    pages,
    settings_page,
)
from leadengine.app.access import Access
from leadengine.app.auth import COOKIE, Session, Sessions
from leadengine.app.jobs import MAX_UPLOAD, Jobs
from leadengine.app.shared import (
    Problem,
    Workspace,
    client_of,
    set_session_cookie,
    workspace,
)
from leadengine.app.webhook_schema import describe_webhooks
from leadengine.app.webhooks import webhooks_of
from leadengine.config import DEFAULT_ZONE, when
from leadengine.knowledge import category_label
from leadengine.store import Store, anyone

if TYPE_CHECKING:
    from leadengine.config import Settings

HERE = Path(__file__).resolve().parent
#: Largest request body accepted (a note is at most 4,000 characters), but for the
#: routes that take a list of URLs (a multipart upload adds its own few hundred bytes).
MAX_BODY = 64 * 1024
LARGER_BODIES = {"/api/batches": MAX_UPLOAD + 16 * 1024, "/batches": MAX_UPLOAD + 16 * 1024,
                 "/batches/reevaluate": 1024 * 1024, "/export": 1024 * 1024}
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
#: The refusals any API route may answer with, documented in /openapi.json.
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem, "description": text} for code, text in (
        (400, "The request cannot be carried out (the reason is in detail)"),
        (401, "The team token or a session is needed"),
        (403, "A cookie session needs the X-CSRF-Token header"),
        (404, "No such lead, batch or file"),
        (411, "A request body needs a Content-Length"),
        (413, "The request body is too large"),
        (415, "The body's content type is not accepted"),
        (429, "Too many requests: see Retry-After"))}
#: Paths served without authentication.
PUBLIC = ("/login",)
PUBLIC_PREFIXES = ("/static/",)
#: The Host names a workspace without a token answers to (DNS rebinding guard).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def create_app(settings: Settings | None, db: str | Path | Store, token: str | None,
               allow_private: bool = False, auth: bool | None = None) -> FastAPI:
    """The workspace over the store at ``db`` (a path, URL or open :class:`Store`); a
    database that does not exist yet is created and migrated (the workspace starts
    batches itself). People log in with their own tokens (``leadengine users add``);
    ``token`` is the old shared team token (None: none). ``auth`` False turns
    authentication off (the CLI allows it on loopback only); None: on when there is
    a team token or anyone in the store."""
    store = db if isinstance(db, Store) else Store(db, create=True, read_only=False)
    if auth is None:
        auth = token is not None or anyone(store.engine)
    sessions = Sessions(token, required=auth)
    templates = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                                   autoescape=True)
    # Categories as people name them ("Beauty & wellness"); the filters keep the slugs.
    templates.filters["category_label"] = lambda value: category_label(value) if value else ""
    # Times as the team reads them: 2026-12-07 14:05 in the time_zone setting's zone.
    zone = settings.time_zone if settings is not None else DEFAULT_ZONE
    templates.filters["when"] = lambda at: when(at, zone)
    space = Workspace(store, sessions, templates, settings, allow_private, Jobs(store.url),
                      Access(sessions, store.engine),
                      webhooks=webhooks_of(settings, store.engine, allow_private))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        sending = (asyncio.create_task(space.webhooks.run())
                   if space.webhooks is not None else None)
        yield
        if sending is not None:  # what was not sent stays in the outbox
            sending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sending
        space.jobs.close()  # a running batch is recorded as interrupted

    # The API is described at /openapi.json (behind the token, like every route).
    app = FastAPI(title="Lead Intelligence Engine", docs_url=None, redoc_url=None,
                  lifespan=lifespan)
    app.state.workspace = space
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    for module in (pages, api, batch_routes, batch_pages, discover_page,
                   knowledge_form_routes, knowledge_routes, settings_page):
        app.include_router(module.router, responses=ERRORS)
    describe_webhooks(app)
    app.middleware("http")(_guard)
    return app


async def _invalid_request(request: Request, exc: Exception) -> Response:
    """FastAPI's 422, without echoing the input: a lone surrogate in a JSON string
    cannot be encoded back (it made a 500)."""
    assert isinstance(exc, RequestValidationError)
    errors = [{k: v for k, v in error.items() if k not in ("input", "ctx")}
              for error in exc.errors()]
    return JSONResponse({"detail": jsonable_encoder(errors)}, 422)


async def _guard(request: Request,
                 call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """Body limit, authentication, and the security headers."""
    refused = _body_refusal(request)
    if refused is None:
        refused = _authenticate(request)
    response = refused if refused is not None else await call_next(request)
    issued = getattr(request.state, "issue_cookie", None)
    if issued is not None:
        set_session_cookie(request, response, issued)
    if getattr(request.state, "team", False):
        # The shared team token: still an admin account, for this release only.
        response.headers["Deprecation"] = "true"
        response.headers["Link"] = '</settings#people>; rel="deprecation"'
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def _body_refusal(request: Request) -> Response | None:
    length = request.headers.get("content-length")
    limit = LARGER_BODIES.get(request.url.path, MAX_BODY)
    if length is not None:
        if not (length.isascii() and length.isdigit()) or int(length) > limit:
            return JSONResponse({"detail": f"request body over {limit:,} bytes"}, 413)
    elif "transfer-encoding" in request.headers:
        return JSONResponse({"detail": "a request body needs a Content-Length"}, 411)
    return None


def _authenticate(request: Request) -> Response | None:
    """Set ``request.state.user``, ``.admin`` and ``.session``; a refusal when neither a
    token nor a session came with a request that needs one."""
    space = workspace(request)
    sessions, path = space.sessions, request.url.path
    request.state.session, request.state.bearer = None, False
    current = _live_session(request)
    if current is not None:
        request.state.session = current
        request.state.user, request.state.admin = current.user, current.admin
        return None
    header = request.headers.get("authorization") or ""
    scheme, _, given = header.partition(" ")
    if sessions.required and scheme.lower() == "bearer" and given.strip():
        who, wait = space.access.check(client_of(request), given)
        if who is not None:
            request.state.user, request.state.admin = who.name, who.admin
            request.state.bearer, request.state.team = True, who.team
            return None
        if wait:
            return JSONResponse({"detail": f"too many wrong tokens: try again in {wait} s"},
                                429, headers={"Retry-After": str(wait)})
        return JSONResponse({"detail": "that token is not valid (revoked, mistyped or "
                                       "not this workspace's)"}, 401,
                            headers={"WWW-Authenticate": "Bearer"})
    if not sessions.required:
        if request.url.hostname not in LOOPBACK_NAMES:
            # Without a token, only a page this machine names as itself may talk to the
            # workspace: a rebound DNS name (a web page's trick) is refused.
            return JSONResponse({"detail": "without a token, only a loopback Host"}, 403)
        # No authentication: a session anyway, for the CSRF token of its forms.
        cookie, current = sessions.issue()
        request.state.session, request.state.user = current, current.user
        request.state.admin = True
        request.state.issue_cookie = cookie
        return None
    if path in PUBLIC or path.startswith(PUBLIC_PREFIXES):
        return None
    if path.startswith("/api/") or path in ("/api", "/openapi.json"):
        return JSONResponse({"detail": "authentication required"}, 401,
                            headers={"WWW-Authenticate": "Bearer"})
    target = path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse("/login?next=" + quote(target, safe=""), 303)


def _live_session(request: Request) -> Session | None:
    """The request's session, if its cookie is ours and its person not revoked since
    (their name and admin flag as they are now)."""
    space = workspace(request)
    current = space.sessions.read(request.cookies.get(COOKIE))
    if current is None or not current.key:
        return current
    who = space.access.current(current.key)
    if who is None:
        return None
    return replace(current, user=who.name, admin=who.admin)
