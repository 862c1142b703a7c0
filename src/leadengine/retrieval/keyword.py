"""``method="keyword"``: the seed's retrieval algorithm, exactly, without its repeated work.

The seed (``rag.py``) scores every whole document per query as::

    score = |set(query.lower().split()) & set(doc.lower().split())|
          + 0.5 * #{w in query words : len(w) > 4 and w in doc.lower()}

then sorts by score (stable, descending) and returns the top ``limit``
documents with a score above 0. Only when no document scores above 0, a
document scores 1 if one of :data:`HIGH_VALUE_TERMS` is a substring of both
the lowercased query and the lowercased document.

The seed re-lowercases and re-splits every document for every query, then
scans each document once per long query word. Here everything that does not
depend on the query is built once:

* a vocabulary ``token -> documents containing it`` answers the intersection;
* because a query word has no whitespace, ``w in doc`` holds exactly when
  ``w`` is a substring of one of the document's whitespace tokens, so the
  substring test becomes "which vocabulary tokens contain ``w``", answered by
  an index of the tokens' 5-character grams (every boosted word has at least
  5 characters) and a check of the few candidates.

Scores, order and fallback are identical to the seed's; ``tests/test_keyword.py``
checks them against the seed's code on random corpora.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from leadengine.knowledge.base import Document
from leadengine.retrieval.hits import Hit, best_indices

#: The seed's fallback terms (geography and industry).
HIGH_VALUE_TERMS = ("yangon", "mandalay", "bangkok", "medical", "education", "marketing",
                    "digital")

_GRAM = 5  # the boost applies to words longer than 4 characters


class KeywordRetriever:
    """The seed's keyword scoring over whole documents."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self.documents = list(documents)
        lowered = [doc.content.lower() for doc in self.documents]
        postings: dict[str, list[int]] = {}
        for index, text in enumerate(lowered):
            for token in set(text.split()):
                postings.setdefault(token, []).append(index)
        self._tokens = list(postings)
        self._token_docs = [np.asarray(postings[t], dtype=np.intp) for t in self._tokens]
        self._token_id = {t: i for i, t in enumerate(self._tokens)}
        grams: dict[str, list[int]] = {}
        for token_id, token in enumerate(self._tokens):
            for gram in {token[i : i + _GRAM] for i in range(len(token) - _GRAM + 1)}:
                grams.setdefault(gram, []).append(token_id)
        self._grams = grams
        self._fallback_docs = {
            term: np.asarray([i for i, text in enumerate(lowered) if term in text], dtype=np.intp)
            for term in HIGH_VALUE_TERMS
        }

    def scores(self, query: str) -> np.ndarray:
        """The seed's score of every document, in load order."""
        query = query.lower()
        words = set(query.split())
        scores = np.zeros(len(self.documents))
        for word in words:
            token_id = self._token_id.get(word)
            if token_id is not None:
                scores[self._token_docs[token_id]] += 1.0
            if len(word) > _GRAM - 1:
                docs = self._docs_containing(word)
                if docs.size:
                    scores[docs] += 0.5
        if not scores.any():
            for term, docs in self._fallback_docs.items():
                if term in query:
                    scores[docs] = 1.0
        return scores

    def retrieve(self, query: str, limit: int = 3) -> list[Hit]:
        """Top ``limit`` whole documents with a score above 0, best first (ties: load order)."""
        scores = self.scores(query)
        return [Hit(path=self.documents[i].path, heading=None, score=float(scores[i]),
                    text=self.documents[i].content)
                for i in best_indices(scores, limit, floor=0.0)]

    def prepare(self) -> None:
        """Nothing to build: the documents are read when the retriever is made."""

    def explain(self, query: str, hit: Hit) -> dict[str, Any]:
        """Which query words matched ``hit``'s document (+1 each) and which long words
        were found inside it (+0.5 each), as the seed scores them."""
        index = next(i for i, d in enumerate(self.documents) if d.path == hit.path)
        tokens = set(self.documents[index].content.lower().split())
        words = sorted(set(query.lower().split()))
        matched = [w for w in words if w in tokens]
        boosted = [w for w in words if len(w) > _GRAM - 1 and index in self._docs_containing(w)]
        return {"method": "keyword", "matched": matched, "boosted": boosted,
                "score": len(matched) + 0.5 * len(boosted) or hit.score}

    def _docs_containing(self, word: str) -> np.ndarray:
        """Documents whose lowercased text contains ``word`` (``len(word) >= 5``)."""
        candidates = None
        for i in range(len(word) - _GRAM + 1):
            ids = self._grams.get(word[i : i + _GRAM])
            if ids is None:
                return np.empty(0, dtype=np.intp)
            if candidates is None or len(ids) < len(candidates):
                candidates = ids
        assert candidates is not None
        matched = [self._token_docs[t] for t in candidates if word in self._tokens[t]]
        if not matched:
            return np.empty(0, dtype=np.intp)
        if len(matched) == 1:
            return matched[0]
        # np.unique's result (sorted, once each) without np.unique, which imports numpy's
        # masked arrays (45 ms of a batch's start) on its first call.
        docs = np.sort(np.concatenate(matched))
        return docs[np.concatenate(([True], docs[1:] != docs[:-1]))]
