"""Turn a fetched page into the text an evaluator reads.

Main text comes from trafilatura (favouring recall: a small business site's
"boilerplate" is often its only copy); the title and meta description come
from the DOM, which boilerplate removal throws away.

Trafilatura is handed our parsed tree, pruned in place, rather than markup to
parse again: :func:`extract` therefore consumes the tree, and everything else a
caller wants from the DOM (signals, links, text nodes) is read before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html
import trafilatura
from lxml import etree

from leadengine.errors import ContentError
from leadengine.web.fetch import Page

#: Elements and characters of text handed to trafilatura; the rest of a huge page is not
#: read (trafilatura takes about a second per 300 KB of table-heavy markup, and the
#: evaluator reads only the first few thousand characters of text).
MAX_EXTRACT_ELEMENTS = 4_000
MAX_EXTRACT_CHARS = 100_000
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


def parse_html(html: str) -> lxml.html.HtmlElement:
    """Parse HTML leniently (broken markup is the norm on small business sites)."""
    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        # lxml refuses strings with an XML encoding declaration, and empty documents.
        return lxml.html.document_fromstring(html.encode("utf-8", "replace"))


_TITLE = etree.XPath("//title//text()", smart_strings=False)
_META = {attr: etree.XPath(f"//meta[@{attr}=$n]/@content", smart_strings=False)
         for attr in ("name", "property")}


def extract(page: Page, tree: lxml.html.HtmlElement | None = None,
            nodes: list[str] | None = None) -> Extracted:
    """Main text, title and description of ``page``; ContentError if it has no text.

    ``tree`` (the page parsed, if the caller has it) is pruned in place and handed to
    trafilatura: read what else is needed from it first. ``nodes``: its visible text
    nodes, if already known (used for pages too small for trafilatura).
    """
    tree = tree if tree is not None else parse_html(page.html)
    title = _clean(" ".join(_TITLE(tree)))
    description = _meta(tree, "description") or _meta(tree, "og:description")
    site_name = _meta(tree, "og:site_name")
    nodes = nodes if nodes is not None else text_nodes(tree)
    text = trafilatura.extract(prune_for_extraction(tree), url=page.final_url,
                               favor_recall=True, include_comments=False,
                               include_tables=True, deduplicate=False) or ""
    if len(text) < 200:
        # Tiny pages: trafilatura may keep nothing; the visible body text is better.
        body_text = visible_text(tree, nodes)
        if len(body_text) > len(text):
            text = body_text
    text = _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", text)).strip()
    if not text and not title and not description:
        raise ContentError(page.url, "the page has no text to evaluate")
    return Extracted(url=page.final_url, title=title, description=description,
                     site_name=site_name, text=text)


def prune_for_extraction(tree: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """``tree`` (changed in place) without the markup that never holds main text, its
    wrapper chains unwrapped, cut after :data:`MAX_EXTRACT_ELEMENTS` elements or
    :data:`MAX_EXTRACT_CHARS` characters of text."""
    etree.strip_elements(tree, *_NEVER_TEXT, with_tail=False)
    # Page builders nest text in long chains of single-child wrappers; unwrapping the
    # empty links of the chain keeps the text and halves trafilatura's work.
    for node in list(tree.iter("div", "span", "section")):
        if (len(node) == 1 and not (node.text or "").strip()
                and not (node[0].tail or "").strip() and node.getparent() is not None):
            node.drop_tag()
    chars = 0
    for count, node in enumerate(tree.iter()):
        chars += len(node.text or "") + len(node.tail or "")
        if count >= MAX_EXTRACT_ELEMENTS or chars >= MAX_EXTRACT_CHARS:
            _cut_from(node)
            break
    return tree


def _cut_from(node: lxml.html.HtmlElement) -> None:
    """Remove ``node`` and everything after it in document order."""
    parent = node.getparent()
    if parent is None:
        return
    for ancestor in (node, *node.iterancestors()):
        while (following := ancestor.getnext()) is not None:
            following.getparent().remove(following)
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


def _meta(tree: lxml.html.HtmlElement, name: str) -> str:
    for attr in ("name", "property"):
        values = _META[attr](tree, n=name)
        if values:
            return _clean(str(values[0]))
    return ""


#: Elements whose text is never shown.
_INVISIBLE = ("script", "style", "noscript", "template")
#: Markup that never holds main text; navigation menus and forms only cost trafilatura
#: time (its pruning walks every node's ancestors).
_NEVER_TEXT = (*_INVISIBLE, "svg", "iframe", "nav", "form", "select", "button", etree.Comment)
_HAS_INVISIBLE = etree.XPath("boolean(" + "|".join(f"//body//{tag}" for tag in _INVISIBLE)
                             + ")")
_TEXT_NODES = etree.XPath("//body//text()[not(ancestor::script) and not(ancestor::style) "
                          "and not(ancestor::noscript) and not(ancestor::template)]",
                          smart_strings=False)
_ALL_TEXT_NODES = etree.XPath("//body//text()", smart_strings=False)


def drop_invisible(tree: lxml.html.HtmlElement) -> None:
    """Remove (in place) the elements whose text is never shown: scripts, styles,
    noscript and template. Read the signals, which need the scripts, first."""
    etree.strip_elements(tree, *_INVISIBLE, with_tail=False)


def text_nodes(tree: lxml.html.HtmlElement) -> list[str]:
    """The page's visible text nodes, in document order (one XPath pass in C; ten
    times cheaper once :func:`drop_invisible` has run)."""
    nodes: list[str] = (_TEXT_NODES if _HAS_INVISIBLE(tree) else _ALL_TEXT_NODES)(tree)
    return nodes


def visible_text(tree: lxml.html.HtmlElement, nodes: list[str] | None = None) -> str:
    """All visible text of the body, whitespace collapsed."""
    return _clean(" ".join(nodes if nodes is not None else text_nodes(tree)))


def _clean(text: str) -> str:
    return " ".join(text.split())
