"""Digital-maturity signals read from a page's raw DOM, each with its evidence.

The text of a page cannot show tracking scripts, forms or where its contact
links go, so these come from the markup: script and iframe sources, links,
forms and meta tags. The rule set is small and our own: vendor host names and
URL patterns, not a fingerprint database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import lxml.html

from leadengine.website.channels import (
    MESSAGING_APPS,
    booking_links,
    channel_flags,
    is_profile_link,
    messaging_bookings,
)
from leadengine.website.extract import Deadline, text_nodes
from leadengine.website.facts import json_ld_business, sources_of
from leadengine.website.forms import LEAD_PURPOSES, forms_of
from leadengine.website.markup import (
    absolute,
    action_texts,
    class_names,
    element_sources,
    inline_scripts,
    links_of,
    page_links,
    viewport_of,
)
from leadengine.website.phone_text import phones_in_text, placeholders_in_text
from leadengine.website.services import ServiceHit, find_services
from leadengine.website.signal_rules import CALL_TO_ACTION as CALL_TO_ACTION
from leadengine.website.signal_rules import CHAT as CHAT
from leadengine.website.signal_rules import ECOMMERCE as ECOMMERCE
from leadengine.website.signal_rules import EMAIL as EMAIL
from leadengine.website.signal_rules import FREE_WEBMAIL as FREE_WEBMAIL
from leadengine.website.signal_rules import MAX_CONTACTS as MAX_CONTACTS
from leadengine.website.signal_rules import MESSAGING as MESSAGING
from leadengine.website.signal_rules import MESSAGING_SCHEMES as MESSAGING_SCHEMES
from leadengine.website.signal_rules import PAYMENT as PAYMENT
from leadengine.website.signal_rules import PHONE as PHONE
from leadengine.website.signal_rules import PLATFORM_HOSTS as PLATFORM_HOSTS
from leadengine.website.signal_rules import SOCIAL_HOSTS as SOCIAL_HOSTS
from leadengine.website.signal_rules import TRACKERS as TRACKERS
from leadengine.website.signal_rules import Rule as Rule
from leadengine.website.signal_rules import email_kind as email_kind
from leadengine.website.signal_rules import find_emails as find_emails


@dataclass
class Signals:
    """Boolean signals and, for those that hold, the evidence (a URL or snippet)."""

    flags: dict[str, bool] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    social: dict[str, str] = field(default_factory=dict)
    phones: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    #: Trackers that may be loaded inside Google Tag Manager: not seen, not known absent.
    unknown: list[str] = field(default_factory=list)
    address: str = ""
    business: dict[str, Any] = field(default_factory=dict)
    forms: list[dict[str, Any]] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    iframes: list[str] = field(default_factory=list)
    #: The page itself is on Facebook (a page URL given as the "website").
    platform_host: bool = False
    #: Third-party services the pages use (:meth:`ServiceHit.as_dict`), first seen first.
    services: list[dict[str, Any]] = field(default_factory=list)
    #: Phones and e-mails that are template leftovers ("08x-xxx-xxxx", info@example.com).
    placeholder_phones: list[str] = field(default_factory=list)
    placeholder_emails: list[str] = field(default_factory=list)

    def note(self, name: str, value: bool, evidence: str = "") -> None:
        """Raise flag ``name`` if ``value`` holds; a flag once raised stays raised (the
        values are ORed), and its first evidence is kept."""
        self.flags[name] = self.flags.get(name, False) or value
        if value and evidence and name not in self.evidence:
            self.evidence[name] = evidence[:200]

    def __getitem__(self, name: str) -> bool:
        return self.flags.get(name, False)

    def as_dict(self) -> dict[str, object]:
        return {**self.flags, "unknown": list(self.unknown), "evidence": dict(self.evidence),
                "social": dict(self.social), "phones": list(self.phones),
                "emails": list(self.emails)}


def detect_signals(tree: lxml.html.HtmlElement, url: str,
                   nodes: list[str] | None = None) -> Signals:
    """The signals of one page, from its parsed DOM and final URL (``nodes``: its
    visible text nodes, when the caller already has them). The tree is not changed."""
    signals = markup_signals(tree, url)
    return text_signals(signals, tree, text_nodes(tree) if nodes is None else nodes)


def markup_signals(tree: lxml.html.HtmlElement, url: str,
                   deadline: Deadline | None = None) -> Signals:
    """The signals read from the markup: script and iframe sources, inline scripts,
    links, forms, buttons, meta tags, JSON-LD. Contacts in the text come later
    (:func:`text_signals`), so a caller may strip the scripts in between.

    The first :data:`MAX_LINKS` links and :data:`MAX_SCANNED` elements of a kind are
    read; ``deadline`` is checked between the steps and inside their loops.
    """
    deadline = deadline or Deadline(url)
    signals = Signals()
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    signals.note("https", parts.scheme == "https", url)
    signals.note("has_website", not _host_in(host, PLATFORM_HOSTS), url)
    signals.platform_host = _host_in(host, ("facebook.com", "fb.com"))
    viewport = viewport_of(tree)
    signals.note("mobile_viewport", viewport is not None, f"meta viewport: {viewport}"
                 if viewport is not None else "")
    scripts, iframes, source_text, inline = _tracker_signals(signals, tree, url, deadline)
    links = _link_signals(signals, tree, url, deadline)
    deadline.check()
    signals.forms = forms_of(tree, url, deadline)
    # Lower-cased once: the patterns below are written in lower case.
    sources_l, inline_l = source_text.lower(), inline.lower()
    links_l = "\n".join(dict.fromkeys(links)).lower()  # a menu repeats its links
    hits = _service_signals(signals, tree, url, "\n".join(iframes).lower(), sources_l,
                            links_l, deadline)
    signals.note("chat_widget", *_first(CHAT, sources_l, inline_l, links_l))
    signals.note("online_payment", *_first(PAYMENT, sources_l, inline_l, links_l))
    deadline.check()
    actions = " | ".join(" ".join(t.split()) for t in action_texts(tree, deadline)
                         if t.strip())
    cta = CALL_TO_ACTION.search(actions.lower())
    signals.note("call_to_action", bool(cta),
                 actions[cta.start():cta.end()] if cta else "")
    names = (actions + " " + " ".join(class_names(tree, deadline))).lower()
    shops = [h for h in hits if {"shop", "ordering"} & set(h.service.kinds)]
    signals.note("ecommerce", *((True, _hit_evidence(shops[0])) if shops else
                                _first(ECOMMERCE, sources_l, links_l, inline_l, names)))
    deadline.check()
    signals.scripts = sources_of(url, scripts)
    signals.iframes = sources_of(url, iframes)
    signals.business = json_ld_business(tree)
    return signals


def _tracker_signals(signals: Signals, tree: lxml.html.HtmlElement, url: str,
                     deadline: Deadline) -> tuple[list[str], list[str], str, str]:
    """Note the trackers the page loads (by script source or inline code); its script
    and iframe sources, and its sources (absolute) and inline code as text."""
    scripts, iframes, sources = element_sources(tree, deadline)
    source_text = "\n".join(absolute(url, s) for s in sources)
    inline = "\n".join(inline_scripts(tree, deadline))
    deadline.check()
    for name, rule in TRACKERS.items():
        signals.note(name, *_first(rule, source_text, inline))
    signals.note("analytics", any(signals[n] for n in TRACKERS), "")
    if signals["analytics"]:
        first = next(n for n in TRACKERS if signals[n])
        signals.evidence["analytics"] = signals.evidence.get(first, first)
    return scripts, iframes, source_text, inline


def _service_signals(signals: Signals, tree: lxml.html.HtmlElement, url: str,
                     iframes_l: str, sources_l: str, links_l: str, deadline: Deadline
                     ) -> list[ServiceHit]:
    """Note the third-party services the page uses, its forms' kinds and its online
    booking (a booking service, form, page or chat); the services found."""
    actions_l = "\n".join(f["action"] for f in signals.forms).lower()
    # Services are loaded by address (a widget's script, an iframe, a link): inline code
    # is not searched (100 patterns over 100 KB of inline script cost 4 ms a page).
    hits = find_services([("iframe", iframes_l), ("form action", actions_l),
                          ("script", sources_l), ("link", links_l)])
    signals.services = [hit.as_dict() for hit in hits]
    _form_signals(signals, hits)
    booking = [h for h in hits if "booking" in h.service.kinds]
    booking_form = [f for f in signals.forms if f["purpose"] == "booking"]
    anchors = links_of(tree)
    booking_link = booking_links(anchors, url, deadline) if not booking else []
    by_chat = messaging_bookings(anchors, deadline) if not booking else []
    signals.services += by_chat
    signals.note("online_booking", bool(booking or booking_form or booking_link or by_chat),
                 _hit_evidence(booking[0]) if booking else
                 _form_evidence(booking_form[0]) if booking_form else
                 booking_link[0] if booking_link else
                 f"{by_chat[0]['name']}: {by_chat[0]['evidence']}" if by_chat else "")
    return hits


def _form_signals(signals: Signals, hits: list[ServiceHit]) -> None:
    """``contact_form`` and ``lead_capture_form`` from the page's forms and the hosted
    form services it embeds (an iframe), posts to or links to."""
    lead_forms = [f for f in signals.forms if f["purpose"] in LEAD_PURPOSES]
    # A booking form with a message box takes enquiries too.
    contact = [f for f in lead_forms if f["purpose"] == "contact" or f.get("message")]
    hosted = [h for h in hits if h.service.kinds == ("form",)
              and h.where in ("iframe", "form action", "link")]
    embedded = [h for h in hosted if h.where == "iframe"]
    signals.note("contact_form", bool(contact or embedded),
                 _form_evidence(contact[0]) if contact else
                 _hit_evidence(embedded[0]) if embedded else "")
    signals.note("lead_capture_form", bool(lead_forms or hosted),
                 _form_evidence(lead_forms[0]) if lead_forms else
                 _hit_evidence(hosted[0]) if hosted else "")


def _hit_evidence(hit: ServiceHit) -> str:
    return f"{hit.service.name} ({hit.where}): {hit.evidence}"


def _link_signals(signals: Signals, tree: lxml.html.HtmlElement, url: str,
                  deadline: Deadline) -> list[str]:
    """Note the social, Facebook and messaging links; the page's links, absolute."""
    links = page_links(tree, url, deadline)
    _read_links(signals, links)
    signals.note("facebook_link", "facebook" in signals.social, signals.social.get("facebook", ""))
    messaging = [a for a in MESSAGING_APPS if a in signals.social]
    signals.note("messaging_link", bool(messaging),
                 signals.social[messaging[0]] if messaging else "")
    social = [n for n in signals.social if n in SOCIAL_HOSTS.values()]
    signals.note("social_link", bool(social), signals.social[social[0]] if social else "")
    return links

