"""What each signal looks like, as data: tracker, booking, shop, chat and payment
script rules (literal prefixes tried before a regex, so a 5 MB script costs one scan),
social and messaging hosts, free webmail domains, and the e-mail and phone patterns.
"""

from __future__ import annotations

import re

#: Hosts (suffixes) of social networks; a link to one is social presence.
SOCIAL_HOSTS = {
    "facebook.com": "facebook", "fb.com": "facebook", "fb.me": "facebook",
    "instagram.com": "instagram", "tiktok.com": "tiktok", "youtube.com": "youtube",
    "youtu.be": "youtube", "linkedin.com": "linkedin", "x.com": "x", "twitter.com": "x",
}


#: Hosts / schemes of messaging apps.
MESSAGING = {"m.me": "messenger", "messenger.com": "messenger", "line.me": "line",
             "lin.ee": "line", "wa.me": "whatsapp", "whatsapp.com": "whatsapp",
             "viber.com": "viber", "invite.viber.com": "viber", "t.me": "telegram",
             "telegram.me": "telegram", "open.kakao.com": "kakaotalk",
             "pf.kakao.com": "kakaotalk", "zalo.me": "zalo"}


MESSAGING_SCHEMES = {"viber": "viber", "whatsapp": "whatsapp", "line": "line",
                     "tg": "telegram"}


class Rule:
    """A pattern made of alternatives that each begin with a literal prefix.

    A page's script blob is tens of kilobytes; a regex alternation tried at every
    position of it is slow, while finding a literal is a fast C scan. The first match is
    the leftmost of the branches' first matches (the earlier branch on a tie); a branch
    is tried (anchored) only where its prefix occurs.
    """

    def __init__(self, *branches: tuple[str, str]) -> None:
        #: The rule as one regex (what :meth:`search` finds, faster).
        self.pattern = re.compile("|".join(re.escape(prefix) + rest
                                           for prefix, rest in branches))
        self._branches = tuple((prefix, re.compile(re.escape(prefix) + rest), _run_of(rest))
                               for prefix, rest in branches)
        #: The literals one of which a text must hold to match.
        self.prefixes = frozenset(prefix for prefix, _ in branches)

    def search(self, text: str) -> re.Match[str] | None:
        best: re.Match[str] | None = None
        for prefix, pattern, run in self._branches:
            match = (_search_branch(text, prefix, pattern) if run is None
                     else _search_runs(text, prefix, pattern, run))
            if match is not None and (best is None or match.start() < best.start()):
                best = match
        return best


#: Occurrences of a branch's prefix tried one by one before the regex engine searches on
#: (str.find beats the engine's own prefix scan: 5.3 vs 9.4 ms for the rules on a 300 KB
#: page; the engine beats a Python loop on 1,600,000 "add" in a 5 MB script).
_FIND_TRIES = 64


