"""Pick the few same-site pages worth reading besides the homepage.

Facts a salesperson needs (phone, address, booking, who they serve) are often
on About / Contact / Services / Booking / Pricing pages, in English, Thai or
Burmese. Links are ranked by those words in their address or anchor text.
"""

from __future__ import annotations

import posixpath
from itertools import islice
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

import lxml.html

from leadengine.website.extract import Deadline
from leadengine.website.markup import links_of

#: Words that mark a useful subpage, best first: contact, about, booking, location, then
#: what the business sells; matched in the link's URL or text. English, Thai, Burmese,
#: Japanese, Korean, Chinese, Vietnamese, Indonesian/Malay, Bengali, Hindi, Arabic.
SUBPAGE_WORDS = (
    "contact", "ติดต่อ", "ဆက်သွယ်", "お問い合わせ", "問い合わせ", "문의", "연락", "联系", "聯絡",
    "liên hệ", "kontak", "hubungi", "যোগাযোগ", "संपर्क", "اتصل", "تواصل",
    "about", "เกี่ยวกับ", "အကြောင်း", "会社概要", "について", "소개", "关于", "關於",
    "giới thiệu", "tentang", "আমাদের সম্পর্কে", "हमारे बारे", "من نحن",
    "booking", "book", "appointment", "reservation", "reserve", "จอง", "นัดหมาย", "ဘိုကင်",
    "ချိန်းဆို", "予約", "예약", "预约", "預約", "đặt lịch", "đặt bàn", "đặt phòng",
    "reservasi", "অ্যাপয়েন্টমেন্ট", "حجز",
    "location", "find us", "directions", "visit us", "access", "アクセス", "오시는", "찾아오",
    "地址", "แผนที่", "ที่ตั้ง", "တည်နေရာ", "địa chỉ", "lokasi",
    "enquir", "inquir", "quote", "catering", "volunteer", "donat",
    "services", "service", "pricing", "price", "rates", "menu", "rooms", "team", "doctors",
    "courses", "projects", "portfolio", "products", "locations", "branches",
    "บริการ", "ราคา", "เมนู", "ဝန်ဆောင်မှု", "စျေးနှုန်း", "料金", "メニュー", "診療", "진료",
    "가격", "dịch vụ", "bảng giá", "layanan", "harga", "সেবা", "सेवा", "خدمات",
    # What a rep asks a lead about (deliveries, payment, hours) is often on its own page.
    "faq", "delivery", "shipping", "payment", "hours", "opening", "การจัดส่ง", "ค่าส่ง",
    "คำถามที่พบบ่อย", "ပို့ဆောင်", "မေးလေ့ရှိ", "order", "how to", "info", "policy",
    "สั่ง", "วิธี", "ข้อมูล", "မှာယူ", "အချက်အလက်",
)
#: A site with at most this many other pages linked from its homepage is small: each of
#: them is worth reading (after the pages its words mark as useful).
SMALL_SITE = 8
_ABOUT = SUBPAGE_WORDS.index("about")
_SKIP_SUFFIXES = (".pdf", ".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".zip", ".doc",
                  ".docx", ".xls", ".xlsx", ".mp4", ".mp3", ".css", ".js", ".xml")


def pick_subpages(tree: lxml.html.HtmlElement, page_url: str, limit: int,
                  deadline: Deadline | None = None) -> list[str]:
    """Up to ``limit`` same-site links from the page (among its first 5,000: see
    :func:`~leadengine.website.markup.links_of`), most useful first. ``deadline`` is
    checked as the links are read."""
    if limit <= 0:
        return []
    deadline = deadline or Deadline(page_url)
    home = _canonical(page_url)
    page = urlsplit(page_url)
    # Menus repeat their links: each address is resolved once (urljoin and urlsplit are
    # most of the cost of a link).
    resolved: dict[str, str | None] = {}
    # The site in other languages (<link rel="alternate" hreflang>), read like an About
    # page whether or not a link of the page leads there.
    alternates = {url for url in (_candidate((link.get("href") or "").strip(), page_url, page,
                                             home)
                                  for link in islice(tree.iter("link"), 200)
                                  if link.get("hreflang") and link.get("rel") == "alternate")
                  if url is not None}
    scored: dict[str, tuple[int, int]] = {url: (_ABOUT, -1) for url in alternates}
    unmarked: dict[str, int] = {}
    for order, anchor in enumerate(links_of(tree)):
        deadline.tick()
        href = (anchor.get("href") or "").strip()
        if href not in resolved:
            resolved[href] = _candidate(href, page_url, page, home)
        url = resolved[href]
        if url is None:
            continue
        label = (url + " " + anchor.text_content()).lower()
        rank = next((i for i, word in enumerate(SUBPAGE_WORDS) if word in label), None)
        if anchor.get("hreflang") is not None:
            # The site in another language: as useful as an About page (the languages
            # a business works in are a fact).
            rank = min(rank if rank is not None else _ABOUT, _ABOUT)
        if rank is None:
            unmarked.setdefault(url, order)
            continue
        if url not in scored or (rank, order) < scored[url]:
            scored[url] = (rank, order)
    if len(scored) + len(unmarked) <= SMALL_SITE:
        for url, order in unmarked.items():
            scored.setdefault(url, (len(SUBPAGE_WORDS), order))
    return sorted(scored, key=lambda u: scored[u])[:limit]


def _candidate(href: str, page_url: str, page: SplitResult, home: str) -> str | None:
    """The canonical address ``href`` leads to, if it is another page of the same site
    (not the homepage, an anchor, an email, a phone, a script or a file)."""
    if not href or href.startswith(("#", "mailto:", "tel:", "javascript:")):
        return None
    try:
        url = _canonical(urljoin(page_url, href))
        parts = urlsplit(url)
        if url == home or not _same_site(parts, page):
            return None
    except ValueError:
        return None  # "http://[x" or port 99999: no address (urllib raises)
    if parts.path.lower().endswith(_SKIP_SUFFIXES):
        return None
    return url


def _canonical(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.scheme == "file" or path.endswith(("/index.html", "/index.htm")):
        path = path.removesuffix("index.html").removesuffix("index.htm") or "/"
    return urlunsplit((parts.scheme, parts.netloc.lower(), path, parts.query, ""))


def _same_site(a: SplitResult, b: SplitResult) -> bool:
    if a.scheme == "file" or b.scheme == "file":
        # Saved sites: only files in the same folder tree as the page.
        folder = posixpath.dirname(b.path)
        return a.scheme == b.scheme == "file" and a.path.startswith(folder + "/")
    host_a = (a.hostname or "").removeprefix("www.")
    host_b = (b.hostname or "").removeprefix("www.")
    return a.scheme in ("http", "https") and host_a == host_b and a.port == b.port
