"""``method="hybrid"``: reciprocal rank fusion (RRF) of ``bm25`` and ``semantic``.

Each method ranks the passages that pass its own relevance floor (bm25: a
shared term; semantic: cosine >= its floor), ranks starting at 1. A passage's
fused score is ``sum(1 / (K + rank))`` over the methods that ranked it, with
``K = 60`` (Cormack et al., 2009). A passage is one entry however many methods
found it, and one that neither method finds relevant is never returned.

For long queries (whole websites) the semantic ranking is weighted by
:data:`LONG_QUERY_SEMANTIC_WEIGHT` (weighted RRF, ``sum(w_m / (K + rank_m))``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from leadengine.retrieval.bm25 import BM25Retriever
from leadengine.retrieval.budget import estimate_tokens
from leadengine.retrieval.embed import QUERY_TOKENS
from leadengine.retrieval.hits import Hit
from leadengine.retrieval.semantic import Query, SemanticRetriever

K = 60
#: A query with more distinct indexed terms than this is "long" (a whole website, not a
#: question). The embedding model reads only its first 256 tokens while BM25 reads all
#: of it, and on website-length queries the semantic ranking only promoted generic
#: passages (e.g. the rubric over "Platform Dependency Risk" for a Facebook-only
#: clinic), so for long queries its weight is LONG_QUERY_SEMANTIC_WEIGHT and, at 0,
#: it is not computed at all (saving the embedding time per website).
LONG_QUERY_TERMS = 40
LONG_QUERY_SEMANTIC_WEIGHT = 0.0
#: A query too long for the embedding model's query window is long too, whatever the
#: knowledge base knows of its words: a Korean, Arabic or Hindi website shares few terms
#: with an English knowledge base, and was embedded as if it were a question (0.5-0.8 s
#: of CPU each, 45 % of a batch's CPU on a mix of real sites) while the model read only
#: its first 256 tokens. No judged query is affected: the short ones of both query sets
#: have at most 137 tokens; thin pages (JS shells) about 100.
LONG_QUERY_TOKENS = QUERY_TOKENS

def rrf(rankings: list[dict[int, int]], k: int = K,
        weights: list[float] | None = None) -> dict[int, float]:
    """Fused scores ``sum(w / (k + rank))`` from rankings given as ``{item: rank}``
    (rank 1 = best); every weight is 1 unless given."""
    fused: dict[int, float] = {}
    for n, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[n]
        for item, rank in ranking.items():
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return fused


#: Each method contributes its best DEPTH passages to the fusion (1/(60+100) is already
#: small, and ranking ten thousand passages in Python cost milliseconds per query).
DEPTH = 100


def ranking(scores: np.ndarray, keep: np.ndarray, depth: int = DEPTH) -> dict[int, int]:
    """``{passage: rank}`` for the best ``depth`` passages where ``keep`` holds, best score
    first (ties in passage order)."""
    kept = np.flatnonzero(keep)
    if kept.size > depth:
        # Partial selection, then a stable sort of the survivors by (score, index).
        top = kept[np.argpartition(-scores[kept], depth - 1)[:depth]]
        threshold = scores[top].min()
        kept = kept[scores[kept] >= threshold]
    order = kept[np.argsort(-scores[kept], kind="stable")][:depth]
    return {int(index): rank for rank, index in enumerate(order, 1)}


class HybridRetriever:
    """RRF of a BM25 and a semantic retriever over the same passages."""

    def __init__(self, bm25: BM25Retriever,
                 semantic: SemanticRetriever | Callable[[], SemanticRetriever | None],
                 k: int = K) -> None:
        self.bm25 = bm25
        self._semantic: SemanticRetriever | Callable[[], SemanticRetriever | None] | None = \
            semantic
        self.passages = bm25.passages
        self.k = k
        self._weighed: tuple[tuple[str, Query | None], list[float]] | None = None

    @property
    def semantic(self) -> SemanticRetriever | None:
        """The semantic retriever, built on first use: website-length queries never need
        it, so evaluating a site does not load the model or embed the knowledge base.
        None when the knowledge base is too large to embed (bm25 alone then)."""
        if callable(self._semantic) and not isinstance(self._semantic, SemanticRetriever):
            self._semantic = self._semantic()
        return self._semantic

    def rankings(self, query: str, semantic_query: Query | None = None
                 ) -> tuple[dict[int, int], dict[int, int]]:
        """(bm25 ranking, semantic ranking); the latter is empty when its weight is 0 or
        there is no semantic index. ``semantic_query``: what the embedding model reads,
        when it is not ``query`` itself (see :meth:`retrieve`)."""
        lexical = self.bm25.scores(query)
        semantic = self.semantic if self.weights(query, semantic_query)[1] else None
        if semantic is None:
            return ranking(lexical, lexical > 0), {}
        dense = semantic.scores(query if semantic_query is None else semantic_query)
        return (ranking(lexical, lexical > 0),
                ranking(dense, dense >= semantic.min_similarity))

    def weights(self, query: str, semantic_query: Query | None = None) -> list[float]:
        """[bm25, semantic] weights for this query (the last query's are kept: they are
        asked for twice per query). Whether a query is long is read from ``query``'s
        terms, and from the length of what the embedding model would read."""
        key = (query, semantic_query)
        if self._weighed is None or self._weighed[0] != key:
            dense = query if semantic_query is None else semantic_query
            long = (len(self.bm25.query_terms(query)) > LONG_QUERY_TERMS
                    or self.query_tokens(dense if isinstance(dense, str)
                                         else "\n\n".join(dense)) > LONG_QUERY_TOKENS)
            self._weighed = (key, [1.0, LONG_QUERY_SEMANTIC_WEIGHT if long else 1.0])
        return list(self._weighed[1])

    def query_tokens(self, query: str) -> int:
        """``query``'s length in the embedding model's tokens (estimated as four bytes
        of UTF-8 a token for an embedder that cannot count them)."""
        semantic = self.semantic
        return semantic.query_tokens(query) if semantic else estimate_tokens(query)

    def retrieve(self, query: str, limit: int = 3, *,
                 semantic_query: Query | None = None) -> list[Hit]:
        """The best ``limit`` passages by fused rank. ``semantic_query``, when given, is
        what the embedding model reads instead of ``query`` (bm25 always reads
        ``query``): the same query in parts, so that a part that recurs across queries
        (a website's signals block) is embedded once (see
        :meth:`SemanticRetriever.query_vector`)."""
        if limit < 0:
            raise ValueError("limit must be >= 0")
        fused = rrf(list(self.rankings(query, semantic_query)), self.k,
                    self.weights(query, semantic_query))
        order = sorted(fused, key=lambda i: (-fused[i], i))[:limit]
        return [Hit(path=self.passages[i].path, heading=self.passages[i].heading,
                    score=round(fused[i], 6), text=self.passages[i].text) for i in order]

    def prepare(self) -> None:
        """Build the semantic half (the model, the passages' embeddings) now."""
        self.semantic  # noqa: B018  (the property builds it)

    def explain(self, query: str, hit: Hit) -> dict[str, Any]:
        lexical, dense = self.rankings(query)
        index = next(p.index for p in self.passages
                     if (p.path, p.heading, p.text) == (hit.path, hit.heading, hit.text))
        return {"method": "hybrid", "k": self.k, "bm25_rank": lexical.get(index),
                "semantic_rank": dense.get(index), "weights": self.weights(query),
                "bm25": (lexical_why := self.bm25.explain(query, hit))["terms"],
                "words": lexical_why["words"],
                "cosine": round(float(self.semantic.scores(query)[index]), 4)
                if dense and self.semantic is not None else None}
