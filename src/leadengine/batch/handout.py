"""How a batch's rows reach its shards: split into groups by normalised URL (a URL's
duplicates in one group, so in one shard, as the Ray engine splits them too), and handed
out as the shards ask for them (:class:`Handout`, :func:`shard_rows`), so that the shards
finish together however much their rows cost."""

from __future__ import annotations

import collections
import contextlib
import hashlib
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection

from leadengine.batch.input import Row
from leadengine.batch.messages import AskMore
from leadengine.errors import LeadEngineError


def shard_key(row: Row) -> str:
    """What a row is sharded by: its normalised URL (duplicates meet), else its index."""
    from leadengine.website.urls import normalise_url

    if row.error is None:
        with contextlib.suppress(LeadEngineError):
            return normalise_url(row.raw)
    return f"#{row.index}"


def split_rows(rows: Sequence[Row], shards: int) -> list[list[Row]]:
    """``rows`` in ``shards`` lists (input order kept within each), empty ones dropped."""
    parts: list[list[Row]] = [[] for _ in range(shards)]
    for row in rows:
        # blake2b, not crc32: crc32 is linear, and URLs that differ in a digit or two
        # left a third of 64 parts empty and others twice as full.
        digest = hashlib.blake2b(shard_key(row).encode("utf-8", "replace"), digest_size=8)
        parts[int.from_bytes(digest.digest(), "little") % shards].append(row)
    return [part for part in parts if part]


#: Groups per shard that a batch's rows are split into for :class:`Handout`.
GROUPS_PER_SHARD = 32


class Handout:
    """A batch's rows in groups (:func:`split_rows`: a URL's duplicates in one group),
    handed to the shards as they ask: half of what is left shared between them (at
    least one group), so early asks get many rows and the last ones a group each, and
    a shard whose rows are slow simply asks less often."""

    def __init__(self, rows: Sequence[Row], shards: int) -> None:
        # In the order of their first rows: the batch goes through its input roughly in
        # order, as one process does.
        self.groups = collections.deque(sorted(split_rows(rows, shards * GROUPS_PER_SHARD),
                                               key=lambda group: group[0].index))
        self.shards = shards

    def take(self) -> list[Row]:
        """The next rows for a shard that asks ([] when every row is handed out)."""
        count = max(1, len(self.groups) // (2 * self.shards))
        rows: list[Row] = []
        while self.groups and count:
            rows += self.groups.popleft()
            count -= 1
        return rows


def shard_rows(first: list[Row], events: Connection, more: Connection) -> Iterator[Row]:
    """A shard's rows: ``first``, then what the parent hands out when asked on
    ``events`` (the answer comes on ``more``: a pipe round trip, some microseconds,
    each time the shard's reading of its rows runs out) until it has no more."""
    yield from first
    while True:
        try:
            events.send(AskMore())
            rows = more.recv()
        except (EOFError, OSError):  # the parent is gone: nothing more to do
            return
        if not rows:
            return
        yield from rows
