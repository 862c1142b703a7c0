"""The LLM evaluator: any OpenAI-compatible chat-completions endpoint (see
:mod:`leadengine.evaluators.chat`).

Asks for a JSON object, validates the six fields with pydantic, and on an
invalid answer makes one repair round that shows the model its validation
errors. Reasoning models get ``reasoning_effort`` and every request an explicit
``max_completion_tokens``; an answer cut at that length is asked again once with
twice the room. Transport failures become one-line :class:`LLMError` /
:class:`ConfigError` messages that say what to fix. :func:`list_models` serves
``leadengine models``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from leadengine.config import Provider, Settings
from leadengine.errors import ConfigError, LeadEngineError, LLMError
from leadengine.evaluation import STRICT_ANSWER_SCHEMA, LLMAnswer, Verdict
from leadengine.evaluators.cache import ResponseCache
from leadengine.evaluators.chat import ChatClient, ChatError, ChatResult
from leadengine.facts import SiteFacts
from leadengine.prompt import build_messages, fence, prompt_content, system_prompt
from leadengine.ratelimit import RateLimiter
from leadengine.retrieval import Hit
from leadengine.retrieval.budget import estimate_tokens
from leadengine.retrieval.cache import cache_dir
from leadengine.rules import Rubric, Rules
from leadengine.scoring import fact_score, fit_caps
from leadengine.web.injection import escape_fence_tags, find_injections

_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
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
#: Groq's qwen3 models accept only ``none`` / ``default`` as reasoning_effort; any of
#: low/medium/high asks them for ``default`` (reasoning on).
GROQ_QWEN = re.compile(r"(?:^|/)qwen3", re.I)
#: The values of ``reasoning_effort``.
EFFORTS = ("low", "medium", "high")
#: Tokens budgeted (for the tokens-per-minute limit) for an answer without reasoning...
ANSWER_TOKENS = 400
#: ...and for a reasoning model's thinking, by effort: rough figures for this prompt,
#: corrected from the server's usage once it answers (RateLimiter.settle).
REASONING_TOKENS = {"low": 600, "medium": 1500, "high": 4000}

#: How far the model's fit score may rise above the fact-based (offline) score: room to
#: weigh what rules cannot read, not enough to turn a "worth a look" into a "high".
FACT_MARGIN = 15

REPAIR_PROMPT = (
    "Your previous answer was not a valid evaluation: {errors}\n"
    "Reply with only the corrected JSON object with the fields business_name, "
    "business_type, primary_service, fit_score (integer 0-100), reasoning and "
    "outreach_angle."
)


def supports_strict_schema(provider: str, model: str) -> bool:
    """Whether ``model`` is known to honour a strict ``json_schema`` response format."""
    if model.lower() in STRICT_SCHEMA_MODELS:
        return True
    return provider == "openai" and OPENAI_STRICT_MODELS.search(model) is not None


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` thinks before answering (and takes ``reasoning_effort``)."""
    return REASONING_MODELS.search(model) is not None


def models_command(provider: str, base_url: str | None) -> str:
    """The ``leadengine models`` command that lists what this endpoint serves."""
    command = f"leadengine models --provider {provider}"
    return f"{command} --base-url {base_url}" if base_url else command


def _client(settings: Settings, provider: Provider, base_url: str | None) -> ChatClient:
    return ChatClient(
        # No address at all: OpenAI's, as the openai SDK assumes.
        base_url=base_url or "https://api.openai.com/v1",
        api_key=settings.api_key(provider),
        timeout=settings.llm_timeout,
        max_retries=settings.llm_retries,
        user_agent=settings.user_agent,
    )


