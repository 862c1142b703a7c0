"""Settings from their sources: one check per field, and the ``leadengine.toml`` reader.

Every value is checked where it enters, whatever the source: a string from the
environment or ``.env``, a TOML value, a Python value given as an option. A check
returns the typed value or raises :class:`Invalid` with what is allowed, and the
caller names the source in one line::

    LEADENGINE_RAG_LIMIT='3.5' is not a whole number
    leadengine.toml: retrieval_method = 'bm52' is not one of: keyword, bm25, semantic, hybrid

Small explicit checks rather than pydantic: importing pydantic costs ~150 ms that
commands reading only the store should not pay, and its messages would need
rewriting into one line anyway.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from leadengine.config.choices import EMBEDDERS, RETRIEVAL_METHODS
from leadengine.config.providers import PROVIDERS, Provider
from leadengine.errors import ConfigError


class Invalid(ValueError):
    """A value a check refuses; its text says what is allowed ("is not a number")."""


Check = Callable[[Any], Any]

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


def whole(minimum: int, maximum: int | None = None) -> Check:
    """A whole number at least ``minimum`` (at most ``maximum``); text like ``"12"`` is
    read as one."""

    def check(value: Any) -> int:
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise Invalid("is not a whole number") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid("is not a whole number")
        if value < minimum:
            raise Invalid(f"must be >= {minimum}")
        if maximum is not None and value > maximum:
            raise Invalid(f"must be <= {maximum}")
        return value

    return check


def number(low: float, high: float | None = None, *, above: bool = False) -> Check:
    """A finite number from ``low`` (excluded when ``above``) to ``high``."""
    allowed = (f"between {low:g} and {high:g}" if high is not None
               else f"> {low:g}" if above else f">= {low:g}")

    def check(value: Any) -> float:
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise Invalid("is not a number") from None
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise Invalid("is not a number")
        if value < low or (above and value == low) or (high is not None and value > high):
            raise Invalid(f"must be {allowed}")
        return float(value)

    return check


def one_of(choices: Iterable[str]) -> Check:
    """One of ``choices``."""
    names = list(choices)

    def check(value: Any) -> str:
        if isinstance(value, str) and value.strip().lower() in names:
            return value.strip().lower()
        raise Invalid(f"is not one of: {', '.join(names)}")

    return check


def flag(value: Any) -> bool:
    """true/false, 1/0, yes/no, on/off; anything else is refused, not taken as false."""
    if isinstance(value, bool):
        return value
    word = value.strip().lower() if isinstance(value, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise Invalid("is not true or false (true/false, 1/0, yes/no, on/off)")


def text(value: Any) -> str:
    """Non-empty text."""
    if not isinstance(value, str) or not value.strip():
        raise Invalid("is not a non-empty text")
    return value


def path(value: Any) -> Path:
    """A file-system path."""
    if isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value.strip():
        raise Invalid("is not a path")
    return Path(value)


def model_names(value: Any) -> tuple[str, ...]:
    """Model names: a list, or text with the names separated by commas."""
    if isinstance(value, tuple | list):
        items = list(value)
    elif isinstance(value, str):
        items = value.split(",")
    else:
        raise Invalid("is not a list of model names")
    if not all(isinstance(item, str) for item in items):
        raise Invalid("is not a list of model names")
    names = tuple(item.strip() for item in items if item.strip())
    if len(names) != len({n.lower() for n in names}):
        raise Invalid("names a model twice")
    return names



def time_zone(value: Any) -> str:
    """An IANA time zone name (Asia/Bangkok)."""
    from leadengine.config.times import zone

    if not isinstance(value, str) or not value.strip():
        raise Invalid("is not a time zone")
    try:
        zone(value)
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    return value.strip()


def web_addresses(value: Any) -> tuple[str, ...]:
    """http(s) URLs: a list, or text with the URLs separated by commas."""
    from urllib.parse import urlsplit

    items = list(value) if isinstance(value, tuple | list) else (
        value.split(",") if isinstance(value, str) else None)
    if items is None or not all(isinstance(item, str) for item in items):
        raise Invalid("is not a list of URLs")
    urls = tuple(item.strip() for item in items if item.strip())
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Invalid(f"holds {url!r}, which is not an http(s) URL")
    return urls


#: Settings field -> its check. Fields not listed (``prices``, ``providers``) have
#: readers of their own below; ``env`` and ``origins`` are not settings.
CHECKS: dict[str, Check] = {
    "provider": one_of(PROVIDERS), "model": text, "base_url": text,
    "knowledge_dir": path, "retrieval_method": one_of(RETRIEVAL_METHODS),
    "rag_limit": whole(0), "rag_budget": whole(1), "embedder": one_of(EMBEDDERS),
    "embeddings_base_url": text, "embeddings_model": text,
    "semantic_max_passages": whole(0), "cache_dir": path,
    "segmenter": one_of(("bigram", "icu")), "use_rag": flag,
    "temperature": number(0, 2), "timeout": number(0, above=True),
    "page_deadline": number(0, above=True), "llm_timeout": number(0, above=True),
    "structured_output": one_of(("auto", "json_schema", "json_object")),
    "reasoning_effort": one_of(("low", "medium", "high")),
    "max_completion_tokens": whole(1), "use_cache": flag,
    "llm_rpm": whole(0), "llm_tpm": whole(0), "llm_rpd": whole(0), "llm_tpd": whole(0),
    "catalogue": path, "fallback_models": model_names, "fallback": flag,
    "host_delay": number(0), "workers": whole(0), "llm_retries": whole(0), "max_bytes": whole(1024),
    "max_pages": whole(0), "max_total_bytes": whole(0), "allow_private": flag,
    "respect_robots": flag, "max_redirects": whole(0), "max_content_chars": whole(1),
    "user_agent": text, "db": text, "outreach_language": one_of(("en", "th", "my")),
    "outreach_writer": one_of(("template", "llm")),
    "rep_name": text, "rep_company": text, "rep_gender": one_of(("male", "female")),
    "time_zone": time_zone, "render": one_of(("auto", "always", "never")),
    "webhooks": web_addresses, "webhook_min_fit": whole(0, 100),
}


def env_value(var: str, name: str, raw: str, file: str | None = None) -> Any:
    """Field ``name`` from environment variable ``var`` (read from ``file``, a
    ``.env``, when given)."""
    try:
        return CHECKS[name](raw)
    except Invalid as exc:
        where = f"{file}: " if file else ""
        raise ConfigError(f"{where}{var}={raw!r} {exc}") from None


def option_value(name: str, value: Any) -> Any:
    """Field ``name`` given by a caller (a command-line option, ``with_options``)."""
    if name not in CHECKS:
        return value
    try:
        return CHECKS[name](value)
    except Invalid as exc:
        raise ConfigError(f"{name} = {value!r} {exc}") from None


def check_group(group: Any) -> None:
    """Check every field of a settings group (a dataclass); ``None`` means "auto".
    Values are typed by now: text is no longer read as a number or a flag."""
    for f in fields(group):
        value = getattr(group, f.name)
        if value is None or f.name not in CHECKS:
            continue
        try:
            checked = CHECKS[f.name](value)
        except Invalid as exc:
            raise ConfigError(f"{type(group).__name__}: {f.name} = {value!r} {exc}"
                              ) from None
        if isinstance(value, str) and not isinstance(checked, str | Path):
            raise ConfigError(f"{type(group).__name__}: {f.name} = {value!r} is text, not "
                              f"a {type(checked).__name__}")


#: What a ``[providers.NAME]`` table may set: its key -> the :class:`Provider` field.
PROVIDER_KEYS = {"model": "default_model", "rpm": "rpm", "tpm": "tpm", "rpd": "rpd",
                 "tpd": "tpd"}


def with_overrides(provider: Provider, overrides: dict[str, Any], where: str) -> Provider:
    """``provider`` with the defaults a ``[providers.NAME]`` table replaces; a clear
    error for an unknown key or a wrong value."""
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in PROVIDER_KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} (choose from: "
                              f"{', '.join(PROVIDER_KEYS)})")
        if key == "model":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where}.model must be a model name, e.g. "
                                  '"openai/gpt-oss-20b"')
            changes["default_model"] = value.strip()
        else:
            # bool is an int to Python, but `rpm = true` is surely a mistake.
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{where}.{key} must be a whole number >= 0 "
                                  "(0 = no limit)")
            changes[PROVIDER_KEYS[key]] = value
    return replace(provider, **changes)


def _read_providers(where: str, raw: Any) -> dict[str, dict[str, Any]]:
    """The ``[providers.NAME]`` tables, checked now so a typo names the file."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: providers must be tables like [providers.groq]")
    tables: dict[str, dict[str, Any]] = {}
    for name, table in raw.items():
        if name not in PROVIDERS or name == "heuristic":
            known = ", ".join(p for p in PROVIDERS if p != "heuristic")
            raise ConfigError(f"{where}: unknown provider [providers.{name}] (choose one "
                              f"of: {known})")
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: providers.{name} must be a table")
        with_overrides(PROVIDERS[name], table, f"{where}: providers.{name}")
        tables[name] = dict(table)
    return tables


