"""Link-heavy and other hostile pages (up to the 5 MB byte cap) read within the page's
CPU budget, or fail with "page too complex to read"; a page of 100,000 links keeps the
links it shows first. The walks that replaced quadratic XPath unions give exactly what
the unions give, and the linear email finder and wrapper unwrapping what the regex and
``drop_tag`` give."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable, Iterator

import pytest
from lxml import etree

from leadengine.config import Settings
from leadengine.errors import ContentError
from leadengine.website import extract as extract_mod
from leadengine.website import facts, forms, markup
from leadengine.website.crawl import pick_subpages
from leadengine.website.extract import MAX_LINKS, Deadline, parse_html, prune_for_extraction
from leadengine.website.fetch import Page
from leadengine.website.load import load_site
from leadengine.website.signals import CHAT, EMAIL, TRACKERS, find_emails
from leadengine.website.site import PAGE_CPU_SECONDS, read_page, site_from_page
from tests.fakes.site_server import SiteServer

URL = "https://shop.example/"
SERVED = Settings(allow_private=True, respect_robots=False)


def page(html: str, url: str = URL) -> Page:
    return Page(url=url, final_url=url, status=200, content_type="text/html", html=html,
                encoding="utf-8", truncated=False, fetched_at=0.0)


def doc(body: str, head: str = "") -> str:
    return f"<html><head><title>Shop</title>{head}</head><body>{body}</body></html>"


def link_heavy(links: int = 100_000, prefix: str = "/") -> str:
    """A shop page of ``links`` links: its menu (Contact, About, Facebook) first, then
    product links, then (past the first 5,000 links) a Booking link."""
    menu = (f'<nav><a href="{prefix}contact.html">Contact us</a> <a href="{prefix}about.html">'
            'About</a> <a href="https://www.facebook.com/shop.example">Facebook</a></nav>')
    items = " ".join(f'<a href="{prefix}p/{i}/">Item {i}</a>' for i in range(links - 4))
    return doc(f"<h1>The Shop</h1><p>Everything for your home, delivered in Bangkok.</p>{menu}"
               f'<p>{items}</p><a href="{prefix}booking.html">Book a visit</a>')


# ------------------------------------------------------------------------ link-heavy


def test_a_page_of_100k_links_reads_within_the_budget_and_keeps_its_first_links() -> None:
    html = link_heavy()
    start = time.process_time()
    site = site_from_page(page(html))
    assert time.process_time() - start < PAGE_CPU_SECONDS
    assert site.signals["facebook_link"]
    assert site.signals.social["facebook"] == "https://www.facebook.com/shop.example"
    # Only the first 5,000 links are read: the booking link past them is not a candidate.
    assert pick_subpages(parse_html(html), URL, 4) == [URL + "contact.html", URL + "about.html"]


def test_a_site_of_link_heavy_pages_over_http(sites: SiteServer) -> None:
    """Before the caps, a site whose pages all had 100,000 links took 72 s of CPU."""
    for path in ("", "contact.html", "about.html"):
        sites.route(f"/link-heavy/{path}", body=link_heavy(prefix="/link-heavy/"))
    start = time.process_time()
    site = asyncio.run(load_site(sites.url("link-heavy/"), SERVED))
    spent = time.process_time() - start
    assert site.pages == tuple(sites.url(f"link-heavy/{p}")
                               for p in ("", "contact.html", "about.html"))
    assert not site.failed_pages and site.signals["facebook_link"]
    assert spent < PAGE_CPU_SECONDS * len(site.pages)


# ---------------------------------------------------------------------- the deadline


def test_a_page_over_its_budget_fails_with_what_makes_it_complex() -> None:
    with pytest.raises(ContentError, match=r"^https://shop\.example/: page too complex to "
                                           r"read within 0s \(100,000 links\)$"):
        read_page(page(link_heavy()), cpu_seconds=0.0)
    with pytest.raises(ContentError, match=r"within 0s \(1,200,00\d elements\)$"):
        site_from_page(page(doc("<br>" * 1_200_000)), cpu_seconds=0.0)


def test_a_subpage_over_its_budget_is_left_out_a_homepage_over_it_fails(
        sites: SiteServer) -> None:
    sites.route("/lh-budget/", body=doc('<p>A small clinic homepage with a contact page.</p>'
                                        '<a href="/lh-budget/contact.html">Contact</a>'))
    sites.route("/lh-budget/contact.html", body=link_heavy(prefix="/lh-budget/"))
    site_from_page(page(doc("<p>warm-up</p>")))  # trafilatura's first call loads word lists
    # The homepage reads in about 10 ms, the subpage in about 600 ms.
    site = asyncio.run(load_site(sites.url("lh-budget/"), SERVED, cpu_seconds=0.1))
    assert site.pages == (sites.url("lh-budget/"),)
    assert site.failed_pages == (f"{sites.url('lh-budget/contact.html')}: page too complex "
                                 "to read within 0.1s (100,000 links)",)
    with pytest.raises(ContentError, match=r"/lh-budget/contact\.html: page too complex"):
        asyncio.run(load_site(sites.url("lh-budget/contact.html"), SERVED, cpu_seconds=0.1))


def test_the_deadline_counts_this_threads_cpu_not_wall_time() -> None:
    deadline = Deadline(URL, 0.2)
    time.sleep(0.25)  # waiting (another coroutine's fetch, a loaded machine) is not reading
    deadline.check()
    for _ in range(10_000):
        deadline.tick()


# ------------------------------------------------------------------- hostile shapes


def _json_ld(data: str) -> str:
    return f'<script type="application/ld+json">{data}</script>'


HOSTILE: dict[str, Callable[[], str]] = {
    "100k links": link_heavy,
    "100k nested divs": lambda: doc("<div>" * 100_000 + "deep" + "</div>" * 100_000),
    "1.2M tiny elements": lambda: doc("<br>" * 1_200_000),
    "5 MB text node without spaces": lambda: doc("<p>" + "x" * 4_999_000 + "</p>"),
    "100k forms": lambda: doc('<form><input name="q"></form>' * 100_000),
    "120k fields in one form": lambda: doc(
        "<form>" + '<input name="a"><textarea></textarea>' * 60_000 + "</form>"),
    "100k script tags": lambda: doc("".join(f'<script src="/s{i}.js"></script>'
                                            for i in range(100_000))),
    "50k scripts and 50k iframes": lambda: doc("".join(
        f'<script src="/s{i}"></script><iframe src="/f{i}"></iframe>' for i in range(50_000))),
    "100k iframes": lambda: doc("".join(f'<iframe src="/f{i}"></iframe>'
                                        for i in range(100_000))),
    "100k JSON-LD blocks": lambda: doc(_json_ld("{}") * 100_000),
    "one 4 MB JSON-LD": lambda: doc(_json_ld(json.dumps({"@graph": [
        {"@type": "Thing", "name": f"x{i}"} for i in range(130_000)]}))),
    "JSON-LD nested 100k deep": lambda: doc(_json_ld("[" * 100_000 + "]" * 100_000)
                                            + _json_ld('{"@graph":' * 5_000 + "1" + "}" * 5_000)),
    "a 5 MB class": lambda: doc('<div class="' + "c" * 4_999_000 + '"><p>Hello</p></div>'),
    "4,000 classes of 1,200 characters": lambda: doc("".join(
        f'<p class="{"c" * 1_200}">para {i}</p>' for i in range(4_000))),
    "10k Thai and Burmese subpage links": lambda: doc("".join(
        f'<a href="/page{i}">{"ติดต่อเรา" * 8}{i}</a><a href="/my{i}">{"ဆက်သွယ်ရန်" * 8}</a>'
        for i in range(5_000))),
    "100k titles": lambda: doc("<title>t</title>" * 100_000),
    "100k buttons": lambda: doc("".join(f"<button>b{i}</button>" for i in range(100_000))),
    "150k wrappers side by side": lambda: doc("<div><i></i></div>" * 150_000),
    "250 wrappers around 250k elements": lambda: doc("<div>" * 250 + "<i>x</i>" * 250_000),
    "a 5 MB word with an @": lambda: doc("<p>" + "a." * 2_400_000 + "@b</p>"),
    "5 MB of tracker prefixes": lambda: doc(
        "<script>" + "elfsight.com" * 200_000 + "</script>" + '<script src="https://'
        + "connect.facebook.net/" * 100_000 + '"></script>'),
    "100k mailto and tel links": lambda: doc("".join(
        f'<a href="tel:+6625550{i:05d}">call</a><a href="mailto:u{i}@shop.example">m</a>'
        for i in range(50_000))),
    "malformed addresses": lambda: doc(
        '<a href="http://[::1">contact</a><script src="//[x"></script><form action="http://'
        '[x"><textarea></textarea></form><a href="http://shop.example:99999/about">About</a>'
        '<p>Hello</p>' + _json_ld('{"@type": [1, "Dentist"], "openingHours": [1, 2]}')),
}


@pytest.mark.parametrize("shape", HOSTILE)
def test_a_hostile_page_reads_within_the_budget(shape: str) -> None:
    html = HOSTILE[shape]()
    assert len(html.encode("utf-8")) <= Settings().max_bytes
    start = time.thread_time()
    try:
        site = site_from_page(page(html))
    except ContentError as exc:
        # A slow machine may run out of budget: then it stops, and says so.
        assert "page too complex to read within" in str(exc)
        assert time.thread_time() - start < PAGE_CPU_SECONDS + 1.0
    else:
        assert time.thread_time() - start < PAGE_CPU_SECONDS
        assert len(site.signals.phones) <= 100 and len(site.signals.scripts) <= MAX_LINKS


def test_malformed_addresses_and_json_ld_are_read_as_written() -> None:
    site = site_from_page(page(HOSTILE["malformed addresses"]()))
    assert site.signals.scripts == ["//[x"]
    assert site.signals.forms[0]["action"] == "http://[x"
    assert site.signals.business["type"] == "1 Dentist"
    assert site.signals.business["hours"] == "1; 2"
    deep = '{"@graph":' * 600 + '{"@type": "Dentist", "name": "Deep"}' + "}" * 600
    assert facts.json_ld_business(parse_html(doc(_json_ld(deep)))) == {
        "type": "Dentist", "name": "Deep"}


# ------------------------------------------------- fast paths give what XPath gives

PIECES = ['<a href="/contact">Contact <b>us</b></a>', '<a>no href</a>', '<a href="">empty</a>',
          '<a href=" /about ">About<input type="submit" value="Go"> tail</a>',
          '<button>Book <i>now</i></button>', '<button><a href="/b">In</a> x</button>',
          '<input type="submit" value="Add to cart">', '<input type="submit">',
          '<input type="SUBMIT" value="x">', '<input type="hidden" name="h">',
          '<input type="button" name="b">', '<input name="email" type="email">',
          '<textarea name="m"></textarea>', '<select name="s"><option>1</option></select>',
          '<script src="/s.js"></script>', '<script>gtag("config")</script>', '<script></script>',
          '<noscript><img src="/px.gif"><script>fbq("init")</script><img></noscript>',
          '<img src="/plain.jpg">', '<iframe src="/f"></iframe>', '<iframe></iframe>',
          '<link rel="stylesheet" href="/a.css">', '<link rel="icon">',
          '<div class="add-to-cart" id="main">x</div>', '<p id="p" class="c">text</p>',
          '<svg><title>icon</title></svg>', '<title>Second <b>title</b></title>',
          '<meta name="description" content="A shop">', '<meta name="description">',
          '<meta property="og:site_name" content="Shop">', '<meta name="og:description" '
          'content="OG">', '<meta name="viewport">', '<meta name="viewport" content="w">',
          '<script type="application/ld+json">{"@type": "Dentist"}</script>',
          '<style>p{}</style>', '<template>t</template>', '<form action="/f">', '</form>',
          "<div>", "</div>", "<span>", "</span>", " ", "words here ", "<!-- c -->"]


def soups(seed: int, count: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        yield doc("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))),
                  "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3))))


def test_the_walks_give_what_the_xpath_unions_gave() -> None:
    for html in soups(1, 1500):
        tree = parse_html(html)
        deadline = Deadline(URL)
        assert markup.action_texts(tree, deadline) == tree.xpath(
            "//a//text()|//button//text()|//input[@type='submit']/@value")[:3000], html
        assert markup.walk_class_names(tree, deadline) == tree.xpath("//@class|//@id")[:2000]
        scripts, iframes, sources = markup.element_sources(tree, deadline)
        assert sources == tree.xpath("//script/@src|//iframe/@src|//link/@href"), html
        assert (scripts, iframes) == (tree.xpath("//script/@src"), tree.xpath("//iframe/@src"))
        assert markup.inline_scripts(tree, deadline) == tree.xpath(
            "//script[not(@src)]/text()|//noscript//img/@src"), html
        assert markup.links_of(tree) == tree.xpath("//a[@href]")
        assert extract_mod._title(tree) == " ".join(
            " ".join(tree.xpath("//title//text()")).split()), html
        metas = extract_mod._metas(tree)
        for name in ("description", "og:description", "og:site_name"):
            old = [tree.xpath(f"//meta[@{attr}=$n]/@content", n=name)
                   for attr in ("name", "property")]
            want = next((" ".join(str(v[0]).split()) for v in old if v), "")
            assert extract_mod._meta(metas, name) == want, html
        viewport = tree.xpath("//meta[@name='viewport']/@content")
        assert markup.viewport_of(tree) == (viewport[0] if viewport else None)
        assert facts._json_ld_blocks(tree) == tree.xpath(
            "//script[@type='application/ld+json']/text()")[:50]
        assert extract_mod._has_invisible(tree) == tree.xpath(
            "boolean(//body//script|//body//style|//body//noscript|//body//template)")
        for form in tree.iter("form"):
            # Input types are compared ignoring case, as browsers do.
            lower = "translate(@type, 'HIDENSUBMT', 'hidensubmt')"
            assert forms._fields(form, ("hidden", "submit")) == form.xpath(
                f".//input[not({lower}='hidden') and not({lower}='submit')]|.//textarea"
                "|.//select")


def test_the_linear_email_finder_finds_what_the_regex_finds() -> None:
    rng = random.Random(3)
    alphabet = ["a", "B", ".", "@", "-", "+", "_", " ", "co", "m", "ก", "\u0e34", "1", "é",
                "x.y@d.co.th", "@@", ".."]
    for _ in range(30_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        assert find_emails(text) == EMAIL.findall(text), text
    start = time.process_time()
    for text in ("a" * 2_000_000 + "@", "a@" + "b-" * 1_000_000, "a@b." * 400_000):
        assert find_emails(text) == []
    assert time.process_time() - start < 1.0  # the regex alone: hours


def test_rules_skip_a_run_that_already_failed() -> None:
    for text in ('"connect.facebook.net/x"' * 50_000, "elfsight.com" * 100_000,
                 "https://" + "connect.facebook.net/" * 50_000):
        start = time.process_time()
        assert TRACKERS["meta_pixel"].search(text) is None and CHAT.search(text) is None
        assert time.process_time() - start < 0.5  # the regex alone: minutes
    text = "connect.facebook.net/a elfsight.com x\nelfsight.com chat connect.facebook.net/" \
           "en/fbevents.js"
    for rule in (TRACKERS["meta_pixel"], CHAT):
        fast, plain = rule.search(text), rule.pattern.search(text)
        assert fast is not None and plain is not None and fast.span() == plain.span()


def _prune_by_drop_tag(tree: etree._Element) -> etree._Element:
    """The unwrapping and cut as they were written first (``drop_tag`` one by one)."""
    etree.strip_elements(tree, *extract_mod._NEVER_TEXT, with_tail=False)
    for node in list(tree.iter("div", "span", "section")):
        if (len(node) == 1 and not (node.text or "").strip()
                and not (node[0].tail or "").strip() and node.getparent() is not None):
            node.drop_tag()
    chars = 0
    for count, node in enumerate(tree.iter()):
        chars += len(node.text or "") + len(node.tail or "")
        if count >= extract_mod.MAX_EXTRACT_ELEMENTS or chars >= extract_mod.MAX_EXTRACT_CHARS:
            parent = node.getparent()
            for ancestor in (node, *node.iterancestors()):
                while (following := ancestor.getnext()) is not None:
                    following.getparent().remove(following)
            parent.remove(node)
            break
    return tree


@pytest.mark.parametrize(("elements", "chars"), [(3, 100_000), (12, 30), (4_000, 100_000)])
def test_unwrapping_in_one_pass_gives_what_drop_tag_gave(
        monkeypatch: pytest.MonkeyPatch, elements: int, chars: int) -> None:
    monkeypatch.setattr(extract_mod, "MAX_EXTRACT_ELEMENTS", elements)
    monkeypatch.setattr(extract_mod, "MAX_EXTRACT_CHARS", chars)
    pieces = ["<div>", "</div>", "<span>", "</span>", "<section>", "</section>", "<p>", "</p>",
              " ", "\n  ", "\u00a0", "text ", "<b>bold</b>", "<?php x ?>", "<!-- c -->", "<br>",
              "<i>", "</i>", "<script>s</script>", "<nav>n</nav>", "<h2>Head</h2>"]
    rng = random.Random(elements)
    for _ in range(700):
        html = doc("".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))))
        want = etree.tostring(_prune_by_drop_tag(parse_html(html)))
        assert etree.tostring(prune_for_extraction(parse_html(html))) == want, html
