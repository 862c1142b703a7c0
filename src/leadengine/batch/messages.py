"""What a batch's parent and its shard processes say to each other.

The parent gives each shard a :class:`ShardJob` when it starts it; a shard then sends
its parent one of the :data:`ShardEvent` messages at a time on its pipe (a send is one
write: no feeder thread), and is answered on a second pipe, with more rows, when it asks
(:class:`AskMore`). Each message is a small frozen dataclass, so both sides name what
they send and the parent's ``match`` sees every kind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leadengine.batch.input import Row
from leadengine.batch.summary import Summary
from leadengine.errors import LeadEngineError


@dataclass(frozen=True)
class ShardJob:
    """What a shard's process is given."""

    index: int
    shards: int
    name: str
    #: The batch's settings (a shard's share of the per-host limits), its knowledge base,
    #: database URL and run key: typed ``Any`` as they cross a process boundary pickled.
    settings: Any
    kb: Any
    db: str
    key: Any
    retry_since: float | None
    concurrency: int
    per_host: int
    max_age: float | None
    lease: float
    retry_failed: bool
    rows: list[Row]
    #: Forked from the batch's own process (see
    #: :func:`leadengine.batch.shards.start_processes`), and the pipe ends of the other
    #: shards it holds, to close.
    forked: bool = False
    others: tuple[int, ...] = ()


@dataclass(frozen=True)
class Started:
    """The shard began evaluating ``url`` (if it dies now, the URL is a suspect)."""

    url: str


@dataclass(frozen=True)
class Ended:
    """The shard is done with ``url``, stored or failed."""

    url: str


@dataclass(frozen=True)
class Progress:
    """The shard's counters so far (at most every ``PROGRESS_EVERY`` seconds)."""

    summary: Summary


@dataclass(frozen=True)
class Done:
    """The shard worked through every row it was given; its final counters."""

    summary: Summary


@dataclass(frozen=True)
class Stopped:
    """The shard stopped early for a reason every other row would share (its share of
    the day's requests is used up, or the model is gone with none to take over): what
    it started is stored, and the batch stops once the others end."""

    error: LeadEngineError
    summary: Summary


@dataclass(frozen=True)
class Failed:
    """The shard could not go on (a database it cannot write, a bad configuration)."""

    error: LeadEngineError


@dataclass(frozen=True)
class AskMore:
    """The shard has done its rows: the parent answers with more, or none."""


#: Everything a shard sends its parent.
ShardEvent = Started | Ended | Progress | Done | Stopped | Failed | AskMore
