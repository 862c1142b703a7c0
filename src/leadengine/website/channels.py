"""How a business can be reached or bought from online, and whether it owns any of it.

``facebook_only``
    Facebook (a page or Messenger) is the business's sole online channel: a Facebook page
    is linked (or the "website" is the Facebook page itself) and the site shows no form
    that collects a way to reach the visitor, no online booking, no shop or ordering, no
    e-mail on its own domain, no other messaging app or marketplace, and no other social
    network (Instagram, YouTube, TikTok...). A directory is never Facebook-only
    (:mod:`leadengine.website.site_kind`). A dental clinic
    whose site is a brochure with a phone number and a "Message us on Facebook" button is
    Facebook-only; the same clinic with a LINE link is not (it is platform-dependent).

``platform_dependent``
    Every online way to reach or buy from the business goes through a third-party
    platform it does not own: Facebook, Messenger, LINE, WhatsApp, Viber, Telegram,
    KakaoTalk, Zalo, or marketplaces and delivery apps (Shopee, Lazada, Grab, foodpanda,
    Booking.com, Agoda...). A site with a LINE link, a Shopee shop and a Gmail address is
    platform-dependent; one with its own enquiry form, booking widget, shop (Shopify,
    WooCommerce) or own-domain e-mail is not. Phones and street addresses are offline
    channels and do not count either way. Facebook-only implies platform-dependent.

A link is a booking link when its text asks to book ("Book appointment", จอง, 予約, 예약)
and it leads to another site (not a social or messaging app): the booking happens there,
with a provider the catalogue may not list yet. A messaging app's booking page (a LINE
LIFF app or a Telegram bot that asks to book, an address like line.me/.../reserve) is
booking on a platform the business does not own; a chat link is not booking, whatever
its text ("Book on WhatsApp": the booking is then made by hand).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any
from urllib.parse import urlsplit

import lxml.html

from leadengine.website.extract import Deadline
from leadengine.website.forms import BOOKING_WORDS
from leadengine.website.signal_rules import MESSAGING, MESSAGING_SCHEMES, SOCIAL_HOSTS

#: Messaging apps (the networks of :data:`MESSAGING`) as channels.
MESSAGING_APPS = ("whatsapp", "viber", "messenger", "line", "telegram", "kakaotalk", "zalo")
#: External links examined for booking words (a page has a few dozen).
MAX_EXTERNAL_LINKS = 300
#: First path segments of social links that are not a business's profile.
_NOT_PROFILE = frozenset({"sharer", "sharer.php", "share.php", "dialog", "plugins",
                          "tr", "login", "login.php", "policies", "privacy", "help", "intent",
                          "sharearticle", "home.php", "watch", "legal", "terms", "about"})
_NETWORK_HOSTS = (*SOCIAL_HOSTS, *MESSAGING)


def is_profile_link(url: str) -> bool:
    """Whether a social-network link points to someone's profile or page, not the
    network's home page, a share button or the tracking pixel."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False  # "http://[x": no address at all (urllib raises)
    segments = [s for s in parts.path.split("/") if s]
    if not segments:
        return bool(parts.query and ("id=" in parts.query))  # profile.php?id=...
    if segments[0].lower() == "share":
        return len(segments) > 1  # facebook.com/share/<id>/ opens a page; share?u= shares
    return segments[0].lower() not in _NOT_PROFILE


def booking_links(anchors: Iterable[lxml.html.HtmlElement], url: str,
                  deadline: Deadline | None = None) -> list[str]:
    """Evidence for each link to another site whose text asks to book (the first
    :data:`MAX_EXTERNAL_LINKS` external links are read)."""
    own = _site_of(_host(url))
    found = []
    for anchor in islice((a for a in anchors if _external(a.get("href", ""), own)),
                         MAX_EXTERNAL_LINKS):
        if deadline is not None:
            deadline.tick()
        text = " ".join(" ".join(filter(None, (anchor.text_content()[:200],
                                               anchor.get("title"),
                                               anchor.get("aria-label")))).split())
        if BOOKING_WORDS.search(text):
            found.append(f"link {text[:80]!r} to {anchor.get('href', '')[:150]}")
    return found


def messaging_bookings(anchors: Iterable[lxml.html.HtmlElement],
                       deadline: Deadline | None = None) -> list[dict[str, Any]]:
    """Booking offered on a messaging app's booking page: a link into an app that runs
    inside the messenger (a LINE LIFF or mini app, a Telegram bot) whose text asks to
    book, or a link to a messaging app whose address is a booking page
    (line.me/.../reserve). Each is a service of kind booking on that
    platform, one per app, in the shape of the profile's ``services``.

    A plain chat link is not booking, whatever its text ("Book on WhatsApp" opens a chat:
    the booking is then made by hand, which is what the Operational Bottleneck angle
    looks for)."""
    found: dict[str, dict[str, Any]] = {}
    for anchor in islice(anchors, MAX_EXTERNAL_LINKS * 4):
        if deadline is not None:
            deadline.tick()
        href = anchor.get("href", "")
        app = _messaging_app(href)
        if app is None or app in found:
            continue
        text = " ".join(" ".join(filter(None, (anchor.text_content()[:200],
                                               anchor.get("title"),
                                               anchor.get("aria-label")))).split())
        page = _booking_page(href)
        if page == "booking" or (page == "app" and BOOKING_WORDS.search(text)):
            found[app] = {"name": f"{_APP_NAMES[app]} booking page", "kinds": ["booking"],
                          "segment": None, "platform": True, "where": "link",
                          "evidence": f"{text[:80]!r} -> {href[:150]}"}
    return list(found.values())


