"""Loading a website: its homepage, then its useful subpages, fetched within one byte
budget (or reused from stored snapshots), read by a :class:`Reader` and assembled into
a :class:`~leadengine.website.site.Site`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

import httpx

from leadengine.config import Settings
from leadengine.errors import FetchError, LeadEngineError
from leadengine.website.fetch import Page, fetch_page, make_client, normalise_target
from leadengine.website.readers import InlineReader, Reader
from leadengine.website.render import Renderer, note_unrendered
from leadengine.website.robots import RobotsPolicy
from leadengine.website.site import PageRead, Site


class PageCache(Protocol):
    """Stored snapshots of fetched pages (the batch store implements it)."""

    def get_page(self, url: str) -> Page | None: ...

    def put_page(self, page: Page) -> None: ...


async def _fetch_or_reuse(url: str, settings: Settings, client: httpx.AsyncClient | None,
                          cache: PageCache | None, robots: RobotsPolicy | None) -> Page:
    """A stored snapshot when one is recent enough, else robots.txt, then the web."""
    cached = cache.get_page(normalise_target(url)) if cache is not None else None
    if cached is not None:
        return cached
    if robots is not None:
        await robots.check(normalise_target(url), client)
    fetched = await fetch_page(url, settings, client=client)
    if cache is not None:
        cache.put_page(fetched)
    return fetched


async def load_site(target: str, settings: Settings | None = None,
                    client: httpx.AsyncClient | None = None,
                    cache: PageCache | None = None,
                    robots: RobotsPolicy | None = None, *,
                    cpu_seconds: float | None = None, reader: Reader | None = None,
                    renderer: Renderer | None = None) -> Site:
    """Fetch ``target`` (URL or file) and up to ``settings.max_pages`` useful subpages.
    ``robots``: a policy shared with other sites (a batch's), else one of its own.
    Each page read may take ``cpu_seconds`` of CPU (default :data:`PAGE_CPU_SECONDS`):
    a homepage over it fails the site, a subpage over it is left out (``failed_pages``).
    ``reader``: where pages are read (a batch's worker processes), else right here.
    ``renderer``: where a homepage built by JavaScript is rendered (a batch's, shared),
    else one of its own, started only if the homepage needs it."""
    settings = settings or Settings()
    if client is None and not normalise_target(target).startswith("file:"):
        async with make_client(settings) as own_client:
            return await load_site(target, settings, own_client, cache, robots,
                                   cpu_seconds=cpu_seconds, reader=reader, renderer=renderer)
    if renderer is None and settings.render != "never":
        own = Renderer(settings)
        try:
            return await load_site(target, settings, client, cache, robots,
                                   cpu_seconds=cpu_seconds, reader=reader, renderer=own)
        finally:
            await own.close()
    reader = reader or InlineReader()
    if not settings.respect_robots or client is None:
        robots = None
    elif robots is None:
        robots = RobotsPolicy(client, settings)

    async def fetch(url: str) -> Page:
        return await _fetch_or_reuse(url, settings, client, cache, robots)

    page = await fetch(target)
    # The homepage's budget covers parsing it and picking its links too.
    links, home = await reader.home(page, settings.max_pages, cpu_seconds)
    if renderer is not None and renderer.wants(page, home.nodes):
        # Built by its scripts: read as they leave it (the shell was read for nothing).
        page = await renderer.render(page)
        links, home = await reader.home(page, settings.max_pages, cpu_seconds)
    elif renderer is not None and not renderer.available and settings.render == "auto":
        note_unrendered(page, home.nodes)
    parts, failed = await _read_subpages(links, fetch, reader, cpu_seconds,
                                         settings.max_total_bytes, len(page.html),
                                         renderer)
    return await reader.site([home, *parts], settings, failed)


async def _read_subpages(links: list[str], fetch: Callable[[str], Awaitable[Page]],
                         reader: Reader, cpu_seconds: float | None, budget: int,
                         spent: int, renderer: Renderer | None = None
                         ) -> tuple[list[PageRead], list[str]]:
    """The subpages read, fetched together within the site's ``budget`` of bytes of
    which the homepage ``spent`` some (each built by JavaScript rendered by
    ``renderer``, as the homepage is), and why the others were left out."""
    left = [budget - spent]

    async def subpage(url: str) -> Page:
        if left[0] <= 0:
            raise FetchError(url, f"skipped: the site's byte budget "
                                  f"({budget:,} bytes) is spent")
        sub = await fetch(url)
        # Subpages are fetched concurrently, so the budget is also checked on arrival.
        left[0] -= len(sub.html)
        if left[0] < 0:
            raise FetchError(url, f"skipped: the site's byte budget "
                                  f"({budget:,} bytes) is spent")
        return sub

    async def read(url: str) -> PageRead:
        sub = await subpage(url)
        part = await reader.page(sub, cpu_seconds)
        if renderer is not None and renderer.wants(sub, part.nodes):
            part = await reader.page(await renderer.render(sub), cpu_seconds)
        return part

    parts: list[PageRead] = []
    failed: list[str] = []
    for result in await asyncio.gather(*(read(u) for u in links), return_exceptions=True):
        if isinstance(result, BaseException):
            if not isinstance(result, LeadEngineError):
                raise result
            failed.append(str(result))
        else:
            parts.append(result)
    return parts, failed
