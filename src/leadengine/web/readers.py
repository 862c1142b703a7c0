"""Where pages are read: in the calling thread, or in a pool of worker processes.

Reading a page (parsing, picking its subpages, extraction, signals) and assembling a
site from its pages (location, category, language) is CPU work: milliseconds to a
second a site. One site (``leadengine evaluate``) reads them where it runs
(:class:`InlineReader`). A batch hands them to :class:`PoolReader`, worker processes
sized to the machine (``--workers``, default one per core), while its event loop only
fetches, waits for LLM answers and stores results: every core reads pages.

A worker that dies mid-page (killed, out of memory) breaks the pool: the pool is
started again and every read it was doing is tried once more; a read that kills a
second pool fails its own row with a one-line error, and the batch goes on.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from leadengine.config import Settings
from leadengine.errors import ContentError
from leadengine.web.crawl import pick_subpages
from leadengine.web.extract import parse_html
from leadengine.web.fetch import Page
from leadengine.web.site import (
    PageRead,
    Reader,
    Site,
    assemble_site,
    page_deadline,
    read_page,
)

__all__ = ["InlineReader", "PoolReader", "Reader", "default_workers", "read_home"]

T = TypeVar("T")


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


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class PoolReader:
    """Reads in ``workers`` processes (started by a fork server that has the readers
    imported, so a worker starts in milliseconds)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.restarts = 0
        self._pool = self._start()

    def _start(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["leadengine.web.readers"])
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context)

    async def _call(self, what: str, function: Callable[..., T], *args: object) -> T:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._pool
            try:
                return await loop.run_in_executor(pool, function, *args)
            except BrokenProcessPool:
                if self._pool is pool:  # the first read to notice starts a new pool
                    pool.shutdown(wait=False, cancel_futures=True)
                    self._pool = self._start()
                    self.restarts += 1
                if attempt == 2:
                    raise ContentError(what, "a page-reading process stopped (killed, or "
                                             "out of memory) while reading it, twice"
                                       ) from None
        raise AssertionError("unreachable")

    async def home(self, page: Page, max_pages: int, cpu_seconds: float | None
                   ) -> tuple[list[str], PageRead]:
        return await self._call(page.url, read_home, page, max_pages, cpu_seconds)

    async def page(self, page: Page, cpu_seconds: float | None) -> PageRead:
        return await self._call(page.url, read_other, page, cpu_seconds)

    async def site(self, parts: list[PageRead], settings: Settings, failed: list[str]
                   ) -> Site:
        return await self._call(parts[0].page.url, assemble_site, parts, settings, failed)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
