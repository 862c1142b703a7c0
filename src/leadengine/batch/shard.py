"""A shard's own process: the batch's pipeline on its share of the rows, telling its
parent what it does (:mod:`leadengine.batch.messages`), and ending when its parent is
gone. The parent's side is :mod:`leadengine.batch.shards`."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import threading
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection

from leadengine.batch.handout import shard_rows
from leadengine.batch.messages import (
    Done,
    Ended,
    Failed,
    Progress,
    ShardJob,
    Started,
    Stopped,
)
from leadengine.batch.options import BatchOptions
from leadengine.batch.run import BatchRun
from leadengine.batch.summary import Summary
from leadengine.errors import BATCH_STOPS, LeadEngineError
from leadengine.judgement.evaluators import make_evaluator
from leadengine.store import Store

#: Seconds between two progress messages of a shard.
PROGRESS_EVERY = 0.1
#: Seconds between a shard's looks at whether its parent is still there.
PARENT_CHECK = 0.5


def shard_main(job: ShardJob, events: Connection, more: Connection) -> None:
    """A shard's process: the batch's pipeline on its rows (``job.rows``, then those the
    parent hands out on ``more`` when asked), its progress and the URLs it starts and
    ends sent to the parent on ``events`` (a pipe: a send is one write, no feeder
    thread, so telling costs microseconds a URL)."""
    if job.forked:
        leave_parent(job.others)
    end_with_parent()
    batch = shard_batch(job, events)
    rows = shard_rows(job.rows, events, more)
    try:
        asyncio.run(batch.process(rows))
    except BATCH_STOPS as exc:
        # Its share of the day's requests is used up (or the model is gone with none to
        # take over); what it started is stored.
        batch.summary.reused_pages = batch.snapshots.reused
        events.send(Stopped(exc, batch.summary))
        return
    except LeadEngineError as exc:
        events.send(Failed(exc))
        return
    batch.summary.reused_pages = batch.snapshots.reused
    events.send(Done(batch.summary))
    events.close()


def shard_batch(job: ShardJob, events: Connection) -> BatchRun:
    """The shard's :class:`BatchRun`, working under the batch's run and telling the
    parent, on ``events``, its progress and each URL it starts and ends."""
    settings = dataclasses.replace(job.settings, workers=0)
    kb = job.kb  # forked: the batch's own, its retrieval index built
    evaluator = make_evaluator(settings, kb)
    evaluator.share_limits(job.shards)
    sent = [0.0]

    def progress(summary: Summary) -> None:
        if time.monotonic() - sent[0] >= PROGRESS_EVERY:
            sent[0] = time.monotonic()
            events.send(Progress(summary))

    def on_url(what: str, url: str) -> None:
        events.send(Started(url) if what == "start" else Ended(url))

    options = BatchOptions(retry_failed=job.retry_failed, concurrency=job.concurrency,
                           per_host=job.per_host, on_progress=progress,
                           max_age=job.max_age, lease=job.lease)
    batch = BatchRun(job.name, settings, kb, Store(job.db), options, evaluator)
    batch.adopt(job.key, job.retry_since)
    batch.on_url = on_url
    return batch


def end_with_parent() -> None:
    """A shard ends when the process that started it is gone (killed with -9, out of
    memory, its terminal closed), however busy it is: a thread looks every
    :data:`PARENT_CHECK` seconds whether the shard was handed to another parent and, if
    so, ends the shard as SIGTERM does. (Its pipes would tell it too, but only when it
    next reads or writes them; an LLM request in flight, or rows still to do, would
    otherwise go on being paid for.)"""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def leave_parent(others: Sequence[int]) -> None:
    """In a shard forked from the batch's process, inside its running event loop: the
    parent's signal wake-up and handlers are not this process's (a SIGTERM sent to the
    shard would otherwise be written to the parent's loop, which would stop the batch),
    and the other shards' pipe ends it inherited are closed."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for fd in others:
        with contextlib.suppress(OSError):
            os.close(fd)
