"""REFERENCE COPY of the seed's keyword retrieval, for comparison in benchmarks only.

This module is NOT used by the engine. It reproduces ``retrieve()`` from the
seed's ``rag.py`` (lines 21-69, as documented in the seed's "RAG System" page)
as written: every query re-lowercases and re-splits every document, and scans
each document once per long query word. The body is kept verbatim except that
it returns ``(score, content)`` pairs instead of only the contents, so scores
can be compared too.

The seed's documentation also describes a fallback ("if no matches found,
searches for these domain-specific keywords ... assigns score of 1 if any
found") that its listed code does not show. It is added here as our design
reads it: only when no document scored above 0, a document scores 1 when one
of :data:`HIGH_VALUE_TERMS` is a substring of both the lowercased query and
the lowercased document, every other document 0; then the same sort and slice,
keeping only scores above 0.
"""

from __future__ import annotations

from typing import Any

#: The seed's fallback terms (geography and industry).
HIGH_VALUE_TERMS = ("yangon", "mandalay", "bangkok", "medical", "education", "marketing",
                    "digital")


class SeedRAG:
    """The seed's retrieval over an in-memory corpus of ``{"content": ...}`` dicts."""

    def __init__(self, corpus: list[dict[str, Any]]) -> None:
        self.corpus = corpus

    def retrieve(self, query_text: str, limit: int = 3) -> list[tuple[float, str]]:
        """Simple keyword-based retrieval with basic ranking."""
        scored_docs: list[tuple[float, dict[str, Any]]] = []
        query_text = query_text.lower()
        query_words = set(query_text.split())

        for doc in self.corpus:
            doc_content = doc["content"].lower()
            doc_words = set(doc_content.split())

            # Intersection score
            intersection = query_words.intersection(doc_words)
            score: float = len(intersection)

            # Boost for long words (> 4 chars)
            for word in query_words:
                if len(word) > 4 and word in doc_content:
                    score += 0.5

            if score > 0:
                scored_docs.append((score, doc))

        # Fallback (from the seed's documentation, not its listed code): high-value terms.
        if not scored_docs:
            scored_docs = self._fallback(query_text)

        # Sort by score descending
        scored_docs.sort(key=lambda x: x[0], reverse=True)

        # Return top 3 unique documents
        return [(score, doc["content"]) for score, doc in scored_docs[:limit]]

    def _fallback(self, query_text: str) -> list[tuple[float, dict[str, Any]]]:
        """Score 1 for documents sharing a high-value term with the (lowercased) query."""
        scored_docs: list[tuple[float, dict[str, Any]]] = []
        for doc in self.corpus:
            doc_content = doc["content"].lower()
            score = 0
            for term in HIGH_VALUE_TERMS:
                if term in query_text and term in doc_content:
                    score = 1
                    break
            if score > 0:
                scored_docs.append((score, doc))
        return scored_docs
