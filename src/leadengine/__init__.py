"""Lead Intelligence Engine: qualify sales leads from their websites, with RAG.

The public API (everything in ``__all__``; anything else is reached through its
module and may change)::

    from leadengine import KnowledgeBase, evaluate
    kb = KnowledgeBase.from_dir("knowledge")
    hits = kb.retrieve("medical clinic bangkok", limit=3, method="keyword")
    evaluation = evaluate("https://example.com")   # Settings.from_env() by default

* Pipeline: ``evaluate`` (sync) and ``evaluate_url`` (async) take a URL or a saved
  HTML file and return an :class:`Evaluation` (the seed's six fields and more;
  ``Judgement`` is the evaluator's part of it).
* Settings: :class:`Settings`, defaults in one place, overridden by the environment.
* Knowledge: :class:`KnowledgeBase` (plain data: ``Document``, ``Section``, rules,
  a version) and its ``retrieve(query, limit=3, method="keyword")``, which returns
  :class:`Hit` objects; :class:`RAGSystem` is the seed's own shape of it.
* Evaluators: the :class:`Evaluator` protocol and ``make_evaluator(settings, kb)``,
  to pass your own evaluator to ``evaluate_url``.
* Prompt: ``SYSTEM_PROMPT``, ``build_messages``, ``build_user_content``.
* Errors, one tree (``leadengine.errors``)::

    LeadEngineError
    ├── ConfigError ── ModelUnavailable
    ├── KnowledgeError  StoreError
    ├── FetchError ── ContentError
    └── LLMError ── QuotaExhausted

Names are imported on first use (PEP 562), so ``leadengine --help`` and commands
that read only the store do not pay for trafilatura, numpy, pydantic or httpx at
start-up; ``tests/test_architecture.py`` pins the list and checks that.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

# httpx imports its own command-line client (httpx._main) when click, rich and pygments
# are installed, as they are beside this package: 50 ms of every command's start for a
# client nobody runs. A module set to None in sys.modules is one that cannot be imported,
# and httpx then defines a stub in its place (its own fallback for a missing extra).
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

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
    "ModelUnavailable": "leadengine.errors",
    "QuotaExhausted": "leadengine.errors",
    "StoreError": "leadengine.errors",
    "Evaluation": "leadengine.judgement.evaluation",
    "Judgement": "leadengine.judgement.evaluation",
    "Evaluator": "leadengine.judgement.evaluators",
    "make_evaluator": "leadengine.judgement.evaluators",
    "Document": "leadengine.knowledge.base",
    "KnowledgeBase": "leadengine.retrieval.knowledge_base",
    "Section": "leadengine.knowledge.base",
    "evaluate": "leadengine.pipeline",
    "evaluate_url": "leadengine.pipeline",
    "SYSTEM_PROMPT": "leadengine.judgement.prompt",
    "build_messages": "leadengine.judgement.prompt",
    "build_user_content": "leadengine.judgement.prompt",
    "RAGSystem": "leadengine.retrieval.rag",
    "Hit": "leadengine.retrieval",
}

__all__ = [
    "SYSTEM_PROMPT",
    "ConfigError",
    "ContentError",
    "Document",
    "Evaluation",
    "Evaluator",
    "FetchError",
    "Hit",
    "Judgement",
    "KnowledgeBase",
    "KnowledgeError",
    "LLMError",
    "LeadEngineError",
    "ModelUnavailable",
    "QuotaExhausted",
    "RAGSystem",
    "Section",
    "Settings",
    "StoreError",
    "__version__",
    "build_messages",
    "build_user_content",
    "evaluate",
    "evaluate_url",
    "make_evaluator",
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
        ModelUnavailable,
        QuotaExhausted,
        StoreError,
    )
    from leadengine.judgement.evaluation import Evaluation, Judgement
    from leadengine.judgement.evaluators import Evaluator, make_evaluator
    from leadengine.judgement.prompt import SYSTEM_PROMPT, build_messages, build_user_content
    from leadengine.knowledge.base import Document, Section
    from leadengine.pipeline import evaluate, evaluate_url
    from leadengine.retrieval import Hit
    from leadengine.retrieval.knowledge_base import KnowledgeBase
    from leadengine.retrieval.rag import RAGSystem


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'leadengine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return __all__
