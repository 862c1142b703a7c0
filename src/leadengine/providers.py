"""Providers: who the engine can ask, and what each one can do.

A provider is data: its name, base URL, key variable, default model, rate limits,
whether its wire format takes a strict JSON schema, and which chat backend speaks
that wire format (``backend``, a key of :data:`leadengine.evaluators.backends.BACKENDS`).
A vendor that speaks an existing format is one line in :data:`PROVIDERS`; a new wire
format is one backend module plus one line in that registry.

Only the standard library is imported: ``leadengine --help`` reads :data:`PROVIDERS`
for its ``--provider`` choices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """An endpoint the LLM evaluator can talk to (or the offline ``heuristic``)."""

    name: str
    base_url: str | None
    key_env: str | None
    default_model: str
    key_required: bool = True
    #: Default requests / tokens per minute and requests per day (None or 0 = no
    #: limit); Groq's free tier is tight.
    rpm: int | None = None
    tpm: int | None = None
    rpd: int | None = None
    #: The wire format: ``openai`` (chat completions) or ``anthropic`` (Messages API);
    #: None for the offline evaluator, which sends nothing.
    backend: str | None = "openai"
    #: Whether the wire format has a strict ``json_schema`` output mode at all; without
    #: one the answer is asked for by instruction and checked (json_object-equivalent).
    json_schema: bool = True


#: Providers by name. ``heuristic`` is the offline evaluator (no network, no key).
PROVIDERS: dict[str, Provider] = {
    # llama-3.3-70b-versatile, the old default, was shut down for free and developer
    # accounts on 16 Aug 2026 (HTTP 404 model_not_found); gpt-oss-120b is Groq's named
    # replacement, openai/gpt-oss-20b the cheaper choice. The limits are Groq's free tier
    # for the gpt-oss models (its rate-limits page).
    "groq": Provider("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY",
                     "openai/gpt-oss-120b", rpm=30, tpm=8_000, rpd=1_000),
    "openai": Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4o-mini"),
    "ollama": Provider("ollama", "http://localhost:11434/v1", None, "llama3.1",
                       key_required=False),
    "custom": Provider("custom", None, "LEADENGINE_API_KEY", "default", key_required=False),
    # The Messages API (anthropic-version 2023-06-01) has no json_schema response format.
    "anthropic": Provider("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY",
                          "claude-sonnet-4-5", backend="anthropic", json_schema=False),
    "heuristic": Provider("heuristic", None, None, "rules-v1", key_required=False,
                          backend=None),
}

#: USD per million (input, output) tokens; list prices when written, check your plan.
PRICES: dict[str, tuple[float, float]] = {
    "openai/gpt-oss-120b": (0.15, 0.60),
    "openai/gpt-oss-20b": (0.075, 0.30),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "llama3.1": (0.0, 0.0),
    # Anthropic's list price when written (Sonnet 4.5, prompts up to 200k tokens).
    "claude-sonnet-4-5": (3.00, 15.00),
}

#: The models Groq lists with strict ``json_schema`` structured output, matched exactly:
#: its other models (openai/gpt-oss-safeguard-20b among them) are best-effort only and
#: get ``json_object``.
STRICT_SCHEMA_MODELS = frozenset({"openai/gpt-oss-20b", "openai/gpt-oss-120b",
                                  "qwen/qwen3.8-27b"})
#: OpenAI's own models with strict ``json_schema``, trusted only with provider ``openai``.
OPENAI_STRICT_MODELS = re.compile(r"^(?:gpt-4o|gpt-4\.1|gpt-5|o[134](?:-|$))", re.I)
#: Reasoning models: they think before they answer, in tokens that count as output and
#: against max_completion_tokens. The gpt-oss family (safeguard too), qwen3 (not its
#: instruct/coder variants), QwQ, DeepSeek R1, OpenAI's o-series and gpt-5 (not the
#: -chat ones); a vendor prefix (``openai/``) or an Ollama tag (``:20b``) may surround it.
REASONING_MODELS = re.compile(
    r"(?:^|/)(?:gpt-oss|qwen3(?!.*(?:instruct|coder))|qwq|deepseek-r1|deepseek-reasoner"
    r"|o[134](?:-|$)|gpt-5(?!.*-chat))", re.I)


def supports_strict_schema(provider: str, model: str) -> bool:
    """Whether ``model`` is known to honour a strict ``json_schema`` response format."""
    known = PROVIDERS.get(provider)
    if known is not None and not known.json_schema:
        return False
    if model.lower() in STRICT_SCHEMA_MODELS:
        return True
    return provider == "openai" and OPENAI_STRICT_MODELS.search(model) is not None


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` thinks before answering (and takes ``reasoning_effort``)."""
    return REASONING_MODELS.search(model) is not None
