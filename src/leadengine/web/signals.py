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
from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from leadengine.web.extract import text_nodes
from leadengine.web.facts import find_address, forms_of, json_ld_business, sources_of

#: Hosts (suffixes) of social networks; a link to one is social presence.
SOCIAL_HOSTS = {
    "facebook.com": "facebook", "fb.com": "facebook", "fb.me": "facebook",
    "instagram.com": "instagram", "tiktok.com": "tiktok", "youtube.com": "youtube",
    "youtu.be": "youtube", "linkedin.com": "linkedin", "x.com": "x", "twitter.com": "x",
}
#: Hosts / schemes of messaging apps.
MESSAGING = {"m.me": "messenger", "messenger.com": "messenger", "line.me": "line",
             "lin.ee": "line", "wa.me": "whatsapp", "whatsapp.com": "whatsapp",
             "viber.com": "viber", "invite.viber.com": "viber"}
MESSAGING_SCHEMES = {"viber": "viber", "whatsapp": "whatsapp", "line": "line"}
class Rule:
    """A pattern made of alternatives that each begin with a literal prefix.

    A page's script blob is tens of kilobytes; a regex alternation tried at every
    position of it is slow, while finding a literal is a fast C scan. The first match
    begins at an occurrence of some prefix, so the regex is tried (anchored) only where
    a prefix occurs, leftmost first, and not at all when none does.
    """

    def __init__(self, *branches: tuple[str, str]) -> None:
        self.prefixes = tuple(prefix for prefix, _ in branches)
        self.pattern = re.compile("|".join(re.escape(prefix) + rest
                                           for prefix, rest in branches))

    def search(self, text: str) -> re.Match[str] | None:
        starts = set()
        for prefix in self.prefixes:
            at = text.find(prefix)
            while at != -1:
                starts.add(at)
                at = text.find(prefix, at + 1)
        for at in sorted(starts):
            match = self.pattern.match(text, at)
            if match is not None:
                return match
        return None


def _words(*literals: str) -> tuple[tuple[str, str], ...]:
    return tuple((literal, "") for literal in literals)


#: Script/iframe/link patterns of measurement tools (searched as written: "GTM-" is
#: upper case).
TRACKERS = {
    "google_analytics": Rule(("google-analytics.com/", r"(analytics|ga)\.js"),
                             ("googletagmanager.com/gtag/js", ""),
                             ("gtag(", r"\s*['\"]config")),
    "google_tag_manager": Rule(("googletagmanager.com/gtm.js", ""), ("GTM-", "[A-Z0-9]{4,}")),
    "meta_pixel": Rule(("connect.facebook.net/", r"[^\"']*/fbevents\.js"),
                       ("fbq(", r"\s*['\"]init")),
    "tiktok_pixel": Rule(*_words("analytics.tiktok.com", "ttq.load(")),
    "hotjar": Rule(*_words("static.hotjar.com", "hotjar.com/c/hotjar")),
    "clarity": Rule(*_words("clarity.ms/tag")),
}
# The patterns below are searched in lower-cased text.
#: Booking widgets and engines.
BOOKING = Rule(*_words("calendly.com", "simplybook.", "setmore.com", "fresha.com", "opentable.",
                       "booksy.com", "acuityscheduling.com", "cloudbeds.com", "siteminder.",
                       "hotelrunner.com", "booking-engine", "/book-online", "/booking-online",
                       "squareup.com/appointments", "tablecheck.com", "chope.co",
                       "hungryhub.com"))
#: Shops and carts (in addresses, scripts, class names and ids).
ECOMMERCE = Rule(("cdn.shopify.com", ""), ("woocommerce", ""), ("/cart", r"\b"),
                 ("add", "[-_ ]to[-_ ]cart"),
                 *_words("data-product-id", "shopee.", "lazada."))
#: Live-chat widgets (operational maturity).
CHAT = Rule(*_words("tawk.to", "embed.tawk", "intercom.io", "widget.intercom", "crisp.chat",
                    "zopim", "zendesk.com/embeddable", "livechatinc.com", "tidio",
                    "fb-customerchat", "getbutton.io"),
            ("connect.facebook.net/", r"[^\"']*/sdk/xfbml\.customerchat"),
            ("elfsight.com", ".*chat"))
#: Online payment providers, global and local (Thailand, Myanmar).
PAYMENT = Rule(*_words("js.stripe.com", "checkout.stripe", "paypal.com/sdk", "paypalobjects",
                       "omise.co", "cdn.omise", "2c2p.com", "gbprimepay", "kbzpay",
                       "wavemoney", "wavepay", "ayapay", "dinger.asia", "promptpay"))
#: Calls to action in links and buttons (English, Thai, Burmese).
CALL_TO_ACTION = re.compile(r"\b(book (now|online|an appointment|a table)|get a quote|"
                            r"request a quote|contact us|call (us )?now|order now|buy now|"
                            r"add to cart|shop now|enquire|enroll|register now|reserve)\b|จองเลย|"
                            r"สั่งซื้อ|ติดต่อเรา|สมัครเลย|ဆက်သွယ်ရန်|မှာယူရန်")
