"""The environment variables the settings are read from (``LEADENGINE_*``), and the only
code that reads the environment for a setting."""

from __future__ import annotations

import os
from typing import Any

from leadengine.errors import ConfigError

#: Environment variable -> Settings field.
ENV_VARS: dict[str, str] = {
    "LEADENGINE_PROVIDER": "provider",
    "LEADENGINE_MODEL": "model",
    "LEADENGINE_BASE_URL": "base_url",
    "LEADENGINE_KNOWLEDGE_DIR": "knowledge_dir",
    "LEADENGINE_RETRIEVAL": "retrieval_method",
    "LEADENGINE_OUTREACH_LANGUAGE": "outreach_language",
    "LEADENGINE_OUTREACH_WRITER": "outreach_writer",
    "LEADENGINE_REP_NAME": "rep_name",
    "LEADENGINE_REP_COMPANY": "rep_company",
    "LEADENGINE_REP_GENDER": "rep_gender",
    "LEADENGINE_RAG_LIMIT": "rag_limit",
    "LEADENGINE_RAG_BUDGET": "rag_budget",
    "LEADENGINE_EMBEDDER": "embedder",
    "LEADENGINE_EMBEDDINGS_BASE_URL": "embeddings_base_url",
    "LEADENGINE_EMBEDDINGS_MODEL": "embeddings_model",
    "LEADENGINE_CACHE_DIR": "cache_dir",
    "LEADENGINE_SEMANTIC_MAX_PASSAGES": "semantic_max_passages",
    "LEADENGINE_TEMPERATURE": "temperature",
    "LEADENGINE_TIMEOUT": "timeout",
    "LEADENGINE_LLM_TIMEOUT": "llm_timeout",
    "LEADENGINE_PAGE_DEADLINE": "page_deadline",
    "LEADENGINE_MAX_BYTES": "max_bytes",
    "LEADENGINE_MAX_REDIRECTS": "max_redirects",
    "LEADENGINE_MAX_PAGES": "max_pages",
    "LEADENGINE_MAX_TOTAL_BYTES": "max_total_bytes",
    "LEADENGINE_ALLOW_PRIVATE": "allow_private",
    "LEADENGINE_RESPECT_ROBOTS": "respect_robots",
    "LEADENGINE_MAX_CONTENT_CHARS": "max_content_chars",
    "LEADENGINE_LLM_RETRIES": "llm_retries",
    "LEADENGINE_STRUCTURED_OUTPUT": "structured_output",
    "LEADENGINE_LLM_RPM": "llm_rpm",
    "LEADENGINE_LLM_TPM": "llm_tpm",
    "LEADENGINE_LLM_RPD": "llm_rpd",
    "LEADENGINE_LLM_TPD": "llm_tpd",
    "LEADENGINE_CATALOGUE": "catalogue",
    "LEADENGINE_FALLBACK_MODELS": "fallback_models",
    "LEADENGINE_FALLBACK": "fallback",
    "LEADENGINE_REASONING_EFFORT": "reasoning_effort",
    "LEADENGINE_MAX_COMPLETION_TOKENS": "max_completion_tokens",
    "LEADENGINE_HOST_DELAY": "host_delay",
    "LEADENGINE_WORKERS": "workers",
    "LEADENGINE_DB": "db",
    "LEADENGINE_USE_CACHE": "use_cache",
    "LEADENGINE_SEGMENTER": "segmenter",
    "LEADENGINE_TIME_ZONE": "time_zone",
    "LEADENGINE_RENDER": "render",
    "LEADENGINE_WEBHOOKS": "webhooks",
    "LEADENGINE_WEBHOOK_MIN_FIT": "webhook_min_fit",
}


def debug_enabled() -> bool:
    """Whether ``LEADENGINE_DEBUG`` asks for tracebacks instead of one-line errors (a
    switch for developers, read here so that only this module reads the environment)."""
    return bool(os.environ.get("LEADENGINE_DEBUG"))


#: Settings field -> its environment variable.
_VARIABLE_OF = {name: var for var, name in ENV_VARS.items()}


def env_setting(name: str, env: dict[str, str] | None = None) -> Any:
    """One setting from its environment variable, checked like any other; None when it
    is not set or not valid. For the few library corners that run without a Settings at
    hand (the tokeniser's segmenter, the cache folder), so that only this module reads
    the environment."""
    var = _VARIABLE_OF.get(name)
    raw = (os.environ if env is None else env).get(var or "", "")
    if not var or not raw:
        return None
    from leadengine.config.io import env_value

    try:
        return env_value(var, name, raw)
    except ConfigError:
        return None
