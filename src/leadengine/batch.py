"""Many URLs: read the input as a stream, evaluate concurrently, commit each result.

Input is a text file of URLs (one per line, ``#`` comments allowed) or a CSV with a
``url`` (or ``website``) column; every other CSV column passes through to the
output. Rows are normalised and de-duplicated; a row without a valid URL is
recorded as an error, never dropped. Rows already done under the same
knowledge-base version, provider and model are skipped, so re-running an
interrupted batch resumes it; failed rows are retried with ``retry_failed``.
"""

from __future__ import annotations

import asyncio
import csv
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from leadengine.config import Settings
from leadengine.errors import ConfigError, FetchError, LeadEngineError
from leadengine.evaluators import make_evaluator
from leadengine.knowledge import KnowledgeBase
from leadengine.pipeline import evaluate_site
from leadengine.store import Store
from leadengine.web.fetch import make_client, normalise_target
from leadengine.web.robots import RobotsPolicy
from leadengine.web.site import load_site

URL_COLUMNS = ("url", "website", "site", "homepage")


@dataclass(frozen=True)
class Row:
    """One input row."""

    index: int
    raw: str
    passthrough: dict[str, str]


@dataclass
class Summary:
    """What a batch did."""

    run_id: int = 0
    total: int = 0
    done: int = 0
    failed: int = 0
    skipped: int = 0
    duplicates: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    #: Pages taken from stored snapshots instead of fetched (``max_age``).
    reused_pages: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def handled(self) -> int:
        """Rows finished one way or another."""
        return self.done + self.failed + self.skipped + self.duplicates

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        return (f"run {self.run_id}: {self.done} evaluated, {self.failed} failed, "
                f"{self.skipped} already done, {self.duplicates} duplicates, "
                f"{self.reused_pages} pages from snapshots; "
                f"{elapsed:.1f}s, {self.tokens} tokens, ${self.cost_usd:.4f}")


def read_rows(path: Path) -> Iterator[Row]:
    """The input's rows, one at a time (a file of any length is never held in memory)."""
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except FileNotFoundError:
        raise ConfigError(f"input file not found: {path}") from None
    with handle:
        first = handle.readline()
        handle.seek(0)
        header = [c.strip().lower() for c in next(csv.reader([first]), [])]
        column = next((c for c in URL_COLUMNS if c in header), None)
        if column is None and path.suffix.lower() == ".csv":
            raise ConfigError(f"{path}: no url column (expected one of: "
                              f"{', '.join(URL_COLUMNS)})")
        if column is None:
            for index, line in enumerate(handle, 1):
                text = line.strip()
                if text and not text.startswith("#"):
                    yield Row(index=index, raw=text, passthrough={})
            return
        reader = csv.DictReader(handle)
        for index, record in enumerate(reader, 1):
            original = {k: (v or "") for k, v in record.items() if k is not None}
            url_key = next(k for k in original if k.strip().lower() == column)
            raw = original.pop(url_key).strip()
            yield Row(index=index, raw=raw, passthrough=original)


def normalise_url(raw: str) -> str:
    """The canonical form used for de-duplication and storage (http(s) only)."""
    url = normalise_target(raw) if raw else ""
    if not url.lower().startswith(("http://", "https://")):
        raise FetchError(raw or "(empty)", "not a web address (expected http(s) URL or "
                                           "domain)")
    parts = urlsplit(url)
    path = parts.path or "/"
    netloc = (parts.hostname or "").lower() + (f":{parts.port}" if parts.port else "")
    return f"{parts.scheme}://{netloc}{path}" + (f"?{parts.query}" if parts.query else "")


