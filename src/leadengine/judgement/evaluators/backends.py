"""Chat backends by wire-format name, and what every backend's failures mean to a user.

:data:`BACKENDS` maps a provider's ``backend`` (:mod:`leadengine.config.providers`) to the
class that speaks it; a new wire format is one module and one line here.
:func:`transport_failure` turns what any request can meet (timeout, no connection,
key refused, rate limited) into one-line errors that say what to fix, for the
evaluator and ``leadengine models`` alike; :func:`list_models` serves that command.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from leadengine.config import Provider, Settings
from leadengine.errors import ConfigError, LeadEngineError, LLMError, ModelUnavailable
from leadengine.judgement.evaluators.anthropic import AnthropicChat
from leadengine.judgement.evaluators.chat import ChatBackend, ChatError
from leadengine.judgement.evaluators.openai_compat import OpenAIChat
from leadengine.judgement.evaluators.switching import model_gone

#: Wire format -> backend class, called with (base_url, api_key, timeout, max_retries,
#: user_agent).
BACKENDS: dict[str, Callable[[str, str, float, int, str], ChatBackend]] = {
    "openai": OpenAIChat,
    "anthropic": AnthropicChat,
}
#: Where a provider without a base URL is sent: OpenAI's, as the openai SDK assumes.
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def base_url_of(settings: Settings, provider: Provider) -> str:
    """The endpoint: the user's ``--base-url``, else the provider's own."""
    return settings.base_url or provider.base_url or DEFAULT_BASE_URL


def make_backend(settings: Settings, provider: Provider, base_url: str) -> ChatBackend:
    """The backend that speaks ``provider``'s wire format, with its key and limits."""
    try:
        backend = BACKENDS[provider.backend or ""]
    except KeyError:
        raise ConfigError(f"provider {provider.name!r} has no chat backend (known wire "
                          f"formats: {', '.join(BACKENDS)})") from None
    return backend(base_url, settings.api_key(provider), settings.llm_timeout,
                   settings.llm_retries, settings.user_agent)


def transport_failure(exc: ChatError, settings: Settings, provider: Provider,
                      base_url: str | None) -> LeadEngineError | None:
    """The one-line error for what any request can meet (timeout, no connection, key
    refused, rate limited); None for the rest, which depends on what was asked."""
    name = provider.name
    if exc.timeout:
        return LLMError(f"{name} did not answer within {settings.llm_timeout:g}s")
    if exc.status is None:
        return LLMError(f"cannot connect to {name} at {base_url}")
    if exc.status == 401:
        where = f"set a valid {provider.key_env}" if provider.key_env else "check the API key"
        return ConfigError(f"{name} rejected the API key (HTTP 401): {where}")
    if exc.status == 403:
        return ConfigError(f"{name} refused access (HTTP 403): {exc.message}")
    if exc.status == 429:
        return LLMError(f"{name} is rate limiting requests (HTTP 429) after "
                        f"{settings.llm_retries} retries: {exc.message}")
    return None


def models_command(provider: str, base_url: str | None) -> str:
    """The ``leadengine models`` command that lists what this endpoint serves."""
    command = f"leadengine models --provider {provider}"
    return f"{command} --base-url {base_url}" if base_url else command


def request_failure(exc: ChatError, settings: Settings, provider: Provider,
                    base_url: str | None, model: str) -> LeadEngineError:
    """The one-line error for a chat request to ``model`` that failed for good, saying
    what to fix (a model that is gone: :class:`ModelUnavailable`)."""
    common = transport_failure(exc, settings, provider, base_url)
    if common is not None:
        return common
    name = provider.name
    if model_gone(exc):
        how = f"HTTP {exc.status} {exc.code}" if exc.code else f"HTTP {exc.status}"
        retired = "decommission" in exc.message.lower() or exc.code == "model_decommissioned"
        if not retired:
            how += "; it may have been retired"
        what = "has retired model" if retired else "has no model"
        off = "" if settings.fallback else " (fallback is off)"
        return ModelUnavailable(
            f"{name} {what} {model!r} ({how}){off}: choose another with --model or "
            f"LEADENGINE_MODEL; list them with: {models_command(name, settings.base_url)}")
    if exc.status == 404:
        return ConfigError(f"{name} has no chat-completions endpoint at {base_url} (HTTP 404: "
                           f"{exc.message}): check --base-url / LEADENGINE_BASE_URL")
    return LLMError(f"{name} returned HTTP {exc.status}: {exc.message}")


@dataclass(frozen=True)
class ModelInfo:
    """One model an endpoint serves, as ``leadengine models`` shows it."""

    id: str
    #: The model ``leadengine evaluate`` uses when no --model is given.
    default: bool
    strict_schema: bool
    reasoning: bool
    #: USD per million (input, output) tokens; None when not known.
    price: tuple[float, float] | None
    #: The model catalogue's lifecycle status today; None when it does not know it.
    status: str | None = None
    #: The day it retires, when announced.
    retires: datetime.date | None = None


@dataclass(frozen=True)
class ModelListing:
    """What the endpoint's models list answered, with what the engine knows of each."""

    provider: str
    base_url: str
    default: str
    models: list[ModelInfo]


async def served_models(settings: Settings) -> tuple[Provider, str, list[str]]:
    """The configured provider, its endpoint, and the models it serves; one-line errors
    like an evaluation's (missing key, key refused, no connection...)."""
    provider = settings.resolve_provider()
    if provider.backend is None:
        raise ConfigError("the offline heuristic evaluator has no models list (its only "
                          f"model is {provider.default_model}): set GROQ_API_KEY or pass "
                          "--provider to list an LLM provider's models")
    base_url = base_url_of(settings, provider)
    try:
        ids = await make_backend(settings, provider, base_url).list_models()
    except ChatError as exc:
        raise models_list_failure(exc, settings, provider, base_url) from None
    return provider, base_url, ids


def models_list_failure(exc: ChatError, settings: Settings, provider: Provider,
                        base_url: str) -> LeadEngineError:
    """The one-line error for a models list that failed."""
    common = transport_failure(exc, settings, provider, base_url)
    if common is not None:
        return common
    if exc.status == 404:
        return LLMError(f"{provider.name} has no models list at {base_url} (HTTP 404)")
    return LLMError(f"{provider.name} returned HTTP {exc.status}: {exc.message}")


def model_info(settings: Settings, provider: str, model: str, default: str,
               today: datetime.date) -> ModelInfo:
    """What the catalogue (and the ``[prices]`` table) say of ``model``."""
    catalogue = settings.model_catalogue()
    capabilities = catalogue.capabilities(provider, model)
    entry = catalogue.entry(provider, model)
    return ModelInfo(id=model, default=model == default,
                     strict_schema=capabilities.schema is not None,
                     reasoning=capabilities.reasoning is not None,
                     price=settings.price_of(provider, model),
                     status=entry.status_on(today) if entry else None,
                     retires=entry.retires if entry else None)


async def list_models(settings: Settings, today: datetime.date | None = None
                      ) -> ModelListing:
    """The models the configured provider serves, with what the engine knows of each."""
    provider, base_url, ids = await served_models(settings)
    default = settings.model or provider.default_model
    day = today or datetime.date.today()
    return ModelListing(provider=provider.name, base_url=base_url, default=default,
                        models=[model_info(settings, provider.name, model, default, day)
                                for model in ids])