def _read_prices(where: str, raw: Any) -> dict[str, tuple[float, float]]:
    """The ``[prices]`` table: each model's entry replaces the catalogue's price."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: prices must be a table like [prices]")
    prices: dict[str, tuple[float, float]] = {}
    for model, pair in raw.items():
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
                           for v in pair)):
            raise ConfigError(f"{where}: prices.{model!r} must be [input, output] USD per "
                              "million tokens, e.g. [0.15, 0.60]")
        prices[model] = (float(pair[0]), float(pair[1]))
    return prices


def _toml_document(path: Path) -> dict[str, Any]:
    """The settings table of the file: ``[leadengine]`` if there is one, else the top."""
    import tomllib

    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration ({exc})") from None
    data = dict(document.get("leadengine", document))
    if "leadengine" in document:
        # [providers.groq] and [prices] read naturally as tables of their own, beside
        # [leadengine], as well as inside it.
        for table in ("providers", "prices"):
            if table in document:
                data.setdefault(table, document[table])
    return data


def read_toml(path: Path) -> dict[str, Any]:
    """The settings a ``leadengine.toml`` sets, each checked; relative folders are
    relative to the file."""
    values: dict[str, Any] = {}
    for key, value in _toml_document(path).items():
        if key == "providers":
            values[key] = _read_providers(str(path), value)
        elif key == "prices":
            values[key] = _read_prices(str(path), value)
        elif key not in CHECKS:
            # API keys are not settings either: they stay in the environment or .env.
            raise ConfigError(f"{path}: unknown setting {key!r} (see docs/configuration.md)")
        else:
            try:
                values[key] = CHECKS[key](value)
            except Invalid as exc:
                raise ConfigError(f"{path}: {key} = {value!r} {exc}") from None
            if isinstance(values[key], Path) and not values[key].is_absolute():
                values[key] = path.parent / values[key]
    return values
