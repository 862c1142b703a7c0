"""What every retrieval method shares: :class:`Hit`, the :class:`Retriever` protocol and
the ranking helper; imports nothing heavy (numpy only when ranking)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np


#: Progress of slow one-off work; the CLI shows these records on stderr.
status = logging.getLogger("leadengine.status")


@dataclass(frozen=True)
class Hit:
    """One retrieved passage."""

    #: File path relative to the knowledge directory, e.g. ``"Lead_q_criteria.md"``.
    path: str
    #: Section heading path; None when the hit is a whole file.
    heading: str | None
    #: Relevance score; higher is better. Scales differ between methods.
    score: float
    #: The passage text injected into the prompt.
    text: str


def best_indices(scores: np.ndarray, limit: int, floor: float, strict: bool = True
                 ) -> list[int]:
    """Indices of the best ``limit`` scores above ``floor`` (at or above it when
    ``strict`` is False), best first, ties in index order (a stable sort)."""
    import numpy as np  # here, not at import: the CLI starts without numpy

    if limit < 0:
        raise ValueError("limit must be >= 0")
    order = np.argsort(-scores, kind="stable")[:limit]
    keep = scores[order] > floor if strict else scores[order] >= floor
    return [int(i) for i, ok in zip(order, keep, strict=True) if ok]


class Retriever(Protocol):
    """Scores a knowledge base's passages against a query."""

    def retrieve(self, query: str, limit: int = 3) -> list[Hit]: ...

    def explain(self, query: str, hit: Hit) -> dict[str, Any]: ...

    def prepare(self) -> None:
        """Build now what its first query would (a batch does it before its shards
        fork, so they share it)."""
        ...
