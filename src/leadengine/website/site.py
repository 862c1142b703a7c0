"""One website as the evaluator sees it: fetched, extracted, with its signals."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import lxml.html

from leadengine.config import Settings
from leadengine.website.category import Category, CategoryClues, classify
from leadengine.website.extract import (
    Deadline,
    Extracted,
    drop_invisible,
    extract,
    page_content,
    parse_html,
    text_nodes,
)
from leadengine.website.facts import headings_of, json_ld_types
from leadengine.website.fetch import Page
from leadengine.website.injection import find_injections, strip_injections
from leadengine.website.language import detect_language, page_languages
from leadengine.website.location import (
    EDGE_NODES,
    PageClues,
    SiteLocation,
    page_clues,
    read_location,
)
from leadengine.website.naming import NameHints, name_candidates, name_hints, pick_name
from leadengine.website.phones import is_placeholder, normalise_phones, site_region, split_range
from leadengine.website.signals import Signals, markup_signals, merge_signals, text_signals
from leadengine.website.site_kind import SiteKind, site_kind

#: CPU seconds (of the reading thread) one page may take to parse and read; past it the
#: page fails with "page too complex to read" (the homepage fails the site, a subpage is
#: left out). Reading runs on the event loop, so a batch's other rows wait meanwhile: a
#: page of 100,000 links took 12.5 s before links were capped, 0.6 s since. The 2 MB
#: fixture page reads in 0.3 s, every hostile shape tried up to the 5 MB byte cap in
#: under 1.5 s (tests/test_link_heavy.py).
PAGE_CPU_SECONDS = 2.0

#: Signals listed in the "Detected signals" block, with their labels.
_SIGNAL_LABELS = {
    "facebook_link": "Facebook page linked",
    "facebook_only": "Facebook-only presence",
    "messaging_link": "messaging app link (LINE/Viber/WhatsApp/Messenger)",
    "contact_form": "lead capture / contact form",
    "online_booking": "online booking",
    "ecommerce": "online shop / cart",
    "own_domain_email": "email on own domain",
    "mobile_viewport": "mobile viewport",
    "https": "HTTPS",
}
_TRACKER_LABELS = {
    "google_analytics": "Google Analytics", "google_tag_manager": "Google Tag Manager",
    "meta_pixel": "Meta Pixel", "tiktok_pixel": "TikTok Pixel", "hotjar": "Hotjar",
    "clarity": "Microsoft Clarity",
}


@dataclass(frozen=True)
class Site:
    """A fetched business website: its pages, their text, the site's signals."""

    #: The homepage (the address asked for).
    page: Page
    #: The homepage's text.
    extracted: Extracted
    #: Signals of all pages read, merged.
    signals: Signals
    #: The text the retriever and the evaluator read: page texts + detected signals.
    content: str
    #: The page texts alone (``content`` without the signals block).
    text: str = ""
    #: The detected-signals block that ends ``content`` (:func:`signals_block`).
    signals_text: str = ""
    #: Addresses of every page read, homepage first.
    pages: tuple[str, ...] = ()
    #: Subpages that could not be read, with the reason.
    failed_pages: tuple[str, ...] = ()
    #: The homepage's language (ISO 639-1: en, th, my, ja...; "und" when it cannot tell).
    language: str = "und"
    #: The languages of the pages read, homepage's first.
    languages: tuple[str, ...] = ()
    #: Per page read: url, title, language, characters of HTML.
    page_info: tuple[dict[str, object], ...] = ()
    #: Sentences addressed to an AI (prompt injection), removed from ``text``/``content``.
    injections: tuple[str, ...] = ()
    #: What the homepage's markup says the business is called (logo, brand, h1...).
    name_hints: NameHints = field(default_factory=NameHints)
    #: Where the business is (:mod:`leadengine.website.location`).
    location: SiteLocation = field(default_factory=SiteLocation)
    #: What kind of business it is (:mod:`leadengine.website.category`).
    category: Category = field(default_factory=lambda: Category("other", 0.0, "not read"))
    #: What kind of site it is: one business, a directory, a profile on a platform...
    #: (:mod:`leadengine.website.site_kind`).
    kind: SiteKind = field(default_factory=lambda: SiteKind("business", "not read"))
    #: Per page read: its address and its visible text nodes (footers and opening hours
    #: included, which the main text leaves out), kept for :attr:`passages`.
    page_nodes: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @cached_property
    def passages(self) -> tuple[tuple[str, str], ...]:
        """Per page read: (its address, its visible text, one text node a line, at most
        :data:`MAX_PASSAGE` characters, without sentences addressed to an AI): what
        questions are answered from. Built on first use: a run without questions
        never pays for it."""
        return tuple((url, page_passage(nodes)) for url, nodes in self.page_nodes)

    def business_name(self) -> tuple[str, str, list[str]]:
        """(name, where it was read, warnings for candidates passed over because they
        address an AI): see :mod:`leadengine.website.naming`."""
        host = self.page.final_url.split("//")[-1].split("/")[0].removeprefix("www.")
        host = host.rsplit("@", 1)[-1].split(":")[0] if not host.startswith("[") else host
        return pick_name(name_candidates(
            str(self.signals.business.get("name") or ""), self.extracted.site_name,
            self.extracted.title, self.name_hints, host))

    def warnings(self) -> list[str]:
        """What the evaluation could not see: unread subpages, a page cut at the byte cap."""
        notes = [f"possible prompt injection removed before evaluation: {quote[:200]!r}"
                 for quote in self.injections]
        notes += [f"subpage not read: {reason}" for reason in self.failed_pages]
        if self.page.truncated:
            notes.append(f"{self.page.url}: page larger than the byte cap; only its start "
                         "was read")
        return notes


