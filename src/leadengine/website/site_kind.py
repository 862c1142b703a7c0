"""What kind of site a lead's address is: one ``business`` (the usual lead), a
``directory`` or portal listing many businesses, a ``marketplace`` of many sellers, a
``media`` site (news, a magazine, a blog), or a ``profile`` on a platform (a Facebook
page, a LINE Official Account, a link-in-bio page).

A directory is not one business: it is never Facebook-only (it is a large site of its
own), its fit is not judged as one business's, and its listings are the leads. It is
told by what only a directory has: JSON-LD listing many businesses (an ``ItemList`` of
dozens, or many business objects), a title or heading counting its listings ("218
Venues", "120+ restaurants"), a title that says directory, listings or "find X in Y",
and many different phone numbers on one page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

#: Kinds of site.
KINDS = ("business", "directory", "marketplace", "media", "profile")
#: Businesses listed in a page's JSON-LD from which it is a directory.
LISTED = 8
#: Different phone numbers from which a site (with another sign) is a directory.
MANY_PHONES = 8
#: Hosts whose pages are profiles of businesses on a platform.
PLATFORM_HOSTS = ("facebook.com", "fb.com", "fb.me", "instagram.com", "line.me", "lin.ee",
                  "linktr.ee", "tiktok.com", "business.site", "g.page", "maps.app.goo.gl",
                  "linkedin.com", "x.com", "twitter.com", "youtube.com", "wa.me")
_PLURALS = (r"venues|gyms|restaurants|cafes|caf[eé]s|clinics|hospitals|hotels|resorts|"
            r"hostels|guesthouses|shops|stores|businesses|listings|places|spas|salons|"
            r"schools|bars|companies|members|dentists|doctors|agents|agencies|suppliers|"
            r"vendors|providers|studios|camps|courts|classes|properties|deals|jobs|events")
#: A count of listings ("218 Venues", "120+ restaurants", "ร้านอาหาร 150 ร้าน").
_COUNTED = re.compile(rf"\b\d[\d,]{{1,6}}\+?\s+(?:\w+\s+)?(?:{_PLURALS})\b|"
                      r"\d{2,}\s*(?:ร้าน|แห่ง|ที่)|\d{2,}\s*ဆိုင်", re.I)
#: Words of a title or heading that only a directory uses of itself.
_DIRECTORY = re.compile(
    rf"\bdirectory\b|\blistings?\b|\bfind (?!us\b|our\b|me\b)(?:the best |a |an )?"
    rf"(?:\w+[ ,&]+){{0,4}}(?:in|near)\b|\bnear (?:you|me)\b|\bbrowse\b|\bcompare\b|"
    rf"\btop \d+\b|\bbest \d+\b|"
    rf"\ball (?:{_PLURALS}) in\b|รวมร้าน|ค้นหาร้าน|ไดเรกทอรี|แนะนำร้าน|รายชื่อร้าน", re.I)
#: A business's own network listed on its site: dealers, stockists, branches, a store
#: locator. Such a list is the business's, not a directory of others.
_NETWORK = re.compile(r"\b(?:authori[sz]ed |our )?(?:dealers?|stockists?|resellers?|"
                      r"distributors?|franchisees?|branch(?:es)?|outlets?)\b|\bstore locator\b|"
                      r"\bwhere to buy\b|\bour (?:stores|shops|clinics|locations)\b|"
                      r"ตัวแทนจำหน่าย|สาขา|ဆိုင်ခွဲ|ကိုယ်စားလှယ်", re.I)
_MARKETPLACE = re.compile(r"\bmarketplace\b|\bsell on\b|\bbecome a (?:seller|vendor)\b|"
                          r"\bsellers\b|\bvendors\b|ร้านค้าทั้งหมด", re.I)
_MEDIA = re.compile(r"\bnews\b|\bmagazine\b|\bjournal\b|\bblog\b|\bpodcast\b|ข่าว|"
                    r"သတင်း", re.I)
_ARTICLES = ("NewsArticle", "Article", "BlogPosting", "NewsMediaOrganization", "Blog")


@dataclass(frozen=True)
class SiteKind:
    value: str
    evidence: str

    def as_dict(self) -> dict[str, str]:
        return {"value": self.value, "evidence": self.evidence}

    @property
    def many_businesses(self) -> bool:
        """A site of many businesses (directory, marketplace, media), not one."""
        return self.value in ("directory", "marketplace", "media")


def site_kind(url: str, title: str, description: str, headings: tuple[str, ...],
              json_ld_types: tuple[str, ...], json_ld_listed: int, phones: int,
              ecommerce: bool, business: bool = False) -> SiteKind:
    """The kind of site, and what told it. A listing in the JSON-LD or a count of
    listings in the title tells a directory alone; weaker signs (the word "directory",
    many phone numbers) only two together and on a site whose JSON-LD describes no
    business of its own (``business``): a distributor's "Dealer directory" of a hundred
    shops is still the distributor's site."""
    host = _host(url)
    if any(host == h or host.endswith("." + h) for h in PLATFORM_HOSTS):
        return SiteKind("profile", f"a page on {host}")
    heads = " | ".join((title, description, *headings[:6]))
    network = _NETWORK.search(f"{title} | {' | '.join(headings[:3])}")
    if network and json_ld_listed < LISTED:
        return SiteKind("business", f"it lists its own network ({network.group()!r})")
    counted = _COUNTED.search(heads)
    cues = []
    if json_ld_listed >= LISTED:
        cues.append(f"its JSON-LD lists {json_ld_listed} businesses")
    if counted:
        cues.append(f"it counts its listings ({counted.group().strip()!r})")
    said = _DIRECTORY.search(f"{title} | {' | '.join(headings[:3])}")
    if said:
        cues.append(f"its title or heading says {said.group().strip()!r}")
    if phones >= MANY_PHONES:
        cues.append(f"{phones} different phone numbers")
    strong = json_ld_listed >= LISTED or counted is not None
    if strong or (len(cues) >= 2 and not business):
        market = _MARKETPLACE.search(heads)
        if market and ecommerce:
            return SiteKind("marketplace", f"{'; '.join(cues)}; {market.group()!r}")
        return SiteKind("directory", "; ".join(cues))
    articles = [t for t in json_ld_types if t in _ARTICLES]
    media = _MEDIA.search(f"{title} | {description}")
    if articles and media:
        return SiteKind("media", f"JSON-LD {articles[0]}; {media.group()!r} in its title")
    return SiteKind("business", "; ".join(cues) or "one business's site")


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower().removeprefix("www.").removeprefix(
            "m.")
    except ValueError:
        return ""
