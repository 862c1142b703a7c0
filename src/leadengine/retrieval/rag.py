"""The seed's own interface: ``RAGSystem(knowledge_dir).retrieve(query_text, limit=3)``.

Kept so code written against the seed's documentation keeps working; new code
should use :class:`leadengine.KnowledgeBase`, whose hits also carry path,
heading and score.
"""

from __future__ import annotations

from pathlib import Path

from leadengine.knowledge.base import default_knowledge_dir
from leadengine.retrieval.knowledge_base import KnowledgeBase


class RAGSystem:
    """Loads all ``.md`` files of a knowledge directory on initialisation."""

    def __init__(self, knowledge_dir: str | Path | None = None, method: str = "keyword") -> None:
        self.kb = KnowledgeBase.from_dir(knowledge_dir or default_knowledge_dir())
        self.method = method

    @property
    def corpus(self) -> list[dict[str, str]]:
        """The loaded documents as the seed held them: ``{"path", "content"}`` dicts."""
        return [{"path": d.path, "content": d.content} for d in self.kb.documents]

    def retrieve(self, query_text: str, limit: int = 3) -> list[str]:
        """The contents of the ``limit`` most relevant documents, best first."""
        return [hit.text for hit in self.kb.retrieve(query_text, limit=limit, method=self.method)]
