"""Lead Intelligence Engine: qualify sales leads from their websites, with RAG.

The public API::

    from leadengine import KnowledgeBase, evaluate
    kb = KnowledgeBase.from_dir("knowledge")
    hits = kb.retrieve("medical clinic bangkok", limit=3, method="keyword")
    evaluation = evaluate("https://example.com")
"""

__version__ = "0.1.0"

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
