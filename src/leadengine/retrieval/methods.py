"""The retrieval methods by name: each factory builds its retriever over an index,
importing the method's module (numpy, bm25s, the embedder) only when first built."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from leadengine.config import RETRIEVAL_METHODS
from leadengine.errors import ConfigError
from leadengine.retrieval.hits import Retriever, status

if TYPE_CHECKING:
    from leadengine.retrieval.index import RetrievalIndex


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


#: Retrieval methods by name (the names are config's :data:`RETRIEVAL_METHODS`, in its
#: order). ``keyword`` is the seed's algorithm over whole files; the others rank section
#: passages.
METHODS: dict[str, Callable[[RetrievalIndex], Retriever]] = dict(
    zip(RETRIEVAL_METHODS, (_keyword, _bm25, _semantic, _hybrid), strict=True))


def build_retriever(method: str, index: RetrievalIndex) -> Retriever:
    """Build a new retriever called ``method`` over ``index`` (``hybrid`` reuses the
    index's kept ``bm25`` and ``semantic`` retrievers). ``index.retriever(method)`` builds
    one once and keeps it."""
    try:
        factory = METHODS[method]
    except KeyError:
        known = ", ".join(METHODS)
        raise ConfigError(f"unknown retrieval method {method!r} (choose one of: {known})"
                          ) from None
    return factory(index)
