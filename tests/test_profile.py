"""Website intelligence: every fixture's signals, contacts, language and pages against its
hand-written expected.json, the profile command, and hostile servers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leadengine import FetchError, Settings
from leadengine.cli import cli
from leadengine.website.load import load_site
from leadengine.website.profile import PROFILE_SIGNALS, build_profile
from tests.conftest import SITES
from tests.fakes.site_server import SiteServer

ALL_SITES = sorted(p.name for p in SITES.iterdir() if (p / "expected.json").is_file())
SERVED = Settings(allow_private=True)


def expected(site: str) -> dict[str, Any]:
    return json.loads((SITES / site / "expected.json").read_text(encoding="utf-8"))


def profile_of(target: str, settings: Settings = SERVED) -> dict[str, Any]:
    return build_profile(asyncio.run(load_site(target, settings)))


@pytest.fixture(scope="module")
def profiles(sites: SiteServer) -> dict[str, dict[str, Any]]:
    """Each fixture crawled over HTTP, once."""
    return {site: profile_of(sites.url(f"{site}/"), Settings(allow_private=True,
                                                             respect_robots=False))
            for site in ALL_SITES}


@pytest.mark.parametrize("site", ALL_SITES)
def test_signals_match_the_hand_written_expectations(site: str,
                                                     profiles: dict[str, dict[str, Any]]
                                                     ) -> None:
    got = profiles[site]["signals"]
    want = expected(site)["signals"]
    assert {k: got[k] for k in want} == want
    for name, value in got.items():
        if value and name in ("google_analytics", "google_tag_manager", "meta_pixel",
                              "tiktok_pixel", "hotjar", "contact_form", "online_booking",
                              "ecommerce", "facebook_link", "facebook_only", "messaging_link"):
            assert profiles[site]["evidence"].get(name), f"{name} has no evidence"


@pytest.mark.parametrize("site", ALL_SITES)
def test_contacts_language_and_pages(site: str, profiles: dict[str, dict[str, Any]]) -> None:
    profile, want = profiles[site], expected(site)
    assert set(profile["contacts"]["phones"]) >= set(want["phones"])
    assert set(profile["contacts"]["emails"]) >= set(want["emails"])
    assert profile["language"] == want["language"]
    crawled = {Path(p["url"].rstrip("/")).name if not p["url"].endswith("/") else "index.html"
               for p in profile["pages"]}
    assert crawled == set(want["pages"]) - {"robots.txt"}


def test_the_profile_has_the_contract_keys(profiles: dict[str, dict[str, Any]]) -> None:
    profile = profiles["bangkok-clinic-mature"]
    assert set(PROFILE_SIGNALS) <= set(profile["signals"])
    assert all(isinstance(v, bool) for v in profile["signals"].values())
    assert {"language", "pages", "failed_pages", "contacts", "evidence", "business", "forms",
            "scripts", "iframes", "unknown"} <= set(profile)


def test_json_ld_business_facts(profiles: dict[str, dict[str, Any]]) -> None:
    business = profiles["bangkok-clinic-mature"]["business"]
    assert business["name"] == "CareFirst Medical Clinic"
    assert "MedicalClinic" in business["type"]
    assert business["address"].startswith("55/8 Sukhumvit Soi 31")
    assert business.get("hours")


def test_pixels_possibly_inside_tag_manager_are_unknown_not_absent(
        profiles: dict[str, dict[str, Any]]) -> None:
    hotel = profiles["bangkok-hotel"]
    assert hotel["signals"]["google_tag_manager"] and not hotel["signals"]["google_analytics"]
    assert "google_analytics" in hotel["unknown"]
    assert "meta_pixel" not in hotel["unknown"]  # seen directly on the page
    assert "Google Tag Manager" in hotel["evidence"]["unknown"]
    assert profiles["yangon-school"]["unknown"] == []  # no GTM: absent means absent


def test_form_purposes(profiles: dict[str, dict[str, Any]]) -> None:
    def purposes(site: str) -> list[str]:
        return [f["purpose"] for f in profiles[site]["forms"]]

    # id="contact_form", yet a newsletter signup; the add-to-cart forms are "other".
    assert set(purposes("bangkok-ecommerce")) == {"newsletter", "other"}
    assert "booking" in purposes("bangkok-hotel")
    assert "contact" in purposes("london-bakery")  # a date field in an enquiry is not booking
    assert "contact" in purposes("bangkok-clinic-mature")


def test_thai_site_with_a_wrong_charset_declaration(profiles: dict[str, dict[str, Any]]
                                                   ) -> None:
    profile = profiles["broken-charset"]
    assert profile["language"] == "th"
    assert "+6625550733" in profile["contacts"]["phones"]
    assert "02-555-0733" in profile["evidence"]["phone"]  # as the site wrote it
    assert "ซอยสุขุมวิท 11" in profile["contacts"]["address"]


def test_profile_command(sites: SiteServer) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["profile", sites.url("yangon-school/"), "--json",
                                 "--allow-private"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["signals"]["messaging_link"] and data["language"] == "en"
    summary = runner.invoke(cli, ["profile", sites.url("yangon-school/"), "--allow-private"])
    assert "  phones:   " in summary.stdout and "+959450123456" in summary.stdout
    # The summary says who and where, in the salesperson's words.
    assert "\n  category: education (" in summary.stdout
    assert "\n  place:    Yangon, Myanmar\n" in summary.stdout
    refused = runner.invoke(cli, ["profile", sites.url("yangon-school/")])
    assert refused.exit_code == 1
    assert refused.stderr.startswith("error: ") and "--allow-private" in refused.stderr


def test_failed_subpages_are_listed(sites: SiteServer) -> None:
    sites.route("/bangkok-clinic-mature/booking.html", status=502)
    try:
        profile = profile_of(sites.url("bangkok-clinic-mature/"))
    finally:
        sites.route("/bangkok-clinic-mature/booking.html", status=404)
    assert profile["failed_pages"] == [
        f"{sites.url('bangkok-clinic-mature/booking.html')}: HTTP 502 Bad Gateway"]
    assert len(profile["pages"]) == 3


def test_connection_reset(sites: SiteServer) -> None:
    sites.route("/reset", reset=True)
    with pytest.raises(FetchError, match=r"/reset: (connection reset by the server|the server "
                                         r"closed the connection without answering)$"):
        profile_of(sites.url("reset"))


def test_slow_drip_hits_the_page_deadline(sites: SiteServer) -> None:
    sites.route("/drip", body="<html><body>" + "x" * 400 + "</body></html>", drip=(10, 0.1))
    with pytest.raises(FetchError, match=r"/drip: took longer than 1s \(slow server\)"):
        profile_of(sites.url("drip"), Settings(allow_private=True, page_deadline=1.0,
                                               timeout=5.0))


def test_chat_payment_and_call_to_action_signals() -> None:
    from leadengine.website.fetch import Page
    from leadengine.website.site import site_from_page

    html = """<html lang="en"><head><title>Golden Land Tours | Yangon</title>
    <script src="https://embed.tawk.to/5f1a/default"></script>
    <script src="https://cdn.omise.co/omise.js"></script></head>
    <body><p>Day trips around Yangon since 2012, with guides who speak five languages.</p>
    <a href="/tours">Book now</a></body></html>"""
    page = Page(url="https://goldenland.example/", final_url="https://goldenland.example/",
                status=200, content_type="text/html", html=html, encoding="utf-8",
                truncated=False, fetched_at=0.0)
    profile = build_profile(site_from_page(page))
    assert profile["signals"]["chat_widget"] and profile["signals"]["online_payment"]
    assert profile["evidence"]["chat_widget"] == "https://embed.tawk.to/5f1a/default"
    assert profile["evidence"]["online_payment"] == "https://cdn.omise.co/omise.js"
    assert profile["evidence"]["call_to_action"] == "Book now"
    assert profile["signals"]["https"] and profile["page_count"] == 1
    plain = site_from_page(Page(url="https://x.example/", final_url="https://x.example/",
                                status=200, content_type="text/html",
                                html="<p>We make tea in Mandalay.</p>", encoding="utf-8",
                                truncated=False, fetched_at=0.0))
    assert not any(plain.signals[n] for n in ("chat_widget", "online_payment",
                                              "call_to_action"))


def test_neighbouring_footer_numbers_stay_separate() -> None:
    from leadengine.website.fetch import Page
    from leadengine.website.site import site_from_page

    html = ("<html><body><p>Sukhumvit clinic since 2001, open daily.</p><footer>"
            "<span>+66 2 555 0142</span><span>081 555 0142</span></footer></body></html>")
    page = Page(url="https://c.example/", final_url="https://c.example/", status=200,
                content_type="text/html", html=html, encoding="utf-8", truncated=False,
                fetched_at=0.0)
    signals = site_from_page(page).signals
    assert signals.phones == ["+6625550142", "+66815550142"]
    assert signals.evidence["phone"] == "+66 2 555 0142, 081 555 0142"


def test_phones_are_e164_in_the_sites_country_and_deduplicated() -> None:
    from leadengine.website.phones import normalise_phones, site_region

    # Burmese and Thai digits are digits; one number written three ways is one number.
    numbers, written = normalise_phones(
        ["09-450-123-456", "၀၉-၄၅၀-၁၂၃-၄၅၆", "+95 9 450 123 456", "01 234 567"], "MM")
    assert numbers == ["+959450123456", "+951234567"]
    assert written == ["09-450-123-456", "01 234 567"]
    assert normalise_phones(["๐๒ ๕๕๕ ๐๑๔๒", "02-555-0142"], "TH")[0] == ["+6625550142"]
    # The country: a ccTLD, else the numbers written in full, else the language,
    # else the address; generic ccTLDs (.co, .io) say nothing.
    assert site_region("https://clinic.co.th/", "en") == "TH"
    assert site_region("https://shop.example/", "en", phones=["+95 1 555 0184"]) == "MM"
    assert site_region("https://shop.io/", "th") == "TH"
    assert site_region("https://shop.example/", "en", address="12 Pyay Rd, Yangon") == "MM"
    assert site_region("https://shop.example/", "en") is None
    # Unknown country: the team's markets are tried; a number valid in none is kept as
    # written rather than lost.
    assert normalise_phones(["081 555 0142", "020 7946 0321"], None)[0] == [
        "+66815550142", "020 7946 0321"]
