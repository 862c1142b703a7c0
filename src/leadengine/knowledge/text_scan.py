"""Finding many keys in a text written without word spaces (Thai, Burmese, CJK): at each
position the longest key that starts there wins, the text it covers is skipped, and
only the runs of the script's characters are walked. Shared by the gazetteer's index
(:mod:`leadengine.website.location.places`) and the retrieval glossary
(:mod:`leadengine.retrieval.glossary`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

#: Keys bucketed by their first two characters, each bucket longest first.
Buckets = dict[str, list[tuple[str, T]]]


def buckets(items: Iterable[tuple[str, T]]) -> Buckets[T]:
    """``(key, value)`` pairs bucketed for :func:`leftmost_longest` (keys of at least two
    characters; a shorter one could never be found)."""
    found: Buckets[T] = {}
    for key, value in items:
        if len(key) >= 2:
            found.setdefault(key[:2], []).append((key, value))
    for bucket in found.values():
        bucket.sort(key=lambda item: -len(item[0]))
    return found


def leftmost_longest(text: str, keys: Buckets[T], runs: re.Pattern[str]
                     ) -> Iterator[tuple[int, str, T]]:
    """``(start, key, value)`` of each key found in ``text``, starting inside a match of
    ``runs``: leftmost first, the longest at a position, not overlapping."""
    last, i = len(text) - 1, 0
    for run in runs.finditer(text):
        i, stop = max(i, run.start()), min(run.end(), last)
        while i < stop:
            bucket = keys.get(text[i:i + 2])
            if bucket:
                for key, value in bucket:
                    if text.startswith(key, i):
                        yield i, key, value
                        i += len(key) - 1
                        break
            i += 1
