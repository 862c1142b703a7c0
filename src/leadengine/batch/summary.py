"""What a batch did: its counters, its summary line and its failures by reason."""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

from leadengine.config.redact import safe_message

_REASON_CHARS = 100
_LOCATION = re.compile(r"^(?:[a-z][\w+.-]*://\S*|[/~.]\S*): ", re.I)


@dataclass
class Summary:
    """What a batch did."""

    run_id: int = 0
    #: Every run of a batch run in shards (the Ray engine): one per shard.
    run_ids: list[int] = field(default_factory=list)
    total: int = 0
    done: int = 0
    failed: int = 0
    #: Rows skipped because they are stored as evaluated.
    skipped_done: int = 0
    #: Rows skipped because they are stored as failed (``retry_failed`` retries them).
    skipped_failed: int = 0
    duplicates: int = 0
    #: Rows stored as failed for a reason a setting of this run removes (refused as
    #: private, and private addresses now allowed): tried again without --retry-failed.
    unblocked: int = 0
    #: Rows left to another live run that had claimed them, and those runs.
    elsewhere: int = 0
    elsewhere_runs: set[int] = field(default_factory=set)
    tokens: int = 0
    cost_usd: float = 0.0
    #: Pages taken from stored snapshots instead of fetched (``max_age``).
    reused_pages: int = 0
    #: Failures of this run by reason (the message without its URL).
    reasons: Counter[str] = field(default_factory=Counter)
    #: One line for each switch of model the evaluator made (a model retired, or out of
    #: its day's quota): "groq model 'x' is not served (HTTP 404 ...): switched to 'y'".
    switches: list[str] = field(default_factory=list)
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
        runs = (f"runs {', '.join(str(i) for i in self.run_ids)}"
                if len(self.run_ids) > 1 else f"run {self.run_id}")
        switched = "".join(f"; {note}" for note in self.switches)
        unblocked = (f"{self.unblocked} refused as private before, tried again (private "
                     "addresses are allowed now), " if self.unblocked else "")
        return (f"{runs}: {self.done} evaluated, {self.failed} failed, "
                f"{self.skipped_done} already done, {retry}{unblocked}"
                f"{self.duplicates} duplicates, "
                f"{others}{self.reused_pages} pages from snapshots; "
                f"{elapsed:.1f}s, {self.tokens} tokens, ${self.cost_usd:.4f}{switched}")

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
