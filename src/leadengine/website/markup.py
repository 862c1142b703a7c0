"""What a page's markup holds, read by walking its tree in C within a deadline: its
links, script and iframe sources, inline scripts, the texts of its links and buttons,
its class and id values, its viewport. The signals are read from these
(:mod:`leadengine.website.signals`)."""

from __future__ import annotations

from itertools import islice
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from leadengine.website.extract import MAX_LINKS, MAX_SCANNED, Deadline

# XPath unions ("//a//text()|//button//text()") and "//x//y" paths merge node sets,
# deduplicating each against the ones before: quadratic. A page of 100,000 links spent
# 8 s in "//a//text()" alone. Links, buttons, sources and names are read by walking the
# tree (in C) instead, the first ones only.
_SUBTREE_ACTIONS = etree.XPath("descendant::node()[self::text() or "
                               "self::input[@type='submit'][@value]]", smart_strings=False)
#: Action texts (links, buttons, submit values) and class/id values read, at most.
_MAX_ACTIONS = 3000
_MAX_NAMES = 2000
_NAMES = etree.XPath("//@class|//@id", smart_strings=False)
_NAMES_WORK = etree.XPath("count(//@class) * count(//@id)")
#: The largest ``_NAMES_WORK`` (classes times ids: the union's comparisons) done by the
#: XPath union, which is faster than a walk on real pages (a 300 KB page builder's page,
#: 1,100 classes and 150 ids: 0.7 ms, a walk 2.5 ms) and quadratic on hostile ones.
_NAMES_UNION_LIMIT = 1_000_000


def links_of(tree: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The page's links (``<a href>``) among its first :data:`MAX_LINKS` ``<a>``, in
    document order. Walked, not ``//a[@href]``: each element handed to Python costs
    about 1 us (lxml.html looks its class up in Python), and a page may have 1,000,000."""
    return [a for a in islice(tree.iter("a"), MAX_LINKS) if a.get("href") is not None]


def viewport_of(tree: lxml.html.HtmlElement) -> str | None:
    """The content of the first ``<meta name="viewport">`` that has one (what
    ``//meta[@name='viewport']/@content`` gives first: a walk over tags in C costs a
    tenth of an XPath predicate tried on every element, 0.02 vs 0.13 s on 1,000,000)."""
    for meta in islice(tree.iter("meta"), MAX_SCANNED):
        content: str | None = meta.get("content")
        if content is not None and meta.get("name") == "viewport":
            return content
    return None


def element_sources(tree: lxml.html.HtmlElement, deadline: Deadline
             ) -> tuple[list[str], list[str], list[str]]:
    """Script sources, iframe sources, and all of these and stylesheet/icon links in
    document order (``//script/@src|//iframe/@src|//link/@href``): the first
    :data:`MAX_LINKS` elements of those kinds."""
    scripts: list[str] = []
    iframes: list[str] = []
    everything: list[str] = []
    for element in islice(tree.iter("script", "iframe", "link"), MAX_LINKS):
        deadline.tick()
        value = element.get("href") if element.tag == "link" else (
            element.get("src") or element.get("data-src") or element.get("data-lazy-src"))
        if value is None:
            continue
        everything.append(value)
        if element.tag == "script":
            scripts.append(value)
        elif element.tag == "iframe":
            iframes.append(value)
    return scripts, iframes, everything


def inline_scripts(tree: lxml.html.HtmlElement, deadline: Deadline) -> list[str]:
    """Inline scripts and the images of ``<noscript>`` (tracking pixels), in document
    order (``//script[not(@src)]/text()|//noscript//img/@src``): the first
    :data:`MAX_SCANNED` scripts and images."""
    found: list[str] = []
    for element in islice(tree.iter("script", "img"), MAX_SCANNED):
        deadline.tick()
        if element.tag == "script":
            if element.text is not None and element.get("src") is None:
                found.append(element.text)
        elif (src := element.get("src")) is not None and next(
                element.iterancestors("noscript"), None) is not None:
            found.append(src)
    return found


def page_links(tree: lxml.html.HtmlElement, url: str, deadline: Deadline) -> list[str]:
    """The page's first :data:`MAX_LINKS` links, absolute, empty ones left out."""
    links = []
    for anchor in links_of(tree):
        deadline.tick()
        href = anchor.get("href", "").strip()
        if href:
            links.append(absolute(url, href))
    return links


def action_texts(tree: lxml.html.HtmlElement, deadline: Deadline) -> list[str]:
    """The texts of links and buttons and the values of submit inputs, in document order
    (``//a//text()|//button//text()|//input[@type='submit']/@value``): the first
    :data:`_MAX_ACTIONS` of them, among the first :data:`MAX_LINKS` such elements."""
    texts: list[str] = []
    for element in islice(tree.iter("a", "button", "input"), MAX_LINKS):
        deadline.tick()
        if next(element.iterancestors("a", "button"), None) is not None:
            continue  # read with the link or button it is in
        if element.tag == "input":
            value = element.get("value")
            if value is not None and element.get("type") == "submit":
                texts.append(value)
        elif len(element):
            texts += [node if isinstance(node, str) else node.get("value", "")
                      for node in _SUBTREE_ACTIONS(element)]
        elif element.text is not None:
            texts.append(element.text)
        if len(texts) >= _MAX_ACTIONS:
            break
    return texts[:_MAX_ACTIONS]


def class_names(tree: lxml.html.HtmlElement, deadline: Deadline) -> list[str]:
    """Class and id values in document order (``//@class|//@id``): the first
    :data:`_MAX_NAMES` of them (among the first :data:`MAX_SCANNED` elements, on a page
    of very many classes and ids)."""
    if _NAMES_WORK(tree) <= _NAMES_UNION_LIMIT:
        names: list[str] = _NAMES(tree)[:_MAX_NAMES]
        return names
    return walk_class_names(tree, deadline)


def walk_class_names(tree: lxml.html.HtmlElement, deadline: Deadline) -> list[str]:
    """:func:`class_names` by walking the first :data:`MAX_SCANNED` elements."""
    names: list[str] = []
    for element in islice(tree.iter(etree.Element), MAX_SCANNED):
        deadline.tick()
        names += [value for key, value in element.items() if key in ("class", "id")]
        if len(names) >= _MAX_NAMES:
            break
    return names[:_MAX_NAMES]


def absolute(base: str, href: str) -> str:
    """``href`` resolved against ``base``; absolute http(s) links are kept as they are
    (urljoin costs more than everything else done per link)."""
    if href.startswith(("https://", "http://", "mailto:", "tel:")):
        return href
    try:
        return urljoin(base, href)
    except ValueError:
        return href  # "//[x": not an address (urllib raises), read as written
