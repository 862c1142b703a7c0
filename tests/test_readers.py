"""Pages read in worker processes (``--workers``): the same sites and evaluations as
reading them in the batch's own process, and a worker killed mid-page costs a retry,
not the row."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from leadengine.cli import cli
from leadengine.config import Settings
from leadengine.errors import ContentError
from leadengine.web.fetch import Page
from leadengine.web.readers import PoolReader, default_workers
from leadengine.web.site import load_site
from tests.conftest import SITES
from tests.fakes.site_server import SiteServer

NAMES = ["bangkok-clinic-mature", "bangkok-restaurant-thai", "yangon-clinic-burmese",
         "mandalay-hotel-robots", "bangkok-tutoring-mixed", "london-bakery"]
HUGE = (SITES / "huge-page" / "index.html").read_text(encoding="utf-8", errors="replace")


def huge_page() -> Page:
    return Page(url="http://huge.example/", final_url="http://huge.example/", status=200,
                content_type="text/html", html=HUGE, encoding="utf-8", truncated=False,
                fetched_at=0.0)


@pytest.fixture(scope="module")
def pool() -> PoolReader:
    reader = PoolReader(2)
    yield reader
    reader.close()


def test_a_site_read_in_a_worker_is_the_site_read_here(pool: PoolReader) -> None:
    settings = Settings(max_pages=3)
    for name in NAMES:
        target = str(SITES / name / "index.html")
        here = asyncio.run(load_site(target, settings))
        there = asyncio.run(load_site(target, settings, reader=pool))
        assert there.content == here.content, name
        assert there.location == here.location and there.category == here.category, name
        assert there.signals.as_dict() == here.signals.as_dict(), name
        assert there.pages == here.pages and there.failed_pages == here.failed_pages


def kill_workers(reader: PoolReader) -> int:
    pids = list(reader._pool._processes or {})  # type: ignore[attr-defined]
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return len(pids)


def test_a_worker_killed_mid_page_costs_a_retry_not_the_page() -> None:
    reader = PoolReader(1)
    try:
        asyncio.run(reader.page(huge_page(), None))  # the worker is up

        async def read_while_killed() -> None:
            task = asyncio.ensure_future(reader.home(huge_page(), 0, None))
            await asyncio.sleep(0.15)  # reading takes ~0.4 s of CPU
            assert kill_workers(reader) == 1
            _links, read = await task
            assert read.page.url == "http://huge.example/" and read.extracted.text

        asyncio.run(read_while_killed())
        assert reader.restarts == 1
    finally:
        reader.close()


def test_a_page_that_kills_its_worker_twice_fails_with_one_line() -> None:
    reader = PoolReader(1)
    stop = threading.Event()

    def killer() -> None:
        while not stop.is_set():
            with contextlib.suppress(ProcessLookupError, AttributeError, RuntimeError):
                kill_workers(reader)
            time.sleep(0.05)

    try:
        asyncio.run(reader.page(huge_page(), None))
        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
        with pytest.raises(ContentError) as caught:
            asyncio.run(reader.home(huge_page(), 0, None))
        stop.set()
        thread.join()
        assert str(caught.value) == ("http://huge.example/: a page-reading process stopped "
                                     "(killed, or out of memory) while reading it, twice")
        # The pool works again for the next row.
        assert asyncio.run(reader.page(huge_page(), None)).extracted.text
    finally:
        stop.set()
        reader.close()


def test_a_batch_with_workers_stores_what_a_batch_without_them_stores(tmp_path: Path
                                                                      ) -> None:
    stored = {}
    with SiteServer(SITES) as server:
        rows = "url\n" + "\n".join(f"{server.base_url}/{n}/" for n in NAMES) + "\n"
        (tmp_path / "leads.csv").write_text(rows, encoding="utf-8")
        for workers in ("0", "2"):
            db = tmp_path / f"w{workers}.db"
            result = CliRunner().invoke(cli, [
                "batch", str(tmp_path / "leads.csv"), "--db", str(db), "--provider",
                "heuristic", "--method", "keyword", "--workers", workers, "--host-delay",
                "0", "--allow-private"])
            assert result.exit_code == 0, result.output
            out = tmp_path / f"w{workers}.json"
            result = CliRunner().invoke(cli, ["export", "--db", str(db), "--format", "json",
                                              "-o", str(out)])
            assert result.exit_code == 0, result.output
            stored[workers] = {
                row["url"]: {k: v for k, v in row.items()
                             if k not in ("evaluated_at", "elapsed", "run", "run_id",
                                          "fetched_at", "elapsed_seconds")}
                for row in json.loads(out.read_text(encoding="utf-8"))}
    assert len(stored["0"]) == len(NAMES)
    assert stored["2"] == stored["0"]


def test_workers_option_is_checked_and_defaults_to_the_cores() -> None:
    result = CliRunner().invoke(cli, ["batch", "leads.csv", "--workers", "-1"])
    assert result.exit_code == 2 and "-1 is not in the range x>=0" in result.output
    assert default_workers() >= 1
    assert Settings().workers is None
