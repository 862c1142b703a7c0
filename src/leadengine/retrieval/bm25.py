"""``method="bm25"``: Okapi BM25 (bm25s, Lucene variant) over section passages.

Passages are tokenised by :mod:`leadengine.retrieval.tokenize`. A query's
terms count once each, so a long website text that repeats "clinic" forty
times does not outweigh its one mention of "Facebook"; terms absent from the
knowledge base are ignored. The index is saved in the cache folder (bm25s's
plain npy + json files, no pickle) and reloaded when the knowledge base,
passage rules and tokeniser are unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from leadengine.config.cache import cache_dir, cache_key, write_atomically
from leadengine.retrieval.hits import Hit, best_indices
from leadengine.retrieval.passages import Passage
from leadengine.retrieval.tokenize import TOKENIZER_VERSION, segmenter_name, tokenize, words

logging.getLogger("bm25s").setLevel(logging.WARNING)

K1 = 1.2
B = 0.75


class BM25Retriever:
    """BM25 over passages; ``retrieve`` returns only passages sharing a term with the query."""

    def __init__(self, passages: Sequence[Passage], version: str,
                 cache: Path | None = None,
                 expand: Callable[[str], str] | None = None) -> None:
        self.passages = list(passages)
        #: Adds to a query the English words of the glossary terms it holds
        #: (:mod:`leadengine.retrieval.glossary`); None = queries as they are.
        self.expand = expand
        self._last: tuple[str, tuple[str, ...]] | None = None
        self.cache_path: Path | None = None
        key = cache_key("bm25", version, TOKENIZER_VERSION, segmenter_name(), str(K1), str(B),
                        str(len(self.passages)))
        if cache is not None or version:
            self.cache_path = (cache or cache_dir()) / f"bm25-{key}"
        self.model = self._load() or self._build()
        self.vocab: dict[str, int] = self.model.vocab_dict

    def _build(self) -> bm25s.BM25:
        model = bm25s.BM25(k1=K1, b=B, method="lucene")
        corpus = [tokenize(p.text) or [""] for p in self.passages]
        model.index(corpus, show_progress=False)
        if self.cache_path is not None:
            write_atomically(self.cache_path, lambda d: model.save(str(d), show_progress=False))
        return model

    def _load(self) -> bm25s.BM25 | None:
        if self.cache_path is None or not self.cache_path.is_dir():
            return None
        try:
            model = bm25s.BM25.load(str(self.cache_path), show_progress=False)
            if model.scores["num_docs"] != len(self.passages):
                return None
            return model
        except Exception:
            return None

    def query_terms(self, query: str) -> list[str]:
        """The query's distinct terms that occur in the knowledge base, in query order
        (with its glossary expansion's terms last). The last query's are kept: hybrid
        asks for them more than once per query (its weights and its ranking)."""
        last = self._last
        if last is not None and last[0] == query:
            return list(last[1])
        expanded = self.expand(query) if self.expand is not None else query
        terms = [t for t in dict.fromkeys(tokenize(expanded)) if t in self.vocab]
        self._last = (query, tuple(terms))
        return terms

    def scores(self, query: str) -> np.ndarray:
        terms = self.query_terms(query)
        if not terms:
            return np.zeros(len(self.passages), dtype=np.float32)
        return np.asarray(self.model.get_scores(terms))

    def retrieve(self, query: str, limit: int = 3) -> list[Hit]:
        scores = self.scores(query)
        return [Hit(path=self.passages[i].path, heading=self.passages[i].heading,
                    score=round(float(scores[i]), 6), text=self.passages[i].text)
                for i in best_indices(scores, limit, floor=0.0)]

    def prepare(self) -> None:
        """Nothing to build: the index is built when the retriever is made."""

    def explain(self, query: str, hit: Hit) -> dict[str, Any]:
        """Each matched term's contribution to ``hit``'s score (``terms``), and the same
        summed per query word (``words``: a Thai run counts as one word, with how many
        of its character pieces matched)."""
        index = next(p.index for p in self.passages
                     if (p.path, p.heading, p.text) == (hit.path, hit.heading, hit.text))
        contributions = {}
        for term in self.query_terms(query):
            value = float(self.model.get_scores([term])[index])
            if value > 0:
                contributions[term] = round(value, 4)
        ranked = dict(sorted(contributions.items(), key=lambda kv: -kv[1]))
        by_word: dict[str, dict[str, Any]] = {}
        for word, tokens in words(self.expand(query) if self.expand else query):
            matched = [t for t in dict.fromkeys(tokens) if t in contributions]
            if matched and word not in by_word:
                by_word[word] = {"score": round(sum(contributions[t] for t in matched), 4),
                                 "matched": len(matched), "pieces": len(set(tokens))}
        return {"method": "bm25", "terms": ranked,
                "words": dict(sorted(by_word.items(), key=lambda kv: -kv[1]["score"]))}
