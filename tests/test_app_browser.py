"""The workspace in a real browser (Debian's chromium, driven by Playwright): log in,
see the board best first, open a lead, set its status with a note, see the history."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.fakes.site_server import SiteServer
from tests.test_app import TOKEN, fill

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The workspace under uvicorn on 127.0.0.1 (an ephemeral port), in a thread."""
    from leadengine.app import create_app

    yield from serve(create_app(None, fill(tmp_path / "r.db"), TOKEN))


def serve(app: Any) -> Iterator[str]:
    """``app`` under uvicorn on 127.0.0.1 (an ephemeral port) in a thread, until the
    test ends (a running batch gets the shutdown's time to stop)."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=15)


def test_log_in_and_work_a_lead(server: str) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(server + "/")
            assert "/login" in page.url
            page.fill("#token", TOKEN)
            page.fill("#name", "Ann")
            page.click("button[type=submit]")
            page.wait_for_selector("#board")
            scores = page.locator("#board tbody td:first-child").all_inner_texts()
            assert [int(s) for s in scores] == [90, 75, 69, 45, 10]
            # The lead named like a script is shown as text, and nothing ran.
            assert page.locator("text=<script>alert(1)</script>").count() == 1
            page.screenshot(path=str(REPO / "docs" / "workspace-board.png"), full_page=True)

            page.click("a.lead-link >> nth=0")
            page.wait_for_selector("#lead-name")
            assert page.inner_text("#lead-name") == "Alpha"
            page.select_option("#status", "contacted")
            page.fill("#note", "Called, they want a booking demo")
            page.click("#save")
            page.wait_for_selector("#history .event-note")
            assert page.inner_text("#current-status") == "contacted"
            history = page.inner_text("#history")
            assert "contacted" in history and "Called, they want a booking demo" in history
            assert "Ann" in history
            # Times as the team reads them everywhere: year first, 24-hour clock.
            stamp = page.inner_text("#history .event-note time")
            assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", stamp), stamp
            assert errors == []  # no CSP violation, no script error
        finally:
            browser.close()


@pytest.fixture
def batch_server(tmp_path: Path) -> Iterator[str]:
    """The workspace with private addresses allowed (the fixture sites are on
    127.0.0.1) and a copy of the knowledge base it may edit."""
    import shutil

    from leadengine.app import create_app
    from leadengine.config import Settings
    from tests.conftest import KNOWLEDGE

    shutil.copytree(KNOWLEDGE, tmp_path / "knowledge")
    settings = Settings(knowledge_dir=tmp_path / "knowledge", host_delay=0.0,
                        retrieval_method="keyword", use_cache=False)
    yield from serve(create_app(settings, fill(tmp_path / "r.db"), TOKEN,
                                allow_private=True))


def test_a_batch_from_upload_to_export(batch_server: str, sites: SiteServer,
                                       tmp_path: Path) -> None:
    """Log in, upload a CSV of fixture sites, watch the progress reach done, see the
    failure and retry it, sort by fit score, filter to Bangkok, open a lead (evidence,
    sources, maturity chart), set its status with a note, export XLSX and read it back,
    and edit the knowledge base (a bad rule name is refused with its message)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    from openpyxl import load_workbook

    csv = tmp_path / "leads.csv"
    csv.write_text("url,owner\n"
                   f"{sites.url('bangkok-dental-fb-only/')},Nok\n"
                   f"{sites.url('bangkok-hotel/')},Nok\n"
                   f"{sites.url('yangon-school/')},Aung\n"
                   f"{sites.url('no-such-site-e2e/')},Aung\n", encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900},
                                    accept_downloads=True)
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(batch_server + "/login")
            page.fill("#token", TOKEN)
            page.fill("#name", "Ann")
            page.click("button[type=submit]")
            page.wait_for_selector("#board")

            # A new batch: upload, start, live progress until done.
            page.click("nav >> text=New batch")
            page.set_input_files("#file", str(csv))
            page.select_option("#provider", "heuristic")
            page.click("#start")
            page.wait_for_selector("#progress")
            sync_api.expect(page.locator("#state")).to_have_text("done", timeout=60_000)
            assert page.inner_text("#done") == "3" and page.inner_text("#failed") == "1"
            assert "404" in page.inner_text("#failures")
            # Retry the failure: a new batch of that row.
            page.click("#retry")
            sync_api.expect(page.locator("#state")).to_have_text("done", timeout=60_000)
            assert "retry of leads.csv" in page.inner_text("h1")
            assert page.inner_text("#failed") == "1"  # still missing, still listed

            # The board: best fit first, then only Bangkok.
            page.goto(batch_server + "/?sort=fit_score")
            page.click("#board th >> text=Fit")
            scores = [int(s) for s in page.locator(
                "#board tbody td:first-child").all_inner_texts()]
            assert scores == sorted(scores, reverse=True) and len(scores) == 8
            page.select_option("select[name=city]", "Bangkok")
            page.click("form.filters button[type=submit]")
            page.wait_for_url("**city=Bangkok**")
            cities = page.locator("#board tbody td:nth-child(5)").all_inner_texts()
            assert cities and set(cities) == {"Bangkok"}
            # The lead named like a script is text here too (it is not in Bangkok).
            page.goto(batch_server + "/?q=script")
            assert page.locator("text=<script>alert(1)</script>").count() == 1

            # A lead: evidence, sources, chart; status and note with history.
            page.goto(batch_server + "/?city=Bangkok&sort=-fit_score")
            page.click("a.lead-link >> nth=0")
            page.wait_for_selector("#lead-name")
            assert page.locator("ul.signals li.yes").count() > 0
            assert page.locator("ul.sources li").count() > 0
            assert page.locator("#maturity-chart rect.bar").count() == 5
            page.select_option("#status", "contacted")
            page.fill("#note", "Sent the booking demo on LINE")
            page.click("#save")
            page.wait_for_selector("#history .event-note")
            assert page.inner_text("#current-status") == "contacted"
            assert "Sent the booking demo on LINE" in page.inner_text("#history")

            # Export what the board shows (Bangkok) as XLSX and read it back.
            page.goto(batch_server + "/?city=Bangkok")
            with page.expect_download() as download:
                page.click("button[value=xlsx]")
            saved = tmp_path / "leads.xlsx"
            download.value.save_as(saved)
            sheet = load_workbook(saved).active
            assert sheet is not None
            header = [cell.value for cell in sheet[1]]
            urls = [row[header.index("url")] for row in sheet.iter_rows(min_row=2,
                                                                         values_only=True)]
            assert len(urls) == len(cities) and all("127.0.0.1" in str(u) for u in urls)

            # The knowledge base: a bad rule name is refused with the loader's message.
            page.goto(batch_server + "/knowledge/strategy_efficiency.md/edit")
            text = page.input_value("#text")
            page.fill("#text", text.replace('when: ["facebook_only"]',
                                            'when: ["facebook_onyl"]', 1))
            page.click("#save")
            assert "facebook_onyl" in page.inner_text("#save-error")
            page.fill("#text", text.replace("## Platform Dependency Risk",
                                            "## Platform Dependency Risk (edited)", 1))
            page.click("#save")
            page.wait_for_selector("#kb-text")
            assert "(edited)" in page.inner_text("#kb-text")
            # No CSP violation, no script error (the refused save's page is a 422: the
            # browser notes that status, which is meant).
            assert [e for e in errors if "status of 422" not in e] == []
        finally:
            browser.close()


