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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from leadengine.retrieval import Hit, best_indices
from leadengine.retrieval.cache import cache_dir, cache_key, write_atomically
from leadengine.retrieval.embed import Embedder
from leadengine.retrieval.passages import Passage

#: Progress of slow one-off work; the CLI shows these records on stderr.
status = logging.getLogger("leadengine.status")

#: Passages less similar than this to the query are not relevant (e5 cosine scale).
MIN_SIMILARITY = 0.80


class SemanticRetriever:
    """Embedding similarity over passages, with a relevance floor."""

    def __init__(self, passages: Sequence[Passage], embedder: Embedder,
                 cache: Path | None = None, min_similarity: float = MIN_SIMILARITY) -> None:
        self.passages = list(passages)
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.cache_file = (cache or cache_dir()) / f"emb-{cache_key(embedder.name)}.npz"
        self.matrix = self._embed_all()

    def _embed_all(self) -> np.ndarray:
        hashes = [hashlib.sha256(p.text.encode()).hexdigest() for p in self.passages]
        known = self._load()
        missing = [i for i, h in enumerate(hashes) if h not in known]
        if missing:
            # The first run embeds every passage (seconds with the bundled model); say so
            # instead of pausing silently. Later runs read the cache and embed nothing.
            started = time.monotonic()
            status.info("building the semantic index: embedding %d knowledge passages "
                        "with %s (first run only)...", len(missing), self.embedder.name)
            vectors = self.embedder.embed_passages([self.passages[i].text for i in missing])
            status.info("semantic index ready (%.1fs, cached for next time)",
                        time.monotonic() - started)
            for i, vector in zip(missing, vectors, strict=True):
                known[hashes[i]] = np.asarray(vector, dtype=np.float32)
            self._save(known)
        if not hashes:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([known[h] for h in hashes])

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

    def scores(self, query: str) -> np.ndarray:
        if not query.strip() or not len(self.passages):
            return np.zeros(len(self.passages), dtype=np.float32)
        return np.asarray(self.matrix @ self.embedder.embed_query(query), dtype=np.float32)

    def retrieve(self, query: str, limit: int = 3) -> list[Hit]:
        scores = self.scores(query)
        return [Hit(path=self.passages[i].path, heading=self.passages[i].heading,
                    score=round(float(scores[i]), 6), text=self.passages[i].text)
                for i in best_indices(scores, limit, self.min_similarity, strict=False)]

    def explain(self, query: str, hit: Hit) -> dict[str, Any]:
        return {"method": "semantic", "cosine": hit.score, "floor": self.min_similarity,
                "embedder": self.embedder.name}
