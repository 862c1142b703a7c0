"""``leadengine discover``: the businesses a directory lists, as rows ready for
``leadengine batch``.

Reads a listing page and its next pages (up to ``pages``), finds the businesses it lists
(:func:`leadengine.website.directory.read_listing`), follows each one's detail page on
the directory and reads the business's own website, phone and address from it; the
directory's own phone, e-mail and ads (what a third of its detail pages and at least
three show) are never a business's. A detail page that redirects off the directory, to
a login wall or to nothing keeps its business listed, with the reason in ``note``.
Every fetch goes through the SSRF guard and robots.txt, one host's pages
``host_delay`` apart, two at a time. Bounded: ``pages`` listing pages, ``max_rows``
businesses; the summary says where it stopped.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urljoin

import lxml.html

from leadengine.batch.hosts import HostGates
from leadengine.config import Settings
from leadengine.errors import LeadEngineError
from leadengine.website import (
    Page,
    RobotsPolicy,
    make_client,
    normalise_url,
    site_from_page,
)
from leadengine.website.detail_page import website_candidates
from leadengine.website.directory import Entry, common, domain, read_listing
from leadengine.website.extract import parse_html
from leadengine.website.fetch import fetch_page
from leadengine.website.render import Renderer

#: The columns of a discovered row (the batch reads ``website`` as its url column).
COLUMNS = ("name", "website", "phone", "address", "city", "country", "category", "listing",
           "detail", "known", "note")
#: Detail pages read at once.
AT_ONCE = 4
Fetch = Callable[[str], Awaitable["Page"]]
_REFRESH = re.compile(r"url\s*=\s*['\"]?([^'\";\s]+)", re.I)


@dataclass
class Found:
    """One business a directory lists."""

    name: str
    listing: str
    detail: str
    website: str = ""
    phone: str = ""
    address: str = ""
    city: str = ""
    country: str = ""
    category: str = ""
    known: bool = False
    note: str = ""
    #: Every website and phone its detail page gave, best first (before the
    #: directory's own are taken out).
    websites: list[str] = field(default_factory=list, repr=False)
    phones: list[str] = field(default_factory=list, repr=False)

    def row(self) -> dict[str, str]:
        return {"name": self.name, "website": self.website, "phone": self.phone,
                "address": self.address, "city": self.city, "country": self.country,
                "category": self.category, "listing": self.listing, "detail": self.detail,
                "known": "yes" if self.known else "", "note": self.note}


@dataclass
class Discovery:
    """What a directory gave: the businesses, the listing pages read, and where (and
    why) it stopped before the end, if it did."""

    found: list[Found]
    pages: int
    stopped: str = ""


async def discover(url: str, settings: Settings, pages: int = 5, max_rows: int = 1000,
                   known: Sequence[str] = ()) -> Discovery:
    """The businesses the directory at ``url`` lists (``known``: the websites already
    evaluated, marked)."""
    renderer = Renderer(settings) if settings.render != "never" else None
    async with make_client(settings) as client:
        robots = RobotsPolicy(client, settings) if settings.respect_robots else None
        gates = HostGates(2, settings.host_delay)

        async def fetch(target: str) -> Page:
            async with gates.held(target):
                if robots is not None:
                    await robots.check(target, client)
                page = await fetch_page(target, settings, client=client)
            # A listing or detail page built by JavaScript: read as its scripts leave it.
            if renderer is not None and renderer.wants(page):
                page = await renderer.render(page)
            return page

        gate = asyncio.Semaphore(AT_ONCE)

        async def one(entry: tuple[Entry, str]) -> Found:
            async with gate:
                return await _detail(entry[0], entry[1], fetch, settings)

        try:
            entries, read, stopped = await _listings(url, fetch, pages, max_rows)
            found = list(await asyncio.gather(*(one(e) for e in entries)))
        finally:
            await Renderer.close_quietly(renderer)
    _choose(found)
    seen = {normalise_url(u) for u in known}
    for item in found:
        item.known = bool(item.website) and _normalised(item.website) in seen
    return Discovery(found, read, stopped)


def _normalised(url: str) -> str:
    try:
        return normalise_url(url)
    except LeadEngineError:
        return url


async def _listings(url: str, fetch: Fetch, pages: int, max_rows: int
                    ) -> tuple[list[tuple[Entry, str]], int, str]:
    """The entries of the listing pages (each with the page that lists it), the pages
    read, and why it stopped early (empty when the listing ended)."""
    entries: dict[str, tuple[Entry, str]] = {}
    target: str | None = url
    read, visited = 0, set()
    while target is not None and target not in visited:
        if read >= pages:
            return list(entries.values()), read, (
                f"stopped after {pages} listing page{'s' if pages != 1 else ''} "
                "(--pages): there are more")
        visited.add(target)
        page = await fetch(target)
        read += 1
        listing = read_listing(page.html, page.final_url)
        for entry in listing.entries:
            if entry.detail not in entries:
                if len(entries) >= max_rows:
                    return list(entries.values()), read, (
                        f"stopped at {max_rows:,} businesses (--max-rows)")
                entries[entry.detail] = (entry, page.final_url)
        target = listing.next_page
    return list(entries.values()), read, ""


async def _detail(entry: Entry, listing: str, fetch: Fetch, settings: Settings) -> Found:
    """A business's detail page read: its websites and phones (best first), address,
    city and category, or why it could not be read."""
    found = Found(entry.name, listing, entry.detail)
    host = domain(listing)
    try:
        page = await fetch(entry.detail)
    except LeadEngineError as exc:
        found.note = f"detail page not read: {exc}"
        return found
    if domain(page.final_url) != host:
        found.note = f"the detail page redirects off the directory (to {domain(page.final_url)})"
        return found
    tree = parse_html(page.html or "<html></html>")  # read once, consumed last
    refresh = _meta_refresh(tree, page.final_url)
    if refresh is not None and domain(refresh) != host:
        found.note = f"the detail page redirects off the directory (to {domain(refresh)})"
        return found
    if _login_wall(tree):
        found.note = "the detail page needs a login"
        return found
    found.websites = website_candidates(tree, page.final_url, host)
    site = site_from_page(page, replace(settings, max_pages=0), tree=tree)
    found.phones = list(site.signals.phones)
    where = site.location
    found.address = site.signals.address or (
        where.street_address.value if where.street_address else "")
    found.city = where.city.value if where.city else ""
    found.country = where.country.value if where.country else ""
    found.name = found.name or site.business_name()[0]
    if site.category.value != "other" and site.category.confidence >= 0.5:
        found.category = site.category.value
    return found


def _meta_refresh(tree: lxml.html.HtmlElement, url: str) -> str | None:
    for meta in tree.iter("meta"):
        if (meta.get("http-equiv") or "").lower() == "refresh":
            match = _REFRESH.search(str(meta.get("content") or ""))
            if match:
                return urljoin(url, str(match.group(1)))
    return None


def _login_wall(tree: lxml.html.HtmlElement) -> bool:
    """A page that is a login form and little else."""
    password = any((i.get("type") or "").lower() == "password" for i in tree.iter("input"))
    words = len(" ".join(tree.text_content().split()).split())
    return password and words < 150


def _choose(found: list[Found]) -> None:
    """Each business's website and phone: the first its page gave that is not the
    directory's own (shown by many of its pages)."""
    read = [f for f in found if not f.note]
    own_sites = common(([domain(w) for w in f.websites] for f in read), len(read))
    own_phones = common((f.phones for f in read), len(read))
    for item in read:
        item.website = next((w for w in item.websites if domain(w) not in own_sites), "")
        item.phone = next((p for p in item.phones if p not in own_phones), "")
        if not item.website and not item.phone:
            item.note = "no website or phone on its page"

