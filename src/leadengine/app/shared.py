"""What every route of the workspace uses: the :class:`Workspace` it serves, who a
request is from and its session, the CSRF checks, and rendering a page. The routes
import this module; the application (:mod:`leadengine.app.server`) imports the routes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jinja2
from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel

from leadengine.app.access import Access
from leadengine.app.auth import COOKIE, TEAM, Session, Sessions
from leadengine.app.jobs import Jobs
from leadengine.app.limits import RequestLimits
from leadengine.app.webhooks import Webhooks
from leadengine.config import DEFAULT_ZONE
from leadengine.store import Store

if TYPE_CHECKING:
    from leadengine.config import Settings


class Problem(BaseModel):
    """Why a request was refused (every error the API returns but a malformed request's
    422, which lists its fields)."""

    detail: str


@dataclass
class Workspace:
    """What the routes share (``request.app.state.workspace``)."""

    store: Store
    sessions: Sessions
    templates: jinja2.Environment
    settings: Settings | None
    allow_private: bool
    jobs: Jobs
    access: Access
    limits: RequestLimits = field(default_factory=RequestLimits)
    webhooks: Webhooks | None = None

    @property
    def zone(self) -> str:
        """The time zone times are shown in (the ``time_zone`` setting)."""
        return self.settings.time_zone if self.settings is not None else DEFAULT_ZONE


def workspace(request: Request) -> Workspace:
    found: Workspace = request.app.state.workspace
    return found


def user(request: Request) -> str:
    """Who the request is from, as recorded in a lead's history."""
    return str(getattr(request.state, "user", TEAM))


def client_of(request: Request) -> str:
    """The address a request came from (a proxy's, behind one: it is not trusted to
    say whose)."""
    return request.client.host if request.client else "unknown"


def is_admin(request: Request) -> bool:
    """Whether the request is from an admin (the team token, or no authentication)."""
    return bool(getattr(request.state, "admin", False))


def session(request: Request) -> Session | None:
    found: Session | None = getattr(request.state, "session", None)
    return found


def check_api_csrf(request: Request) -> None:
    """A cookie-authenticated API call that changes something carries X-CSRF-Token
    (the API token needs none): HTTPException 403 otherwise."""
    if not request.state.bearer and not workspace(request).sessions.check_csrf(
            session(request), request.headers.get("x-csrf-token")):
        raise HTTPException(403, "a cookie session needs the X-CSRF-Token header")


def form_refusal(request: Request, csrf: str) -> HTMLResponse | None:
    """The 403 page for a form post without its session's CSRF token, else None."""
    if workspace(request).sessions.check_csrf(session(request), csrf):
        return None
    return render(request, "missing.html", status_code=403,
                  what="a valid form (reload the page and try again)")


def render(request: Request, name: str, status_code: int = 200, **context: Any
           ) -> HTMLResponse:
    """A page from ``templates/`` (autoescaped), with the user and CSRF token."""
    space = workspace(request)
    current = session(request)
    csrf = space.sessions.csrf(current) if current is not None else ""
    page = space.templates.get_template(name).render(
        user=user(request), admin=is_admin(request), csrf=csrf,
        auth=space.sessions.required, **context)
    return HTMLResponse(page, status_code=status_code)


def set_session_cookie(request: Request, response: Response, cookie: str) -> None:
    response.set_cookie(COOKIE, cookie, max_age=workspace(request).sessions.max_age,
                        httponly=True, samesite="strict", path="/",
                        secure=request.url.scheme == "https")
