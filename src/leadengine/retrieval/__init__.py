"""Retrieval: pick the knowledge passages most relevant to a query.

Methods are chosen by name from :data:`METHODS`; each is a class built once per
knowledge base (query-independent work happens there) whose ``retrieve`` does
only per-query work.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from leadengine.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from leadengine.knowledge import KnowledgeBase


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


def _keyword(kb: KnowledgeBase) -> Retriever:
    from leadengine.retrieval.keyword import KeywordRetriever

    return KeywordRetriever(kb.documents)


def _bm25(kb: KnowledgeBase) -> Retriever:
    from leadengine.retrieval.bm25 import BM25Retriever

    return BM25Retriever(kb.passages, kb.version, kb.cache_dir)


def _semantic(kb: KnowledgeBase) -> Retriever:
    from leadengine.retrieval.semantic import SemanticRetriever

    if not kb.semantic_fits():
        raise ConfigError(
            f"the knowledge base has {len(kb.passages):,} passages, more than the semantic "
            f"index's cap of {kb.semantic_max_passages:,} (embedding them takes about "
            f"{len(kb.passages) * 0.05 / 60:.0f} min once): use bm25 or hybrid, or raise "
            "LEADENGINE_SEMANTIC_MAX_PASSAGES (0 = no cap)")
    return SemanticRetriever(kb.passages, kb.get_embedder(), kb.cache_dir)


def _hybrid(kb: KnowledgeBase) -> Retriever:
    from leadengine.retrieval.bm25 import BM25Retriever
    from leadengine.retrieval.hybrid import HybridRetriever
    from leadengine.retrieval.semantic import SemanticRetriever

    bm25 = kb.retriever("bm25")
    assert isinstance(bm25, BM25Retriever)

    def semantic() -> SemanticRetriever | None:
        if not kb.semantic_fits():
            status.info("the knowledge base has %s passages, more than the semantic index's "
                        "cap of %s: hybrid ranks with bm25 alone (raise "
                        "LEADENGINE_SEMANTIC_MAX_PASSAGES to embed them, once)",
                        f"{len(kb.passages):,}", f"{kb.semantic_max_passages:,}")
            return None
        retriever = kb.retriever("semantic")
        assert isinstance(retriever, SemanticRetriever)
        return retriever

    return HybridRetriever(bm25, semantic)


#: Retrieval methods by name. ``keyword`` is the seed's algorithm over whole files;
#: the others rank section passages.
METHODS: dict[str, Callable[[KnowledgeBase], Retriever]] = {
    "keyword": _keyword, "bm25": _bm25, "semantic": _semantic, "hybrid": _hybrid}


def build_retriever(method: str, kb: KnowledgeBase) -> Retriever:
    """Build the retriever called ``method`` over ``kb``."""
    try:
        factory = METHODS[method]
    except KeyError:
        known = ", ".join(METHODS)
        raise ConfigError(f"unknown retrieval method {method!r} (choose one of: {known})"
                          ) from None
    return factory(kb)