async def run_batch(input_path: Path, settings: Settings, kb: KnowledgeBase, store: Store,
                    retry_failed: bool = False, concurrency: int = 16, per_host: int = 2,
                    log_every: float = 5.0,
                    on_progress: Callable[[Summary], None] | None = None,
                    max_age: float | None = None) -> Summary:
    """Evaluate every row of ``input_path`` and store each result as it completes.
    ``on_progress`` is called after every row (a progress bar); without it a plain
    progress line goes to stderr every ``log_every`` seconds. Every fetched page is kept
    as a snapshot; with ``max_age`` (seconds) a snapshot that recent is reused."""
    snapshots = store.snapshots(max_age)
    evaluator = make_evaluator(settings, kb)
    provider, model = evaluator.name, evaluator.model
    summary = Summary()
    summary.run_id = store.start_run(str(input_path), kb.version, provider, model)
    queue: asyncio.Queue[tuple[Row, str] | None] = asyncio.Queue(maxsize=concurrency * 2)
    hosts: dict[str, asyncio.Semaphore] = {}
    host_next: dict[str, float] = {}
    host_locks: dict[str, asyncio.Lock] = {}
    seen: set[str] = set()
    known = store.states(kb.version, provider, model)
    last_log = [time.monotonic()]

    def log_progress() -> None:
        if on_progress is not None:
            on_progress(summary)
            return
        if time.monotonic() - last_log[0] >= log_every:
            last_log[0] = time.monotonic()
            print(f"progress: {summary.line()}", file=sys.stderr, flush=True)

    async def produce() -> None:
        try:
            await read_input()
        finally:
            for _ in range(concurrency):
                await queue.put(None)

    async def read_input() -> None:
        for row in read_rows(input_path):
            summary.total += 1
            try:
                url = normalise_url(row.raw)
            except LeadEngineError as exc:
                store.save_error(summary.run_id, row.index, row.raw or f"(row {row.index})",
                                 kb.version, provider, model, str(exc), row.passthrough)
                summary.failed += 1
                log_progress()
                continue
            if url in seen:
                summary.duplicates += 1
                log_progress()
                continue
            seen.add(url)
            state = known.get(url)
            if state == "done" or (state == "failed" and not retry_failed):
                summary.skipped += 1
                log_progress()
                continue
            await queue.put((row, url))

    async def work(client: httpx.AsyncClient, robots: RobotsPolicy) -> None:
        while (item := await queue.get()) is not None:
            row, url = item
            host = urlsplit(url).hostname or ""
            gate = hosts.setdefault(host, asyncio.Semaphore(per_host))
            try:
                async with gate:
                    # Politeness: sites on one host start at least host_delay apart.
                    async with host_locks.setdefault(host, asyncio.Lock()):
                        wait = host_next.get(host, 0.0) - time.monotonic()
                        if wait > 0:
                            await asyncio.sleep(wait)
                        host_next[host] = time.monotonic() + settings.host_delay
                    site = await load_site(url, settings, client, snapshots, robots)
                    evaluation = await evaluate_site(site, kb, settings, evaluator)
            except LeadEngineError as exc:
                store.save_error(summary.run_id, row.index, url, kb.version, provider, model,
                                 str(exc), row.passthrough)
                summary.failed += 1
            except Exception as exc:
                store.save_error(summary.run_id, row.index, url, kb.version, provider, model,
                                 f"unexpected {type(exc).__name__}: {exc}", row.passthrough)
                summary.failed += 1
            else:
                data = evaluation.model_dump(mode="json")
                store.save_evaluation(summary.run_id, row.index, url, kb.version, data,
                                      row.passthrough)
                summary.done += 1
                summary.tokens += sum(v for k, v in evaluation.tokens.items()
                                      if k in ("prompt", "completion"))
                summary.cost_usd += evaluation.cost_usd or 0.0
            log_progress()

    try:
        async with make_client(settings) as client:
            # One robots.txt per origin for the whole batch, not one per row.
            robots = RobotsPolicy(client, settings)
            await asyncio.gather(produce(), *(work(client, robots)
                                              for _ in range(concurrency)))
    except BaseException:
        store.finish_run(summary.run_id, "interrupted")
        raise
    store.finish_run(summary.run_id, "done")
    summary.reused_pages = snapshots.reused
    return summary
