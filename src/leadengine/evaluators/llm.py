"""The LLM evaluator: any chat backend (:mod:`leadengine.evaluators.chat`; the wire
formats are in :mod:`leadengine.evaluators.backends`).

Asks for a JSON object, validates the six fields with pydantic, and on an
invalid answer makes one repair round that shows the model its validation
errors. Reasoning models get ``reasoning_effort`` and every request an explicit
``max_completion_tokens``; an answer cut at that length is asked again once with
twice the room. Transport failures become one-line :class:`LLMError` /
:class:`ConfigError` messages that say what to fix.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from leadengine.config import Provider, Settings
from leadengine.errors import ConfigError, LeadEngineError, LLMError
from leadengine.evaluation import STRICT_ANSWER_SCHEMA, LLMAnswer, Verdict
from leadengine.evaluators.backends import base_url_of, make_backend, transport_failure
from leadengine.evaluators.cache import ResponseCache
from leadengine.evaluators.chat import ChatBackend, ChatError, ChatRequest, ChatResult, Message
from leadengine.facts import SiteFacts
from leadengine.prompt import build_messages, fence, prompt_content, system_prompt
from leadengine.providers import is_reasoning_model, supports_strict_schema
from leadengine.ratelimit import RateLimiter
from leadengine.retrieval import Hit
from leadengine.retrieval.budget import estimate_tokens
from leadengine.retrieval.cache import cache_dir
from leadengine.rules import Rubric, Rules
from leadengine.scoring import fact_score, fit_caps
from leadengine.web.injection import escape_fence_tags, find_injections

_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
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


def models_command(provider: str, base_url: str | None) -> str:
    """The ``leadengine models`` command that lists what this endpoint serves."""
    command = f"leadengine models --provider {provider}"
    return f"{command} --base-url {base_url}" if base_url else command


class LLMEvaluator:
    """Evaluates a site by asking a chat model for the JSON evaluation."""

    #: It can write the outreach message too (``Settings.outreach_writer = "llm"``).
    writes_messages = True

    def __init__(self, settings: Settings, provider: Provider,
                 client: ChatBackend | None = None, rubric: str | None = None,
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
        self.client = client or make_backend(settings, provider,
                                             base_url_of(settings, provider))
        #: At most this many requests sent at once (see :meth:`limit_in_flight`).
        self.in_flight: asyncio.Semaphore | None = None

    def limit_in_flight(self, requests: int) -> None:
        """Send at most ``requests`` requests at once (a batch's ``concurrency``): the
        places are held by the requests alone, not by the reading, retrieval and checks
        around them, so a batch keeps that many answers coming."""
        self.in_flight = asyncio.Semaphore(requests)

    def answer_schema(self) -> dict[str, Any] | None:
        """The strict JSON Schema for models that support it; None = JSON mode (or, where
        the wire format has none, the backend's JSON-only instruction)."""
        mode = self.settings.structured_output
        if mode == "auto":
            mode = "json_schema" if supports_strict_schema(self.name, self.model) \
                else "json_object"
        return STRICT_ANSWER_SCHEMA if mode == "json_schema" else None

    def request(self, messages: Sequence[Message], room: int,
                schema: dict[str, Any] | None = None,
                schema_name: str = "lead_evaluation") -> ChatRequest:
        """The request: at most ``room`` output tokens and, for a reasoning model, how
        hard to think; ``schema``: the strict answer schema, for another answer than
        the evaluation (when the model takes strict schemas)."""
        effort = None
        if self.reasoning:
            effort = self.settings.reasoning_effort
            if self.name == "groq" and GROQ_QWEN.search(self.model):
                effort = "default"
        # OpenAI's reasoning models refuse any temperature but the default 1.
        openai_reasoning = self.reasoning and self.name == "openai"
        return ChatRequest(model=self.model, messages=tuple(messages), max_tokens=room,
                           temperature=None if openai_reasoning else self.settings.temperature,
                           schema=self.answer_schema() if schema is None or not
                           self.answer_schema() else schema,
                           schema_name=schema_name, reasoning_effort=effort)

    def budget(self, messages: Sequence[Message], answer: int) -> int:
        """Tokens the request is expected to cost: its prompt plus ``answer``."""
        return sum(estimate_tokens(m.text) for m in messages) + answer

    def expected_answer(self, room: int) -> int:
        """Output tokens a request is expected to use (never more than its room)."""
        thinking = REASONING_TOKENS[self.settings.reasoning_effort] if self.reasoning else 0
        return min(room, ANSWER_TOKENS + thinking)

    async def judge(self, facts: SiteFacts, hits: Sequence[Hit]) -> Verdict:
        """The model's verdict on the facts and the pages' text, held to the facts."""
        content, removed = prompt_content(facts)
        messages = [Message(m["role"], m["content"]) for m in build_messages(
            fence(content), [h.text for h in hits], system_prompt=self.system_prompt)]
        tokens = {"prompt_estimate": sum(estimate_tokens(m.text) for m in messages),
                  "prompt": 0, "completion": 0}
        calls = {"paid": 0, "cached": 0}
        answer = await self.complete(messages, tokens, calls)
        try:
            judgement = parse_judgement(answer)
        except ValueError as first_error:
            messages += [Message("assistant", answer),
                         Message("user", REPAIR_PROMPT.format(errors=first_error))]
            answer = await self.complete(messages, tokens, calls)
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

    async def complete(self, messages: list[Message], tokens: dict[str, int],
                        calls: dict[str, int], check: Callable[[str], object] | None = None,
                        schema: dict[str, Any] | None = None,
                        schema_name: str = "lead_evaluation") -> str:
        """The model's answer to ``messages`` (from the cache when it holds one);
        ``check`` raises ValueError on an answer not worth caching (default: not a valid
        evaluation)."""
        check = check or parse_judgement
        room = self.settings.max_completion_tokens
        request = self.request(messages, room, schema, schema_name)
        key = {**request.as_key(), "provider": self.name, "base_url": self.base_url,
               "backend": self.provider.backend}
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
        if response.cut:
            # Cut short (a reasoning model may spend all its room thinking): the text is
            # no answer to repair, so ask once more with twice the room.
            room *= 2
            # It needed more than its room: budget what it wrote plus an answer (the
            # whole room when the server did not say).
            used = response.completion_tokens
            expected = min(room, used + ANSWER_TOKENS) if used else room
            response = await self._post(replace(request, max_tokens=room), expected,
                                        tokens, calls)
            for name, count in _usage(response).items():
                usage[name] = usage.get(name, 0) + count
            if response.cut:
                lower = " or lower LEADENGINE_REASONING_EFFORT" if self.reasoning else ""
                client = self.client
                raise LLMError(f"{self.name} model {self.model!r} ran out of room "
                               f"({client.stop_field}={response.finish_reason}, "
                               f"{client.room_field}={room}): "
                               f"raise LEADENGINE_MAX_COMPLETION_TOKENS{lower}")
        content = response.content
        if self.cache is not None:
            try:
                check(content)
            except ValueError:
                return content  # only valid answers are worth keeping
            # Kept under the first request's key, so the next identical run gets the
            # answer without first paying for the cut one again.
            self.cache.put(key, content, usage)
        return content

    async def _post(self, request: ChatRequest, answer: int, tokens: dict[str, int],
                    calls: dict[str, int]) -> ChatResult:
        """One paid request within the rate limits; its usage added to ``tokens``."""
        budget = self.budget(request.messages, answer)
        await self.limiter.acquire(budget)
        try:
            if self.in_flight is None:
                response = await self.client.complete(request)
            else:
                async with self.in_flight:
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
        common = transport_failure(exc, self.settings, self.provider, self.base_url)
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
