"""A directory's detail page: the link to the business's own website. An external link
labelled as one (Website, Visit website, an icon button titled "Website", เว็บไซต์,
ဝက်ဘ်ဆိုက်, or under a box heading "Operator website"), the JSON-LD ``url``, a redirect
link (``go.html?url=...``) unwrapped, or a web address written as text; social, share,
map, booking-platform, sponsored and ad links are never it, ``utm_`` parameters are
dropped. A labelled link may sit in the listing's sidebar box; unlabelled ones there are
the directory's."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urljoin, urlsplit

import lxml.html

from leadengine.website.directory import (
    clean_url,
    domain,
    element_text,
    in_chrome,
    json_ld_nodes,
    walk_json,
)
from leadengine.website.signal_rules import MESSAGING, SOCIAL_HOSTS

#: Hosts of map, booking-platform, delivery, ad and other sites that are never a
#: business's own website (social networks and messaging apps: the page reader's lists).
PLATFORMS = (
    "google.com", "goo.gl", "g.page", "maps.app.goo.gl", "tripadvisor.com", "agoda.com",
    "booking.com", "klook.com", "expedia.com", "airbnb.com", "doubleclick.net",
    "googlesyndication.com", "grab.com", "foodpanda.co.th", "foodpanda.com", "wongnai.com",
    "mailchimp.com", "list-manage.com", "apple.com", "wikipedia.org", "gstatic.com",
    "bit.ly", "pinterest.com", "messenger.com")
NOT_A_WEBSITE = frozenset((*SOCIAL_HOSTS, *MESSAGING, *PLATFORMS))
#: Country variants of the platforms (google.co.th, tripadvisor.com.sg...).
_PLATFORM_NAMES = re.compile(r"(?:^|\.)(?:google|tripadvisor|expedia|airbnb|foodpanda)"
                             r"\.[a-z.]+$")


def not_a_website(host: str) -> bool:
    """Whether ``host`` is a social, messaging, map, booking or ad site."""
    return _PLATFORM_NAMES.search(host) is not None or any(
        host == known or host.endswith("." + known) for known in NOT_A_WEBSITE)


#: Labels of a link to the business's own site.
WEBSITE_LABEL = re.compile(r"website|web site|visit|official site|homepage|site|"
                           r"เว็บไซต์|เว็บ|ဝက်ဘ်ဆိုက်|ဝဘ်ဆိုက်|ဝက်ဆိုက်", re.I)
_DOMAIN_TEXT = re.compile(
    r"(?<![@\w.])(?:https?://)?(?:www\.)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*"
    r"\.(?:com|net|org|biz|info|co|th|mm|asia|io|shop|store|site|online)(?:\.[a-z]{2})?"
    r"(?:/[^\s<>\"']*)?(?![\w.])", re.I)


def _unwrapped(target: str, host: str) -> str | None:
    """A redirect link's destination (``go.html?url=https://...``), else None."""
    if domain(target) != host:
        return None
    for _, value in parse_qsl(urlsplit(target).query):
        if value.startswith(("http://", "https://")) and domain(value) != host:
            return value
    return None


def _is_website(url: str, host: str) -> bool:
    site = domain(url)
    return bool(site) and site != host and not not_a_website(site) \
        and urlsplit(url).scheme in ("http", "https")


def website_candidates(tree: lxml.html.HtmlElement, url: str, listing_host: str = ""
                       ) -> list[str]:
    """The addresses a detail page (parsed as ``tree``, left as it is) gives as the
    business's own website, best first: labelled links, the JSON-LD ``url``, other
    external links in the content, then web addresses written as text (social, share,
    map, booking and ad links never)."""
    host = listing_host or domain(url)
    labelled: list[str] = []
    plain: list[str] = []
    written: list[str] = []
    for node in walk_json(list(json_ld_nodes(tree))):
        site = node.get("url")
        if isinstance(site, str) and "ItemList" not in str(node.get("@type")) \
                and _is_website(site, host):
            labelled.append(clean_url(site))
    for anchor in tree.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href:
            continue
        target = urljoin(url, href)
        target = _unwrapped(target, host) or target
        if not _is_website(target, host) or "sponsored" in (anchor.get("rel") or ""):
            continue
        label = " ".join([element_text(anchor), anchor.get("title") or "",
                          anchor.get("class") or "", anchor.get("aria-label") or "",
                          _label_before(anchor), _heading_before(anchor)])
        said = WEBSITE_LABEL.search(label) or _DOMAIN_TEXT.fullmatch(element_text(anchor))
        # A labelled link may sit in the listing's sidebar box ("Operator website").
        if in_chrome(anchor, sidebar=bool(said)):
            continue
        (labelled if said else plain).append(clean_url(target))
    for node in tree.iter("p", "li", "dd", "td", "span", "div"):
        if not _DOMAIN_TEXT.search(node.text or "") and not (
                node.tag in ("td", "dd") and _DOMAIN_TEXT.search(element_text(node))):
            continue
        if not WEBSITE_LABEL.search(_label_of(node)) or in_chrome(node):
            continue
        written += _addresses(element_text(node), host)
    # "<span>Website</span> www.example.co.th": the address is the label's tail.
    for label in tree.iter("span", "b", "strong", "label", "em", "i", "small"):
        if label.tail and _DOMAIN_TEXT.search(label.tail) and WEBSITE_LABEL.search(
                element_text(label)) and not in_chrome(label):
            written += _addresses(label.tail, host)
    return list(dict.fromkeys([*labelled, *plain, *written]))


def _addresses(text: str, host: str) -> list[str]:
    """The web addresses written in ``text`` that may be a business's website."""
    found = (w if w.startswith("http") else "https://" + w for w in _DOMAIN_TEXT.findall(text))
    return [clean_url(address) for address in found if _is_website(address, host)]


def _label_of(node: lxml.html.HtmlElement) -> str:
    """What labels a value written as text: the text before it in its element, the
    element before it (a table's <th>, a list's <dt>), its parent's first words."""
    before = node.getprevious()
    parent = node.getparent()
    return " ".join([(node.text or "")[:60],
                     element_text(before)[:40] if before is not None else "",
                     (parent.text or "")[:40] if parent is not None else ""])


def _heading_before(anchor: lxml.html.HtmlElement) -> str:
    """What titles the box a link is in: the element before its parent (an <h3>
    "Operator website", a <dt> before its <dd>)."""
    parent = anchor.getparent()
    before = parent.getprevious() if parent is not None else None
    return element_text(before)[:40] if before is not None and before.tag in (
        "h2", "h3", "h4", "h5", "h6", "dt", "th", "label", "strong", "b") else ""


def _label_before(anchor: lxml.html.HtmlElement) -> str:
    """The text just before a link in its parent (a "Website:" label)."""
    parent = anchor.getparent()
    if parent is None:
        return ""
    before = parent.text or ""
    for sibling in parent:
        if sibling is anchor:
            break
        before += element_text(sibling) + (sibling.tail or "")
    return before[-40:]


