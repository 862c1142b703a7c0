"""Every signal name a rule's condition may use, declared once.

Detection (:mod:`leadengine.website.signals`) sets flags under these names; the facts
(:mod:`leadengine.facts.site_facts`) add the ``derived`` ones; the knowledge base's rules
(:mod:`leadengine.knowledge.rules`) are checked against them when loaded; the CSV export,
the reports and ``docs/knowledge-base.md`` take their columns, labels and table
from here. ``tests/test_signal_names.py`` runs detection on every fixture site and
fails when it sets a flag this registry lacks, or when a name here is neither
detected nor ``derived``.

Imported by the CLI's startup path (through the rules), so it stays standard
library only. ``python -m leadengine.knowledge.signal_names`` prints the docs' table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: What a signal is about: a measurement script (``tracker``); a way to reach or
#: buy from the business on its site (``contact``); where and how the business
#: shows itself online (``presence``); or computed from the facts with the
#: knowledge base (place, industry), never read from a page (``derived``).
Kind = Literal["tracker", "contact", "presence", "derived"]

#: The condition prefixes :func:`leadengine.facts.conditions.holds` and the facts understand.
NOT = "not:"
INDUSTRY = "industry:"
#: ``category:construction`` holds when the site's category (the fixed taxonomy of
#: ``data/categories.yaml``) is that one; ``category:construction|logistics`` when it
#: is any of them.
CATEGORY = "category:"
#: The fixed taxonomy's categories (``docs/website-intelligence.md``).
CATEGORIES: tuple[str, ...] = (
    "healthcare", "beauty_wellness", "fitness", "food_beverage", "hospitality", "education",
    "real_estate", "construction", "manufacturing", "trading", "logistics", "retail",
    "automotive", "professional_services", "software_it", "telecom", "marketing_agency",
    "finance", "nonprofit", "other")
#: How a salesperson names each category (the board and the exports show these).
CATEGORY_LABELS: dict[str, str] = {
    "healthcare": "Healthcare", "beauty_wellness": "Beauty & wellness", "fitness": "Fitness",
    "food_beverage": "Food & drink", "hospitality": "Hospitality", "education": "Education",
    "real_estate": "Real estate", "construction": "Construction",
    "manufacturing": "Manufacturing", "trading": "Trading", "logistics": "Logistics",
    "retail": "Retail", "automotive": "Automotive",
    "professional_services": "Professional services", "software_it": "Software & IT",
    "telecom": "Telecom", "marketing_agency": "Marketing agency", "finance": "Finance",
    "nonprofit": "Non-profit", "other": "Other"}


def category_label(value: str) -> str:
    """A category as people name it (``beauty_wellness`` -> "Beauty & wellness")."""
    return CATEGORY_LABELS.get(value, value.replace("_", " ").capitalize())


@dataclass(frozen=True)
class SignalName:
    """One name a condition may use, and what it means."""

    name: str
    #: How a salesperson reads it (reports, docs).
    label: str
    kind: Kind
    #: When the flag holds, in one sentence (docs).
    meaning: str
    #: Position among the CSV export's ``signal_<name>`` columns; None = not exported.
    column: int | None = None


SIGNALS: tuple[SignalName, ...] = (
    SignalName("google_analytics", "Google Analytics", "tracker",
               "Google Analytics (analytics.js, gtag.js or a gtag config call) loads.", 1),
    SignalName("google_tag_manager", "Google Tag Manager", "tracker",
               "A Google Tag Manager container loads.", 2),
    SignalName("meta_pixel", "Meta pixel", "tracker", "The Meta (Facebook) pixel loads.", 3),
    SignalName("tiktok_pixel", "TikTok pixel", "tracker", "The TikTok pixel loads.", 4),
    SignalName("hotjar", "Hotjar", "tracker", "Hotjar loads.", 5),
    SignalName("clarity", "Microsoft Clarity", "tracker", "Microsoft Clarity loads."),
    SignalName("line_tag", "LINE Tag", "tracker", "The LINE Tag (LINE Ads conversion "
               "tracking) loads."),
    SignalName("naver_analytics", "Naver Analytics", "tracker", "Naver Analytics (wcslog.js) "
               "loads."),
    SignalName("kakao_pixel", "Kakao pixel", "tracker", "The Kakao pixel loads."),
    SignalName("linkedin_insight", "LinkedIn Insight Tag", "tracker",
               "LinkedIn's Insight Tag loads."),
    SignalName("matomo", "Matomo", "tracker", "Matomo (Piwik) analytics loads."),
    SignalName("analytics", "Analytics", "tracker", "Any of the trackers above loads."),
    SignalName("contact_form", "Contact form", "contact",
               "A form for enquiries that asks how to reach the visitor is on a page, or a "
               "hosted form (Google Forms, Airtable, Typeform, Jotform...) is embedded.", 6),
    SignalName("lead_capture_form", "Lead capture form", "contact",
               "Any form that collects a way to reach the visitor: enquiry, booking, quote "
               "(not search, newsletter, login or review), or a hosted form service "
               "(Formspree, Web3Forms, Google Forms...) it posts to, embeds or links."),
    SignalName("online_booking", "Online booking", "contact",
               "A booking service of the catalogue (Calendly, Fresha, OpenTable, Agoda...) "
               "is embedded or linked, a link asks to book on another site, or a form "
               "asks for a date or time to book.", 7),
    SignalName("ecommerce", "Online shop", "contact",
               "A shop, cart or online ordering shows: a shop or ordering service of the "
               "catalogue (Shopify, WooCommerce, Shopee, Lazada, GloriaFood, Grab, "
               "foodpanda...), add to cart, a cart page.", 8),
    SignalName("online_payment", "Online payment", "contact",
               "A payment provider (Stripe, PayPal, Omise, 2C2P, KBZPay...) loads or is "
               "linked."),
    SignalName("chat_widget", "Chat widget", "contact", "A live-chat widget loads."),
    SignalName("call_to_action", "Call to action", "contact",
               "A link or button asks to book, buy, call or get in touch."),
    SignalName("messaging_link", "Messaging link", "contact",
               "A link to WhatsApp, Viber, Messenger, LINE, Telegram, KakaoTalk or Zalo.",
               11),
    SignalName("phone", "Phone number", "contact",
               "A phone number is on a page (placeholders such as 08x-xxx-xxxx, bank "
               "accounts and order numbers are not).", 12),
    SignalName("email", "E-mail address", "contact",
               "An e-mail address is on a page (not a template's, at example.com...).", 13),
    SignalName("own_domain_email", "E-mail on own domain", "contact",
               "An e-mail address not at a free webmail provider."),
    SignalName("free_webmail", "Free webmail address", "contact",
               "An e-mail address at Gmail, Yahoo, Hotmail, Outlook..."),
    SignalName("address", "Street address", "contact",
               "A street address is on a page or in its JSON-LD.", 14),
    SignalName("has_website", "Own website", "presence",
               "The address is a website, not a platform page (Facebook, LINE, Linktree...)."),
    SignalName("https", "HTTPS", "presence", "The site is served over HTTPS."),
    SignalName("mobile_viewport", "Mobile-friendly page", "presence",
               "A page declares a mobile viewport."),
    SignalName("social_link", "Social media link", "presence",
               "A link to a social network (Facebook, Instagram, TikTok, YouTube...)."),
    SignalName("facebook_link", "Facebook page", "presence",
               "A link to a Facebook page (not facebook.com itself, a share button or the "
               "pixel).", 9),
    SignalName("facebook_only", "Facebook-only presence", "presence",
               "Facebook (a page or Messenger) is the sole online channel: no form, "
               "booking, shop, own-domain e-mail or other messaging app, or the address "
               "is a Facebook page.", 10),
    SignalName("platform_dependent", "Platform-dependent", "presence",
               "Every online way to reach or buy goes through third-party platforms "
               "(Facebook, LINE, WhatsApp, Viber, marketplaces, delivery apps): no form, "
               "booking or shop of its own and no own-domain e-mail."),
    SignalName("in_target", "In a target market", "derived",
               "The site's city (address, JSON-LD, map, phone area code) or the place its "
               "text names most is a target place of the knowledge base's geography."),
    SignalName("out_of_market", "Out of market", "derived",
               "The site's city is not a target place, or its country has none, or a "
               "non-target place of the geography outweighs the target places."),
    SignalName("excluded", "Excluded industry", "derived",
               "An exclusion of the knowledge base applies to the detected industry."),
)

BY_NAME: dict[str, SignalName] = {signal.name: signal for signal in SIGNALS}
#: Every name a condition may use after an optional ``not:`` (besides ``industry:<Name>``).
NAMES: frozenset[str] = frozenset(BY_NAME)
#: The names detection on a page sets (all but the derived ones).
DETECTED: frozenset[str] = frozenset(s.name for s in SIGNALS if s.kind != "derived")
#: The CSV export's signal columns (``signal_<name>``), in column order.
EXPORTED: tuple[str, ...] = tuple(
    s.name for s in sorted((s for s in SIGNALS if s.column is not None),
                           key=lambda s: s.column or 0))

_SEE = "see 'Conditions' in docs/knowledge-base.md"


def label(name: str) -> str:
    """The signal's human label ("Online shop" for ``ecommerce``)."""
    return BY_NAME[name].label