FREE_WEBMAIL = ("gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "live.com",
                "icloud.com", "ymail.com", "aol.com", "proton.me", "protonmail.com")
#: Hosts that are a platform page, not a site the business owns.
PLATFORM_HOSTS = ("facebook.com", "fb.com", "instagram.com", "linktr.ee", "lin.ee", "line.me",
                  "tiktok.com", "beacons.ai", "bio.link")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.I)
#: Phone numbers: international (+95, +66, any +CC), Thai/Myanmar local (0...), and
#: numbers written in Burmese digits. Thai text has no spaces, so no \b before digits.
PHONE = re.compile(r"(?<![\d၀-၉+])(?:\+\d{1,3}[ \t-]?\(?\d{1,4}\)?[\d \t-]{4,12}\d|"
                   r"0[\d၀-၉][\d၀-၉ \t-]{6,13}[\d၀-၉]|[၀-၉][၀-၉ \t-]{6,13}[၀-၉])(?![\d၀-၉])")


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

    def set(self, name: str, value: bool, evidence: str = "") -> None:
        self.flags[name] = self.flags.get(name, False) or value
        if value and evidence and name not in self.evidence:
            self.evidence[name] = evidence[:200]

    def __getitem__(self, name: str) -> bool:
        return self.flags.get(name, False)

    def as_dict(self) -> dict[str, object]:
        return {**self.flags, "unknown": list(self.unknown), "evidence": dict(self.evidence),
                "social": dict(self.social), "phones": list(self.phones),
                "emails": list(self.emails)}


_VIEWPORT = etree.XPath("//meta[@name='viewport']/@content", smart_strings=False)
_SOURCES = etree.XPath("//script/@src|//iframe/@src|//link/@href", smart_strings=False)
_INLINE = etree.XPath("//script[not(@src)]/text()|//noscript//img/@src", smart_strings=False)
_HREFS = etree.XPath("//a/@href", smart_strings=False)
_ACTIONS = etree.XPath("//a//text()|//button//text()|//input[@type='submit']/@value",
                       smart_strings=False)
_NAMES = etree.XPath("//@class|//@id", smart_strings=False)


def detect_signals(tree: lxml.html.HtmlElement, url: str,
                   nodes: list[str] | None = None) -> Signals:
    """The signals of one page, from its parsed DOM and final URL (``nodes``: its
    visible text nodes, when the caller already has them). The tree is not changed."""
    signals = markup_signals(tree, url)
    return text_signals(signals, tree, text_nodes(tree) if nodes is None else nodes)


def markup_signals(tree: lxml.html.HtmlElement, url: str) -> Signals:
    """The signals read from the markup: script and iframe sources, inline scripts,
    links, forms, buttons, meta tags, JSON-LD. Contacts in the text come later
    (:func:`text_signals`), so a caller may strip the scripts in between."""
    signals = Signals()
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    signals.set("https", parts.scheme == "https", url)
    signals.set("has_website", not _host_in(host, PLATFORM_HOSTS), url)
    signals.platform_host = _host_in(host, ("facebook.com", "fb.com"))
    viewport = _VIEWPORT(tree)
    signals.set("mobile_viewport", bool(viewport), f"meta viewport: {viewport[0]}"
                if viewport else "")

    sources = [_absolute(url, s) for s in _SOURCES(tree)]
    source_text = "\n".join(sources)
    inline = "\n".join(_INLINE(tree))
    for name, rule in TRACKERS.items():
        signals.set(name, *_first(rule, source_text, inline))
    signals.set("analytics", any(signals[n] for n in TRACKERS), "")
    if signals["analytics"]:
        first = next(n for n in TRACKERS if signals[n])
        signals.evidence["analytics"] = signals.evidence.get(first, first)

    links = [_absolute(url, h.strip()) for h in _HREFS(tree) if h.strip()]
    _read_links(signals, links)
    signals.set("facebook_link", "facebook" in signals.social, signals.social.get("facebook", ""))
    messaging = [a for a in ("whatsapp", "viber", "messenger", "line") if a in signals.social]
    signals.set("messaging_link", bool(messaging),
                signals.social[messaging[0]] if messaging else "")
    social = [n for n in signals.social if n in SOCIAL_HOSTS.values()]
    signals.set("social_link", bool(social), signals.social[social[0]] if social else "")

    signals.forms = forms_of(tree, url)
    lead_forms = [f for f in signals.forms if f["purpose"] == "contact"]
    signals.set("contact_form", bool(lead_forms), _form_evidence(lead_forms[0])
                if lead_forms else "")
    # Lower-cased once: the patterns below are written in lower case.
    sources_l, links_l, inline_l = source_text.lower(), "\n".join(links).lower(), inline.lower()
    booking, booking_evidence = _first(BOOKING, sources_l, links_l)
    booking_form = [f for f in signals.forms if f["purpose"] == "booking"]
    signals.set("online_booking", booking or bool(booking_form), booking_evidence or (
        _form_evidence(booking_form[0]) if booking_form else ""))
    signals.set("chat_widget", *_first(CHAT, sources_l, inline_l, links_l))
    signals.set("online_payment", *_first(PAYMENT, sources_l, inline_l, links_l))
    actions = " | ".join(" ".join(t.split()) for t in _ACTIONS(tree)[:3000] if t.strip())
    cta = CALL_TO_ACTION.search(actions.lower())
    signals.set("call_to_action", bool(cta),
                actions[cta.start():cta.end()] if cta else "")
    names = (actions + " " + " ".join(_NAMES(tree)[:2000])).lower()
    signals.set("ecommerce", *_first(ECOMMERCE, sources_l, links_l, inline_l, names))
    signals.scripts = sources_of(tree, url, "//script/@src")
    signals.iframes = sources_of(tree, url, "//iframe/@src")
    signals.business = json_ld_business(tree)
    return signals


