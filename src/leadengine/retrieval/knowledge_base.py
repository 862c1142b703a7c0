"""The knowledge base you can search: :class:`leadengine.KnowledgeBase`.

:class:`~leadengine.knowledge.base.Knowledge` is the team's documents and rules as
plain data; this class adds what retrieval gives it (``retrieve``, the passages, one
retriever per method), through a :class:`~leadengine.retrieval.index.RetrievalIndex`
built on first use and kept. The data never imports the index; the index, and this
class, read the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from leadengine.knowledge.base import Knowledge, default_knowledge_dir

if TYPE_CHECKING:
    from leadengine.config import Settings
    from leadengine.retrieval.embed import Embedder
    from leadengine.retrieval.hits import Hit, Retriever
    from leadengine.retrieval.index import RetrievalIndex
    from leadengine.retrieval.passages import Passage


@dataclass
class KnowledgeBase(Knowledge):
    """Documents loaded from one directory, the rules their front matter defines, and
    retrieval over them (the index is built on first use)."""

    _index: RetrievalIndex | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> KnowledgeBase:
        """The knowledge base the settings point at (or the default one), with the
        embedder they name."""
        from leadengine.retrieval.index import embedder_for

        return cls.from_dir(settings.knowledge_dir or default_knowledge_dir(),
                            embedder=embedder_for(settings), cache_dir=settings.cache_dir,
                            semantic_max_passages=settings.semantic_max_passages or None)

    @property
    def index(self) -> RetrievalIndex:
        """The retrieval index over these documents, built on first use and kept."""
        if self._index is None:
            # Here, not at import: the index is the path to numpy and bm25s, which loading
            # a knowledge base (say, for the offline evaluator's rules) never needs.
            from leadengine.retrieval.index import RetrievalIndex

            self._index = RetrievalIndex.of(self)
        return self._index

    @property
    def passages(self) -> list[Passage]:
        """Section passages (tiny sections merged, huge ones split), in load order."""
        return self.index.passages

    def semantic_fits(self) -> bool:
        """Whether the semantic index may embed every passage
        (:data:`~leadengine.knowledge.base.SEMANTIC_MAX_PASSAGES`)."""
        return self.index.semantic_fits()

    def get_embedder(self) -> Embedder:
        """The embedder instance (created on first use)."""
        return self.index.get_embedder()

    def retriever(self, method: str) -> Retriever:
        """The retriever for ``method``, built once per knowledge base."""
        return self.index.retriever(method)

    def retrieve(self, query: str, limit: int = 3, method: str = "keyword",
                 budget: int | None = None,
                 semantic_query: str | Sequence[str] | None = None) -> list[Hit]:
        """At most ``limit`` relevant passages for ``query``, best first; with ``budget``,
        only as many as fit in that many (estimated) tokens. Passages that score nothing
        relevant are never returned.

        ``method`` defaults to ``"keyword"``, the seed's algorithm over whole files,
        because DESIGN.md documents this call with that default and outside tools rely
        on it. The engine itself (pipeline, ``leadengine evaluate``, ``kb search``)
        passes ``Settings.retrieval_method`` instead, whose default is ``"hybrid"``.
        ``semantic_query``: what the embedding model reads instead of ``query``
        (``semantic``, ``hybrid``; the pipeline gives a website's own words)."""
        return self.index.retrieve(query, limit=limit, method=method, budget=budget,
                                   semantic_query=semantic_query)