def text_signals(signals: Signals, tree: lxml.html.HtmlElement, nodes: list[str]) -> Signals:
    """``signals`` completed with the contacts found in the page's text nodes (phones,
    emails, street address) and the signals that depend on others."""
    # Contacts live in headers and footers, which main-text extraction drops. The DOM's
    # text nodes are read one per line (not the extracted text, which joins inline
    # elements): a phone number never runs into the next footer item.
    page_text = "\n".join(nodes)
    # Only the words with an "@" can hold an address: the regex never scans the rest.
    at_words = (" ".join(word for word in page_text.split() if "@" in word)
                if "@" in page_text else "")
    emails = _unique(signals.emails + find_emails(at_words))
    kinds = {e: email_kind(e) for e in emails}
    signals.emails = [e for e in emails if kinds[e] == "real"][:MAX_CONTACTS]
    signals.placeholder_emails = _unique(signals.placeholder_emails + [
        e for e in emails if kinds[e] == "placeholder"])[:MAX_CONTACTS]
    signals.phones = _unique(signals.phones + phones_in_text(page_text, nodes)
                             )[:MAX_CONTACTS]
    signals.placeholder_phones = _unique(signals.placeholder_phones
                                         + placeholders_in_text(nodes))[:MAX_CONTACTS]
    # The site's street address is read from all its pages (web/location/); the
    # JSON-LD's stands for the page meanwhile.
    signals.address = str(signals.business.get("address") or "")
    return derive(signals)


