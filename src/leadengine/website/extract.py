"""Turn a fetched page into the text an evaluator reads.

Main text comes from trafilatura (favouring recall: a small business site's
"boilerplate" is often its only copy), except on a small page (up to
:data:`SMALL_PAGE_CHARS` visible characters), which is its own main text: there
boilerplate removal drops more content than noise (measured on the fixtures and on
real sites: prices, phones, e-mails and headings all survive, at 8-14 % more text);
the title and meta description come from the DOM, which boilerplate removal throws
away.

Trafilatura is handed our parsed tree, pruned in place, rather than markup to
parse again: :func:`extract` therefore consumes the tree, and everything else a
caller wants from the DOM (signals, links, text nodes) is read before it.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from itertools import islice

import lxml.html
import trafilatura
from lxml import etree

from leadengine.errors import ContentError
from leadengine.website.fetch import Page

#: Elements and characters of text handed to trafilatura; the rest of a huge page is not
#: read (trafilatura takes about a second per 300 KB of table-heavy markup, and the
#: evaluator reads only the first few thousand characters of text).
MAX_EXTRACT_ELEMENTS = 4_000
MAX_EXTRACT_CHARS = 100_000
#: Characters of class and id values handed to trafilatura, whose boilerplate rules test
#: each against dozens of patterns (4,000 classes of 1,200 characters took 1 s; a page
#: builder's page has about 50,000 characters of them). Over it, each is cut to
#: :data:`MAX_NAME_CHARS`.
MAX_EXTRACT_NAME_CHARS = 200_000
MAX_NAME_CHARS = 200
#: Links (``<a href>``) a page is read for, in document order: signals and subpage
#: candidates. A real business page has a few hundred; a page of 100,000 (3.8 MB) took
#: 12.5 s of CPU to read before this cap (quadratic XPath unions, a urljoin per link).
MAX_LINKS = 5_000
#: Elements of a kind examined by the scans that read each one in Python (inline scripts
#: and images, titles, meta tags, addresses; class/id holders): the first ones, in
#: document order. About 1 us each (lxml.html looks each element's class up in Python).
MAX_SCANNED = 20_000
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class Extracted:
    """What a page says, as text."""

    url: str
    title: str
    description: str
    site_name: str
    text: str


class Deadline:
    """The CPU time one page may take to read; :meth:`check` raises ContentError once it
    is spent (checked between the stages of reading and inside their long loops).

    CPU time of this thread, not wall time: page reading is synchronous, so neither a
    loaded machine, nor other threads (a batch's store, the test web server), nor the
    fetches of other pages make a page fail; only its own work does.
    """

    def __init__(self, url: str, seconds: float = math.inf) -> None:
        self.url = url
        self.seconds = seconds
        self.ends = time.thread_time() + seconds
        #: The page's DOM, once parsed: counted to say what made the page too complex.
        self.tree: lxml.html.HtmlElement | None = None
        self._ticks = 0

    def check(self) -> None:
        """Raise ContentError if the page's CPU time is spent."""
        if time.thread_time() > self.ends:
            raise ContentError(self.url, f"page too complex to read within "
                                         f"{self.seconds:g}s ({self._shape()})")

    def tick(self) -> None:
        """:meth:`check`, every 256th call: for the inside of loops (a check is a system
        call of about 1 us, 256 iterations of the loops here take 0.1-2 ms)."""
        self._ticks += 1
        if not self._ticks & 255:
            self.check()

    def _shape(self) -> str:
        if self.tree is None:
            return "not parsed in time"
        links = int(self.tree.xpath("count(//a[@href])"))
        elements = int(self.tree.xpath("count(//*)"))
        if links > MAX_LINKS:
            return f"{links:,} links"
        return f"{elements:,} elements"


def parse_html(html: str) -> lxml.html.HtmlElement:
    """Parse HTML leniently (broken markup is the norm on small business sites)."""
    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        # lxml refuses strings with an XML encoding declaration, and empty documents.
        return lxml.html.document_fromstring(html.encode("utf-8", "replace"))


_DESCENDANT_TEXT = etree.XPath("descendant::text()", smart_strings=False)


def extract(page: Page, tree: lxml.html.HtmlElement | None = None,
            nodes: list[str] | None = None, deadline: Deadline | None = None) -> Extracted:
    """Main text, title and description of ``page``; ContentError if it has no text.

    ``tree`` (the page parsed, if the caller has it) is pruned in place and handed to
    trafilatura: read what else is needed from it first. ``nodes``: its visible text
    nodes, if already known (used for pages too small for trafilatura). ``deadline``:
    checked before trafilatura (which cannot be interrupted, but reads a cut tree).
    """
    tree = tree if tree is not None else parse_html(page.html)
    title = _title(tree)
    metas = _metas(tree)
    description = _meta(metas, "description") or _meta(metas, "og:description")
    site_name = _meta(metas, "og:site_name")
    nodes = nodes if nodes is not None else text_nodes(tree)
    lines = small_page_lines(nodes)
    if lines is not None:
        text = "\n".join(lines)
    else:
        pruned = prune_for_extraction(tree, deadline)
        if deadline is not None:
            deadline.check()
        text = trafilatura.extract(pruned, url=page.final_url,
                                   favor_recall=True, include_comments=False,
                                   include_tables=True, deduplicate=False) or ""
    if len(text) < 200:
        # Tiny pages: trafilatura may keep nothing; the visible body text is better (its
        # start, as trafilatura reads: a 5 MB text cost 0.7 s in the steps after).
        body_text = visible_text(tree, nodes)[:MAX_EXTRACT_CHARS]
        if len(body_text) > len(text):
            text = body_text
    text = _tidy(text)
    if not text and not title and not description:
        raise ContentError(page.url, "the page has no text to evaluate")
    return Extracted(url=page.final_url, title=title, description=description,
                     site_name=site_name, text=text)


#: Visible characters up to which a page is its own main text (trafilatura is not run).
#: On a page this small, boilerplate removal mostly drops what a salesperson needs (the
#: menu of services, the footer's contacts and prices, the booking button's words), and
#: trafilatura's own extraction and fallback pass cost 2-4 ms per page, more than the
#: rest of reading it. Trafilatura's recall mode stops comparing with its fallback
#: extractors above 2,500 characters: the same scale.
SMALL_PAGE_CHARS = 3_000


def small_page_lines(nodes: list[str]) -> list[str] | None:
    """The visible text of a small page, one line per text node (spaces collapsed),
    or None if the page has more than :data:`SMALL_PAGE_CHARS` visible characters."""
    lines: list[str] = []
    size = 0
    for node in nodes:
        line = " ".join(node.split())
        if line:
            size += len(line) + 1
            if size > SMALL_PAGE_CHARS:
                return None
            lines.append(line)
    return lines


def _tidy(text: str) -> str:
    """Runs of spaces as one space, of blank lines as one blank line (each substitution
    only if there is one to make: one per space of the text costs 0.3 ms on 12 KB)."""
    if "  " in text or "\t" in text or "\u00a0" in text:
        text = _SPACES.sub(" ", text)
    if "\n\n\n" in text:
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip()


def prune_for_extraction(tree: lxml.html.HtmlElement,
                         deadline: Deadline | None = None) -> lxml.html.HtmlElement:
    """``tree`` (changed in place) without the markup that never holds main text, its
    wrapper chains unwrapped, cut after :data:`MAX_EXTRACT_ELEMENTS` elements or
    :data:`MAX_EXTRACT_CHARS` characters of text."""
    etree.strip_elements(tree, *_NEVER_TEXT, with_tail=False)
    # Page builders nest text in long chains of single-child wrappers; unwrapping the
    # empty links of the chain keeps the text and halves trafilatura's work.
    _unwrap(tree, deadline or Deadline(""))
    chars = 0
    for count, node in enumerate(tree.iter()):
        chars += len(node.text or "") + len(node.tail or "")
        if count >= MAX_EXTRACT_ELEMENTS or chars >= MAX_EXTRACT_CHARS:
            _cut_from(node)
            break
    _trim_names(tree)
    return tree


_CLASSES = etree.XPath("//@class", smart_strings=False)
_IDS = etree.XPath("//@id", smart_strings=False)


def _trim_names(tree: lxml.html.HtmlElement) -> None:
    """Cut every class and id value to :data:`MAX_NAME_CHARS` if, together, they are
    longer than :data:`MAX_EXTRACT_NAME_CHARS` (so, on hostile pages only)."""
    if sum(map(len, _CLASSES(tree))) + sum(map(len, _IDS(tree))) <= MAX_EXTRACT_NAME_CHARS:
        return
    for node in tree.iter(etree.Element):
        for name in ("class", "id"):
            value = node.get(name)
            if value is not None and len(value) > MAX_NAME_CHARS:
                node.set(name, value[:MAX_NAME_CHARS])


#: The tag wrappers are renamed to, to be unwrapped all at once by ``strip_tags``.
_UNWRAP = "leadengine-unwrap"


def _unwrap(tree: lxml.html.HtmlElement, deadline: Deadline) -> None:
    """Unwrap (in place) every div/span/section whose only content is one child: its
    child and text take its place, as ``drop_tag`` would.

    Whether an element is such a wrapper does not change while the others are unwrapped
    (unwrapping one only moves text before it or into its child's tail), so they are
    all found first, then unwrapped in one C pass. ``drop_tag`` one by one looks itself
    up in its parent (quadratic in the siblings: 150,000 wrappers side by side never
    finished) and re-homes the moved subtree (250 nested wrappers around 500,000
    elements: 7 s).
    """
    wrappers = []
    for node in tree.iter("div", "span", "section"):
        deadline.tick()
        if (len(node) == 1 and not (node.text or "").strip()
                and not (node[0].tail or "").strip() and node.getparent() is not None):
            wrappers.append(node)
    for node in wrappers:
        node.tag = _UNWRAP
    if wrappers:
        etree.strip_tags(tree, _UNWRAP)


def _cut_from(node: lxml.html.HtmlElement) -> None:
    """Remove ``node`` and everything after it in document order."""
    parent = node.getparent()
    if parent is None:
        return
    # One slice deletion (in C) per ancestor, not one Python call per following sibling:
    # a page cut at its 4,000th element of 1,000,000 loses the rest in milliseconds.
    for ancestor in (node, *node.iterancestors()):
        holder = ancestor.getparent()
        if holder is None:
            break
        del holder[holder.index(ancestor) + 1:]
    parent.remove(node)


def page_content(pages: list[Extracted], max_chars: int = 12_000) -> str:
    """The website content given to the retriever and the evaluator: the homepage's
    address, title and description, then each page's text, cut at ``max_chars``."""
    home = pages[0]
    lines = [f"Website: {home.url}"]
    if home.title:
        lines.append(f"Title: {home.title}")
    if home.description:
        lines.append(f"Description: {home.description}")
    texts = [home.text] + [f"[Page: {p.url}]\n{p.text}" for p in pages[1:] if p.text]
    text = "\n\n".join(texts)
    if len(text) > max_chars:
        text = text[:max_chars].rsplit(" ", 1)[0] + " [...]"
    return "\n".join(lines) + "\n\n" + text


def _title(tree: lxml.html.HtmlElement) -> str:
    """The text of the ``<title>`` elements (what ``//title//text()`` gives, which merges
    one node set per title into all the others: 100,000 titles took 11 s)."""
    texts: list[str] = []
    for title in islice(tree.iter("title"), MAX_SCANNED):
        if next(title.iterancestors("title"), None) is None:
            texts += _DESCENDANT_TEXT(title)
    return _clean(" ".join(texts))


#: The meta tags read for the title block: (attribute, value) -> first content.
_META_KEYS = frozenset((attr, name) for attr in ("name", "property")
                       for name in ("description", "og:description", "og:site_name"))


def _metas(tree: lxml.html.HtmlElement) -> dict[tuple[str, str], str]:
    """The content of the first ``<meta name|property=... content>`` of each of
    :data:`_META_KEYS`, in one walk (one XPath per key walked the whole tree six times:
    0.13 s on a page of 700,000 elements)."""
    found: dict[tuple[str, str], str] = {}
    for meta in islice(tree.iter("meta"), MAX_SCANNED):
        content = meta.get("content")
        if content is None:
            continue
        for attr in ("name", "property"):
            key = (attr, meta.get(attr) or "")
            if key in _META_KEYS:
                found.setdefault(key, content)
    return found


def _meta(metas: dict[tuple[str, str], str], name: str) -> str:
    for attr in ("name", "property"):
        value = metas.get((attr, name))
        if value is not None:
            return _clean(value)
    return ""


#: Elements whose text is never shown.
_INVISIBLE = ("script", "style", "noscript", "template")
#: Markup that never holds main text; navigation menus and forms only cost trafilatura
#: time (its pruning walks every node's ancestors).
_NEVER_TEXT = (*_INVISIBLE, "svg", "iframe", "nav", "form", "select", "button", etree.Comment)
_TEXT_NODES = etree.XPath("//body//text()[not(ancestor::script) and not(ancestor::style) "
                          "and not(ancestor::noscript) and not(ancestor::template)]",
                          smart_strings=False)


def drop_invisible(tree: lxml.html.HtmlElement) -> None:
    """Remove (in place) the elements whose text is never shown: scripts, styles,
    noscript and template. Read the signals, which need the scripts, first."""
    etree.strip_elements(tree, *_INVISIBLE, with_tail=False)


def text_nodes(tree: lxml.html.HtmlElement) -> list[str]:
    """The page's visible text nodes, in document order: one XPath pass in C, the body's
    ``descendant::text()`` once :func:`drop_invisible` has run (a single axis walk: 1.2M
    empty elements 0.05 s and 1M text nodes under 250 nested divs 1.3 s, where lxml's
    ``itertext`` walk built an element proxy each, 2.1 s and 1.9 s, and ``//body//text()``
    merged node sets at every level)."""
    if _has_invisible(tree):
        nodes: list[str] = _TEXT_NODES(tree)
        return nodes
    return [text for body in tree.iter("body") for text in _DESCENDANT_TEXT(body)]


def _has_invisible(tree: lxml.html.HtmlElement) -> bool:
    """Whether the body holds a script, style, noscript or template: a walk in C that
    stops at the first (the XPath union of the four dedups each node set against the
    others: quadratic, minutes for 50,000 scripts and 50,000 styles)."""
    return any(next(body.iter(*_INVISIBLE), None) is not None for body in tree.iter("body"))


def visible_text(tree: lxml.html.HtmlElement, nodes: list[str] | None = None) -> str:
    """All visible text of the body, whitespace collapsed."""
    return _clean(" ".join(nodes if nodes is not None else text_nodes(tree)))


def _clean(text: str) -> str:
    return " ".join(text.split())
