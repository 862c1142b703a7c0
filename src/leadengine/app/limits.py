"""Per-caller request limits for the routes that cost money or CPU (evaluate, batches):
a token bucket per caller (the API token, or a browser session), refilled continuously.
A request over the limit gets 429 with the seconds to wait."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: Requests per minute per caller, by kind.
LIMITS = {"evaluate": 30, "batch": 10}


class RequestLimits:
    """Token buckets by (kind, caller)."""

    def __init__(self, limits: dict[str, int] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = dict(LIMITS if limits is None else limits)
        self.clock = clock
        self._levels: dict[tuple[str, str], tuple[float, float]] = {}
        self._lock = threading.Lock()

    def wait(self, kind: str, caller: str) -> float:
        """0 and one request counted if ``caller`` may make a ``kind`` request now, else
        the seconds until it may (nothing counted)."""
        per_minute = self.limits.get(kind)
        if not per_minute:
            return 0.0
        now = self.clock()
        with self._lock:
            level, then = self._levels.get((kind, caller), (float(per_minute), now))
            level = min(float(per_minute), level + (now - then) * per_minute / 60.0)
            if level < 1.0:
                self._levels[(kind, caller)] = (level, now)
                return (1.0 - level) * 60.0 / per_minute
            self._levels[(kind, caller)] = (level - 1.0, now)
            return 0.0