def text_signals(signals: Signals, tree: lxml.html.HtmlElement, nodes: list[str]) -> Signals:
    """``signals`` completed with the contacts found in the page's text nodes (phones,
    emails, street address) and the signals that depend on others."""
    # Contacts live in headers and footers, which main-text extraction drops. The DOM's
    # text nodes are read one per line (not the extracted text, which joins inline
    # elements): a phone number never runs into the next footer item.
    page_text = "\n".join(nodes)
    # Only the words with an "@" can hold an address: the regex never scans the rest.
    at_words = " ".join(word for word in page_text.split() if "@" in word)
    signals.emails = _unique(signals.emails + EMAIL.findall(at_words))
    signals.phones = _unique(signals.phones + [p.strip() for p in PHONE.findall(page_text)])
    signals.address = signals.business.get("address") or find_address(tree, nodes)
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
                if network is not None and network not in signals.social:
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
            merged.set(name, value, page.evidence.get(name, ""))
        merged.platform_host = merged.platform_host or page.platform_host
        for network, link in page.social.items():
            merged.social.setdefault(network, link)
        merged.phones = _unique(merged.phones + page.phones)
        merged.emails = _unique(merged.emails + page.emails)
        merged.address = merged.address or page.address
        merged.business = {**page.business, **merged.business}
        merged.forms += page.forms
        merged.scripts = list(dict.fromkeys(merged.scripts + page.scripts))
        merged.iframes = list(dict.fromkeys(merged.iframes + page.iframes))
    return derive(merged)


def derive(signals: Signals) -> Signals:
    """Recompute the signals that depend on others (contacts, address, Facebook-only,
    trackers hidden in Tag Manager)."""
    for key, target in (("telephone", signals.phones), ("email", signals.emails)):
        if signals.business.get(key) and signals.business[key] not in target:
            target.append(signals.business[key])
    signals.set("address", bool(signals.address), signals.address)
    signals.unknown = []
    if signals["google_tag_manager"]:
        container = signals.evidence.get("google_tag_manager", "Google Tag Manager")
        for name in ("google_analytics", "meta_pixel", "tiktok_pixel", "hotjar", "clarity"):
            if not signals[name]:
                signals.unknown.append(name)
        if signals.unknown:
            signals.evidence["unknown"] = ("may be loaded inside Google Tag Manager, which "
                                           f"cannot be seen from the page: {container[:120]}")
    signals.set("email", bool(signals.emails), ", ".join(signals.emails[:3]))
    signals.set("phone", bool(signals.phones), ", ".join(signals.phones[:3]))
    free = [e for e in signals.emails if e.lower().rsplit("@", 1)[-1] in FREE_WEBMAIL]
    own = [e for e in signals.emails if e not in free]
    signals.set("free_webmail", bool(free), ", ".join(free[:3]))
    signals.set("own_domain_email", bool(own), ", ".join(own[:3]))
    only_facebook = signals["facebook_link"] and not any(
        signals[n] for n in ("contact_form", "online_booking", "ecommerce", "own_domain_email"))
    signals.flags["facebook_only"] = only_facebook or signals.platform_host
    signals.evidence.pop("facebook_only", None)
    if signals.flags["facebook_only"]:
        signals.evidence["facebook_only"] = (
            "Facebook is the only owned-channel contact (no form, booking, shop or own-domain "
            "email): " + signals.social.get("facebook", ""))
    return signals


def _form_evidence(form: dict[str, Any]) -> str:
    return (f"{form['purpose']} form on {form['page']} (action {form['action']}, fields "
            f"{', '.join(form['fields'][:8])})")


def _snippet(text: str, match: re.Match[str]) -> str:
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end != -1 else None].strip()[:200]


def _absolute(base: str, href: str) -> str:
    """``href`` resolved against ``base``; absolute http(s) links are kept as they are
    (urljoin costs more than everything else done per link)."""
    if href.startswith(("https://", "http://", "mailto:", "tel:")):
        return href
    return urljoin(base, href)


def _host_in(host: str, suffixes: tuple[str, ...]) -> bool:
    return any(host == s or host.endswith("." + s) for s in suffixes)


def _unique(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        key = item.strip()
        if key and key.lower() not in (k.lower() for k in seen):
            seen[key] = None
    return list(seen)
