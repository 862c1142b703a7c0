"""``method="semantic"``: cosine similarity of embeddings, so "clinic" meets "healthcare"
and a Thai or Burmese query meets English guidance.

Passage embeddings are cached on disk per embedder, keyed by each passage's
text hash: a restart embeds nothing, an edited file re-embeds only its changed
passages, and an unreadable cache file is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from leadengine.config.cache import cache_dir, cache_key, write_atomically
from leadengine.retrieval.budget import estimate_tokens
from leadengine.retrieval.embed import Embedder
from leadengine.retrieval.hits import Hit, best_indices
from leadengine.retrieval.passages import Passage

#: Progress of slow one-off work; the CLI shows these records on stderr.
status = logging.getLogger("leadengine.status")

#: Passages embedded per call (bounded memory; the model batches them itself).
CHUNK = 32
#: Seconds between progress lines, and between cache checkpoints, of a long build.
REPORT_SECONDS = 5.0
CHECKPOINT_SECONDS = 60.0

#: Passages less similar than this to the query are not relevant (e5 cosine scale).
MIN_SIMILARITY = 0.80
#: Query parts whose vectors are kept (see :meth:`SemanticRetriever.query_vector`).
PART_CACHE = 512

#: A query: one text, or one text in parts (embedded part by part).
Query = str | Sequence[str]


class SemanticRetriever:
    """Embedding similarity over passages, with a relevance floor."""

    def __init__(self, passages: Sequence[Passage], embedder: Embedder,
                 cache: Path | None = None, min_similarity: float = MIN_SIMILARITY,
                 expand: Callable[[str], str] | None = None) -> None:
        self.passages = list(passages)
        #: Adds the glossary's English words to a query (see ``BM25Retriever.expand``).
        self.expand = expand
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.cache_file = (cache or cache_dir()) / f"emb-{cache_key(embedder.name)}.npz"
        self.matrix = self._embed_all()
        self._parts: dict[str, np.ndarray] = {}

    def _embed_all(self) -> np.ndarray:
        hashes = [hashlib.sha256(p.text.encode()).hexdigest() for p in self.passages]
        known = self._load()
        missing = [i for i, h in enumerate(hashes) if h not in known]
        if missing:
            self._embed_missing(missing, hashes, known)
        if not hashes:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([known[h] for h in hashes])

    def _embed_missing(self, missing: list[int], hashes: list[str],
                       known: dict[str, np.ndarray]) -> None:
        """Embed the passages not in the cache, in chunks: memory stays bounded, a status
        line reports progress (a first run embeds every passage, seconds to minutes),
        and the cache is saved every :data:`CHECKPOINT_SECONDS`, so an interrupted
        build resumes where it stopped."""
        started = last_report = last_save = time.monotonic()
        status.info("building the semantic index: embedding %d knowledge passage(s) with %s "
                    "(first run only)...", len(missing), self.embedder.name)
        for done in range(0, len(missing), CHUNK):
            chunk = missing[done : done + CHUNK]
            vectors = self.embedder.embed_passages([self.passages[i].text for i in chunk])
            for i, vector in zip(chunk, vectors, strict=True):
                known[hashes[i]] = np.asarray(vector, dtype=np.float32)
            now = time.monotonic()
            finished = done + len(chunk)
            if now - last_save >= CHECKPOINT_SECONDS and finished < len(missing):
                self._save(known)
                last_save = now
            if now - last_report >= REPORT_SECONDS and finished < len(missing):
                left = (now - started) / finished * (len(missing) - finished)
                status.info("semantic index: %d of %d passages embedded (%d%%), about %s left",
                            finished, len(missing), 100 * finished // len(missing),
                            _duration(left))
                last_report = now
        self._save(known)
        status.info("semantic index ready (%.1fs, cached for next time)",
                    time.monotonic() - started)

    def _load(self) -> dict[str, np.ndarray]:
        try:
            with np.load(self.cache_file, allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
                return {str(k): vectors[i] for i, k in enumerate(keys)}
        except Exception:
            return {}

    def _save(self, known: dict[str, np.ndarray]) -> None:
        keys = np.asarray(list(known))
        vectors = np.stack(list(known.values()))

        def write(path: Path) -> None:
            with path.open("wb") as handle:
                np.savez(handle, keys=keys, vectors=vectors)

        write_atomically(self.cache_file, write)

    def scores(self, query: Query) -> np.ndarray:
        """Cosine similarity of every passage to ``query`` (a text, or a text in parts:
        see :meth:`query_vector`)."""
        parts = [query] if isinstance(query, str) else list(query)
        if not any(part.strip() for part in parts) or not len(self.passages):
            return np.zeros(len(self.passages), dtype=np.float32)
        return np.asarray(self.matrix @ self.query_vector(query), dtype=np.float32)

    def query_vector(self, query: Query) -> np.ndarray:
        """The query's unit vector. A query given in parts is embedded part by part and
        the vectors averaged, each weighted by its length in tokens (what the model's
        mean pooling does over the whole text, less the attention between the parts:
        cosine 0.97-0.99 to the whole text's vector on thin pages). A part's vector is
        kept (:data:`PART_CACHE` of them), so a part that recurs across queries, as a
        website's signals block does, is embedded once."""
        if isinstance(query, str):
            return self._embed(query)
        parts = [part for part in query if part.strip()]
        if len(parts) == 1:
            return self._embed(parts[0])
        total = np.zeros_like(self.matrix[0], dtype=np.float32)
        for part in parts:
            vector = self._parts.get(part)
            if vector is None:
                vector = self._embed(part)
                if len(self._parts) >= PART_CACHE:
                    del self._parts[next(iter(self._parts))]
                self._parts[part] = vector
            total += self.query_tokens(part) * vector
        norm = float(np.linalg.norm(total))
        return total / norm if norm else total

    def _embed(self, text: str) -> np.ndarray:
        return self.embedder.embed_query(self.expand(text) if self.expand else text)

    def query_tokens(self, text: str) -> int:
        """``text``'s length in the embedding model's tokens as a query (estimated as
        four bytes of UTF-8 a token for an embedder that cannot count them)."""
        count = getattr(self.embedder, "query_tokens", None)
        return int(count(text)) if count is not None else estimate_tokens(text)

    def retrieve(self, query: str, limit: int = 3, *,
                 semantic_query: Query | None = None) -> list[Hit]:
        """The passages most similar to ``query`` (to ``semantic_query`` when given: the
        same query in parts, or what the model should read of it)."""
        scores = self.scores(query if semantic_query is None else semantic_query)
        return [Hit(path=self.passages[i].path, heading=self.passages[i].heading,
                    score=round(float(scores[i]), 6), text=self.passages[i].text)
                for i in best_indices(scores, limit, self.min_similarity, strict=False)]

    def prepare(self) -> None:
        """Nothing to build: the passages are embedded when the retriever is made."""

    def explain(self, query: str, hit: Hit) -> dict[str, Any]:
        return {"method": "semantic", "cosine": hit.score, "floor": self.min_similarity,
                "embedder": self.embedder.name}


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
