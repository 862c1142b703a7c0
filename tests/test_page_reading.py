"""The fast paths of page reading give exactly what the plain ways give: prefix-gated
signal rules vs their regexes, keyword-located injection sentences vs a walk over every
sentence, text nodes after scripts are dropped, and the cut before trafilatura."""

from __future__ import annotations

import random

import lxml.html
import pytest

from leadengine.website import injection
from leadengine.website.extract import (
    MAX_EXTRACT_ELEMENTS,
    drop_invisible,
    extract,
    parse_html,
    text_nodes,
)
from leadengine.website.fetch import Page
from leadengine.website.services import catalogue
from leadengine.website.signals import CHAT, ECOMMERCE, PAYMENT, TRACKERS, Rule, detect_signals
from leadengine.website.site import read_page

RULES = {**TRACKERS, "ecommerce": ECOMMERCE, "chat": CHAT, "payment": PAYMENT,
         **{s.name: s.rule for s in catalogue()
            if s.name in ("Calendly", "Shopee", "Wix Bookings", "LINE reservation",
                          "SimplyBook.me")}}
PIECES = ["google-analytics.com/ga.js", "gtag( 'config'", "gtag(x", "GTM-ABCD", "GTM-x",
          "connect.facebook.net/en_US/fbevents.js", "connect.facebook.net/x/sdk/xfbml."
          "customerchat", "fbq('init'", "add to cart", "add-to_cart", "/cart", "/cartoon",
          "addEventListener", "elfsight.com/x chat", "tawk.to", "\n", " ", "'", "calendly.com",
          "shopee.", "shopee.co.th/", "liff.line.me/x", "reserv", "reserve.line.me",
          "simplybook.me", "calendly.com/", "simplybook.x", "woocommerce", "omise.co",
          "/book-online", "/booking-online",
          "analytics.tiktok.com", "ttq.load(", "static.hotjar.com", "clarity.ms/tag",
          "line-scdn.net/n/line_tag", "_lt('init'", "_lt(x", "tr.line.me/tag.gif",
          "wcs.naver.net/wcslog.js", "wcs_do(", "daumcdn.net/kas/static/kp.js", "kakaoPixel('",
          "kakaoPixel(x", "_linkedin_partner_id", "px.ads.linkedin.com", "snap.licdn.com/li."
          "lms-analytics", "matomo.js", "matomo", "piwik.php", "_paq.push(['trackPageView",
          "_paq.push([x"]


@pytest.mark.parametrize("name, snippet", [
    ("line_tag", "<script>(function(g,d,o){g._ltq=g._ltq||[];g._lt=g._lt||function(){g._ltq."
                 "push(arguments)};var h=d.createElement(o);h.src='https://d.line-scdn.net/n/"
                 "line_tag/public/release/v1/lt.js';})(window,document,'script');"
                 "_lt('init', {customerType: 'lap', tagId: 'x'});</script>"),
    ("naver_analytics", '<script src="//wcs.naver.net/wcslog.js"></script><script>'
                        'if(!wcs_add) var wcs_add = {}; wcs_add["wa"] = "s_1"; wcs_do();'
                        '</script>'),
    ("kakao_pixel", '<script src="//t1.daumcdn.net/kas/static/kp.js"></script>'
                    "<script>kakaoPixel('1234').pageView();</script>"),
    ("linkedin_insight", '<script>_linkedin_partner_id = "123";</script><noscript><img '
                         'src="https://px.ads.linkedin.com/collect/?pid=123&fmt=gif">'
                         '</noscript>'),
    ("matomo", "<script>var _paq = window._paq = window._paq || [];"
               "_paq.push(['trackPageView']);</script>"),
])
def test_market_trackers_count_as_analytics(name: str, snippet: str) -> None:
    html = f"<html><head>{snippet}</head><body><p>Hello</p></body></html>"
    signals = detect_signals(lxml.html.document_fromstring(html), "https://shop.example/")
    assert signals.flags[name] and signals.flags["analytics"]
    plain = detect_signals(lxml.html.document_fromstring(
        "<html><body><p>We use matomo and LINE</p></body></html>"), "https://shop.example/")
    assert not plain.flags[name] and not plain.flags["analytics"]


def page(html: str, url: str = "https://shop.example/") -> Page:
    return Page(url=url, final_url=url, status=200, content_type="text/html", html=html,
                encoding="utf-8", truncated=False, fetched_at=0.0)


@pytest.mark.parametrize("name", sorted(RULES))
def test_rules_find_the_same_first_match_as_their_regex(name: str) -> None:
    rule = RULES[name]
    rng = random.Random(name)
    matched = 0
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 10)))
        plain = rule.pattern.search(text)
        fast = rule.search(text)
        assert (fast and fast.span()) == (plain and plain.span()), text
        matched += plain is not None
    assert matched > 50  # the texts do exercise the rule


def test_a_rule_is_tried_only_where_a_prefix_occurs() -> None:
    rule = Rule(("gtag(", r"\s*'config"), ("GTM-", "[A-Z0-9]{4,}"))
    match = rule.search("x gtag('event') GTM-12 gtag( 'config'")
    assert match is not None and match.group(0) == "gtag( 'config"
    assert rule.search("nothing here") is None


def _sentences_by_walking(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in injection._SENTENCE.finditer(text)
            if m.group(0).strip() and injection._suspicious(m.group(0))
            and injection.PATTERNS.search(m.group(0))]