@dataclass(frozen=True)
class PageRead:
    """One fetched page, read: its text, signals and visible text nodes."""

    page: Page
    extracted: Extracted
    signals: Signals
    #: Visible text nodes of the DOM (contacts and hidden text live there too).
    nodes: list[str]
    #: The ``<html lang>`` attribute, or "".
    html_lang: str
    #: What the markup says the business is called.
    name_hints: NameHints = field(default_factory=NameHints)
    #: What the page says about where the business is (JSON-LD, address text, maps).
    location_clues: PageClues | None = None
    #: The page's JSON-LD ``@type`` values and h1-h3 headings (what it says it is).
    json_ld_types: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    #: How many businesses its JSON-LD lists (:func:`~leadengine.website.facts.json_ld_types`).
    json_ld_listed: int = 0


def read_page(page: Page, tree: lxml.html.HtmlElement | None = None, *,
              deadline: Deadline | None = None,
              cpu_seconds: float | None = None) -> PageRead:
    """Read ``page`` (parsed as ``tree`` if the caller has it, which this consumes):
    everything taken from the DOM first, then the main text.

    ContentError if it takes more than ``cpu_seconds`` (default
    :data:`PAGE_CPU_SECONDS`) of CPU, counted from ``deadline``'s start if given (a
    caller that parsed the page or picked its links first), else from now.
    """
    if deadline is None:
        deadline = page_deadline(page, cpu_seconds)
    if tree is None:
        tree = parse_html(page.html)
    deadline.tree = tree
    deadline.check()
    signals = markup_signals(tree, page.final_url, deadline)
    html_lang = _html_lang(tree)
    found_types, listed = json_ld_types(tree)
    types = tuple(found_types)
    # JSON-LD is script: read before the invisible elements are dropped.
    clues = page_clues(tree, [], page.final_url)
    drop_invisible(tree)
    nodes = text_nodes(tree)
    deadline.check()
    signals = text_signals(signals, tree, nodes)
    hints = name_hints(tree, nodes)
    headings = tuple(headings_of(tree))
    clues = replace(clues, nodes=tuple(nodes if len(nodes) <= 2 * EDGE_NODES else
                                       nodes[:EDGE_NODES] + nodes[-EDGE_NODES:]))
    deadline.check()
    extracted = extract(page, tree, nodes, deadline)
    # Trafilatura cannot be stopped midway: a read it took past the budget fails here,
    # so no page is accepted after more than its CPU budget.
    deadline.check()
    return PageRead(page=page, extracted=extracted,
                    signals=signals, nodes=nodes, html_lang=html_lang, name_hints=hints,
                    json_ld_types=types, headings=headings, location_clues=clues,
                    json_ld_listed=listed)