_NETWORK_DOMAINS = (*SOCIAL_HOSTS, *MESSAGING)


def _read_links(signals: Signals, links: list[str]) -> None:
    """Social and messaging profiles, mailto: addresses and tel: numbers among ``links``."""
    for link in links:
        scheme, _, rest = link.partition(":")
        scheme = scheme.lower()
        link_host = rest[2:].split("/", 1)[0].split("@")[-1].split(":")[0].lower() \
            if rest.startswith("//") else ""
        # The host and each parent domain, looked up in the two tables (most links are
        # to the site itself: a suffix test in C skips them).
        labels = link_host.split(".") if link_host.endswith(_NETWORK_DOMAINS) else []
        for i in range(len(labels) - 1):
            domain = ".".join(labels[i:])
            for table in (SOCIAL_HOSTS, MESSAGING):
                network = table.get(domain)
                if network is not None and network not in signals.social and (
                        table is MESSAGING or is_profile_link(link)):
                    signals.social[network] = link
        if scheme in MESSAGING_SCHEMES and MESSAGING_SCHEMES[scheme] not in signals.social:
            signals.social[MESSAGING_SCHEMES[scheme]] = link
        if scheme == "mailto":
            signals.emails.append(rest.split("?", 1)[0])
        if scheme == "tel":
            signals.phones.append(rest.split("?", 1)[0])


