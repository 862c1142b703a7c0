"""Reading a directory's listing page: its businesses and its next page (a detail
page's website: :mod:`leadengine.website.detail_page`; its phones and address are read
as any page's: :func:`leadengine.website.site.site_from_page`).

A listing's businesses are found three ways, merged by address:

* schema.org ``ItemList`` JSON-LD (``itemListElement``: each ``ListItem``'s ``url`` or
  ``item``), which may list more than the page shows;
* the page's repeated structures: every link to another page of the directory is
  grouped by where it sits (the tags and classes of its three nearest containers: a
  card's ``div.card > h3 > a``, a table's ``tr > td > a``, a list's ``ul > li > a``), and
  the group with the most different pages is the listing (others of at least half its
  size, in the same container, join it: a card's name, image and "View details" links);
* links inside the page's chrome (nav, header, footer, aside, forms, breadcrumbs,
  pagination, ads, share and social widgets, by tag, role or class) and links to the
  directory's own pages (login, about, contact, add or claim a listing, categories, tags,
  search) are never businesses.

A business's name is the most telling text of its links (not "View details" or an
image), else the heading of its container. A detail page's website is read by
:mod:`leadengine.website.detail_page`.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import lxml.html

from leadengine.website.facts import MAX_JSON_LD_ITEMS, _json_ld_blocks

#: Class and id words of page chrome (split at -, _ and spaces).
CHROME_WORDS = frozenset({
    "nav", "navbar", "navigation", "menu", "footer", "header", "sidebar", "breadcrumb",
    "breadcrumbs", "pagination", "pager", "paging", "ad", "ads", "advert", "advertisement",
    "sponsored", "sponsor", "banner", "leaderboard", "widget", "share", "sharing", "social",
    "newsletter", "subscribe", "promo", "cookie", "modal", "toolbar", "topbar", "filters",
    "filter", "tags", "chips", "toc"})
CHROME_TAGS = frozenset({"nav", "header", "footer", "aside", "form", "button"})
#: Paths of a directory's own pages (whole path segments, before any extension).
OWN_PAGES = re.compile(
    r"(?:^|/)(?:login|log-in|signin|sign-in|register|signup|sign-up|account|about|about-us|"
    r"contact|contact-us|privacy|terms|cookies|faq|help|advertise|add|add-listing|"
    r"add-business|add-your-business|submit|claim|report|search|category|categories|tag|"
    r"tags|author|blog|news|sitemap|feed|cart|checkout|go|redirect|out)(?:[./?#]|$)", re.I)
#: Link texts that name no business.
GENERIC_TEXT = re.compile(
    r"^(?:view|more|details?|view details|see details|read more|more info|learn more|visit|"
    r"open|book|book now|website|ดูรายละเอียด|รายละเอียด|อ่านต่อ|ดูเพิ่มเติม|"
    r"အသေးစိတ်|ဆက်ဖတ်ရန်|»|›|→)\W*$", re.I)
#: A next-page link's text.
NEXT_TEXT = re.compile(r"^(?:next|next page|older|more results|ถัดไป|หน้าถัดไป|"
                       r"နောက်|နောက်စာမျက်နှာ|နောက်တစ်မျက်နှာ)?\s*[»›>→]*\s*$", re.I)
@dataclass(frozen=True)
class Entry:
    """A business a listing names: its name and its page on the directory."""

    name: str
    detail: str


@dataclass(frozen=True)
class Listing:
    """What a listing page lists, and its next page (None: the last)."""

    entries: tuple[Entry, ...]
    next_page: str | None


def domain(url: str) -> str:
    """The host of ``url`` without ``www.`` (how two addresses of one site compare)."""
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")


def _words(element: lxml.html.HtmlElement) -> set[str]:
    names = f"{element.get('class') or ''} {element.get('id') or ''}".lower()
    return set(re.split(r"[\s_-]+", names)) - {""}


def in_chrome(element: lxml.html.HtmlElement, sidebar: bool = False) -> bool:
    """Whether ``element`` sits in the page's chrome (nav, footer, ads, share...). A
    <header> or <footer> of an <article> or <main> is the listing's own, not chrome;
    with ``sidebar``, an <aside> or a sidebar is not chrome either (a detail page's
    "Operator website" box)."""
    nodes = (element, *element.iterancestors())
    for place, node in enumerate(nodes):
        tag = node.tag if isinstance(node.tag, str) else ""
        if sidebar and (tag == "aside" or node.get("role") == "complementary"
                        or "sidebar" in _words(node)):
            continue
        if tag in ("header", "footer") and any(n.tag in ("article", "main")
                                               for n in nodes[place + 1:]):
            continue  # an article's header (inside it), not the page's
        if tag in CHROME_TAGS or node.get("role") in ("navigation", "banner", "contentinfo",
                                                      "search", "complementary"):
            return True
        if _words(node) & (CHROME_WORDS - _SIDEBAR_WORDS if sidebar else CHROME_WORDS):
            return True
    return False


#: A sidebar's words: its boxes are the listing's own on a detail page.
_SIDEBAR_WORDS = frozenset({"sidebar", "widget"})


def element_text(element: lxml.html.HtmlElement) -> str:
    return " ".join(element.text_content().split())


def _signature(anchor: lxml.html.HtmlElement) -> tuple[str, ...]:
    """Where a link sits: its three nearest containers' tags and first class word."""
    parts = []
    for node in anchor.iterancestors():
        if not isinstance(node.tag, str) or node.tag in ("html", "body"):
            break
        # The first class as the template writes it ("listing-card"), not one that
        # names the item's category or number ("job_listing_category-bakery-cafe").
        classes = [c for c in (node.get("class") or "").lower().split()
                   if not any(ch.isdigit() for ch in c)]
        first = re.split(r"[_-]+", classes[0])[0] if classes else ""
        parts.append(f"{node.tag}.{first}" if first else node.tag)
        if len(parts) == 3:
            break
    return tuple(parts)


