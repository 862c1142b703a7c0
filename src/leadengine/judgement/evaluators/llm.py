"""The LLM evaluator: any chat backend (:mod:`leadengine.judgement.evaluators.chat`; the wire
formats are in :mod:`leadengine.judgement.evaluators.backends`).

Asks for a JSON object, validates the six fields with pydantic, and on an
invalid answer makes one repair round that shows the model its validation
errors. What each request may carry (a strict schema and where, sampling parameters,
the reasoning effort and its values) is the model catalogue's
(:mod:`leadengine.config.catalogue`); every request gets an explicit room for its answer, and
an answer cut at that length is asked again once with twice the room. A prompt that
would not fit the model's tokens-per-minute limit has its pages' text cut to fit.

A model that is retired (or not served), or whose day's quota is used up, does not
stop the work: the evaluator switches once, for every request after it, to the next
of ``fallback_models``, the catalogue's named replacement, or a served model of the
same provider that takes the answer schema (:mod:`leadengine.judgement.evaluators.switching`);
each evaluation names the model that answered and says why it is not the configured
one. Transport failures become one-line :class:`LLMError` / :class:`ConfigError`
messages that say what to fix.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from leadengine.config import Provider, Settings
from leadengine.config.cache import cache_dir
from leadengine.config.catalogue import Capabilities
from leadengine.errors import (
    ConfigError,
    LLMError,
    QuotaExhausted,
)
from leadengine.facts.site_facts import SiteFacts
from leadengine.judgement.evaluation import Judgement, Verdict
from leadengine.judgement.evaluators.answers import hold_to_facts, parse_judgement
from leadengine.judgement.evaluators.backends import base_url_of, make_backend
from leadengine.judgement.evaluators.cache import ResponseCache
from leadengine.judgement.evaluators.chat import (
    Answer,
    ChatBackend,
    ChatError,
    ChatRequest,
    ChatResult,
    Message,
    Usage,
)
from leadengine.judgement.evaluators.costs import price, usage_of
from leadengine.judgement.evaluators.fitting import (
    ANSWER_TOKENS,
    FIT_SHARE,
    Prompt,
    expected_answer,
    fit_prompt,
    high_tokens,
    request_budget,
)
from leadengine.judgement.evaluators.limits import RateLimits, limits_to_share
from leadengine.judgement.evaluators.refusals import ModelGone, RequestTooLarge, refusal
from leadengine.judgement.evaluators.requests import build_request
from leadengine.judgement.evaluators.switching import (
    ModelChoice,
    sampling_refused,
)
from leadengine.judgement.prompt import system_prompt
from leadengine.judgement.ratelimit import RateLimiter
from leadengine.knowledge.rules import Rules
from leadengine.retrieval import Hit
from leadengine.retrieval.budget import estimate_tokens

#: The values of ``reasoning_effort``.
EFFORTS = ("low", "medium", "high")

REPAIR_PROMPT = (
    "Your previous answer was not a valid evaluation: {errors}\n"
    "Reply with only the corrected JSON object with the fields business_name, "
    "business_type, primary_service, fit_score (integer 0-100), reasoning and "
    "outreach_angle."
)


class LLMEvaluator:
    """Evaluates a site by asking a chat model for the JSON evaluation."""

    #: It can write the outreach message too (``Settings.outreach_writer = "llm"``).
    writes_messages = True

    def __init__(self, settings: Settings, provider: Provider,
                 client: ChatBackend | None = None, rubric: str | None = None,
                 rules: Rules | None = None, today: datetime.date | None = None) -> None:
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
        self.catalogue = settings.model_catalogue()
        #: The day lifecycle dates are read against.
        self.today = today or datetime.date.today()
        self.base_url = settings.base_url or provider.base_url
        #: The knowledge base's (and the run's) questions, answered in the same request.
        self.questions = tuple(rules.questions) if rules is not None else ()
        self.system_prompt = system_prompt(rubric, self.questions)
        self.cache = ResponseCache(settings.cache_dir or cache_dir()) if settings.use_cache \
            else None
        self.client = client or make_backend(settings, provider,
                                             base_url_of(settings, provider))
        #: At most this many requests sent at once (see :meth:`limit_in_flight`).
        self.in_flight: asyncio.Semaphore | None = None
        #: The model in use, and the ones that may replace it.
        self.models = ModelChoice(settings, provider, self.catalogue, self.today)
        #: Models that refused a sampling parameter: none is sent to them again.
        self.no_sampling: set[str] = set()
        #: The server's token counts over this evaluator's high estimate, once a request
        #: was refused as too large (the estimate is scaled up by it from then on), and
        #: the tokens-per-minute limit the refusal named, by model.
        self.scale = 1.0
        self.refused_at: dict[str, int] = {}
        #: The rate limits of each model, and the limiter in use.
        self.rate_limits = RateLimits(settings, provider, self.catalogue)
        self._capabilities: dict[str, Capabilities] = {}
        self.models.start()
        self.limiter: Any = self.rate_limits.limiter_for(self.model)

    # -- the model in use ----------------------------------------------------------------

    def capabilities(self, model: str) -> Capabilities:
        """What a request to ``model`` may carry (the catalogue's, looked up once)."""
        found = self._capabilities.get(model)
        if found is None:
            found = self._capabilities[model] = self.catalogue.capabilities(self.name, model)
        return found

    @property
    def reasoning(self) -> bool:
        """Whether the model in use thinks before it answers."""
        return self.capabilities(self.model).reasoning is not None

    def limits(self, model: str) -> dict[str, int | None]:
        """``model``'s rate limits (:meth:`RateLimits.of`)."""
        return self.rate_limits.of(model)

    def learn_limits(self, model: str, headers: dict[str, int]) -> None:
        """Hold the limits the server reported for ``model`` from now on."""
        if self.rate_limits.learn(model, headers) and model.lower() == self.model.lower() \
                and isinstance(self.limiter, RateLimiter):
            self.limiter.change(**self.rate_limits.shares(model))

    def share_limits(self, parts: int) -> None:
        """Use 1/``parts`` of the rate limits (a batch's shards split them)."""
        self.rate_limits.parts = max(1, parts)
        self.limiter = self.rate_limits.limiter_for(self.model)

    def rate_limits_to_share(self) -> tuple[int | None, int | None, int | None, str,
                                            int | None] | None:
        """(rpm, tpm, rpd, provider name, tpd) of the limiter in use, for a cluster to
        hold together; None when it holds none."""
        return limits_to_share(self.limiter)

    def use_limiter(self, limiter: Any) -> None:
        """Wait on ``limiter`` (one shared with other processes) whatever the model."""
        self.rate_limits.shared = self.limiter = limiter

    @property
    def model(self) -> str:
        """The model in use (the configured one until it was replaced)."""
        return self.models.current

    @property
    def configured_model(self) -> str:
        """The model the settings ask for."""
        return self.models.configured

    @property
    def switches(self) -> list[str]:
        """One line for each switch of model, in order."""
        return self.models.switches

    @property
    def notices(self) -> list[str]:
        """What a user should hear before the work starts."""
        return self.models.notices

    async def _switch(self, failed: str, why: str, quota: bool) -> bool:
        """Use another model than ``failed`` from now on (with its own limits)."""
        before = self.model
        switched = await self.models.switch(failed, why, quota, self.client.list_models)
        if self.model != before:
            self.limiter = self.rate_limits.limiter_for(self.model)
        return switched

    # -- requests --------------------------------------------------------------------------

    def limit_in_flight(self, requests: int) -> None:
        """At most ``requests`` requests at once (a batch's ``concurrency``), held by the
        requests alone (not the reading and checks): that many answers keep coming."""
        self.in_flight = asyncio.Semaphore(requests)

    def request(self, messages: Sequence[Message], room: int,
                schema: dict[str, Any] | None = None,
                schema_name: str = "lead_evaluation", model: str | None = None
                ) -> ChatRequest:
        """The request to ``model`` (the one in use): :func:`build_request`."""
        model = model or self.model
        return build_request(messages, room, model, self.capabilities(model), self.settings,
                             model.lower() not in self.no_sampling, schema, schema_name,
                             self.questions)

    def expected_answer(self, room: int) -> int:
        """Output tokens a request is expected to use (never more than its room)."""
        return expected_answer(room, self.settings.reasoning_effort if self.reasoning else None)

    def request_cap(self) -> int | None:
        """The most tokens one request may count (prompt and room) for the model in use:
        its whole tokens-per-minute limit (not a shard's share of it), or the limit a
        refusal named, if lower."""
        caps = [cap for cap in (self.limits(self.model)["tpm"],
                                self.refused_at.get(self.model.lower())) if cap]
        return min(caps) if caps else None

    def high_tokens(self, messages: Sequence[Message]) -> int:
        """The prompt's tokens counted high (scaled by what a refusal taught)."""
        return high_tokens(messages, self.scale)

    # -- judging ---------------------------------------------------------------------------

    def fitted(self, facts: SiteFacts, hits: Sequence[Hit]) -> Prompt:
        """The prompt for ``facts``, the pages' text cut where the request would not fit
        the model's tokens-per-minute limit (:func:`fit_prompt`)."""
        cap = self.request_cap()
        allowed = None if cap is None else int(cap * FIT_SHARE) - \
            self.settings.max_completion_tokens
        prompt = fit_prompt(facts, hits, self.system_prompt, allowed, self.scale)
        if prompt.cut_from is None:
            return prompt
        return replace(prompt, cut=(
            f"the pages' text was cut from {prompt.cut_from:,} to {prompt.cut_to:,} "
            f"characters to fit {self.name}'s limit of {cap:,} tokens per minute for "
            f"{self.model!r}"))

    async def judge(self, facts: SiteFacts, hits: Sequence[Hit]) -> Verdict:
        """The model's verdict on the facts and the pages' text, held to the facts."""
        prompt = self.fitted(facts, hits)
        estimate = sum(estimate_tokens(m.text) for m in prompt.messages)
        try:
            reply = await self.complete(prompt.messages)
        except RequestTooLarge as exc:
            # The provider counts this page's tokens higher than the estimate: learn by
            # how much, cut the text to fit, and ask once more.
            counted = max(1, exc.requested - exc.room)
            self.scale = max(self.scale, self.scale * counted / max(1, exc.estimate) * 1.05)
            self.refused_at[self.model.lower()] = exc.limit
            prompt = self.fitted(facts, hits)
            reply = await self.complete(prompt.messages)
        judgement, used = await self.parsed(prompt.messages, reply)
        usage = Usage(MappingProxyType({"prompt_estimate": estimate, "prompt": 0,
                                        "completion": 0})) + used
        model = usage.model or self.model
        fields, warnings = hold_to_facts(judgement.model_dump(), facts, prompt.content,
                                        prompt.removed, self.rules)
        instead = self.models.reason(model)
        if instead is not None:
            warnings.insert(0, instead)
        if prompt.cut:
            warnings.append(prompt.cut)
        cached = usage.paid == 0
        tokens = dict(usage.tokens)
        answers = fields.pop("answers", None)
        return Verdict(**fields, warnings=warnings, tokens=tokens, cached=cached,
                       answers=answers if self.questions else None,
                       model=model, cost_usd=0.0 if cached else price(
                           self.settings, self.name, model, tokens))

    async def parsed(self, messages: list[Message], reply: Answer) -> tuple[Judgement, Usage]:
        """The judgement ``reply`` holds, and what it cost; an answer that is no valid
        evaluation is sent back once to be repaired."""
        try:
            return parse_judgement(reply.text), reply.usage
        except ValueError as first_error:
            repair = [*messages, Message("assistant", reply.text),
                      Message("user", REPAIR_PROMPT.format(errors=first_error))]
        again = await self.complete(repair)
        usage = reply.usage + again.usage
        try:
            return parse_judgement(again.text), usage
        except ValueError as error:
            raise LLMError(f"{self.name} model {usage.model or self.model!r} did not "
                           f"return a valid evaluation after one repair attempt: {error}"
                           ) from None

    async def complete(self, messages: list[Message],
                       check: Callable[[str], object] | None = None,
                       schema: dict[str, Any] | None = None,
                       schema_name: str = "lead_evaluation") -> Answer:
        """The answer to ``messages`` (from the cache when it holds one), from the model
        in use or, when it is gone or out of quota, the one that replaces it; ``check``
        raises ValueError on an answer not worth caching (default: not a valid
        evaluation); with what it cost and which model answered."""
        while True:
            model = self.model
            try:
                return await self._complete(model, messages, check or parse_judgement,
                                            schema, schema_name)
            except ModelGone as gone:
                if not await self._switch(model, gone.why, quota=False):
                    raise gone.error from None
            except QuotaExhausted as exc:
                if not await self._switch(model, "used up its daily quota", quota=True):
                    raise exc from None

    async def _complete(self, model: str, messages: list[Message],
                        check: Callable[[str], object], schema: dict[str, Any] | None,
                        schema_name: str) -> Answer:
        room = self.settings.max_completion_tokens
        request = self.request(messages, room, schema, schema_name, model)
        key = {**request.as_key(), "provider": self.name, "base_url": self.base_url,
               "backend": self.provider.backend}
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                tokens = {name: int(hit["usage"][name])
                          for name in ("prompt", "completion", "reasoning")
                          if name in hit["usage"]}
                return Answer(str(hit["content"]), Usage() + Usage(
                    MappingProxyType(tokens), cached=1, model=model))
        response = await self._post(request, self.expected_answer(room))
        counts = usage_of(response)
        paid = 1
        if response.cut:
            # Cut short (a reasoning model may spend all its room thinking): the text is
            # no answer to repair, so ask once more with twice the room (within the
            # tokens-per-minute limit).
            cap = self.request_cap()
            room *= 2
            if cap is not None:
                room = max(request.max_tokens,
                           min(room, int(cap * FIT_SHARE) - self.high_tokens(messages)))
            # It needed more than its room: budget what it wrote plus an answer (the
            # whole room when the server did not say).
            used = response.completion_tokens
            expected = min(room, used + ANSWER_TOKENS) if used else room
            response = await self._post(replace(request, max_tokens=room), expected)
            paid += 1
            for name, count in usage_of(response).items():
                counts[name] = counts.get(name, 0) + count
            if response.cut:
                lower = " or lower LEADENGINE_REASONING_EFFORT" if self.reasoning else ""
                client = self.client
                raise LLMError(f"{self.name} model {model!r} ran out of room "
                               f"({client.stop_field}={response.finish_reason}, "
                               f"{client.room_field}={room}): "
                               f"raise LEADENGINE_MAX_COMPLETION_TOKENS{lower}")
        usage = Usage() + Usage(MappingProxyType(counts), paid=paid, model=model)
        content = response.content
        if self.cache is not None:
            try:
                check(content)
            except ValueError:
                return Answer(content, usage)  # only valid answers are worth keeping
            # Kept under the first request's key, so the next identical run gets the
            # answer without first paying for the cut one again.
            self.cache.put(key, content, counts)
        return Answer(content, usage)

    async def _post(self, request: ChatRequest, answer: int) -> ChatResult:
        """One paid request within the rate limits. A model that refuses the sampling
        temperature is asked again without it."""
        while True:
            budget = request_budget(request.messages, answer)
            await self.limiter.acquire(budget)
            try:
                if self.in_flight is None:
                    response = await self.client.complete(request)
                else:
                    async with self.in_flight:
                        response = await self.client.complete(request)
            except ChatError as exc:
                if request.temperature is not None and sampling_refused(exc):
                    self.no_sampling.add(request.model.lower())
                    request = replace(request, temperature=None)
                    continue
                raise refusal(exc, request, self.settings, self.provider, self.base_url,
                              self.high_tokens(request.messages)) from None
            break
        self.limiter.settle(budget, response.prompt_tokens + response.completion_tokens)
        if response.limits:
            self.learn_limits(request.model, response.limits)
        return response
