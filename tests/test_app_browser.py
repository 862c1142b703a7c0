"""The workspace in a real browser (Debian's chromium, driven by Playwright): log in,
see the board best first, open a lead, set its status with a note, see the history."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_app import TOKEN, fill

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The workspace under uvicorn on 127.0.0.1 (an ephemeral port), in a thread."""
    import uvicorn

    from leadengine.app import create_app

    app = create_app(None, fill(tmp_path / "r.db"), TOKEN)
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
    thread.join(timeout=5)


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
            assert errors == []  # no CSP violation, no script error
        finally:
            browser.close()
