"""Finding leads on a directory page from the workspace (``/discover``, and
``POST /api/discover``): the same reading as ``leadengine discover``, bounded for a
request (:data:`MAX_PAGES` listing pages, :data:`MAX_FOUND` businesses), its rows shown
with a button that starts a batch of their websites (the name, phone and address kept
as the batch's input columns)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from leadengine.app.batch_routes import base_settings, caller, check_limit
from leadengine.app.shared import check_api_csrf, form_refusal, render, workspace
from leadengine.batch import Discovery, discover
from leadengine.config import safe_message
from leadengine.errors import LeadEngineError
from leadengine.website import normalise_url

router = APIRouter()
#: Listing pages and businesses one request reads at most (the CLI reads more).
MAX_PAGES = 5
MAX_FOUND = 500


class DiscoverRequest(BaseModel):
    model_config = {"extra": "forbid"}
    url: str = Field(min_length=1, max_length=2000)
    pages: int = Field(default=3, ge=1, le=MAX_PAGES)
    max_rows: int = Field(default=200, ge=1, le=MAX_FOUND)


async def _discover(request: Request, url: str, pages: int, max_rows: int) -> Discovery:
    """The directory read with the server's settings (the SSRF guard as started);
    LeadEngineError for an address that is no web page or cannot be read."""
    target = normalise_url(url)
    if not target.startswith(("http://", "https://")):
        raise LeadEngineError(f"{url}: not a web address (http or https)")
    known = workspace(request).store.urls_of_run()
    return await discover(target, base_settings(request), pages, max_rows, known)


@router.get("/discover", response_class=HTMLResponse)
def discover_page(request: Request) -> HTMLResponse:
    return render(request, "discover.html", found=None, url="", error="", pages=3,
                  max_pages=MAX_PAGES)


@router.post("/discover", response_model=None)
async def discover_post(request: Request, csrf: Annotated[str, Form()] = "",
                        url: Annotated[str, Form()] = "",
                        pages: Annotated[int, Form(ge=1, le=MAX_PAGES)] = 3) -> Response:
    refused = form_refusal(request, csrf)
    if refused is not None:
        return refused
    wait = workspace(request).limits.wait("batch", caller(request))
    if wait > 0:
        return render(request, "discover.html", status_code=429, found=None, url=url,
                      pages=pages, max_pages=MAX_PAGES,
                      error=f"Too many requests: try again in {wait:.0f} s.")
    try:
        found = await _discover(request, url, pages, MAX_FOUND)
    except LeadEngineError as exc:
        return render(request, "discover.html", status_code=400, found=None, url=url,
                      pages=pages, max_pages=MAX_PAGES, error=safe_message(str(exc)))
    websites = "\n".join(f.website for f in found.found if f.website and not f.known)
    return render(request, "discover.html", found=found, url=url, pages=pages,
                  max_pages=MAX_PAGES, error="", websites=websites)


@router.post("/api/discover")
async def api_discover(request: Request, body: DiscoverRequest) -> dict[str, Any]:
    """The businesses a directory page lists: ``rows`` (name, website, phone, address,
    city, country, category, listing, detail, known, note), the listing ``pages`` read
    and, when it stopped early, why (``stopped``)."""
    check_api_csrf(request)
    check_limit(request, "batch")
    try:
        found = await _discover(request, body.url, body.pages, body.max_rows)
    except LeadEngineError as exc:
        raise HTTPException(400, safe_message(str(exc))) from None
    return {"rows": [f.row() for f in found.found], "pages": found.pages,
            "stopped": found.stopped}