_APP_NAMES = {"whatsapp": "WhatsApp", "viber": "Viber", "messenger": "Messenger",
              "line": "LINE", "telegram": "Telegram", "kakaotalk": "KakaoTalk",
              "zalo": "Zalo"}
#: Hosts of apps that run inside a messenger (a booking page, a shop, a form).
_IN_APP_HOSTS = ("liff.line.me", "miniapp.line.me", "zalo.me/app", "page.kakao.com")
#: Words of a booking page's address.
_BOOKING_PATH = re.compile(r"reserv|booking|appointment|schedul|/book(?:/|$|\?)")


def _messaging_app(href: str) -> str | None:
    """The messaging app a link opens (by its host or its scheme: line://, viber://)."""
    scheme = href.partition(":")[0].lower()
    if scheme in MESSAGING_SCHEMES:
        return MESSAGING_SCHEMES[scheme]
    if scheme not in ("http", "https"):
        return None
    host = _site_of(_host(href))
    return next((app for domain, app in MESSAGING.items()
                 if host == domain or host.endswith("." + domain)), None)


def _booking_page(href: str) -> str:
    """"booking" for a messaging-app link whose address is a booking page, "app" for one
    into an app run inside the messenger (a LIFF app, a Telegram bot), "" for a chat."""
    try:
        parts = urlsplit(href)
    except ValueError:
        return ""
    # The path only: a query is a chat's first words ("wa.me/...?text=I'd like to book")
    # or a tracking tag ("m.me/shop?ref=reserve"), and so is LINE's /msg/text/ path.
    path = parts.path.lower().split("/msg/", 1)[0]
    if _BOOKING_PATH.search(path):
        return "booking"
    host = _site_of(parts.hostname or "")
    first = next((s for s in parts.path.split("/") if s), "").lower()
    if any(f"{host}/{first}".startswith(h) or host == h for h in _IN_APP_HOSTS):
        return "app"
    if host in ("t.me", "telegram.me") and first.endswith("bot"):
        return "app"
    return ""


def _external(href: str, own: str) -> bool:
    if not href.startswith(("http://", "https://", "//")):
        return False
    host = _host(href if not href.startswith("//") else "http:" + href)
    if not host or _site_of(host) == own:
        return False
    return not any(host == h or host.endswith("." + h) for h in _NETWORK_HOSTS)


def _host(url: str) -> str:
    """The host of ``url``, "" when urllib cannot read it ("http://[x", port 99999)."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def _site_of(host: str) -> str:
    return host.lower().removeprefix("www.")


def channel_flags(flags: dict[str, bool], social: dict[str, str],
                  services: Sequence[dict[str, Any]], platform_host: bool
                  ) -> dict[str, tuple[bool, str]]:
    """``facebook_only`` and ``platform_dependent``, each with its evidence."""
    apps = [n for n in MESSAGING_APPS if n in social and n != "messenger"]
    marketplaces = [s["name"] for s in services if s.get("platform")]
    own = [name for name in ("lead_capture_form", "contact_form", "own_domain_email")
           if flags.get(name)]
    own += [s["name"] for s in services if not s.get("platform") and s["kinds"] != ["form"]]
    if flags.get("online_booking") and not any(
            s.get("platform") and "booking" in s["kinds"] for s in services):
        own.append("online booking")
    if flags.get("ecommerce") and not any(
            s.get("platform") and {"shop", "ordering"} & set(s["kinds"]) for s in services):
        own.append("online shop")
    facebook = "facebook" in social or "messenger" in social or platform_host
    platforms = (["Facebook"] if facebook else []) + apps + marketplaces
    # Other networks it is on (Instagram, YouTube, TikTok, LinkedIn...): then Facebook is
    # not its only presence, whatever else the site lacks.
    networks = [n for n in social if n not in ("facebook", "messenger", *MESSAGING_APPS)]
    facebook_only = platform_host or (facebook and not own and not apps and not marketplaces
                                      and not networks)
    result = {
        "facebook_only": (facebook_only, (
            "Facebook is the only online channel (no form, booking, shop, own-domain e-mail "
            "or other messaging app): " + (social.get("facebook") or social.get("messenger")
                                            or "the website is a Facebook page"))
            if facebook_only else ""),
        "platform_dependent": (bool(platforms) and not own, (
            "every online channel is a third-party platform: " + ", ".join(platforms))
            if platforms and not own else ""),
    }
    return result
