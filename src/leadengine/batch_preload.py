"""What the fork server of a batch's shards holds before it forks them
(:func:`leadengine.batch_shards.start_processes`): the pipeline imported, the data every
page read consults loaded, and the batch's knowledge base with its retrieval index
built (the embedding model loaded, the knowledge passages' vectors read or, the first
time, computed), so each shard starts warm and shares those pages of memory with the
others instead of loading its own copy, and a knowledge base is embedded once per
batch, not once per shard.

Which knowledge base is read from ``PRELOAD_ENV`` in the fork server's environment
(:func:`leadengine.batch_shards.preload_spec`, set by
:func:`leadengine.batch_shards.warm_up`); a shard uses it only
when it is the batch's own (:func:`knowledge_for`). Nothing here may fail the fork
server: a knowledge base it cannot load is left to the shards, which report it.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import leadengine.batch  # noqa: F401  (the pipeline, imported)
from leadengine.batch_shards import PRELOAD_ENV
from leadengine.config import Settings
from leadengine.knowledge import KnowledgeBase
from leadengine.web.category import load_taxonomy
from leadengine.web.location import gazetteer
from leadengine.web.services import catalogue

load_taxonomy()
gazetteer()
catalogue()


def load(described: dict[str, Any]) -> KnowledgeBase | None:
    """The knowledge base ``described`` (see
    :func:`leadengine.batch_shards.preload_spec`), its retrieval index built; None when
    it cannot be loaded."""
    if described.get("embedder") == "openai":
        return None
    try:
        # The knowledge base the batch command loads, the same way
        # (KnowledgeBase.from_settings), from the settings it was given.
        kb = KnowledgeBase.from_settings(Settings(
            knowledge_dir=_path(described.get("knowledge_dir")),
            embedder=described["embedder"], cache_dir=_path(described.get("cache_dir")),
            semantic_max_passages=described["semantic_max_passages"]))
    except Exception:
        return None
    method = described.get("method")
    # The OpenMP runtime of the embedding engine is not safe to fork once its threads
    # run: the model is loaded and embeds here only with one thread (the default).
    if method and os.environ.get("OMP_NUM_THREADS", "1") == "1":
        with contextlib.suppress(Exception):
            retriever = kb.retriever(method)
            # hybrid builds its semantic half on first use: build it now.
            getattr(retriever, "semantic", None)
    return kb


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _preload() -> KnowledgeBase | None:
    described = os.environ.pop(PRELOAD_ENV, None)
    if not described:
        return None
    try:
        return load(json.loads(described))
    except (ValueError, KeyError, TypeError):
        return None


#: The batch's knowledge base, loaded before the shards were forked (or None).
KNOWLEDGE = _preload()


def knowledge_for(kb: KnowledgeBase) -> KnowledgeBase:
    """The preloaded knowledge base when it is ``kb`` (same files, same version, same
    index options), else ``kb`` itself."""
    loaded = KNOWLEDGE
    if loaded is not None and (loaded.root.resolve(), loaded.version, loaded.cache_dir,
                               loaded.semantic_max_passages) == (
            kb.root.resolve(), kb.version, kb.cache_dir, kb.semantic_max_passages) \
            and _embedder_name(loaded) == _embedder_name(kb):
        return loaded
    return kb


def _embedder_name(kb: KnowledgeBase) -> str:
    embedder = kb.embedder
    return embedder if isinstance(embedder, str) else str(getattr(embedder, "name", ""))