@pytest.fixture
def phone_server(tmp_path: Path) -> Iterator[str]:
    """The workspace over the usual leads and one real evaluation (the example site's:
    contacts, address, a message), the lead a rep opens on a phone."""
    from leadengine.app import create_app
    from leadengine.store import Store
    from tests.test_app_knowledge_forms import real

    db = fill(tmp_path / "r.db")
    store = Store(db)
    run = store.start_run("phone.csv", "kb", "heuristic", "rules-v1")
    store.save_evaluation(run, 0, "https://smilebright.example/", "kb",
                          {**real(), "fit_score": 99}, {"owner": "aye"})
    store.finish_run(run)
    store.engine.dispose()
    yield from serve(create_app(None, db, TOKEN))


def test_every_page_fits_a_phone(phone_server: str) -> None:
    """At 390 px wide (a phone) no page scrolls sideways, and the whole nav, Settings
    and Log out included, is on the screen; a lead's who, where, fit, contacts, why,
    message and status are within its first two screens; at 1440 px the board is
    still a table. The phone screenshots in docs/ are taken here."""
    server = phone_server
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(server + "/login")
            page.fill("#token", TOKEN)
            page.fill("#name", "Ann")
            page.click("button[type=submit]")
            page.wait_for_selector("#board")
            lead = page.get_attribute("a.lead-link >> nth=0", "href")
            pages = ("/", lead, "/batches", "/settings", "/runs", "/knowledge",
                     "/knowledge/forms/cities", "/knowledge/forms/rubric",
                     "/knowledge/forms/angles", "/knowledge/forms/templates")
            for path in pages:
                page.goto(server + str(path))
                wide, view = page.evaluate("[document.documentElement.scrollWidth, "
                                           "document.documentElement.clientWidth]")
                assert wide <= view == 390, (path, wide)
                for name in ("a[href='/settings']", "form.logout button"):
                    box = page.locator(name).bounding_box()
                    assert box is not None and box["x"] + box["width"] <= 390, (path, name)
                if path == "/":
                    page.screenshot(path=str(REPO / "docs" / "workspace-phone-board.png"))
            page.goto(server + str(lead))  # the best lead: the real evaluation
            assert page.inner_text("#lead-name") == "Smile Bright Dental"
            for name in ("#lead-who", "#lead-where", "#contacts", "#why", "#outreach",
                         "#message-chat", "#status"):
                box = page.locator(name).bounding_box()
                assert box is not None and box["y"] + min(box["height"], 60) <= 2 * 844, name
            assert "Bangkok" in page.inner_text("#lead-where")
            assert page.locator("#contacts a[href^='tel:+66']").count() >= 1
            assert page.locator("#maturity-chart").count() == 1  # shown once, folded
            assert page.locator("table", has_text="Visibility").count() == 0
            page.screenshot(path=str(REPO / "docs" / "workspace-phone-lead.png"),
                            full_page=False)
            page.set_viewport_size({"width": 1440, "height": 900})
            for path in pages:
                page.goto(server + str(path))
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= 1440, (path, wide)
            page.goto(server + "/")
            assert page.locator("#board thead").is_visible()
            # The upload's intro is one sentence, not a line per word in code.
            page.goto(server + "/batches")
            intro = page.locator("#upload-intro").bounding_box()
            assert intro is not None and intro["height"] < 30, intro
        finally:
            browser.close()