def page_deadline(page: Page, cpu_seconds: float | None = None) -> Deadline:
    """The CPU budget of reading ``page``, starting now."""
    return Deadline(page.url, PAGE_CPU_SECONDS if cpu_seconds is None else cpu_seconds)


def site_from_page(page: Page, settings: Settings | None = None, *,
                   cpu_seconds: float | None = None,
                   tree: lxml.html.HtmlElement | None = None) -> Site:
    """A site of one already fetched page (no crawl; parsed as ``tree`` if the caller
    has it, which this consumes); ContentError if reading it takes more than
    ``cpu_seconds`` of CPU (default :data:`PAGE_CPU_SECONDS`)."""
    return assemble_site([read_page(page, tree, cpu_seconds=cpu_seconds)],
                         settings or Settings(), [])


def assemble_site(parts: list[PageRead], settings: Settings, failed: list[str]) -> Site:
    """Merge the pages read into one site: content in page order, signals merged."""
    signals = merge_signals([part.signals for part in parts])
    home = parts[0]
    text, injections = strip_injections(
        page_content([part.extracted for part in parts], settings.max_content_chars))
    # Hidden text (display:none) never reaches the evaluator, but is reported too.
    for part in parts:
        injections += find_injections("\n".join(part.nodes))
    page_langs = [detect_language(_page_text(p), p.html_lang) for p in parts]
    language = page_langs[0]
    location = _locate(parts, signals, home.page.final_url, language)
    block = signals_block(signals)
    content = text + "\n\n" + block
    info = tuple({"url": p.page.final_url, "title": p.extracted.title,
                  "chars": len(p.page.html), "language": lang,
                  "truncated": p.page.truncated} for p, lang in zip(parts, page_langs,
                                                                   strict=True))
    site = Site(page=home.page, extracted=home.extracted, signals=signals, content=content,
                text=text, signals_text=block.strip(),
                pages=tuple(p.page.final_url for p in parts),
                failed_pages=tuple(failed), language=language,
                languages=tuple(page_languages(page_langs)),
                page_info=info, injections=tuple(dict.fromkeys(injections)),
                name_hints=home.name_hints, location=location,
                page_nodes=tuple((p.page.final_url, tuple(p.nodes)) for p in parts))
    name = site.business_name()[0]
    kinds = tuple(dict.fromkeys(str(s.get("segment") or s["kinds"][0])
                                for s in signals.services))
    category = classify(CategoryClues(
        json_ld_types=tuple(dict.fromkeys(t for p in parts for t in p.json_ld_types)),
        name=name if name != "Unknown business" else "", title=home.extracted.title,
        description=home.extracted.description,
        headings=tuple(h for p in parts for h in p.headings), text=text,
        service_kinds=kinds))
    kind = site_kind(home.page.final_url, home.extracted.title, home.extracted.description,
                     home.headings, home.json_ld_types,
                     max(p.json_ld_listed for p in parts), len(signals.phones),
                     bool(signals.flags.get("ecommerce")),
                     business=bool(signals.business.get("name")))
    return replace(site, category=category, kind=kind)


#: Most characters of a page's visible text kept for answering questions.
MAX_PASSAGE = 30_000


def page_passage(nodes: Sequence[str]) -> str:
    """A page's visible text, a text node a line (blank ones dropped), without the
    sentences addressed to an AI."""
    lines = [" ".join(node.split()) for node in nodes]
    text = "\n".join(line for line in lines if line)[:MAX_PASSAGE]
    return strip_injections(text)[0] if find_injections(text) else text


