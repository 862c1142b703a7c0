"""The batches the workspace runs: the batch code the CLI uses
(:func:`leadengine.batch.run_batch`), one batch at a time in a thread of its own (so
the pages stay responsive while it reads sites), later ones queued.

A job is what the team asked for: its rows, read and checked when it is submitted (a
file the CLI would refuse is refused here, with the same one-line message), and the
settings to evaluate them with. Its progress (the batch's counters after every row, the
run it writes to) is kept here for the progress page and its event stream; what it
stored is in the results store like any batch's, so a restarted server still shows
the run, its leads and its failures.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from leadengine.batch import Row, Summary, read_rows
from leadengine.config import Settings, safe_message
from leadengine.errors import ConfigError, KnowledgeError, LeadEngineError

#: Rows one batch may have (a larger list is refused when it is submitted).
MAX_ROWS = 10_000
#: Bytes an uploaded or pasted list may have.
MAX_UPLOAD = 2 * 1024 * 1024
#: Sites a workspace batch reads at once (the CLI's default).
CONCURRENCY = 16
#: Job states; the last three are final.
STATES = ("queued", "running", "done", "failed", "stopped")
FINAL = ("done", "failed", "stopped")
#: Why a row that is not a web address is not read: the server reads no local files.
NOT_WEB = ("not a web address: the workspace only evaluates http(s) URLs and domains "
           "(local files and paths are read by the command line only)")


def read_upload(data: bytes, filename: str) -> list[Row]:
    """The rows of an uploaded CSV or text list (or pasted text), read by the CLI's own
    reader; ConfigError (one line) for a list it cannot read, an empty one, or one over
    :data:`MAX_ROWS` rows or :data:`MAX_UPLOAD` bytes. A row that is not a web address
    becomes a failed row (recorded with its reason, like a bad URL in the CLI)."""
    if len(data) > MAX_UPLOAD:
        raise ConfigError(f"the list is over {MAX_UPLOAD // (1024 * 1024)} MB")
    suffix = ".csv" if filename.lower().endswith(".csv") else ".txt"
    with tempfile.TemporaryDirectory(prefix="leadengine-upload-") as folder:
        # Named as uploaded (its last part only), so errors name what the user sent.
        name = Path(filename).name or f"upload{suffix}"
        path = Path(folder) / (name if name.lower().endswith(suffix) else name + suffix)
        path.write_bytes(data)
        try:
            reading = read_rows(path)
            try:
                rows = list(itertools.islice(reading, MAX_ROWS + 1))
            finally:
                close = getattr(reading, "close", None)
                if close is not None:
                    close()  # the file, if the list was longer than the limit
        except ConfigError as exc:  # named as sent, not by the server's temporary path
            raise ConfigError(str(exc).replace(str(path), name)) from None
    if not rows:
        raise ConfigError("the list has no URLs")
    if len(rows) > MAX_ROWS:
        raise ConfigError(f"the list has over {MAX_ROWS:,} rows: split it into batches")
    return [_web_row(row) for row in rows]


def rows_of_urls(urls: Iterable[str], passthrough: Iterable[dict[str, str]] | None = None
                 ) -> list[Row]:
    """Rows for a list of URLs (an API call, a selection of the board)."""
    urls = list(itertools.islice(urls, MAX_ROWS + 1))
    if not urls:
        raise ConfigError("no URLs given")
    if len(urls) > MAX_ROWS:
        raise ConfigError(f"over {MAX_ROWS:,} URLs: split them into batches")
    extra = list(passthrough) if passthrough is not None else [{} for _ in urls]
    # Numbered from 1, as a file's rows are: the batch page shows the number.
    return [_web_row(Row(index=i, raw=url, passthrough=dict(columns), line=i))
            for i, (url, columns) in enumerate(zip(urls, extra, strict=True), 1)]


def web_url(raw: str) -> str | None:
    """``raw`` as an explicit http(s) URL if it names a web site (``https://...``,
    ``http://...`` or a domain, ``example.com/page`` becoming ``https://...``), else
    None: the server never hands a bare string to code that would look for a file of
    that name (``examples/site/index.html``, ``/etc/passwd``, ``file:...``)."""
    text = raw.strip()
    if not text or "\\" in text or any(c.isspace() for c in text):
        return None
    if "://" in text:
        if not text.lower().startswith(("http://", "https://")):
            return None
        url = text
    elif text.startswith(("/", "~", ".")):
        return None
    else:
        url = "https://" + text
    try:
        parts = urlsplit(url)  # "[" is an unclosed IPv6 literal: ValueError
        host, _ = parts.hostname, parts.port
    except ValueError:  # "javascript:alert(1)" reads as host "javascript", port "alert(1)"
        return None
    if not host or ("." not in host and ":" not in host and host != "localhost"):
        return None  # "examples", "0": a folder or a typo, not a site
    return url


def _web_row(row: Row) -> Row:
    """A row whose URL is made explicit, or failed as not a web address."""
    if row.error is not None:
        return row
    url = web_url(row.raw)
    return replace(row, error=NOT_WEB) if url is None else replace(row, raw=url)


@dataclass
class Job:
    """One batch the workspace was asked to run."""

    id: int
    name: str
    rows: list[Row]
    settings: Settings
    retry_failed: bool = False
    #: Who asked for it (a session's name, or ``team`` for the API token).
    user: str = "team"
    state: str = "queued"
    run_id: int | None = None
    error: str = ""
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    #: The batch's counters as of its last row (see :func:`progress_of`).
    progress: dict[str, Any] = field(default_factory=dict)
    #: Bumped at every change: the event stream sends what changed since it looked.
    version: int = 0
    cancel: Callable[[], None] | None = field(default=None, repr=False)
    #: Questions asked for this batch only (on top of the knowledge base's).
    questions: tuple[str, ...] = ()

    @property
    def final(self) -> bool:
        return self.state in FINAL

    def as_dict(self) -> dict[str, Any]:
        provider = self.settings.resolve_provider()
        return {"id": self.id, "name": self.name, "state": self.state,
                "run_id": self.run_id, "error": self.error, "user": self.user,
                "rows": len(self.rows), "retry_failed": self.retry_failed,
                "questions": list(self.questions),
                "provider": provider.name, "model": self.settings.model
                or provider.default_model,
                "created_at": self.created_at, "started_at": self.started_at,
                "finished_at": self.finished_at,
                "progress": self.progress or progress_of(Summary(total=0), len(self.rows),
                                                         0.0)}


def progress_of(summary: Summary, total: int, elapsed: float) -> dict[str, Any]:
    """What the progress page shows: counts, rate, time left and cost."""
    handled = summary.handled
    rate = handled / elapsed if elapsed > 0 else 0.0
    left = max(0, total - handled)
    return {"total": total, "handled": handled, "done": summary.done,
            "failed": summary.failed, "skipped": summary.skipped,
            "duplicates": summary.duplicates, "elsewhere": summary.elsewhere,
            "rate": round(rate, 2),
            "eta_seconds": round(left / rate) if rate > 0 and left else (0 if not left
                                                                          else None),
            "elapsed_seconds": round(elapsed, 1),
            "cost_usd": round(summary.cost_usd, 6), "tokens": summary.tokens,
            "reasons": [{"reason": reason, "count": count}
                        for reason, count in summary.reasons.most_common(5)]}


class Jobs:
    """The workspace's batches: submitted, queued, run one at a time in a worker
    thread over the store at ``store_url`` (a connection of its own)."""

    def __init__(self, store_url: str) -> None:
        self.store_url = store_url
        self._jobs: dict[int, Job] = {}
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None

    def submit(self, name: str, rows: list[Row], settings: Settings,
               retry_failed: bool = False, user: str = "team",
               questions: Sequence[str] = ()) -> Job:
        """Queue a batch; its evaluator is made first, so a missing API key (or a bad
        question) is refused now (ConfigError), not when the batch starts."""
        settings.resolve_provider()
        from leadengine.judgement import make_evaluator
        from leadengine.knowledge import with_questions
        from leadengine.pipeline import load_knowledge

        try:
            kb = with_questions(load_knowledge(settings), questions)
        except KnowledgeError as exc:
            raise ConfigError(str(exc)) from None
        make_evaluator(settings, kb)
        with self._lock:
            job = Job(next(self._ids), name[:200], rows, settings, retry_failed, user[:100],
                      questions=tuple(questions))
            self._jobs[job.id] = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="leadengine-jobs",
                                                daemon=True)
                self._thread.start()
        self._queue.put(job)
        return job

    def get(self, job_id: int) -> Job | None:
        return self._jobs.get(job_id)

    def all(self) -> list[Job]:
        """Every job, the newest first."""
        return sorted(self._jobs.values(), key=lambda job: -job.id)

    def stop(self, job_id: int) -> bool:
        """Stop a queued or running job (a running one's run is recorded as
        interrupted, as Ctrl-C does in the CLI); False if it has finished."""
        job = self._jobs.get(job_id)
        if job is None or job.final:
            return False
        with self._lock:
            if job.state == "queued":
                self._finish(job, "stopped")
                return True
        if job.cancel is not None:
            job.cancel()
        return True

    def close(self, timeout: float = 10.0) -> None:
        """Stop every job and the worker (the server is shutting down)."""
        for job in self.all():
            self.stop(job.id)
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the worker thread ---------------------------------------------------------------

    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            if job.state == "queued":
                self._run(job)

    def _run(self, job: Job) -> None:
        with self._lock:
            job.state, job.started_at = "running", time.time()
            job.version += 1
        try:
            asyncio.run(self._batch(job))
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._finish(job, "stopped")
        except LeadEngineError as exc:
            self._finish(job, "failed", safe_message(str(exc)))
        except Exception as exc:  # a bug must not kill the worker: the job says what
            self._finish(job, "failed", safe_message(f"unexpected {type(exc).__name__}: "
                                                     f"{exc}"))
        else:
            self._finish(job, "done")

    async def _batch(self, job: Job) -> None:
        from leadengine.batch import BatchOptions, run_batch
        from leadengine.knowledge import with_questions
        from leadengine.pipeline import load_knowledge
        from leadengine.store import Store

        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        def cancel() -> None:
            loop.call_soon_threadsafe(task.cancel)

        job.cancel = cancel
        started = time.monotonic()

        def progress(summary: Summary) -> None:
            with self._lock:
                job.run_id = summary.run_id or job.run_id
                job.progress = progress_of(summary, len(job.rows),
                                           time.monotonic() - started)
                job.version += 1

        store = Store(self.store_url)
        try:
            # Read now: the team may have edited it.
            kb = with_questions(load_knowledge(job.settings), job.questions)
            summary = await run_batch(job.name, job.settings, kb, store,
                                      BatchOptions(retry_failed=job.retry_failed,
                                                   concurrency=CONCURRENCY, on_progress=progress,
                                                   started_by=job.user),
                                      rows=job.rows)
            progress(summary)
        finally:
            job.cancel = None
            with contextlib.suppress(Exception):
                store.engine.dispose()

    def _finish(self, job: Job, state: str, error: str = "") -> None:
        job.state, job.error, job.finished_at = state, error, time.time()
        job.version += 1
