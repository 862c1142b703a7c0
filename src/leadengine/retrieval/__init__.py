"""Retrieval: pick the knowledge passages most relevant to a query.

Methods are chosen by name from :data:`METHODS`; each is a class built once per
knowledge base (query-independent work happens there) whose ``retrieve`` does
only per-query work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from leadengine.errors import ConfigError

if TYPE_CHECKING:
    from leadengine.knowledge import KnowledgeBase


@dataclass(frozen=True)
class Hit:
    """One retrieved passage."""

    #: File path relative to the knowledge directory, e.g. ``"Lead_q_criteria.md"``.
    path: str
    #: Section heading path; None when the hit is a whole file.
    heading: str | None
    #: Relevance score; higher is better. Scales differ between methods.
    score: float
    #: The passage text injected into the prompt.
    text: str


class Retriever(Protocol):
    """Scores a knowledge base's passages against a query."""

    def retrieve(self, query: str, limit: int = 3) -> list[Hit]: ...


def _keyword(kb: KnowledgeBase) -> Retriever:
    from leadengine.retrieval.keyword import KeywordRetriever

    return KeywordRetriever(kb.documents)


#: Retrieval methods by name.
METHODS = {"keyword": _keyword}


def build_retriever(method: str, kb: KnowledgeBase) -> Retriever:
    """Build the retriever called ``method`` over ``kb``."""
    try:
        factory = METHODS[method]
    except KeyError:
        known = ", ".join(METHODS)
        raise ConfigError(f"unknown retrieval method {method!r} (choose one of: {known})"
                          ) from None
    return factory(kb)
