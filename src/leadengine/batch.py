"""Many URLs: read the input as a stream, evaluate concurrently, commit each result.

Input is a text file of URLs (one per line, ``#`` comments allowed) or a CSV with a
``url`` (or ``website``) column, separated by commas, semicolons or tabs; every other
CSV column passes through to the output. ``-`` reads standard input, and a pipe works
as well as a file. A row may also name a saved HTML file or a folder (its index.html).
Rows are normalised and de-duplicated; a row without a valid URL is recorded as an
error, never dropped, and so is a line that cannot be read (an unbalanced quote does
not fold the rows after it into one: see :func:`read_rows`). Rows already done under
the same knowledge-base version, provider and model are skipped, so re-running an
interrupted batch resumes it; failed rows are retried with ``retry_failed``. Each run
keeps its own counters in the store.

Several batches may run on one database at once: each URL is claimed in the store
before it is fetched, so no URL is evaluated (or paid for) twice; a URL another live
run has claimed is left to it ("being evaluated by run N"). A run beats every few
seconds, so one whose process was killed is seen as interrupted and its URLs come back.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx

from leadengine.batch_input import STDIN as STDIN  # re-exported: callers read rows too
from leadengine.batch_input import Row as Row
from leadengine.batch_input import input_is_seekable as input_is_seekable
from leadengine.batch_input import input_name
from leadengine.batch_input import read_rows as read_rows
from leadengine.batch_input import sniff_delimiter as sniff_delimiter
from leadengine.config import Settings
from leadengine.errors import (
    FetchError,
    LeadEngineError,
    QuotaExhausted,
    StoreError,
)
from leadengine.evaluators import make_evaluator
from leadengine.knowledge import KnowledgeBase
from leadengine.pipeline import evaluate_site
from leadengine.redact import safe_message
from leadengine.store import CLAIM_LEASE, Store
from leadengine.web.fetch import make_client, normalise_target
from leadengine.web.robots import RobotsPolicy
from leadengine.web.site import load_site

_SKIPS_EVERY = 2.0
_REASON_CHARS = 100
_LOCATION = re.compile(r"^(?:[a-z][\w+.-]*://\S*|[/~.]\S*): ", re.I)
HEARTBEAT_EVERY = 5.0


@dataclass
class Summary:
    """What a batch did."""

    run_id: int = 0
    total: int = 0
    done: int = 0
    failed: int = 0
    #: Rows skipped because they are stored as evaluated.
    skipped_done: int = 0
    #: Rows skipped because they are stored as failed (``retry_failed`` retries them).
    skipped_failed: int = 0
    duplicates: int = 0
    #: Rows left to another live run that had claimed them, and those runs.
    elsewhere: int = 0
    elsewhere_runs: set[int] = field(default_factory=set)
    tokens: int = 0
    cost_usd: float = 0.0
    #: Pages taken from stored snapshots instead of fetched (``max_age``).
    reused_pages: int = 0
    #: Failures of this run by reason (the message without its URL).
    reasons: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)

    @property
    def skipped(self) -> int:
        """Rows not attempted because a result is stored."""
        return self.skipped_done + self.skipped_failed

    @property
    def handled(self) -> int:
        """Rows finished one way or another."""
        return self.done + self.failed + self.skipped + self.duplicates + self.elsewhere

    def skips(self) -> dict[str, int]:
        """The skip counters, as the store keeps them."""
        return {"skipped_done": self.skipped_done, "skipped_failed": self.skipped_failed,
                "duplicates": self.duplicates, "elsewhere": self.elsewhere}

    def fail(self, reason: str) -> None:
        self.failed += 1
        self.reasons[safe_message(reason)] += 1

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        retry = (f"{self.skipped_failed} previously failed (use --retry-failed), "
                 if self.skipped_failed else "")
        others = ""
        if self.elsewhere:
            ids = sorted(self.elsewhere_runs)
            named = (f"run {ids[0]}" if len(ids) == 1
                     else "runs " + ", ".join(str(i) for i in ids))
            others = f"{self.elsewhere} being evaluated by {named}, "
        return (f"run {self.run_id}: {self.done} evaluated, {self.failed} failed, "
                f"{self.skipped_done} already done, {retry}{self.duplicates} duplicates, "
                f"{others}{self.reused_pages} pages from snapshots; "
                f"{elapsed:.1f}s, {self.tokens} tokens, ${self.cost_usd:.4f}")

    def failure_lines(self, top: int = 5) -> list[str]:
        """The most common failure reasons with their counts, most common first."""
        if not self.reasons:
            return []
        lines = [f"{count:>6}  {_shorten(reason)}"
                 for reason, count in self.reasons.most_common(top)]
        others = self.failed - sum(count for _, count in self.reasons.most_common(top))
        if others:
            lines.append(f"{others:>6}  (other reasons)")
        return ["failures by reason:", *lines]


def failure_reason(error: str, where: str = "") -> str:
    """The reason of a failure message, without the URL or file it names, so that the
    same failure on many sites groups together ("HTTP 404 Not Found")."""
    if where and error.startswith(f"{where}: "):
        reason = error[len(where) + 2:]
    else:
        reason = _LOCATION.sub("", error, count=1)
    return reason.strip() or error


def _shorten(text: str, limit: int = _REASON_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def normalise_url(raw: str) -> str:
    """The canonical form used for de-duplication, storage and ``show``: http(s) with
    the host in lower case and at least a "/" path, or file:// for a local file (a
    folder stands for its index.html). Accepts what ``evaluate`` accepts."""
    url = normalise_target(raw) if raw.strip() else ""
    if url.startswith("file:"):
        return _file_key(url)
    if not url.lower().startswith(("http://", "https://")):
        raise FetchError(raw or "(empty)", "not a web address (expected http(s) URL or "
                                           "domain)")
    parts = urlsplit(url)
    path = parts.path or "/"
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets
    try:
        port = parts.port
    except ValueError:
        raise FetchError(raw, "not a valid URL (the port is not a number from 0 to "
                              "65535)") from None
    netloc = host + (f":{port}" if port else "")
    return (f"{parts.scheme.lower()}://{netloc}{path}"
            + (f"?{parts.query}" if parts.query else ""))


def _file_key(url: str) -> str:
    path = Path(unquote(urlsplit(url).path)).resolve()
    if path.is_dir() and (path / "index.html").is_file():
        path = path / "index.html"
    return path.as_uri()


async def run_batch(input_path: Path | str, settings: Settings, kb: KnowledgeBase,
                    store: Store, retry_failed: bool = False, concurrency: int = 16,
                    per_host: int = 2, log_every: float = 5.0,
                    on_progress: Callable[[Summary], None] | None = None,
                    max_age: float | None = None,
                    rows: Iterable[Row] | None = None, encoding: str | None = None,
                    lease: float = CLAIM_LEASE) -> Summary:
    """Evaluate every row of ``input_path`` and store each result as it completes.
    ``on_progress`` is called after every row (a progress bar); without it a plain
    progress line goes to stderr every ``log_every`` seconds. Every fetched page is kept
    as a snapshot; with ``max_age`` (seconds) a snapshot that recent is reused. ``rows``:
    the input already read (a pipe read once to count it); ``input_path`` then only
    names the run. ``encoding``: the input's, when it is not UTF-8 (see
    :func:`read_rows`). ``lease``: how long a URL stays claimed without a heartbeat.
    Cancelling the task marks the run ``interrupted``."""
    if rows is None and input_is_seekable(input_path):
        # A file is read through once before any work, so a file that cannot be read
        # (its encoding, a NUL byte) stops here and not halfway through the batch.
        collections.deque(read_rows(input_path, encoding), maxlen=0)
    source = iter(read_rows(input_path, encoding) if rows is None else rows)
    # The first row is read before the run is recorded: a missing file or a CSV without
    # a url column is an error, not an empty 'interrupted' run in the history.
    first = list(itertools.islice(source, 1))
    snapshots = store.snapshots(max_age)
    evaluator = make_evaluator(settings, kb)
    provider, model = evaluator.name, evaluator.model
    # Runs killed without a word give their claimed URLs back now, not in minutes.
    store.settle()
    # Failures stored from now on are another live run's: not ours to retry.
    retry_since = time.time() if retry_failed else None
    summary = Summary()
    summary.run_id = store.start_run(input_name(input_path), kb.version, provider, model)
    queue: asyncio.Queue[tuple[Row, str] | None] = asyncio.Queue(maxsize=concurrency * 2)
    hosts: dict[str, asyncio.Semaphore] = {}
    host_next: dict[str, float] = {}
    host_locks: dict[str, asyncio.Lock] = {}
    seen: set[str] = set()
    known = store.states(kb.version, provider, model)
    last_log = [time.monotonic()]
    last_skips = [time.monotonic()]

    def log_progress() -> None:
        if on_progress is not None:
            on_progress(summary)
            return
        if time.monotonic() - last_log[0] >= log_every:
            last_log[0] = time.monotonic()
            print(f"progress: {safe_message(summary.line())}", file=sys.stderr, flush=True)

    def skipped() -> None:
        # Skips have no row of their own to count them with, so they are written now
        # and then (and at the end); a killed run loses at most a few seconds of them.
        if time.monotonic() - last_skips[0] >= _SKIPS_EVERY:
            last_skips[0] = time.monotonic()
            store.count_skips(summary.run_id, summary.skips())
        log_progress()

    def failed(row: Row, url: str, message: str, where: str) -> None:
        # Messages can carry a server's reply or a URL's user:password: both the stored
        # error and the summary's reason are redacted.
        message, where = safe_message(message), safe_message(where)
        store.save_error(summary.run_id, row.index, url, kb.version, provider, model,
                         message, row.passthrough)
        summary.fail(failure_reason(message, where))

    async def produce() -> None:
        try:
            await read_input()
        finally:
            for _ in range(concurrency):
                await queue.put(None)

    async def read_input() -> None:
        for row in itertools.chain(first, source):
            summary.total += 1
            if row.error is not None:
                failed(row, row.raw or f"(line {row.line})", row.error,
                       f"{input_name(input_path)} line {row.line}")
                log_progress()
                continue
            try:
                url = normalise_url(row.raw)
            except LeadEngineError as exc:
                failed(row, row.raw or f"(row {row.index})", str(exc),
                       exc.url if isinstance(exc, FetchError) else row.raw)
                log_progress()
                continue
            if url in seen:
                summary.duplicates += 1
                skipped()
                continue
            seen.add(url)
            if not count_stored(known.get(url)):
                await queue.put((row, url))

    def count_stored(state: str | None) -> bool:
        """Count a row whose result is stored as skipped; False: it is to do."""
        if state == "done":
            summary.skipped_done += 1
        elif state == "failed" and not retry_failed:
            summary.skipped_failed += 1
        else:
            return False
        skipped()
        return True

    def claimed(url: str) -> bool:
        """Claim ``url`` for this run; a row another run has, or has finished since the
        batch started, is counted and skipped."""
        claim = store.claim(summary.run_id, url, kb.version, provider, model,
                            retry_since=retry_since, lease=lease)
        if claim.state == "claimed":
            return True
        if claim.state == "elsewhere":
            summary.elsewhere += 1
            if claim.run_id is not None:
                summary.elsewhere_runs.add(claim.run_id)
        elif claim.state == "done":
            summary.skipped_done += 1
        else:
            summary.skipped_failed += 1
        skipped()
        return False

    async def polite(url: str) -> None:
        """Sites on one host start at least ``host_delay`` apart."""
        host = urlsplit(url).hostname or ""
        async with host_locks.setdefault(host, asyncio.Lock()):
            wait = host_next.get(host, 0.0) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            host_next[host] = time.monotonic() + settings.host_delay

    async def work(client: httpx.AsyncClient, robots: RobotsPolicy) -> None:
        while (item := await queue.get()) is not None:
            row, url = item
            if not claimed(url):
                continue
            local = url.startswith("file:")
            # Local files have no host to be polite to: they skip the per-host gate.
            gate = (contextlib.nullcontext() if local else
                    hosts.setdefault(urlsplit(url).hostname or "", asyncio.Semaphore(per_host)))
            try:
                async with gate:
                    if not local:
                        await polite(url)
                    site = await load_site(url, settings, client, snapshots, robots)
                    evaluation = await evaluate_site(site, kb, settings, evaluator)
            except QuotaExhausted:
                raise  # every later row would fail alike: stop, this row stays to do
            except LeadEngineError as exc:
                failed(row, url, str(exc), exc.url if isinstance(exc, FetchError) else url)
            except Exception as exc:
                failed(row, url, f"unexpected {type(exc).__name__}: {exc}", url)
            else:
                data = evaluation.model_dump(mode="json")
                store.save_evaluation(summary.run_id, row.index, url, kb.version, data,
                                      row.passthrough)
                summary.done += 1
                summary.tokens += sum(v for k, v in evaluation.tokens.items()
                                      if k in ("prompt", "completion"))
                summary.cost_usd += evaluation.cost_usd or 0.0
            log_progress()

    async def heartbeat() -> None:
        # Shows the run alive (its counters with it) and renews its claims; a beat the
        # database refuses is tried again at the next one.
        while True:
            await asyncio.sleep(HEARTBEAT_EVERY)
            with contextlib.suppress(StoreError):
                store.heartbeat(summary.run_id, summary.skips(), lease)

    beat = asyncio.create_task(heartbeat())
    try:
        async with make_client(settings) as client:
            # One robots.txt per origin for the whole batch, not one per row.
            robots = RobotsPolicy(client, settings)
            await asyncio.gather(produce(), *(work(client, robots)
                                              for _ in range(concurrency)))
    except BaseException:
        beat.cancel()
        store.finish_run(summary.run_id, "interrupted", summary.skips())
        raise
    beat.cancel()
    store.finish_run(summary.run_id, "done", summary.skips())
    summary.reused_pages = snapshots.reused
    return summary
