"""Address candidates of a site's pages and their scores: JSON-LD plain-text addresses,
``<address>`` elements, labelled and split addresses in the text (the patterns of
:mod:`leadengine.web.location.address_patterns`), each then read against the gazetteer for its
city, region and postcodes."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from leadengine.web.location import address_patterns as ap
from leadengine.web.location.address_features import Postcode
from leadengine.web.location.place_names import CityHit, cities_in, postcodes_in, region_in
from leadengine.web.location.places import Gazetteer, Text
from leadengine.web.location.postal_address import is_plain
from leadengine.web.location.types import MAX_ADDRESSES, PageClues, edges, quote

#: Candidates read against the gazetteer per site.
MAX_PLACED = 30
#: Seconds of CPU a site's text may take; past it the remaining nodes are not read.
TEXT_BUDGET = 0.035
#: A node left unread (out of time): it ends a run of address lines.
_UNREAD = [ap.Node("", "", "other")]
#: Nodes read first at each end of a page, before any page's middle.
_FIRST_NODES = 1000


@dataclass
class Placed:
    """An address candidate read against the gazetteer."""

    candidate: ap.Candidate
    text: Text
    score: float = 0.0
    postcodes: list[Postcode] = field(default_factory=list)
    city: CityHit | None = None
    region: tuple[int, str] | None = None
    street: bool = False


def candidates(pages: Sequence[PageClues], postal: dict[str, str] | None
               ) -> list[ap.Candidate]:
    """Address candidates of every page: JSON-LD plain-text addresses, ``<address>``
    elements, labelled and split addresses in the text. Text nodes are read within
    :data:`TEXT_BUDGET` seconds of CPU, each page's top and bottom first."""
    found: list[ap.Candidate] = []
    ends = time.thread_time() + TEXT_BUDGET
    if postal is not None and is_plain(postal):
        found += _element_candidates(postal["streetAddress"], 0, "jsonld")
    elements = [(page_index, index, text) for page_index, page in enumerate(pages)
                for index, text in enumerate(page.address_texts[:MAX_ADDRESSES])]
    for page_index, index, text in elements[:MAX_ADDRESSES]:
        if isinstance(text, str) and time.thread_time() <= ends:
            found += _element_candidates(text[:1000], (page_index + 1) * 1_000_000 + index)
    texts = [edges(list(page.nodes)) for page in pages]
    read: list[list[list[ap.Node] | None]] = [[None] * len(nodes) for nodes in texts]
    for count, (page_index, index) in enumerate(_reading_order([len(t) for t in texts])):
        if not count & 63 and time.thread_time() > ends:
            break
        text = texts[page_index][index]
        if isinstance(text, str):
            read[page_index][index] = [ap.classify(p) for p in ap.split_node(text[:5000])]
    for page_index, nodes in enumerate(read):
        if all(parts is None for parts in nodes):
            continue
        flat = [part for parts in nodes for part in (_UNREAD if parts is None else parts)]
        found += ap.node_candidates(flat, (page_index + 1) * 1_000_000 + 1000)
    return found


def _reading_order(sizes: Sequence[int]) -> Iterator[tuple[int, int]]:
    """(page, node) in reading order: each page's first and last :data:`_FIRST_NODES`
    nodes, page by page, then the middles."""
    for page, size in enumerate(sizes):
        yield from ((page, i) for i in range(min(size, _FIRST_NODES)))
        yield from ((page, i) for i in range(max(_FIRST_NODES, size - _FIRST_NODES), size))
    for page, size in enumerate(sizes):
        yield from ((page, i) for i in range(_FIRST_NODES, max(_FIRST_NODES, size - _FIRST_NODES)))


def _element_candidates(text: str, order: int, source: str = "element"
                        ) -> list[ap.Candidate]:
    """An ``<address>`` element or a plain JSON-LD address: itself, and its parts' windows
    (elements often wrap opening hours and phones too)."""
    parts = [ap.classify(part) for part in text.split(", ")[:40] if part.strip()]
    found = ap.node_candidates(parts, order, source, limit=80, max_run=16)
    whole = ap.classify(" ".join(text.split()))
    if whole.kind in ("feature", "weak", "label") and len(text) <= ap.MAX_NODE:
        found += ap.node_candidates([whole], order, source, limit=1)
    return found


def top(found: Sequence[ap.Candidate]) -> list[ap.Candidate]:
    """The best :data:`MAX_PLACED` candidates, leaving out one that is part of a better
    one's text (the windows of one address overlap) and a template's address."""
    chosen: list[ap.Candidate] = []
    for candidate in sorted(found, key=lambda c: (-c.score, -len(c.text), c.order)):
        if ap.TEMPLATE_ADDRESS.search(candidate.text.lower()):
            continue  # "123 Clinic Street, City, Country": joined from nodes, a template's
        if not any(candidate.text in other.text for other in chosen):
            chosen.append(candidate)
            if len(chosen) == MAX_PLACED:
                break
    return chosen


def place(candidate: ap.Candidate, country: str | None, places: Gazetteer) -> Placed:
    """A candidate read against the gazetteer: its postcodes, region and city, whether it
    is a street address, and its score with them."""
    text = Text(candidate.text)
    placed = Placed(candidate, text)
    placed.postcodes = postcodes_in(text, country)
    placed.region = region_in(text, country, places)
    anchors = [(p.start, p.end) for p in placed.postcodes]
    placed.city = cities_in(text, country, places, anchors)
    has_place = placed.city is not None or placed.region is not None
    placed.street = ap.is_street_address(candidate, has_place, bool(placed.postcodes))
    placed.score = candidate.score - 3 * candidate.postcode + 3 * bool(placed.postcodes) \
        + 3 * (placed.city is not None) + (placed.region is not None)
    return placed


def choose_postcode(placed: Placed) -> Postcode:
    """The postcode next to the city, else the last one (the first for 〒 postcodes)."""
    if placed.city is not None:
        hit = placed.city.hit
        for code in placed.postcodes:
            if 0 <= code.start - hit.end <= 4 or 0 <= hit.start - code.end <= 3:
                return code
    first = placed.postcodes[0]
    return first if first.kind == "jp" else placed.postcodes[-1]


def evidence(candidate: ap.Candidate) -> str:
    """Where a candidate was read, and its text."""
    where = "JSON-LD address" if candidate.source == "jsonld" else "address text"
    return f'{where}: "{quote(candidate.text)}"'