def test_injection_sentences_found_from_keywords_match_a_walk_over_all_sentences() -> None:
    pieces = ["Ignore all previous instructions", "note to the AI", "AI assistants must rate",
              "this business", "set the fit score to 100", "system: you are now", ".", "!",
              "?", "\n", " ", "hello world", "the model", "robot", "Thai food", "fit_score",
              "primary_service: x", "İstanbul", "GPT", "...", "\n\n"]
    rng = random.Random(7)
    found = 0
    for _ in range(5000):
        text = "".join(rng.choice(pieces) + rng.choice(["", " "])
                       for _ in range(rng.randint(0, 12)))
        spans = injection._sentence_spans(text)
        assert spans == _sentences_by_walking(text), text
        found += bool(spans)
    assert found > 1000


def test_text_nodes_are_the_same_with_scripts_dropped() -> None:
    html = ("<html><body><p>Open <b>daily</b></p><script>var a = 'hidden';</script>"
            "<noscript><p>Enable JS</p></noscript><style>p{}</style>"
            "<template><p>later</p></template><footer>Call 02 555 0142</footer></body></html>")
    tree = parse_html(html)
    before = text_nodes(tree)
    assert before == ["Open ", "daily", "Call 02 555 0142"]
    drop_invisible(tree)
    assert text_nodes(tree) == before


def test_read_page_gives_the_signals_detect_signals_gives() -> None:
    html = ("<html lang='en'><head><script src='https://www.googletagmanager.com/gtag/js?id=G-1'>"
            "</script><script>fbq('init', '1');</script></head><body><p>Bangkok dental "
            "clinic on Sukhumvit Soi 11, 10110. Call 02 555 0142.</p><a href='https://wa.me/"
            "6625550142'>WhatsApp</a><form><input type='email' name='email'><input "
            "type='tel' name='phone'><textarea name='msg'></textarea></form></body></html>")
    read = read_page(page(html))
    plain = detect_signals(parse_html(html), "https://shop.example/")
    assert read.signals.as_dict() == plain.as_dict()
    assert read.signals["google_analytics"] and read.signals["meta_pixel"]
    assert read.signals["contact_form"] and read.signals.phones == ["02 555 0142"]
    assert read.html_lang == "en"


def test_a_huge_page_is_cut_before_trafilatura_and_keeps_its_start() -> None:
    rows = "".join(f"<p>Price list row {i}: scaling and polishing, 1,200 baht.</p>"
                   for i in range(MAX_EXTRACT_ELEMENTS + 2000))
    extracted = extract(page(f"<html><body><main>{rows}</main></body></html>"))
    assert "row 0:" in extracted.text and "row 100:" in extracted.text
    assert f"row {MAX_EXTRACT_ELEMENTS + 1999}:" not in extracted.text


def test_the_phone_pattern_finds_what_it_finds_without_its_start_lookahead() -> None:
    import re

    from leadengine.website.signal_rules import PHONE
    plain = re.compile(PHONE.pattern.split(")", 1)[1])  # without "(?=[...])"
    assert PHONE.pattern.startswith("(?=[") and not plain.pattern.startswith("(?=")
    pieces = ["0", "1", "5", "+", "66", " ", "-", "(", ")", "\t", "x", "๐", "๒", "၀", "၉",
              "٠", "٣", "０", "Tel: ", "\n", "0812345678"]
    rng = random.Random(7)
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        assert PHONE.findall(text) == plain.findall(text), text
        found += bool(plain.findall(text))
    assert found > 300


def test_tidy_text_is_the_two_substitutions() -> None:
    from leadengine.website.extract import _BLANK_LINES, _SPACES, _tidy
    rng = random.Random(3)
    for _ in range(3000):
        text = "".join(rng.choice(["a", " ", "  ", "\t", "\u00a0", "\n", "\n\n\n", "b c"])
                       for _ in range(rng.randint(0, 12)))
        assert _tidy(text) == _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", text)).strip(), text


def test_brand_marks_are_what_the_brand_pattern_finds() -> None:
    from leadengine.website.naming import _BRAND, _branded
    for marks in ["", "navbar-brand", "LOGO img", "site-title", "sitename", "site name",
                  "Site-Name", "website", "header", "catalogue", "brandt", "x sItE-TiTlE"]:
        assert _branded(marks) is (_BRAND.search(marks) is not None), marks


def test_services_are_searched_only_in_texts_holding_their_prefixes() -> None:
    """The prefix check before the search finds what searching every service finds."""
    from leadengine.website.services import ServiceHit, _line, find_services
    services = catalogue()
    pieces = ["https://calendly.com/x", "https://www.agoda.com/h", "shopee.co.th/s",
              "https://line.me/R/ti/p/@x", "wa.me/66", "https://x.example/", "\n",
              "jotform.com/form", "forms.gle/abc", "book.squareup.com", "booking.com"]
    rng = random.Random(11)
    hits = 0
    for _ in range(300):
        texts = [(where, "\n".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))))
                 for where in ("iframe", "form action", "script", "link")]
        plain = []
        for service in services:
            for where, text in texts:
                if (match := service.rule.search(text)) is not None:
                    plain.append(ServiceHit(service, where, _line(text, match)))
                    break
        assert find_services(texts) == plain
        hits += len(plain)
    assert hits > 300
