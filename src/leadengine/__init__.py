"""Lead Intelligence Engine: qualify sales leads from their websites, with RAG.

The public API::

    from leadengine import KnowledgeBase, evaluate
    kb = KnowledgeBase.from_dir("knowledge")
    hits = kb.retrieve("medical clinic bangkok", limit=3, method="keyword")
    evaluation = evaluate("https://example.com")

Names are imported on first use (PEP 562), so ``leadengine --help`` and commands
that read only the store do not pay for trafilatura, numpy or httpx at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    "Settings": "leadengine.config",
    "ConfigError": "leadengine.errors",
    "ContentError": "leadengine.errors",
    "FetchError": "leadengine.errors",
    "KnowledgeError": "leadengine.errors",
    "LLMError": "leadengine.errors",
    "LeadEngineError": "leadengine.errors",
    "Evaluation": "leadengine.evaluation",
    "Judgement": "leadengine.evaluation",
    "Document": "leadengine.knowledge",
    "KnowledgeBase": "leadengine.knowledge",
    "Section": "leadengine.knowledge",
    "evaluate": "leadengine.pipeline",
    "evaluate_url": "leadengine.pipeline",
    "SYSTEM_PROMPT": "leadengine.prompt",
    "build_messages": "leadengine.prompt",
    "build_user_content": "leadengine.prompt",
    "RAGSystem": "leadengine.rag",
    "Hit": "leadengine.retrieval",
}

__all__ = [
    "SYSTEM_PROMPT",
    "ConfigError",
    "ContentError",
    "Document",
    "Evaluation",
    "FetchError",
    "Hit",
    "Judgement",
    "KnowledgeBase",
    "KnowledgeError",
    "LLMError",
    "LeadEngineError",
    "RAGSystem",
    "Section",
    "Settings",
    "__version__",
    "build_messages",
    "build_user_content",
    "evaluate",
    "evaluate_url",
]

if TYPE_CHECKING:
    from leadengine.config import Settings
    from leadengine.errors import (
        ConfigError,
        ContentError,
        FetchError,
        KnowledgeError,
        LeadEngineError,
        LLMError,
    )
    from leadengine.evaluation import Evaluation, Judgement
    from leadengine.knowledge import Document, KnowledgeBase, Section
    from leadengine.pipeline import evaluate, evaluate_url
    from leadengine.prompt import SYSTEM_PROMPT, build_messages, build_user_content
    from leadengine.rag import RAGSystem
    from leadengine.retrieval import Hit


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'leadengine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return __all__
