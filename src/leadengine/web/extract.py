"""Turn a fetched page into the text an evaluator reads.

Main text comes from trafilatura (favouring recall: a small business site's
"boilerplate" is often its only copy); the title and meta description come
from the DOM, which boilerplate removal throws away.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

import lxml.html
import trafilatura
from lxml import etree

from leadengine.errors import ContentError
from leadengine.web.fetch import Page

#: Markup (scripts and styles removed) handed to trafilatura; the rest is not read.
MAX_EXTRACT_CHARS = 200_000
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


def extract(page: Page, tree: lxml.html.HtmlElement | None = None) -> Extracted:
    """Main text, title and description of ``page``; ContentError if it has no text."""
    tree = tree if tree is not None else parse_html(page.html)
    title = _clean(" ".join(tree.xpath("//title//text()")))
    description = _meta(tree, "description") or _meta(tree, "og:description")
    site_name = _meta(tree, "og:site_name")
    text = trafilatura.extract(_bounded_html(tree), url=page.final_url, favor_recall=True,
                               include_comments=False, include_tables=True,
                               deduplicate=False) or ""
    if len(text) < 200:
        # Tiny pages: trafilatura may keep nothing; the visible body text is better.
        body_text = visible_text(tree)
        if len(body_text) > len(text):
            text = body_text
    text = _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", text)).strip()
    if not text and not title and not description:
        raise ContentError(page.url, "the page has no text to evaluate")
    return Extracted(url=page.final_url, title=title, description=description,
                     site_name=site_name, text=text)


def _bounded_html(tree: lxml.html.HtmlElement) -> str:
    """The page without scripts and styles, cut to :data:`MAX_EXTRACT_CHARS`.

    trafilatura takes about a second per 300 KB of table-heavy markup, and the
    evaluator reads only the first few thousand characters of text, so a huge
    page is cut before extraction rather than after.
    """
    clean = copy.deepcopy(tree)
    # Markup that never holds main text; navigation menus and forms only cost
    # trafilatura time (its pruning walks every node's ancestors).
    etree.strip_elements(clean, "script", "style", "noscript", "svg", "template", "iframe",
                         "nav", "form", "select", "button", etree.Comment, with_tail=False)
    # Page builders nest text in long chains of single-child wrappers; unwrapping the
    # empty links of the chain keeps the text and halves trafilatura's work.
    for node in list(clean.iter("div", "span", "section")):
        if (len(node) == 1 and not (node.text or "").strip()
                and not (node[0].tail or "").strip() and node.getparent() is not None):
            node.drop_tag()
    html: str = lxml.html.tostring(clean, encoding="unicode")
    return html[:MAX_EXTRACT_CHARS]


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
        values = tree.xpath(f"//meta[@{attr}=$n]/@content", n=name)
        if values:
            return _clean(str(values[0]))
    return ""


_TEXT_NODES = etree.XPath("//body//text()[not(ancestor::script) and not(ancestor::style) "
                         "and not(ancestor::noscript) and not(ancestor::template)]")


def text_nodes(tree: lxml.html.HtmlElement) -> list[str]:
    """The page's visible text nodes, in document order (one XPath pass in C)."""
    return [str(node) for node in _TEXT_NODES(tree)]


def visible_text(tree: lxml.html.HtmlElement, nodes: list[str] | None = None) -> str:
    """All visible text of the body, whitespace collapsed."""
    return _clean(" ".join(nodes if nodes is not None else text_nodes(tree)))


def _clean(text: str) -> str:
    return " ".join(text.split())