def _transport_failure(exc: ChatError, settings: Settings, provider: Provider,
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


class LLMEvaluator:
    """Evaluates a site by asking a chat model for the JSON evaluation."""

    def __init__(self, settings: Settings, provider: Provider,
                 client: ChatClient | None = None, rubric: str | None = None,
                 rules: Rules | None = None) -> None:
        if settings.reasoning_effort not in EFFORTS:
            raise ConfigError(f"reasoning effort {settings.reasoning_effort!r} is not one of: "
                              f"{', '.join(EFFORTS)} (LEADENGINE_REASONING_EFFORT)")
        if settings.max_completion_tokens < 1:
            raise ConfigError("max_completion_tokens must be at least 1 "
                              "(LEADENGINE_MAX_COMPLETION_TOKENS)")
        self.settings = settings
        self.rules = rules
        self.provider = provider
        self.name = provider.name
        self.model = settings.model or provider.default_model
        self.base_url = settings.base_url or provider.base_url
        self.reasoning = is_reasoning_model(self.model)
        self.system_prompt = system_prompt(rubric)
        rpm = provider.rpm if settings.llm_rpm is None else settings.llm_rpm
        tpm = provider.tpm if settings.llm_tpm is None else settings.llm_tpm
        rpd = provider.rpd if settings.llm_rpd is None else settings.llm_rpd
        #: Shared by every concurrent evaluation that uses this evaluator.
        self.limiter = RateLimiter(rpm, tpm, rpd=rpd, name=provider.name)
        self.cache = ResponseCache(settings.cache_dir or cache_dir()) if settings.use_cache \
            else None
        self.client = client or _client(settings, provider, self.base_url)

    def response_format(self) -> dict[str, Any]:
        """Strict JSON Schema output for models that support it, JSON mode otherwise."""
        mode = self.settings.structured_output
        if mode == "auto":
            mode = "json_schema" if supports_strict_schema(self.name, self.model) \
                else "json_object"
        if mode == "json_schema":
            return {"type": "json_schema",
                    "json_schema": {"name": "lead_evaluation", "strict": True,
                                    "schema": STRICT_ANSWER_SCHEMA}}
        return {"type": "json_object"}

    def request(self, messages: list[dict[str, Any]], room: int) -> dict[str, Any]:
        """The chat-completions body: at most ``room`` output tokens and, for a reasoning
        model, how hard to think."""
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if not (self.reasoning and self.name == "openai"):
            # OpenAI's reasoning models refuse any temperature but the default 1.
            request["temperature"] = self.settings.temperature
        request["response_format"] = self.response_format()
        # Sent to every model: without it a reasoning model may think until the
        # provider's own cap and leave no room for the answer.
        request["max_completion_tokens"] = room
        if self.reasoning:
            effort = self.settings.reasoning_effort
            if self.name == "groq" and GROQ_QWEN.search(self.model):
                effort = "default"
            request["reasoning_effort"] = effort
        return request

    def budget(self, messages: list[dict[str, Any]], answer: int) -> int:
        """Tokens the request is expected to cost: its prompt plus ``answer``."""
        return sum(estimate_tokens(str(m["content"])) for m in messages) + answer

    def expected_answer(self, room: int) -> int:
        """Output tokens a request is expected to use (never more than its room)."""
        thinking = REASONING_TOKENS[self.settings.reasoning_effort] if self.reasoning else 0
        return min(room, ANSWER_TOKENS + thinking)

    async def judge(self, facts: SiteFacts, hits: Sequence[Hit]) -> Verdict:
        """The model's verdict on the facts and the pages' text, held to the facts."""
        content, removed = prompt_content(facts)
        messages: list[dict[str, Any]] = build_messages(
            fence(content), [h.text for h in hits], system_prompt=self.system_prompt)
        tokens = {"prompt_estimate": sum(estimate_tokens(m["content"]) for m in messages),
                  "prompt": 0, "completion": 0}
        calls = {"paid": 0, "cached": 0}
        answer = await self._complete(messages, tokens, calls)
        try:
            judgement = parse_judgement(answer)
        except ValueError as first_error:
            messages += [{"role": "assistant", "content": answer},
                         {"role": "user", "content": REPAIR_PROMPT.format(errors=first_error)}]
            answer = await self._complete(messages, tokens, calls)
            try:
                judgement = parse_judgement(answer)
            except ValueError as error:
                raise LLMError(f"{self.name} model {self.model!r} did not return a valid "
                               f"evaluation after one repair attempt: {error}") from None
        cached = calls["paid"] == 0
        fields, warnings = self.hold_to_facts(judgement.model_dump(), facts, content, removed)
        return Verdict(**fields, warnings=warnings, tokens=tokens, cached=cached,
                       cost_usd=0.0 if cached else price(self.settings, self.model, tokens))

    def hold_to_facts(self, fields: dict[str, Any], facts: SiteFacts, content: str,
                      removed: list[str]) -> tuple[dict[str, Any], list[str]]:
        """The answer's fields corrected where the facts say otherwise, and a warning for
        each correction (and for each tag look-alike or sentence taken out of the facts
        section the model was sent)."""
        known = [quote.casefold() for quote in facts.injections]
        # A sentence in a value is already reported where the page holds it; the facts
        # line around it ("Address: ...") may make the sentence longer.
        warnings = [f"possible prompt injection removed from the site's facts: {quote[:200]!r}"
                    for quote in removed if not any(k in quote.casefold() for k in known)]
        tags = escape_fence_tags(content)[1]
        warnings += [f"a fence-tag look-alike was escaped in the content: {tag[:200]!r}"
                     for tag in tags]
        # The page addressed an AI somewhere: its text, hidden text, metadata, facts, or
        # by imitating the fence. Whatever reached the model may have swayed it.
        addressed_ai = facts.addressed_ai or bool(tags or removed)
        if find_injections(fields["business_name"]):
            name = facts.identity.name
            warnings.append(f"the model's business_name addresses an AI "
                            f"({fields['business_name'][:200]!r}); replaced by {name!r}")
            fields["business_name"] = name
        if self.rules is not None:
            score, why = bound_fit_score(fields["fit_score"], facts, self.rules.rubric,
                                         addressed_ai=addressed_ai)
            if why:
                warnings.append(why)
                fields["fit_score"] = score
        exclusion = facts.exclusion
        # An excluded service is never pitched, whatever the model says.
        if exclusion is not None and fields["primary_service"] in exclusion.never_sell:
            warnings.append(
                f"the model pitched {fields['primary_service']!r}, which the knowledge "
                f"base excludes for a {exclusion.industry}; replaced by "
                f"{exclusion.recommend!r}")
            fields["primary_service"] = exclusion.recommend
        return fields, warnings

    async def _complete(self, messages: list[dict[str, Any]], tokens: dict[str, int],
                        calls: dict[str, int]) -> str:
        room = self.settings.max_completion_tokens
        request = self.request(messages, room)
        key = {**request, "provider": self.name, "base_url": self.base_url}
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                calls["cached"] += 1
                for name in ("prompt", "completion", "reasoning"):
                    if name in hit["usage"]:
                        tokens[name] = tokens.get(name, 0) + int(hit["usage"][name])
                return str(hit["content"])
        response = await self._post(request, self.expected_answer(room), tokens, calls)
        usage = _usage(response)
        if response.finish_reason == "length":
            # Cut short (a reasoning model may spend all its room thinking): the text is
            # no answer to repair, so ask once more with twice the room.
            room *= 2
            # It needed more than its room: budget what it wrote plus an answer (the
            # whole room when the server did not say).
            used = response.completion_tokens
            expected = min(room, used + ANSWER_TOKENS) if used else room
            response = await self._post({**request, "max_completion_tokens": room},
                                        expected, tokens, calls)
            for name, count in _usage(response).items():
                usage[name] = usage.get(name, 0) + count
            if response.finish_reason == "length":
                lower = " or lower LEADENGINE_REASONING_EFFORT" if self.reasoning else ""
                raise LLMError(f"{self.name} model {self.model!r} ran out of room "
                               f"(finish_reason=length, max_completion_tokens={room}): "
                               f"raise LEADENGINE_MAX_COMPLETION_TOKENS{lower}")
        content = response.content
        if self.cache is not None:
            try:
                parse_judgement(content)
            except ValueError:
                return content  # only valid answers are worth keeping
            # Kept under the first request's key, so the next identical run gets the
            # answer without first paying for the cut one again.
            self.cache.put(key, content, usage)
        return content

    async def _post(self, request: dict[str, Any], answer: int, tokens: dict[str, int],
                    calls: dict[str, int]) -> ChatResult:
        """One paid request within the rate limits; its usage added to ``tokens``."""
        budget = self.budget(request["messages"], answer)
        await self.limiter.acquire(budget)
        try:
            response = await self.client.complete(request)
        except ChatError as exc:
            raise self._failure(exc) from None
        calls["paid"] += 1
        self.limiter.settle(budget, response.prompt_tokens + response.completion_tokens)
        for name, count in _usage(response).items():
            tokens[name] = tokens.get(name, 0) + count
        return response

    def _failure(self, exc: ChatError) -> LeadEngineError:
        """The one-line error for a request that failed for good, saying what to fix."""
        common = _transport_failure(exc, self.settings, self.provider, self.base_url)
        if common is not None:
            return common
        retired = exc.status == 400 and (exc.code == "model_decommissioned"
                                         or "decommissioned" in exc.message.lower())
        missing = exc.status == 404 and (exc.code == "model_not_found"
                                         or "model" in exc.message.lower())
        if retired or missing:
            how = f"HTTP {exc.status} {exc.code}" if exc.code else f"HTTP {exc.status}"
            if missing:
                how += "; it may have been retired"
            what = "has retired model" if retired else "has no model"
            return ConfigError(f"{self.name} {what} {self.model!r} ({how}): choose another "
                               "with --model or LEADENGINE_MODEL; list them with: "
                               f"{models_command(self.name, self.settings.base_url)}")
        if exc.status == 404:
            return ConfigError(f"{self.name} has no chat-completions endpoint at "
                               f"{self.base_url} (HTTP 404: {exc.message}): check --base-url "
                               "/ LEADENGINE_BASE_URL")
        return LLMError(f"{self.name} returned HTTP {exc.status}: {exc.message}")


def bound_fit_score(score: int, facts: SiteFacts, rubric: Rubric, *,
                    addressed_ai: bool) -> tuple[int, str | None]:
    """The model's fit score held to the facts, and the warning when it had to be
    lowered (None when it stands).

    The ceiling is the fact-based score (the offline rubric on the same site) plus
    :data:`FACT_MARGIN`, and never above a rubric cap that the facts trigger (out of
    market, location not stated, excluded industry, nothing identified). When the page
    addressed an AI the ceiling is the fact-based score itself: a model that may have
    been swayed gets no benefit of the doubt. A score below the ceiling stands: the
    model may see a reason to rate a lead lower that the rules cannot."""
    fact = fact_score(facts, rubric)
    ceiling, why = min(100, fact + FACT_MARGIN), (
        f"more than {FACT_MARGIN} points above the fact-based score of {fact} (the "
        "knowledge base's rubric applied to the site's signals)")
    for cap, reason in fit_caps(facts, rubric):
        if cap < ceiling:
            ceiling, why = cap, f"the rubric caps {reason} at {cap}"
    if addressed_ai and fact < ceiling:
        ceiling, why = fact, (f"the page addresses an AI (possible prompt injection), so "
                              f"the score may not exceed the fact-based score of {fact}")
    if score <= ceiling:
        return score, None
    return ceiling, f"fit_score lowered from {score} to {ceiling}: {why}"


def _usage(response: ChatResult) -> dict[str, int]:
    """The response's token counts as the evaluation's ``tokens`` names them;
    ``reasoning`` only when the server reported reasoning tokens."""
    usage = {"prompt": response.prompt_tokens, "completion": response.completion_tokens}
    if response.reasoning_tokens:
        usage["reasoning"] = response.reasoning_tokens
    return usage


@dataclass(frozen=True)
class ModelInfo:
    """One model an endpoint serves, as ``leadengine models`` shows it."""

    id: str
    #: The model ``leadengine evaluate`` uses when no --model is given.
    default: bool
    strict_schema: bool
    reasoning: bool
    #: USD per million (input, output) tokens; None when not in the price table.
    price: tuple[float, float] | None


@dataclass(frozen=True)
class ModelListing:
    """What ``GET {base_url}/models`` answered, with what the engine knows of each."""

    provider: str
    base_url: str
    default: str
    models: list[ModelInfo]


async def list_models(settings: Settings) -> ModelListing:
    """The models the configured provider serves; one-line errors like an evaluation's
    (missing key, key refused, no connection...)."""
    provider = settings.resolve_provider()
    if provider.name == "heuristic":
        raise ConfigError("the offline heuristic evaluator has no models list (its only "
                          f"model is {provider.default_model}): set GROQ_API_KEY or pass "
                          "--provider to list an LLM provider's models")
    base_url = settings.base_url or provider.base_url or "https://api.openai.com/v1"
    client = _client(settings, provider, base_url)
    try:
        ids = await client.list_models()
    except ChatError as exc:
        common = _transport_failure(exc, settings, provider, base_url)
        if common is not None:
            raise common from None
        if exc.status == 404:
            raise LLMError(f"{provider.name} has no models list at {base_url}/models "
                           "(HTTP 404)") from None
        raise LLMError(f"{provider.name} returned HTTP {exc.status}: {exc.message}") from None
    default = settings.model or provider.default_model
    return ModelListing(
        provider=provider.name, base_url=base_url, default=default,
        models=[ModelInfo(id=model, default=model == default,
                          strict_schema=supports_strict_schema(provider.name, model),
                          reasoning=is_reasoning_model(model),
                          price=settings.prices.get(model))
                for model in ids])


def price(settings: Settings, model: str, tokens: dict[str, int]) -> float | None:
    """USD for the tokens used, from the price table (None when the model is not in it)."""
    rates = settings.prices.get(model)
    if rates is None:
        return None
    per_input, per_output = rates
    return round((tokens["prompt"] * per_input + tokens["completion"] * per_output) / 1e6, 8)


def parse_judgement(answer: str) -> LLMAnswer:
    """The six fields from a model's answer; ValueError says what is wrong, briefly."""
    text = answer.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1)
    if not text:
        raise ValueError("the answer was empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
                         ) from None
    if not isinstance(data, dict):
        raise ValueError("the JSON is not an object")
    try:
        return LLMAnswer.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'object'}: {e['msg']}"
                             for e in exc.errors())
        raise ValueError(problems) from None
