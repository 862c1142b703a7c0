"""``leadengine discover`` on directories written by another hand
(``tests/fixtures/directories``): the dev split's layouts (cards, a table, a list, a
paginated guide, a Thai guide, an article, bad inputs) read whole; the held-out split
is measured by ``bench/eval_discover.py``, not here, so nothing is tuned on it."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.eval_discover import score_site
from leadengine.batch import discover
from leadengine.cli import cli
from leadengine.config import Settings
from leadengine.store import Store
from tests.conftest import REPO
from tests.fakes.site_server import SiteServer

HERE = REPO / "tests" / "fixtures" / "directories"
GOLD = json.loads((HERE / "gold.json").read_text(encoding="utf-8"))
DEV = json.loads((HERE / "split.json").read_text(encoding="utf-8"))["dev"]
FAST = Settings(allow_private=True, respect_robots=False, host_delay=0.0)


@pytest.fixture(scope="module")
def directories() -> Iterator[str]:
    with SiteServer(HERE) as server:
        yield server.url("").rstrip("/")


@pytest.mark.parametrize("slug", [s for s in DEV if s != "bad"])
def test_every_listed_business_with_its_website_and_phone(directories: str,
                                                          slug: str) -> None:
    result = score_site(slug, GOLD[slug], directories)
    counts = result["counts"]
    listed = counts["listed"]
    assert counts["found"] / listed >= 0.95, result["misses"]
    assert counts["website"] / listed >= 0.95 and counts["phone"] / listed >= 0.95, \
        result["misses"]
    assert counts["chrome"] == 0, result["misses"]  # no nav, ad or footer link is a lead


def test_a_login_wall_and_an_off_site_redirect_keep_their_business_listed(
        directories: str) -> None:
    found = asyncio.run(discover(f"{directories}/bad/index.html", FAST)).found
    by_name = {f.name: f for f in found}
    assert len(found) == 7
    walled = by_name["Andaman Reef Divers"]
    assert (walled.website, walled.phone, walled.note) == (
        "", "", "the detail page needs a login")
    moved = by_name["Chalong Pier Dive Center"]
    assert moved.website == "" and moved.note.startswith("the detail page redirects off "
                                                          "the directory (to elsewhere")


def test_pages_and_rows_are_bounded_and_said(directories: str) -> None:
    one = asyncio.run(discover(f"{directories}/pattaya-gyms/index.html", FAST, pages=1))
    assert one.pages == 1 and len(one.found) == 8
    assert one.stopped == "stopped after 1 listing page (--pages): there are more"
    few = asyncio.run(discover(f"{directories}/pattaya-gyms/index.html", FAST, pages=9,
                               max_rows=5))
    assert len(few.found) == 5 and few.stopped == "stopped at 5 businesses (--max-rows)"


def test_the_cli_writes_rows_a_batch_reads_and_marks_known_leads(directories: str,
                                                                  tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    store = Store(db)
    run = store.start_run("x.csv", "kb", "heuristic", "rules-v1")
    store.save_evaluation(run, 0, "https://www.jomtienmuaythai.com/", "kb",
                          {"business_name": "x", "fit_score": 1, "provider": "heuristic",
                           "model": "rules-v1"}, {})
    store.engine.dispose()
    out = tmp_path / "gyms.csv"
    result = CliRunner().invoke(cli, ["discover", f"{directories}/pattaya-gyms/index.html",
                                      "--allow-private", "-o", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("discover: 22 businesses on 3 listing pages, 20 with a "
                                    "website, 1 already evaluated")
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0].keys() == {"name", "website", "phone", "address", "city", "country",
                              "category", "listing", "detail", "known", "note"}
    assert [r["name"] for r in rows if r["known"]] == ["Jomtien Muay Thai Camp"]
    from leadengine.batch import read_rows

    assert len(list(read_rows(out))) == 22  # ready for `leadengine batch`


def test_a_private_address_needs_allow_private_and_a_bad_url_is_one_line(
        directories: str) -> None:
    refused = CliRunner().invoke(cli, ["discover", f"{directories}/bad/index.html"])
    assert refused.exit_code == 1 and refused.stderr.count("\n") == 1
    assert "use --allow-private to allow" in refused.stderr
    local = CliRunner().invoke(cli, ["discover", "not a url at all"])
    assert local.exit_code == 1 and local.stderr.startswith("error:")


def test_the_workspace_finds_leads_on_a_page_and_starts_their_batch(
        directories: str, tmp_path: Path) -> None:
    import re

    from fastapi.testclient import TestClient

    from leadengine.app import create_app
    from tests.test_app import TOKEN

    app = create_app(Settings(provider="heuristic"), tmp_path / "r.db", TOKEN,
                     allow_private=True)
    client = TestClient(app, follow_redirects=False)
    client.post("/login", data={"token": TOKEN})
    page = client.get("/discover").text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
    found = client.post("/discover", data={"csrf": csrf, "pages": "1",
                                           "url": f"{directories}/phuket-chamber/index.html"})
    assert found.status_code == 200 and "15 businesses on 1 page" in found.text
    assert 'id="discover-batch">Evaluate the 14 new websites' in found.text
    api = client.post("/api/discover", headers={"X-CSRF-Token": csrf},
                      json={"url": f"{directories}/chiangmai-cafes/index.html"}).json()
    assert len(api["rows"]) == 12 and api["pages"] == 1 and api["stopped"] == ""
    bad = client.post("/discover", data={"csrf": csrf, "url": "file:///etc/passwd"})
    assert bad.status_code == 400 and "not a web address" in bad.text


def test_json_ld_item_lists_and_hostile_nesting_are_read_safely() -> None:
    from leadengine.website.detail_page import website_candidates
    from leadengine.website.directory import read_listing
    from leadengine.website.extract import parse_html

    page = ('<html><head><script type="application/ld+json">{"@type": "ItemList", '
            '"itemListElement": [{"@type": "ListItem", "url": "/dir/a.html", "name": "A Spa"}, '
            '{"@type": "ListItem", "item": {"@id": "/dir/b.html", "name": "B Gym"}}]}'
            '</script></head><body><p>Our members</p></body></html>')
    found = read_listing(page, "http://dir.example/dir/index.html")
    assert [(e.name, e.detail) for e in found.entries] == [
        ("A Spa", "http://dir.example/dir/a.html"), ("B Gym", "http://dir.example/dir/b.html")]
    deep = '{"a": ' * 5000 + '{"url": "https://deep.example/"}' + "}" * 5000
    hostile = f'<script type="application/ld+json">{deep}</script><a href="https://www.facebook.com/x">fb</a>'
    assert website_candidates(parse_html(hostile), "http://dir.example/d.html") == []


def test_a_detail_pages_website_in_an_icon_button_a_sidebar_box_or_after_its_label() -> None:
    from leadengine.website.detail_page import website_candidates
    from leadengine.website.extract import parse_html

    icon = ('<body><header><nav><a href="https://dir-partner.example/">Partner</a></nav>'
            '</header><article><header class="listing-titlebar"><h1>Ari Slow Bar</h1>'
            '<a class="btn-website" href="https://www.arislowbar.example/" title="Website">'
            '<i class="fa fa-globe"></i></a></header></article></body>')
    assert website_candidates(parse_html(icon), "http://dir.example/l/ari/") == [
        "https://www.arislowbar.example/"]
    sidebar = ('<body><main><p>Half-day kayak tour.</p></main><aside class="sidebar">'
               '<div class="widget"><h3>Operator website</h3><p><a href="https://kayak.example/">'
               'kayak.example ↗</a></p></div><div class="widget"><small>Advertisement</small>'
               '<a href="https://transfers.example/?ref=x" rel="sponsored nofollow">Airport '
               'transfers</a></div><div class="widget"><a href="https://other.example/">'
               'Other tours</a></div></aside></body>')
    assert website_candidates(parse_html(sidebar), "http://dir.example/v/kayak.html") == [
        "https://kayak.example/"]
    tail = ('<body><ul><li><span class="k">เว็บไซต์</span> www.baansati-yoga.example.co.th'
            '</li></ul></body>')
    assert website_candidates(parse_html(tail), "http://dir.example/y/baan-sati.html") == [
        "https://www.baansati-yoga.example.co.th"]


def test_cards_are_one_list_whatever_their_category_and_filters_are_never_leads() -> None:
    from leadengine.website.directory import read_listing

    def card(slug: str, category: str) -> str:
        return (f'<article class="listing-card post-{len(slug)} job_listing_category-{category}">'
                f'<h3><a href="listing/{slug}/">{slug.title()}</a></h3>'
                f'<a href="listing/{slug}/" aria-label="Read more">Read more</a></article>')

    cards = "".join(card(s, c) for s, c in [("ari", "specialty-coffee"), ("kudee", "roastery"),
                                            ("talat", "specialty-coffee"), ("bake", "bakery-cafe")])
    chips = "".join(f'<a class="chip" href="../../?area={a}">{a}</a>'
                    for a in ("nimman", "old-city", "santitham", "suthep", "riverside"))
    page = f"<html><body><div>{chips}</div><div class='grid'>{cards}</div></body></html>"
    found = read_listing(page, "http://dir.example/cafes/p/2/")
    assert [e.detail.rsplit("/listing/", 1)[1] for e in found.entries] == [
        "ari/", "kudee/", "talat/", "bake/"]
