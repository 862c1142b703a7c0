"""Settings in groups: small frozen value objects (like httpx's ``Timeout`` and
``Limits``) that check themselves when made. ``Settings.fetch``, ``.llm``, ``.retrieval``
and ``.batch`` build them from the flat fields, so new code can take one group while
every existing reader of a flat field keeps working.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

G = TypeVar("G", bound="_Group")


@dataclass(frozen=True)
class _Group:
    """A group of settings: frozen, and checked when made (``Settings.fetch``...). Its
    fields have the flat fields' names and meanings; the defaults stay in Settings."""

    def __post_init__(self) -> None:
        from leadengine.config.io import check_group

        check_group(self)


@dataclass(frozen=True)
class FetchSettings(_Group):
    """How websites are read (``settings.fetch``)."""

    timeout: float
    page_deadline: float
    max_bytes: int
    max_total_bytes: int
    max_pages: int
    max_redirects: int
    allow_private: bool
    respect_robots: bool
    user_agent: str


@dataclass(frozen=True)
class LLMSettings(_Group):
    """Which model is asked, and how (``settings.llm``)."""

    provider: str | None
    model: str | None
    base_url: str | None
    temperature: float
    llm_timeout: float
    llm_retries: int
    structured_output: str
    reasoning_effort: str
    max_completion_tokens: int
    max_content_chars: int
    use_cache: bool
    llm_rpm: int | None
    llm_tpm: int | None
    llm_rpd: int | None
    llm_tpd: int | None
    catalogue: Path | None
    fallback_models: tuple[str, ...]
    fallback: bool


@dataclass(frozen=True)
class RetrievalSettings(_Group):
    """Which knowledge reaches the prompt (``settings.retrieval``)."""

    knowledge_dir: Path | None
    retrieval_method: str
    rag_limit: int
    rag_budget: int
    use_rag: bool
    embedder: str
    embeddings_base_url: str | None
    embeddings_model: str | None
    semantic_max_passages: int
    cache_dir: Path | None
    segmenter: str


@dataclass(frozen=True)
class BatchSettings(_Group):
    """How a batch is paced, and where results go (``settings.batch``)."""

    host_delay: float
    db: str


#: Group name (the Settings property) -> its class; docs/configuration.md lists them.
GROUPS: dict[str, type[_Group]] = {"fetch": FetchSettings, "llm": LLMSettings,
                                   "retrieval": RetrievalSettings, "batch": BatchSettings}