def _search_branch(text: str, prefix: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
    at = text.find(prefix)
    for _ in range(_FIND_TRIES):
        if at == -1:
            return None
        match = pattern.match(text, at)
        if match is not None:
            return match
        at = text.find(prefix, at + 1)
    return pattern.search(text, at) if at != -1 else None


#: Unbounded runs a branch's tail may begin with.
_RUNS = (r"[^\"']*", ".*")


def _run_of(rest: str) -> re.Pattern[str] | None:
    return next((re.compile(run) for run in _RUNS if rest.startswith(run)), None)


def _search_runs(text: str, prefix: str, pattern: re.Pattern[str],
                 run: re.Pattern[str]) -> re.Match[str] | None:
    """The first match of ``pattern``: ``prefix``, then ``run`` (characters up to a quote
    or a line end), then more. Where it fails, it fails at every later ``prefix`` inside
    the same run too (their runs are tails of this one), so those are skipped; a regex
    search tries each to the run's end, which is quadratic (5 MB of
    "connect.facebook.net/" in one script address: minutes)."""
    at = text.find(prefix)
    while at != -1:
        match = pattern.match(text, at)
        if match is not None:
            return match
        end = run.match(text, at + len(prefix))
        if end is None or end.end() >= len(text):
            return None
        at = text.find(prefix, end.end())
    return None


def _words(*literals: str) -> tuple[tuple[str, str], ...]:
    return tuple((literal, "") for literal in literals)


#: Script/iframe/link patterns of measurement tools (searched as written: "GTM-" is
#: upper case), in addresses, inline scripts (a consent manager's callback that loads
#: gtag.js counts: the tracker runs once the visitor agrees) and noscript images.
TRACKERS = {
    "google_analytics": Rule(("google-analytics.com/", r"(analytics|ga)\.js"),
                             ("googletagmanager.com/gtag/js", ""),
                             ("gtag(", r"\s*['\"]config"),
                             # WordPress plugins that load it from their settings.
                             *_words("monsterinsights", "exactmetrics",
                                     "ga-google-analytics")),
    "google_tag_manager": Rule(("googletagmanager.com/gtm.js", ""), ("GTM-", "[A-Z0-9]{4,}")),
    "meta_pixel": Rule(("connect.facebook.net/", r"[^\"']*/fbevents\.js"),
                       ("fbq(", r"\s*['\"]init"), ("facebook.com/tr", r"/?\?id=\d"),
                       # WordPress plugins that load the pixel from their settings.
                       *_words("pixelyoursite", "official-facebook-pixel", "facebook-for-"
                               "woocommerce")),
    "tiktok_pixel": Rule(*_words("analytics.tiktok.com", "ttq.load(")),
    "hotjar": Rule(*_words("static.hotjar.com", "hotjar.com/c/hotjar")),
    "clarity": Rule(*_words("clarity.ms/tag")),
    # The trackers of the leads' own markets and of B2B sites.
    "line_tag": Rule(*_words("line-scdn.net/n/line_tag", "tr.line.me/tag.gif"),
                     ("_lt(", r"\s*['\"]init")),
    "naver_analytics": Rule(*_words("wcs.naver.net/wcslog.js", "wcs_do(")),
    "kakao_pixel": Rule(*_words("daumcdn.net/kas/static/kp.js"), ("kakaoPixel(", r"\s*['\"]")),
    "linkedin_insight": Rule(*_words("snap.licdn.com/li.lms-analytics", "px.ads.linkedin.com",
                                     "_linkedin_partner_id")),
    "matomo": Rule(("matomo", r"\.(js|php)"), ("piwik", r"\.(js|php)"),
                   ("_paq.push(", r"\s*\[\s*['\"]trackPageView")),
}


# The patterns below are searched in lower-cased text.
#: Shops and carts (in addresses, scripts, class names and ids).
#: Shop platforms and marketplaces are in the service catalogue (data/services.yaml);
#: these are the marks of any shop.
ECOMMERCE = Rule(("/cart", r"\b"), ("add", "[-_ ]to[-_ ]cart"), *_words("data-product-id"))


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


#: Domains of e-mail addresses that templates ship with: never a business's own.
PLACEHOLDER_EMAIL_DOMAINS = frozenset({
    "example.com", "example.org", "example.net", "domain.com", "yourdomain.com",
    "yoursite.com", "yourwebsite.com", "yourcompany.com", "company.com", "website.com",
    "mydomain.com", "mysite.com", "email.com", "youremail.com", "sitename.com", "test.com",
    "sample.com", "acme.com", "mail.example", "site.com", "businessname.com", "xyz.com",
    "abc.com", "demo.com", "placeholder.com", "domainname.com", "yourbusiness.com"})
#: Name parts that only a template writes ("your@...", "email@email.com").
_PLACEHOLDER_NAMES = re.compile(r"^(your|youremail|yourname|your\.?name|name|email|user|"
                                r"username|someone|john\.?doe|jane\.?doe|test)$")
#: "logo@2x.png": image and asset names look like addresses.
_ASSET_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".css", ".js",
                   ".ico", ".bmp", ".tiff", ".mp4", ".woff", ".woff2")


