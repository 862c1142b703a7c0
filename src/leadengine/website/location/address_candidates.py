"""Address candidates of a site's pages and their scores: JSON-LD plain-text addresses,
``<address>`` elements, labelled and split addresses in the text (the patterns of
:mod:`leadengine.website.location.address_patterns`), each then read against the gazetteer for its
city, region and postcodes."""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, islice

from leadengine.website.location import address_patterns as ap
from leadengine.website.location.address_features import NATIVE, Postcode
from leadengine.website.location.place_names import CityHit, cities_in, postcodes_in, region_in
from leadengine.website.location.places import Gazetteer, Text
from leadengine.website.location.postal_address import is_plain
from leadengine.website.location.types import MAX_ADDRESSES, PageClues, edges, quote

#: Candidates read against the gazetteer per site.
MAX_PLACED = 30
#: How much address-like text a site may have and still be read whole: each node near
#: an address anchor counts :data:`NODE_COST` plus its characters. Every real site of
#: the fixtures and ``../shared/realworld`` but one is under it (the 2 MB fixture page
#: 62,000, a 5,000-row directory 65,000, the most 86,000); so they are read whole, and
#: the same on every machine (a CPU budget alone made a busy machine miss the address
#: that a quiet one found, so two reads of one page disagreed).
FULL_READ = 100_000
NODE_COST = 200
#: Seconds of CPU the text of a site past :data:`FULL_READ` may take (a hostile or
#: generated page: thousands of address-like lines); past it the remaining nodes are
#: not read.
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
    elements, labelled and split addresses in the text. Text nodes are read whole up to
    :data:`FULL_READ`, past it within :data:`TEXT_BUDGET` seconds of CPU, each page's top
    and bottom first."""
    found: list[ap.Candidate] = []
    ends = time.thread_time() + TEXT_BUDGET
    if postal is not None and is_plain(postal):
        found += _element_candidates(postal["streetAddress"], 0, "jsonld")
    elements = [(page_index, index, text) for page_index, page in enumerate(pages)
                for index, text in enumerate(page.address_texts[:MAX_ADDRESSES])]
    # At most MAX_ADDRESSES elements of 1,000 characters: read whatever the machine's speed.
    for page_index, index, text in elements[:MAX_ADDRESSES]:
        if isinstance(text, str):
            found += _element_candidates(text[:1000], (page_index + 1) * 1_000_000 + index)
    texts = [edges(list(page.nodes)) for page in pages]
    # Pages that repeat one another's text (a page read twice, a shared layout) are
    # scanned for anchors once.
    scanned: dict[tuple[str, ...], set[int]] = {}
    near = []
    for page_nodes in texts:
        key = tuple(text if isinstance(text, str) else "" for text in page_nodes)
        if key not in scanned:
            scanned[key] = _near_anchors(page_nodes)
        near.append(scanned[key])
    read: list[list[list[ap.Node] | None]] = [[None] * len(nodes) for nodes in texts]
    whole = sum(NODE_COST + len(text[:5000]) for nodes, chosen in zip(texts, near, strict=True)
                for text in (nodes[i] for i in chosen) if isinstance(text, str)) <= FULL_READ
    for count, (page_index, index) in enumerate(_reading_order([len(t) for t in texts], near)):
        if not whole and not count & 63 and time.thread_time() > ends:
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


#: What an address has somewhere in its few nodes: a digit (a house number, a postcode;
#: in the scripts' digits listed, a class cheaper to scan than ``\d``), a native address
#: marker, an address label, a "Town, ST" ending (street words alone are not looked for: a
#: word alternation costs 50 ms on 250 KB). Searched once over a page's joined text (in C);
#: only the nodes within an address window of one are classified, not the page's prose and
#: menus (a 300 KB page: 4.9 -> 1.5 ms).
_LINE = "[^\n]*"
DIGITS = ("0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef\u0e50-\u0e59"
          "\u0ed0-\u0ed9\u1040-\u1049\u17e0-\u17e9\uff10-\uff19")
_DIGIT_LINE = re.compile(f"[{DIGITS}]{_LINE}")
_NATIVE_LINE = re.compile(f"(?:{NATIVE.pattern}){_LINE}")


def _literals(alternatives: str) -> tuple[str, ...]:
    """The literal starts of a regex alternation of words: "address(?:es)?|addr\\.?" ->
    ("address", "addr"); a node holds one of the words if it holds one of these."""
    return tuple(re.sub(r"\(\?:[^)]*\)\?|\\\.\?", "", word) for word in alternatives.split("|"))


#: Address labels and the words of an address written without a number ("Sanchaung
#: Ward, Sanchaung Township", "Mapo-gu, Hapjeong-dong", "Airport Road"), found as
#: literals (``str.find``: a regex alternation of words is tried word by word at every
#: position, 0.6 ms on 11 KB); "-gu" and its like must end a word.
_ALL_WORDS = (
    *_literals(ap.LABEL_WORDS), "ward", "township", "tsp", "tambon", "amphoe", "khet",
    "khwaeng", "-gu", "-dong", "-ku",
    "chome", "district", "road", "street", "soi ", "moo ", "avenue", "lane", "jalan",
    "highway", "hwy", "estate", "quarter")
#: Without the words that hold another ("address" holds "addr").
_WORDS = tuple(word for word in _ALL_WORDS
               if not any(other != word and other in word for other in _ALL_WORDS))
_WORD_ENDS = frozenset(("-gu", "-dong", "-ku"))
_WORD_CHAR = re.compile(r"\w")
_LATIN_LETTER = re.compile("[a-z]")
#: Anchors looked at, at most, per kind.
_MAX_ANCHORS = 5_000
#: A page with more nodes holding digits than this is a table of numbers: only its first
#: and last :data:`_EDGE_NUMBERED` nodes are read for them.
_MAX_NUMBERED = 80
_EDGE_NUMBERED = 150
#: Nodes longer than this are prose for the area words.
_SHORT_NODE = 120
_TOWN_ST = re.compile(r", [A-Z]{2,3}\b[^\n]*")


def _near_anchors(nodes: Sequence[str]) -> set[int]:
    """The indexes of the nodes worth classifying: the nodes with an address anchor and
    those within an address window (:data:`address_patterns.MAX_WINDOW`) of one."""
    texts = [text[:5000] if isinstance(text, str) else "" for text in nodes]
    # One scan per kind over the joined text (in C), each match running to the end of its
    # line: one match per node, not per digit.
    joined, at = _joined(texts)
    numbered = [at(match.start())
                for match in islice(_DIGIT_LINE.finditer(joined), _MAX_ANCHORS)]
    # Native markers have no case, and none is ASCII (so an ASCII page has none).
    anchors = set() if joined.isascii() else {
        at(match.start()) for match in islice(_NATIVE_LINE.finditer(joined), _MAX_ANCHORS)}
    # Labels, area words ("location", "road", "ward") and "Town, ST" count in short nodes
    # only (prose has them), so only those are scanned.
    shorts = [index for index, text in enumerate(texts) if len(text) <= _SHORT_NODE]
    short, short_at = _joined([texts[index] for index in shorts])
    anchors.update(shorts[short_at(match.start())]
                   for match in islice(_TOWN_ST.finditer(short), _MAX_ANCHORS))
    lowered = short.lower()
    if len(lowered) != len(short):  # "İ" lowers to two characters: node by node
        lowered, short_at = _joined([texts[index].lower() for index in shorts])
    anchors.update(shorts[index] for index in _holding_words(lowered, short_at))
    if len(numbered) > _MAX_NUMBERED:
        # A table of numbers (prices, a directory): its middle is not read for numbers,
        # only its first and last nodes, where contact details live.
        size = len(texts)
        numbered = [i for i in numbered if i < _EDGE_NUMBERED or i >= size - _EDGE_NUMBERED]
    anchors.update(numbered)
    radius = ap.MAX_WINDOW
    return {near for index in anchors
            for near in range(max(0, index - radius), min(len(texts), index + radius + 1))}


def _holding_words(text: str, at: Callable[[int], int]) -> set[int]:
    """The indexes of the lines of ``text`` holding one of :data:`_WORDS` (at most
    :data:`_MAX_ANCHORS` per word)."""
    found: set[int] = set()
    # A word of one alphabet is not looked for in a text without it (each search scans
    # the whole text: 46 of them took 67 ms on 800 KB of an unknown script).
    latin = _LATIN_LETTER.search(text) is not None
    ascii_only = text.isascii()
    for word in _WORDS:
        if (not latin) if word.isascii() else ascii_only:
            continue
        position, hits = text.find(word), 0
        while position != -1 and hits < _MAX_ANCHORS:
            end = position + len(word)
            if word in _WORD_ENDS and _WORD_CHAR.match(text, end):
                position = text.find(word, end)
                continue
            line = text.find("\n", end)
            found.add(at(position))
            hits += 1
            position = -1 if line == -1 else text.find(word, line)
    return found


def _joined(texts: Sequence[str]) -> tuple[str, Callable[[int], int]]:
    """``texts`` joined by newlines, and the index of the text at a position of it."""
    starts = list(accumulate((len(t) + 1 for t in texts), initial=0))
    return "\n".join(texts), lambda position: bisect_right(starts, position) - 1


def _reading_order(sizes: Sequence[int], chosen: Sequence[set[int]]
                   ) -> Iterator[tuple[int, int]]:
    """(page, node) of the ``chosen`` nodes in reading order: each page's first and last
    :data:`_FIRST_NODES` nodes, page by page, then the middles."""
    middles = []
    for page, size in enumerate(sizes):
        indexes = sorted(chosen[page])
        yield from ((page, i) for i in indexes if i < _FIRST_NODES)
        yield from ((page, i) for i in indexes if i >= max(_FIRST_NODES, size - _FIRST_NODES))
        middles.append([i for i in indexes if _FIRST_NODES <= i < size - _FIRST_NODES])
    for page, indexes in enumerate(middles):
        yield from ((page, i) for i in indexes)


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


#: The most :func:`place` adds to a candidate's own score (a postcode +3, a city +3, a
#: region +1), after taking back the 3 its text patterns gave a postcode.
_MOST_ADDED = 7.0


def _rank(placed: Placed) -> tuple[float, int, int]:
    return (-placed.score, -len(placed.candidate.text), placed.candidate.order)


class Placer:
    """The candidates of a site, placed only as far as a question needs: the best-ranked
    placed candidate with a property (ranked by score, then the longer text, then the
    earlier) is found by placing candidates from the highest possible score down, and
    stops once no unplaced one can reach the best found (:func:`place` adds at most
    :data:`_MOST_ADDED`). The answers are those of placing every candidate; most pages
    need only a few placed."""

    def __init__(self, found: Sequence[ap.Candidate], country: str | None,
                 places: Gazetteer) -> None:
        self.country, self.places = country, places
        #: Candidates (their index in ``found``, which breaks ties) by best possible score.
        self.bounds = sorted(((c.score - 3 * c.postcode + _MOST_ADDED, -i, c)
                              for i, c in enumerate(found)), key=lambda b: (-b[0], -b[1]))
        self.done: dict[int, Placed] = {}

    def first(self, has: Callable[[Placed], bool], min_score: float = 0.0,
              could: Callable[[ap.Candidate], bool] | None = None) -> Placed | None:
        """The best-ranked candidate that ``has`` the property, scores at least
        ``min_score`` and (before placing) ``could`` have it."""
        best: Placed | None = None
        best_key: tuple[float, int, int, int] | None = None
        for bound, neg_index, candidate in self.bounds:
            if bound < min_score or (best is not None and bound < best.score):
                break
            if could is not None and not could(candidate):
                continue
            placed = self.done.get(neg_index)
            if placed is None:
                placed = self.done[neg_index] = place(candidate, self.country, self.places)
            if placed.score >= min_score and has(placed):
                key = (*_rank(placed), -neg_index)
                if best_key is None or key < best_key:
                    best, best_key = placed, key
        return best


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
