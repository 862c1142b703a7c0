"""One website as the evaluator sees it: fetched, extracted, with its signals."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from leadengine.config import Settings
from leadengine.web.extract import Extracted, extract, page_content, parse_html
from leadengine.web.fetch import Page, fetch_page
from leadengine.web.signals import Signals, detect_signals

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
    """A fetched business website: the page, its text, its signals."""

    page: Page
    extracted: Extracted
    signals: Signals
    #: The text the retriever and the evaluator read: page text + detected signals.
    content: str


async def load_site(target: str, settings: Settings | None = None,
                    client: httpx.AsyncClient | None = None) -> Site:
    """Fetch ``target`` (URL or file) and extract what the evaluator needs."""
    settings = settings or Settings()
    page = await fetch_page(target, settings, client=client)
    return site_from_page(page, settings)


def site_from_page(page: Page, settings: Settings | None = None) -> Site:
    """Extract text and signals from an already fetched page."""
    settings = settings or Settings()
    tree = parse_html(page.html)
    extracted = extract(page, tree)
    signals = detect_signals(tree, page.final_url, extracted.text)
    content = page_content(extracted, settings.max_content_chars) + "\n\n" + signals_block(
        signals)
    return Site(page=page, extracted=extracted, signals=signals, content=content)


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
    if signals.social:
        lines.append("- Social/messaging: " + ", ".join(sorted(signals.social)))
    return "\n".join(lines)