def _container(anchor: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The item a link belongs to: its nearest li, tr, article, dt/dd, or div/section
    holding a heading."""
    for node in anchor.iterancestors():
        if node.tag in ("li", "tr", "article", "dt", "dd"):
            return node
        if node.tag in ("div", "section") and (node.find(".//h2") is not None
                                               or node.find(".//h3") is not None):
            return node
    return anchor


def json_ld_nodes(tree: lxml.html.HtmlElement) -> Iterator[object]:
    """The page's JSON-LD documents (the scripts the page reader scans, as many)."""
    for block in _json_ld_blocks(tree):
        try:
            yield json.loads(block)
        except (ValueError, RecursionError):  # nested past the decoder's stack
            continue


def walk_json(data: object) -> Iterator[dict[str, object]]:
    """Every object of a JSON-LD document, nested ones too, in document order (the
    first :data:`MAX_JSON_LD_ITEMS`; a loop, not recursion: a hostile page nests
    deeper than Python's stack)."""
    stack, seen = [data], 0
    while stack and seen < MAX_JSON_LD_ITEMS:
        value = stack.pop()
        if isinstance(value, dict):
            seen += 1
            yield value
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))


def _item_list(tree: lxml.html.HtmlElement, base: str) -> list[Entry]:
    """The ``ItemList`` entries of the page's JSON-LD."""
    found = []
    for data in json_ld_nodes(tree):
        for node in walk_json(data):
            if "ItemList" not in str(node.get("@type")):
                continue
            items = node.get("itemListElement")
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, dict):
                    continue
                inner = item.get("item")
                url = item.get("url") or (inner.get("url") or inner.get("@id")
                                          if isinstance(inner, dict) else inner)
                name = item.get("name") or (inner.get("name") if isinstance(inner, dict)
                                            else "")
                if isinstance(url, str) and url.strip():
                    found.append(Entry(str(name or "").strip(), urljoin(base, url.strip())))
    return found


