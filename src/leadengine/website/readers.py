"""Where pages are read: in the calling thread (:class:`InlineReader`).

Reading a page (parsing, picking its subpages, extraction, signals) and assembling a
site from its pages (location, category, language) is CPU work: milliseconds to a
second a site. A batch uses every core by running shards of its rows in processes of
their own (:mod:`leadengine.batch.shards`, ``--workers``), each reading its pages
inline: one event loop feeding a pool of page readers was itself the bottleneck.
"""

from __future__ import annotations

from typing import Protocol

from leadengine.config import Settings
from leadengine.website.crawl import pick_subpages
from leadengine.website.extract import parse_html
from leadengine.website.fetch import Page
from leadengine.website.site import PageRead, Site, assemble_site, page_deadline, read_page

__all__ = ["InlineReader", "Reader", "read_home"]


class Reader(Protocol):
    """Reads pages and assembles sites, somewhere: here (:class:`InlineReader`) or in a
    batch's worker processes."""

    async def home(self, page: Page, max_pages: int, cpu_seconds: float | None
                   ) -> tuple[list[str], PageRead]: ...

    async def page(self, page: Page, cpu_seconds: float | None) -> PageRead: ...

    async def site(self, parts: list[PageRead], settings: Settings, failed: list[str]
                   ) -> Site: ...


def read_home(page: Page, max_pages: int, cpu_seconds: float | None = None
              ) -> tuple[list[str], PageRead]:
    """A homepage's subpages worth reading and the page read, within one CPU budget
    (parsing it and picking its links count)."""
    deadline = page_deadline(page, cpu_seconds)
    tree = parse_html(page.html)
    deadline.tree = tree
    links = pick_subpages(tree, page.final_url, max_pages, deadline)
    return links, read_page(page, tree, deadline=deadline)


def read_other(page: Page, cpu_seconds: float | None = None) -> PageRead:
    """A subpage read."""
    return read_page(page, cpu_seconds=cpu_seconds)


class InlineReader:
    """Reads in the calling thread (one site: nothing else waits on the loop)."""

    async def home(self, page: Page, max_pages: int, cpu_seconds: float | None
                   ) -> tuple[list[str], PageRead]:
        return read_home(page, max_pages, cpu_seconds)

    async def page(self, page: Page, cpu_seconds: float | None) -> PageRead:
        return read_other(page, cpu_seconds)

    async def site(self, parts: list[PageRead], settings: Settings, failed: list[str]
                   ) -> Site:
        return assemble_site(parts, settings, failed)