def condition_problem(condition: str, industries: list[str]) -> str | None:
    """Why ``condition`` can never mean what its author meant (an unknown signal or
    industry, with the closest valid name), or None when it is valid.

    ``industries`` are the knowledge base's industry names. An unknown name would
    silently never hold (and its ``not:`` always hold), so it must fail loudly.
    """
    # One "not:" only, as holds() strips: "not:not:x" is the unknown signal "not:x".
    name = condition.removeprefix(NOT)
    if name.startswith(INDUSTRY):
        industry = name.removeprefix(INDUSTRY)
        if industry in industries:
            return None
        if not industries:
            return f"unknown industry {industry!r} (the knowledge base defines no industries)"
        return f"unknown industry {industry!r} ({_hint(industry, industries)})"
    if name.startswith(CATEGORY):
        for category in name.removeprefix(CATEGORY).split("|"):
            if category not in CATEGORIES:
                return f"unknown category {category!r} ({_hint(category, list(CATEGORIES))})"
        return None
    if name in NAMES:
        return None
    return f"unknown signal {name!r} ({_hint(name, sorted(NAMES))})"


def _hint(name: str, valid: list[str]) -> str:
    # Imported here: only a failing knowledge base needs it (1 ms off every start).
    import difflib

    close = difflib.get_close_matches(name, valid, n=1)
    return f"did you mean {close[0]!r}?" if close else _SEE


def markdown_table() -> str:
    """The registry as the markdown table ``docs/knowledge-base.md`` holds (a test
    checks the docs contain exactly this)."""
    lines = ["| Name | Kind | Label | Holds when |", "|---|---|---|---|"]
    lines += [f"| `{s.name}` | {s.kind} | {s.label} | {s.meaning} |" for s in SIGNALS]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
