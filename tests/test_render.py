"""Pages built by JavaScript: an empty shell is rendered in Debian's Chromium (through
Playwright) and read as its scripts leave it, bounded by a deadline, failing alone;
static pages are never rendered (skipped where Chromium or Playwright is missing)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from leadengine.config import Settings
from leadengine.errors import FetchError
from leadengine.website import load_site
from leadengine.website.fetch import Page
from leadengine.website.render import Renderer, chromium, is_shell
from tests.conftest import REPO, SITES
from tests.fakes.site_server import SiteServer

HERE = REPO / "tests" / "fixtures" / "render"
FAST = Settings(allow_private=True, respect_robots=False, host_delay=0.0)
needs_chromium = pytest.mark.skipif(chromium() is None,
                                    reason="Chromium or Playwright is not installed")


def page_of(path: Path, url: str = "http://x.example/") -> Page:
    return Page(url, url, 200, "text/html", path.read_text(encoding="utf-8"), "utf-8", False,
                0.0)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with SiteServer(HERE) as found:
        yield found.url("").rstrip("/")


def test_an_empty_shell_is_told_from_a_page_with_text() -> None:
    assert is_shell(page_of(HERE / "wix-like-spa" / "index.html"))
    assert is_shell(page_of(HERE / "endless-script" / "index.html"))
    for site in sorted(SITES.iterdir()):
        index = site / "index.html"
        if index.is_file() and site.name not in ("near-empty", "broken-charset"):
            assert not is_shell(page_of(index)), site.name
    # A local file is read as it is (nothing is fetched for it).
    assert not is_shell(page_of(HERE / "wix-like-spa" / "index.html", "file:///x.html"))


@needs_chromium
def test_a_javascript_site_reads_as_a_static_one(server: str) -> None:
    url = f"{server}/wix-like-spa/index.html"
    served = asyncio.run(load_site(url, replace(FAST, render="never")))
    assert served.business_name()[0] != "Golden Lotus Thai Massage"
    assert list(served.signals.phones) == []
    site = asyncio.run(load_site(url, FAST))  # render: auto
    assert site.business_name()[0] == "Golden Lotus Thai Massage"
    assert list(site.signals.phones) == ["+6622548899"]
    assert site.location.city is not None and site.location.city.value == "Bangkok"
    assert site.signals.address.startswith("88 Sukhumvit Soi 11")


@needs_chromium
def test_a_subpage_built_by_javascript_is_rendered_too(server: str) -> None:
    url = f"{server}/js-with-contact-page/index.html"
    site = asyncio.run(load_site(url, FAST))  # render: auto
    assert site.business_name()[0] == "Riverside Pet Grooming"
    assert site.pages == (url, f"{server}/js-with-contact-page/contact.html")
    assert list(site.signals.phones) == ["+6653241177"]  # written on the contact page only
    assert site.signals.address.startswith("45 Charoenrat Road")
    assert any("Closed on Mondays" in text for _, text in site.passages)
    served = asyncio.run(load_site(url, replace(FAST, render="never")))
    assert list(served.signals.phones) == []


@needs_chromium
def test_a_render_takes_under_three_seconds_and_a_hung_page_fails_alone(
        server: str) -> None:
    async def run() -> tuple[float, str, str]:
        renderer = Renderer(FAST, seconds=3.0)
        good = page_of(HERE / "wix-like-spa" / "index.html",
                       f"{server}/wix-like-spa/index.html")
        hung = page_of(HERE / "endless-script" / "index.html",
                       f"{server}/endless-script/index.html")
        try:
            await renderer.render(good)  # the browser started
            started = time.perf_counter()
            again = await renderer.render(good)
            took = time.perf_counter() - started
            results = await asyncio.gather(renderer.render(hung), renderer.render(good),
                                           return_exceptions=True)
        finally:
            await renderer.close()
        failed, rendered = results
        assert isinstance(failed, FetchError) and isinstance(rendered, Page)
        return took, str(failed), again.html + rendered.html

    took, message, html = asyncio.run(run())
    assert took < 3.0, took
    assert message.endswith("did not render within 3s (a script that never ends?)")
    assert html.count("Golden Lotus Thai Massage") >= 2  # the good page, beside the hung one


def test_the_renderer_keeps_to_the_ssrf_guard() -> None:
    guarded = Renderer(Settings(), executable="/usr/bin/true")
    assert asyncio.run(guarded._may_reach("127.0.0.1")) is False
    assert asyncio.run(guarded._may_reach("10.0.0.8")) is False
    allowed = Renderer(Settings(allow_private=True), executable="/usr/bin/true")
    assert asyncio.run(allowed._may_reach("127.0.0.1")) is True


def test_never_and_no_chromium_read_the_page_as_served(server: str) -> None:
    url = f"{server}/wix-like-spa/index.html"
    site = asyncio.run(load_site(url, replace(FAST, render="never")))
    assert "Golden Lotus" not in site.text
    nothing = Renderer(FAST, executable=None)
    nothing.executable = None
    assert not nothing.wants(page_of(HERE / "wix-like-spa" / "index.html"))


@needs_chromium
def test_a_directory_built_by_javascript_is_read_when_rendered(server: str) -> None:
    from leadengine.batch import discover

    url = f"{server}/js-directory/index.html"
    served = asyncio.run(discover(url, replace(FAST, render="never")))
    assert served.found == []  # the shell lists nothing
    found = asyncio.run(discover(url, FAST)).found
    assert sorted((f.name, f.website, f.phone) for f in found) == [
        ("Ari Yoga Loft", "https://www.ariyogaloft.com/", "+6622789090"),
        ("Sukhumvit Strength Club", "https://www.sukhumvitstrength.com/", "+6623812211"),
        ("Thonglor Boxing Gym", "https://www.thonglorboxing.com/", "+6627123344")]
