"""Per-caller request limits for the routes that cost money or CPU (evaluate, batches):
a token bucket per caller (the API token, or a browser session), refilled continuously
(the LLM limits' :class:`~leadengine.judgement.ratelimit.Bucket`). A request over the limit gets
429 with the seconds to wait."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from leadengine.judgement import Bucket

#: Requests per minute per caller, by kind.
LIMITS = {"evaluate": 30, "batch": 10}


class RequestLimits:
    """Token buckets by (kind, caller)."""

    def __init__(self, limits: dict[str, int] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = dict(LIMITS if limits is None else limits)
        self.clock = clock
        self._buckets: dict[tuple[str, str], Bucket] = {}
        self._lock = threading.Lock()

    def wait(self, kind: str, caller: str) -> float:
        """0 and one request counted if ``caller`` may make a ``kind`` request now, else
        the seconds until it may (nothing counted)."""
        per_minute = self.limits.get(kind)
        if not per_minute:
            return 0.0
        with self._lock:
            bucket = self._buckets.get((kind, caller))
            if bucket is None:
                bucket = self._buckets[(kind, caller)] = Bucket(per_minute, self.clock)
            delay = bucket.wait_for(1)
            if delay <= 0:
                bucket.take(1)
            return delay
