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

from leadengine.retrieval.hits import Hit, Retriever, best_indices, status
from leadengine.retrieval.methods import METHODS, build_retriever

__all__ = ["METHODS", "Hit", "Retriever", "best_indices", "build_retriever", "status"]
