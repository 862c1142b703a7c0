"""Retrieval: pick the knowledge passages most relevant to a query.

Methods are chosen by name from :data:`METHODS`; each is a class built once per
:class:`~leadengine.retrieval.index.RetrievalIndex` (query-independent work happens
there) whose ``retrieve`` does only per-query work.

This package's ``__init__`` holds only what every method shares (:class:`Hit`, the
:class:`Retriever` protocol, the registry) and imports nothing heavy: the CLI reads
:data:`METHODS` for its ``--method`` choices before any index exists, and the method
modules (numpy, bm25s, the embedder) are imported by the factories when first built.
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
    from leadengine.retrieval.index import RetrievalIndex


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


def _keyword(index: RetrievalIndex) -> Retriever:
    from leadengine.retrieval.keyword import KeywordRetriever

    return KeywordRetriever(index.documents)


def _bm25(index: RetrievalIndex) -> Retriever:
    from leadengine.retrieval.bm25 import BM25Retriever

    return BM25Retriever(index.passages, index.version, index.cache_dir,
                         expand=index.glossary.expand)


def _semantic(index: RetrievalIndex) -> Retriever:
    from leadengine.retrieval.semantic import SemanticRetriever

    if not index.semantic_fits():
        count = len(index.passages)
        raise ConfigError(
            f"the knowledge base has {count:,} passages, more than the semantic "
            f"index's cap of {index.semantic_max_passages:,} (embedding them takes about "
            f"{count * 0.05 / 60:.0f} min once): use bm25 or hybrid, or raise "
            "LEADENGINE_SEMANTIC_MAX_PASSAGES (0 = no cap)")
    return SemanticRetriever(index.passages, index.get_embedder(), index.cache_dir,
                             expand=index.glossary.expand)


def _hybrid(index: RetrievalIndex) -> Retriever:
    from leadengine.retrieval.bm25 import BM25Retriever
    from leadengine.retrieval.hybrid import HybridRetriever
    from leadengine.retrieval.semantic import SemanticRetriever

    bm25 = index.retriever("bm25")
    assert isinstance(bm25, BM25Retriever)

    def semantic() -> SemanticRetriever | None:
        if not index.semantic_fits():
            status.info("the knowledge base has %s passages, more than the semantic index's "
                        "cap of %s: hybrid ranks with bm25 alone (raise "
                        "LEADENGINE_SEMANTIC_MAX_PASSAGES to embed them, once)",
                        f"{len(index.passages):,}", f"{index.semantic_max_passages:,}")
            return None
        retriever = index.retriever("semantic")
        assert isinstance(retriever, SemanticRetriever)
        return retriever

    return HybridRetriever(bm25, semantic)


#: Retrieval methods by name. ``keyword`` is the seed's algorithm over whole files;
#: the others rank section passages.
METHODS: dict[str, Callable[[RetrievalIndex], Retriever]] = {
    "keyword": _keyword, "bm25": _bm25, "semantic": _semantic, "hybrid": _hybrid}


def build_retriever(method: str, source: RetrievalIndex | KnowledgeBase) -> Retriever:
    """Build a new retriever called ``method`` over an index, or over a knowledge base's
    index (``hybrid`` then reuses that index's kept ``bm25`` and ``semantic``
    retrievers). ``index.retriever(method)`` builds one once and keeps it."""
    try:
        factory = METHODS[method]
    except KeyError:
        known = ", ".join(METHODS)
        raise ConfigError(f"unknown retrieval method {method!r} (choose one of: {known})"
                          ) from None
    # Here, not at import: the index imports the knowledge module (pydantic, yaml), and
    # the CLI reads METHODS before it needs either.
    from leadengine.retrieval.index import RetrievalIndex

    return factory(source if isinstance(source, RetrievalIndex) else source.index)
