"""Page snapshots in the store: every fetched page is kept, and a batch given
``max_age`` reuses a page fetched that recently instead of fetching it again.

Pages put are held until the batch writes them with its next group of results
(:meth:`SnapshotCache.take`, :meth:`leadengine.store.Store.record_outcomes`); one
asked for meanwhile is served from there."""

from __future__ import annotations

import time
import zlib

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from leadengine.store.schema import page_snapshots_table
from leadengine.website.fetch import Page


class SnapshotCache:
    """A page cache over a store's database (see :meth:`Store.snapshots`): the
    ``get_page`` / ``put_page`` pair that :func:`leadengine.website.load.load_site` uses."""

    def __init__(self, engine: Engine, max_age: float | None) -> None:
        self.engine = engine
        self.max_age = max_age
        #: Pages served from a snapshot so far (a batch's ``reused_pages``).
        self.reused = 0
        #: Pages put and not yet written, by address.
        self.pending: dict[str, Page] = {}

    def get_page(self, url: str) -> Page | None:
        if self.max_age is None:
            return None
        held = self.pending.get(url)
        if held is not None and held.fetched_at >= time.time() - self.max_age:
            self.reused += 1
            return held
        query = sa.select(page_snapshots_table).where(
            page_snapshots_table.c.url == url,
            page_snapshots_table.c.fetched_at >= time.time() - self.max_age)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        self.reused += 1
        return Page(url=row.url, final_url=row.final_url, status=row.status,
                    content_type=row.content_type, html=zlib.decompress(row.html).decode(),
                    encoding=row.encoding, truncated=row.truncated, fetched_at=row.fetched_at)

    def put_page(self, page: Page) -> None:
        # Two sites may fetch the same page (a shared subpage): the last one is kept.
        self.pending[page.url] = page

    def take(self) -> list[Page]:
        """The pages put since the last call, to be written now."""
        pages, self.pending = list(self.pending.values()), {}
        return pages
