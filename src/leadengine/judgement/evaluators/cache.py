"""The LLM response cache: an identical request (provider, endpoint, model, messages,
output format, temperature) is answered from disk instead of being paid for again.

One JSON file per request under ``<cache dir>/responses/``, named by the request's
hash; API keys are never part of a request's key or file. An unreadable entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from leadengine.config.cache import write_atomically


class ResponseCache:
    """Answers keyed by the whole request."""

    def __init__(self, root: Path) -> None:
        self.root = root / "responses"

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        blob = json.dumps(request, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, request: dict[str, Any]) -> dict[str, Any] | None:
        try:
            data = json.loads((self.root / f"{self.key(request)}.json").read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and "content" in data else None

    def put(self, request: dict[str, Any], content: str, usage: dict[str, int]) -> None:
        body = json.dumps({"content": content, "usage": usage}, ensure_ascii=False)

        def write(path: Path) -> None:
            path.write_text(body, encoding="utf-8")

        write_atomically(self.root / f"{self.key(request)}.json", write)