def email_kind(address: str) -> str | None:
    """"placeholder" for a template's address, None for an asset name ("logo@2x.png"),
    else "real"."""
    lowered = address.lower()
    if lowered.endswith(_ASSET_SUFFIXES):
        return None
    name, _, domain = lowered.rpartition("@")
    if (domain in PLACEHOLDER_EMAIL_DOMAINS
            or (_PLACEHOLDER_NAMES.match(name) and domain.split(".")[0] in (name, "email",
                                                                          "domain", "mail"))):
        return "placeholder"
    return "real"


EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.I)


#: The digit zero in the scripts a local number may be written in: ASCII, Arabic-Indic
#: (two forms), Devanagari, Bengali, Gurmukhi, Gujarati, Tamil, Telugu, Kannada,
#: Malayalam, Thai, Lao, Tibetan, Burmese, Khmer, Mongolian, full-width.
_ZEROS = "0٠۰०০੦૦௦౦೦൦๐໐༠၀០᠐０"
#: Phone numbers: international (+95, +66, any +CC), local ones beginning with a zero
#: (in any of those scripts: \d is any decimal digit), and numbers written in Burmese
#: digits. Thai text has no spaces, so no \b before digits. The lookahead names the
#: characters a match can start with, which the engine then skips to (0.5 -> 0.2 ms on
#: a 20 KB page).
PHONE = re.compile(rf"(?=[+{_ZEROS}၀-၉])(?<![\d+])"
                   r"(?:\+\d{1,3}[ \t-]?\(?\d{1,4}\)?[\d \t-]{4,12}\d|"
                   rf"[{_ZEROS}]\d[\d \t-]{{6,13}}\d|[၀-၉][၀-၉ \t-]{{6,13}}[၀-၉])(?!\d)")


#: A number right after a phone label, in any format (Korea's "1588-3412", a number
#: without its leading zero): the label says what it is. Searched in lower-cased text,
#: without a word boundary before the label (a boundary or an ignore-case flag makes the
#: engine try every position: 50 ms on a 260 KB page, 4 ms without).
PHONE_LABEL = re.compile(r"telephone|tel|phone|call|hotline|mobile|whatsapp|電話|전화|"
                         r"고객센터|대표번호|โทร|ဖုန်း|फोन|ফোন|هاتف|điện thoại")
#: What follows a label: a word's end, an optional "no."/"number", a colon, the number.
PHONE_AFTER_LABEL = re.compile(r"[a-z]{0,3}\.?\s*(?:no\.?|number)?\s*[.:：]?\s*"
                               r"(\+?\d[\d \t().-]{5,16}\d)(?!\d)")


#: Phones and emails kept per page (a business lists a handful; a directory page lists
#: thousands, each then parsed as a phone number).
MAX_CONTACTS = 100


#: A run of the characters of an email's name part, then an "@" (possessive: a run not
#: followed by "@" fails at once); the second begins where the previous run begins.
_LOCAL_RUN = re.compile(r"[\w.+-]++@")


_LOCAL_START = re.compile(r"(?<![\w.+-])[\w.+-]++@")


def find_emails(text: str) -> list[str]:
    """``EMAIL.findall(text)``, in linear time.

    The regex alone tries every position of a run of name characters, each to the run's
    end: quadratic (one 20,000-character word with an "@" took 1.1 s, 5 MB would take
    hours). A match's name part is a whole run ending at an "@" (or the run's rest after
    the previous match), and whether it matches depends only on what follows the "@";
    so it is tried once per "@", at the run's start.
    """
    found: list[str] = []
    at = 0
    while True:
        # A run starting where the last match ended, else the next whole run.
        run = _LOCAL_RUN.match(text, at) or _LOCAL_START.search(text, at)
        if run is None:
            return found
        match = EMAIL.match(text, run.start())
        if match is not None:
            found.append(match.group())
            at = match.end()
        else:
            at = run.end()
