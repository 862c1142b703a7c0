"""Retrieval: pick the knowledge passages most relevant to a query.

Methods are chosen by name from :data:`METHODS`; each is a class built once per
:class:`~leadengine.retrieval.index.RetrievalIndex` (query-independent work happens
there) whose ``retrieve`` does only per-query work.

This package's ``__init__`` exports what every method shares (:class:`Hit`, the
:class:`Retriever` protocol: :mod:`~leadengine.retrieval.hits`) and the registry
(:mod:`~leadengine.retrieval.methods`), and imports nothing heavy: the CLI reads
:data:`METHODS` for its ``--method`` choices before any index exists, and the method
modules (numpy, bm25s, the embedder) are imported by the factories when first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leadengine.exports import lazy_exports
from leadengine.retrieval.hits import Hit, Retriever, best_indices, status
from leadengine.retrieval.methods import METHODS, build_retriever

if TYPE_CHECKING:
    from leadengine.retrieval.knowledge_base import KnowledgeBase
    from leadengine.retrieval.metrics import format_table, load_qrels, score_methods
    from leadengine.retrieval.rag import RAGSystem
    from leadengine.retrieval.tokenize import use_segmenter

#: Public names of the heavier modules (imported on first use).
_EXPORTS = {
    "KnowledgeBase": "leadengine.retrieval.knowledge_base",
    "RAGSystem": "leadengine.retrieval.rag",
    "format_table": "leadengine.retrieval.metrics",
    "load_qrels": "leadengine.retrieval.metrics",
    "score_methods": "leadengine.retrieval.metrics",
    "use_segmenter": "leadengine.retrieval.tokenize",
}

__all__ = [
    "METHODS", "Hit", "KnowledgeBase", "RAGSystem", "Retriever", "best_indices",
    "build_retriever", "format_table", "load_qrels", "score_methods", "status",
    "use_segmenter",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