def _first(rule: Rule, *texts: str) -> tuple[bool, str]:
    """Whether ``rule`` matches any of ``texts`` and, if so, the line of the first
    match (texts searched in order)."""
    for text in texts:
        match = rule.search(text)
        if match is not None:
            return True, _snippet(text, match)
    return False, ""


def merge_signals(pages: list[Signals]) -> Signals:
    """Signals of a whole site: a flag holds if it holds on any page; evidence from the first."""
    merged = Signals()
    for page in pages:
        for name, value in page.flags.items():
            merged.note(name, value, page.evidence.get(name, ""))
        merged.platform_host = merged.platform_host or page.platform_host
        for network, link in page.social.items():
            merged.social.setdefault(network, link)
        merged.phones = _unique(merged.phones + page.phones)
        merged.emails = _unique(merged.emails + page.emails)
        merged.address = merged.address or page.address
        merged.business = {**page.business, **merged.business}
        merged.forms += page.forms
        known = {s["name"] for s in merged.services}
        merged.services += [s for s in page.services if s["name"] not in known]
        merged.placeholder_phones = _unique(merged.placeholder_phones + page.placeholder_phones)
        merged.placeholder_emails = _unique(merged.placeholder_emails + page.placeholder_emails)
        merged.scripts = list(dict.fromkeys(merged.scripts + page.scripts))
        merged.iframes = list(dict.fromkeys(merged.iframes + page.iframes))
    return derive(merged)


def derive(signals: Signals) -> Signals:
    """Recompute the signals that depend on others (contacts, address, Facebook-only,
    trackers hidden in Tag Manager)."""
    for key, target in (("telephone", signals.phones), ("email", signals.emails)):
        value = signals.business.get(key)
        if value and value not in target and (key == "telephone" or email_kind(value) == "real"):
            target.append(value)
    signals.note("address", bool(signals.address), signals.address)
    signals.unknown = []
    if signals["google_tag_manager"]:
        container = signals.evidence.get("google_tag_manager", "Google Tag Manager")
        for name in ("google_analytics", "meta_pixel", "tiktok_pixel", "hotjar", "clarity"):
            if not signals[name]:
                signals.unknown.append(name)
        if signals.unknown:
            signals.evidence["unknown"] = ("may be loaded inside Google Tag Manager, which "
                                           f"cannot be seen from the page: {container[:120]}")
    signals.note("email", bool(signals.emails), ", ".join(signals.emails[:3]))
    signals.note("phone", bool(signals.phones), ", ".join(signals.phones[:3]))
    free = [e for e in signals.emails if e.lower().rsplit("@", 1)[-1] in FREE_WEBMAIL]
    own = [e for e in signals.emails if e not in free]
    signals.note("free_webmail", bool(free), ", ".join(free[:3]))
    signals.note("own_domain_email", bool(own), ", ".join(own[:3]))
    for name, (value, evidence) in channel_flags(signals.flags, signals.social,
                                                 signals.services,
                                                 signals.platform_host).items():
        signals.flags[name] = value
        signals.evidence.pop(name, None)
        if value:
            signals.evidence[name] = evidence[:200]
    return signals


def _form_evidence(form: dict[str, Any]) -> str:
    return (f"{form['purpose']} form on {form['page']} (action {form['action']}, fields "
            f"{', '.join(form['fields'][:8])})")


def _snippet(text: str, match: re.Match[str]) -> str:
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end != -1 else None].strip()[:200]


def _host_in(host: str, suffixes: tuple[str, ...]) -> bool:
    return any(host == s or host.endswith("." + s) for s in suffixes)


def _unique(items: list[str]) -> list[str]:
    """``items`` stripped, without empty ones and repeats (ignoring case), first kept."""
    kept: list[str] = []
    seen: set[str] = set()
    for item in items:
        key = item.strip()
        if key and key.lower() not in seen:
            seen.add(key.lower())
            kept.append(key)
    return kept