def _page_text(part: PageRead) -> str:
    """What a page's language is read from: its title and main text, else (a page the
    extractor finds no main text in) its visible text nodes."""
    text = part.extracted.title + "\n" + part.extracted.text
    if len(part.extracted.text) < 200:
        text += "\n" + "\n".join(part.nodes)[:20_000]
    return text


def _locate(parts: list[PageRead], signals: Signals, url: str, language: str
            ) -> SiteLocation:
    """Where the business is; the site's phones put in E.164 on the way (read in the
    country the pages name, which the phones' area codes may then place in a city).
    The street address found becomes the site's ``address``."""
    clues = [p.location_clues for p in parts if p.location_clues is not None]
    raw = (list(signals.phones), list(signals.placeholder_phones))
    region = canonical_phones(signals, url, language)
    # Read once (its text scan is the cost): with the phones read in the country the site
    # shows so far, which the address may then correct.
    location = read_location(clues, signals.phones, url, language)
    if location.country and location.country.value != region:
        signals.phones, signals.placeholder_phones = list(raw[0]), list(raw[1])
        canonical_phones(signals, url, language, location.country.value)
    street = location.street_address.value if location.street_address else ""
    signals.address = street
    signals.flags["address"] = bool(street)
    signals.evidence.pop("address", None)
    if street:
        signals.evidence["address"] = (f"{street} ({location.street_address.evidence})"
                                       if location.street_address else street)[:200]
    return location


def canonical_phones(signals: Signals, url: str, language: str,
                     country: str | None = None) -> str | None:
    """The site's phones in E.164, de-duplicated, read in the site's country (which is
    returned; ``country`` when the caller knows it better); the strings as the site
    wrote them stay in the evidence."""
    raw = [number for text in signals.phones for number in split_range(text)]
    # A number the JSON-LD gives as the business's tax or registration number is that,
    # wherever else the page writes it ("Registration 0105560145831" in a badge).
    ids = {digits for value in signals.business.get("identifiers") or ()
           if len(digits := re.sub(r"\D", "", str(value))) >= 6}
    raw = [text for text in raw if re.sub(r"\D", "", text) not in ids]
    placeholders = [text for text in raw if is_placeholder(text)]
    raw = [text for text in raw if text not in placeholders]
    # "(000) 000-0000" is found whole as a placeholder and in part ("000-0000") as a
    # phone: the part is not listed again.
    placeholders = [p for p in placeholders if not any(
        p != q and p in q for q in signals.placeholder_phones)]
    signals.placeholder_phones = list(dict.fromkeys(signals.placeholder_phones + placeholders))
    region = site_region(url, language, signals.address,
                         str(signals.business.get("country") or country or ""), raw)
    signals.phones, written = normalise_phones(raw, region)
    signals.flags["phone"] = bool(signals.phones)
    signals.evidence.pop("phone", None)
    if written:
        signals.evidence["phone"] = ", ".join(written[:3])[:200]
    return region


def _html_lang(tree: lxml.html.HtmlElement) -> str:
    values = tree.xpath("/html/@lang")
    return str(values[0]) if values else ""


def signals_block(signals: Signals) -> str:
    """A compact, factual summary of the signals, appended to the website content."""
    present = [label for name, label in _SIGNAL_LABELS.items() if signals[name]]
    absent = [label for name, label in _SIGNAL_LABELS.items()
              if not signals[name] and name not in ("facebook_only",)]
    trackers = [label for name, label in _TRACKER_LABELS.items() if signals[name]]
    lines = ["Detected signals:",
             f"- Present: {', '.join(present) or 'none'}",
             f"- Not found: {', '.join(absent) or 'none'}",
             f"- Tracking scripts: {', '.join(trackers) or 'no tracking scripts detected'}"]
    if signals.unknown:
        unknown = [_TRACKER_LABELS[name] for name in signals.unknown if name in _TRACKER_LABELS]
        lines.append(f"- Unknown (may load inside Google Tag Manager): {', '.join(unknown)}")
    if signals.social:
        lines.append("- Social/messaging: " + ", ".join(sorted(signals.social)))
    return "\n".join(lines)