def clean_url(url: str) -> str:
    """``url`` without its fragment and tracking parameters."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if not k.lower().startswith("utm_") and k.lower() not in ("fbclid", "gclid")]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def read_listing(html: str, url: str) -> Listing:
    """The businesses a listing page lists, and its next page."""
    tree = lxml.html.fromstring(html or "<html></html>")
    base = urljoin(url, tree.findtext(".//base[@href]") or "")
    host = domain(url)
    groups: dict[tuple[str, ...], dict[str, list[lxml.html.HtmlElement]]] = defaultdict(
        lambda: defaultdict(list))
    for anchor in tree.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith(("#", "mailto:", "tel:", "javascript:")):
            continue
        target = clean_url(urljoin(base, href))
        if domain(target) != host or _facet(target, url):
            continue  # this page again: itself, or filtered, sorted ("./?area=old-city")
        if in_chrome(anchor) or (OWN_PAGES.search(urlsplit(target).path)
                                 and not _gated(target)):
            continue
        if NEXT_TEXT.match(element_text(anchor)) and element_text(anchor):
            continue
        groups[_signature(anchor)][target].append(anchor)
    chosen = _listing_group(groups)
    entries = {e.detail: e for e in _item_list(tree, base)}
    for target, anchors in chosen.items():
        if target not in entries or not entries[target].name:
            entries[target] = Entry(_name(anchors), target)
    return Listing(tuple(entries.values()), _next_page(tree, base, url, host))


def _gated(target: str) -> bool:
    """A directory page behind its login (``login.html?next=detail/x.html``): still a
    business's link (its page says why it cannot be read)."""
    query = dict(parse_qsl(urlsplit(target).query))
    after = query.get("next") or query.get("redirect") or query.get("return") or ""
    return bool(after) and not after.startswith(("http:", "https:", "//")) \
        and re.search(r"login|signin|sign-in|log-in", urlsplit(target).path, re.I) is not None


def _listing_group(groups: dict[tuple[str, ...], dict[str, list[lxml.html.HtmlElement]]]
                   ) -> dict[str, list[lxml.html.HtmlElement]]:
    """The links of the largest group of links to different pages (at least 2), with
    those of groups sharing its items (a card's image and "View details" links)."""
    if not groups:
        return {}
    best = max(groups.values(), key=len)
    if len(best) < 2:
        return {}
    merged: dict[str, list[lxml.html.HtmlElement]] = {t: list(a) for t, a in best.items()}
    for group in groups.values():
        if group is best:
            continue
        shared = len(set(group) & set(best))
        if shared and shared >= len(group) / 2:
            for target, anchors in group.items():
                merged.setdefault(target, []).extend(anchors)
    return merged


def _name(anchors: list[lxml.html.HtmlElement]) -> str:
    """A business's name from its links: the longest telling text, else the heading of
    the item they are in."""
    texts = [element_text(a) for a in anchors]
    telling = [t for t in texts if t and not GENERIC_TEXT.match(t) and len(t) <= 120]
    if telling:
        return max(telling, key=lambda t: (len(t.split()) <= 12, len(t)))
    container = _container(anchors[0])
    for tag in ("h2", "h3", "h4", "strong", "b"):
        heading = container.find(f".//{tag}")
        if heading is not None and element_text(heading):
            return element_text(heading)
    return texts[0] if texts else ""


def _facet(target: str, url: str) -> bool:
    """Whether ``target`` is the listing itself again: this page, or this page or the
    list it belongs to (an ancestor folder) filtered or sorted by a query."""
    page, here = _page_of(target), _page_of(url)
    if page == here:
        return True
    return "?" in target and here.startswith(page) and page.endswith("/")


def _page_of(url: str) -> str:
    """A page's address without its query and an index file's name."""
    path = url.split("?")[0].split("#")[0]
    return re.sub(r"/(?:index|default)\.(?:html?|php|aspx?)$", "/", path)


def _next_page(tree: lxml.html.HtmlElement, base: str, url: str, host: str) -> str | None:
    for link in tree.iter("link", "a"):
        rel = (link.get("rel") or "").lower().split()
        href = (link.get("href") or "").strip()
        if not href:
            continue
        text = element_text(link) if link.tag == "a" else ""
        title = (link.get("aria-label") or link.get("title") or "").strip()
        if "next" in rel or (link.tag == "a" and text and NEXT_TEXT.match(text)) or (
                title and NEXT_TEXT.match(title.lower()) and title):
            target = clean_url(urljoin(base, href))
            if domain(target) == host and target != url:
                return target
    return None


# -- a detail page's website ----------------------------------------------------------------


def common(values: Iterable[Iterable[str]], pages: int) -> set[str]:
    """What several pages of one directory all show (its own phone, its ads): values on
    at least three pages and a third of them."""
    counts: dict[str, int] = defaultdict(int)
    for found in values:
        for value in set(found):
            counts[value] += 1
    floor = max(3, pages / 3)
    return {value for value, count in counts.items() if count >= floor}

