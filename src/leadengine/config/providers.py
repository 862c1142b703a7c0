"""Providers: who the engine can ask, and how to reach them.

A provider is wire-level data: its name, base URL, key variable, and which chat backend
speaks its wire format (``backend``, a key of
:data:`leadengine.judgement.evaluators.backends.BACKENDS`). A vendor that speaks an existing format
is one line in :data:`PROVIDERS`; a new wire format is one backend module plus one line
in that registry. What a provider's models are, cost and can do (the default model,
prices, limits, strict schemas, reasoning, lifecycle) is data of the model catalogue
(:mod:`leadengine.config.catalogue`, ``data/models.toml``), which changes every few months.

Only the standard library is imported: ``leadengine --help`` reads :data:`PROVIDERS`
for its ``--provider`` choices.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """An endpoint the LLM evaluator can talk to (or the offline ``heuristic``)."""

    name: str
    base_url: str | None
    key_env: str | None
    #: The model used when none is chosen. Empty in :data:`PROVIDERS` for the vendors
    #: whose default is the model catalogue's; :meth:`Settings.resolve_provider
    #: <leadengine.config.Settings.resolve_provider>` fills it in.
    default_model: str = ""
    key_required: bool = True
    #: Requests / tokens per minute and requests / tokens per day set in leadengine.toml
    #: (``[providers.groq]``); None = the model catalogue's limits for the model used.
    rpm: int | None = None
    tpm: int | None = None
    rpd: int | None = None
    tpd: int | None = None
    #: The wire format: ``openai`` (chat completions) or ``anthropic`` (Messages API);
    #: None for the offline evaluator, which sends nothing.
    backend: str | None = "openai"
    #: What its ``x-ratelimit-limit-requests`` header counts: ``rpm`` (OpenAI) or ``rpd``
    #: (Groq); None: not read. ``x-ratelimit-limit-tokens`` is tokens per minute at both.
    requests_limit: str | None = None


#: Providers by name. ``heuristic`` is the offline evaluator (no network, no key).
PROVIDERS: dict[str, Provider] = {
    # https://console.groq.com/docs/rate-limits: "x-ratelimit-limit-requests: always
    # refers to Requests Per Day (RPD)"; https://developers.openai.com/api/docs/guides/
    # rate-limits: requests per minute.
    "groq": Provider("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY",
                     requests_limit="rpd"),
    "openai": Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY",
                       requests_limit="rpm"),
    "ollama": Provider("ollama", "http://localhost:11434/v1", None, key_required=False),
    # Whatever the endpoint serves: its own default when the user names none.
    "custom": Provider("custom", None, "LEADENGINE_API_KEY", "default", key_required=False),
    "anthropic": Provider("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY",
                          backend="anthropic"),
    "heuristic": Provider("heuristic", None, None, "rules-v1", key_required=False,
                          backend=None),
}
