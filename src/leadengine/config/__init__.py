"""Settings in one place: defaults < ``leadengine.toml`` < ``.env`` < environment <
arguments, validated once, in groups.

* :mod:`~leadengine.config.settings`: :class:`Settings`, every setting with its
  variable and meaning;
* :mod:`~leadengine.config.groups`: the settings each part of the engine reads
  (fetch, retrieval, LLM, batch), checked where they are made;
* :mod:`~leadengine.config.io`: reading ``leadengine.toml``, ``.env`` and the
  environment;
* :mod:`~leadengine.config.providers`: the LLM providers as data (endpoint, key
  variable, wire format);
* :mod:`~leadengine.config.catalogue`: the model catalogue (``data/models.toml``):
  defaults, lifecycle, prices, limits.

The names below are what callers outside the package use.
"""

from leadengine.config.choices import RETRIEVAL_METHODS
from leadengine.config.groups import (
    GROUPS,
    BatchSettings,
    FetchSettings,
    LLMSettings,
    RetrievalSettings,
)
from leadengine.config.providers import PROVIDERS, Provider
from leadengine.config.redact import redact, safe_message
from leadengine.config.settings import Settings
from leadengine.config.times import DEFAULT_ZONE, when
from leadengine.config.variables import ENV_VARS, debug_enabled, env_setting

__all__ = [
    "DEFAULT_ZONE",
    "ENV_VARS",
    "GROUPS",
    "PROVIDERS",
    "RETRIEVAL_METHODS",
    "BatchSettings",
    "FetchSettings",
    "LLMSettings",
    "Provider",
    "RetrievalSettings",
    "Settings",
    "debug_enabled",
    "env_setting",
    "redact",
    "safe_message",
    "when",
]
