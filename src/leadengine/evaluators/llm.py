"""The LLM evaluator: any OpenAI-compatible chat-completions endpoint (see
:mod:`leadengine.evaluators.chat`).

Asks for a JSON object, validates the six fields with pydantic, and on an
invalid answer makes one repair round that shows the model its validation
errors. Transport failures become one-line :class:`LLMError` /
:class:`ConfigError` messages that say what to fix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from leadengine.config import Provider, Settings
from leadengine.errors import ConfigError, LLMError
from leadengine.evaluation import STRICT_ANSWER_SCHEMA, Evaluation, LLMAnswer, Source
from leadengine.evaluators.cache import ResponseCache
from leadengine.evaluators.chat import ChatClient, ChatError
from leadengine.evaluators.heuristic import judge
from leadengine.prompt import build_messages, fence, system_prompt
from leadengine.ratelimit import RateLimiter
from leadengine.retrieval import Hit
from leadengine.retrieval.budget import estimate_tokens
from leadengine.retrieval.cache import cache_dir
from leadengine.rules import Rules
from leadengine.web.site import Site

_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
#: Models that accept strict ``json_schema`` structured output (on Groq: gpt-oss).
STRICT_SCHEMA_MODELS = re.compile(r"gpt-oss|gpt-4o|gpt-4\.1|gpt-5|o[134]-", re.I)

REPAIR_PROMPT = (
    "Your previous answer was not a valid evaluation: {errors}\n"
    "Reply with only the corrected JSON object with the fields business_name, "
    "business_type, primary_service, fit_score (integer 0-100), reasoning and "
    "outreach_angle."
)


class LLMEvaluator:
    """Evaluates a site by asking a chat model for the JSON evaluation."""

    def __init__(self, settings: Settings, provider: Provider,
                 client: ChatClient | None = None, rubric: str | None = None,
                 rules: Rules | None = None) -> None:
        self.settings = settings
        self.rules = rules
        self.provider = provider
        self.name = provider.name
        self.model = settings.model or provider.default_model
        self.base_url = settings.base_url or provider.base_url
        self.system_prompt = system_prompt(rubric)
        rpm = provider.rpm if settings.llm_rpm is None else settings.llm_rpm
        tpm = provider.tpm if settings.llm_tpm is None else settings.llm_tpm
        #: Shared by every concurrent evaluation that uses this evaluator.
        self.limiter = RateLimiter(rpm, tpm)
        self.cache = ResponseCache(settings.cache_dir or cache_dir()) if settings.use_cache \
            else None
        self.client = client or ChatClient(
            # No address at all: OpenAI's, as the openai SDK assumes.
            base_url=self.base_url or "https://api.openai.com/v1",
            api_key=settings.api_key(provider),
            timeout=settings.llm_timeout,
            max_retries=settings.llm_retries,
            user_agent=settings.user_agent,
        )

    def response_format(self) -> dict[str, Any]:
        """Strict JSON Schema output for models that support it, JSON mode otherwise."""
        mode = self.settings.structured_output
        if mode == "auto":
            mode = "json_schema" if STRICT_SCHEMA_MODELS.search(self.model) else "json_object"
        if mode == "json_schema":
            return {"type": "json_schema",
                    "json_schema": {"name": "lead_evaluation", "strict": True,
                                    "schema": STRICT_ANSWER_SCHEMA}}
        return {"type": "json_object"}

    async def evaluate(self, site: Site, hits: Sequence[Hit], *, rag: bool) -> Evaluation:
        messages: list[dict[str, Any]] = build_messages(
            fence(site.content), [h.text for h in hits], system_prompt=self.system_prompt)
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
        answer_fields = judgement.model_dump()
        warnings = site.warnings()
        layers: dict[str, dict[str, Any]] = {}
        excluded: list[str] = []
        if self.rules is not None:
            # The maturity layers and exclusions are facts of the site and the knowledge
            # base, computed the same way for every evaluator; an excluded service is
            # never pitched, whatever the model says.
            findings = judge(site, self.rules)
            layers = findings.layers
            if findings.exclusion is not None:
                excluded = list(findings.exclusion.never_sell)
                if answer_fields["primary_service"] in excluded:
                    warnings.append(
                        f"the model pitched {answer_fields['primary_service']!r}, which the "
                        f"knowledge base excludes for a {findings.exclusion.industry}; "
                        f"replaced by {findings.exclusion.recommend!r}")
                    answer_fields["primary_service"] = findings.exclusion.recommend
        return Evaluation(
            **answer_fields,
            digital_maturity=layers,
            excluded_services=excluded,
            url=site.page.url,
            provider=self.name,
            model=self.model,
            rag=rag,
            sources=[Source(path=h.path, heading=h.heading, score=h.score) for h in hits],
            signals=site.signals.as_dict(),
            warnings=warnings,
            tokens=tokens,
            cost_usd=0.0 if cached else price(self.settings, self.model, tokens),
            cached=cached,
        )

    async def _complete(self, messages: list[dict[str, Any]], tokens: dict[str, int],
                        calls: dict[str, int]) -> str:
        request = {"model": self.model, "messages": messages,
                   "temperature": self.settings.temperature,
                   "response_format": self.response_format()}
        key = {**request, "provider": self.name, "base_url": self.base_url}
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                calls["cached"] += 1
                tokens["prompt"] += int(hit["usage"].get("prompt", 0))
                tokens["completion"] += int(hit["usage"].get("completion", 0))
                return str(hit["content"])
        # Budget the request's prompt plus a typical answer (~400 tokens).
        await self.limiter.acquire(sum(estimate_tokens(str(m["content"])) for m in messages)
                                   + 400)
        try:
            response = await self.client.complete(request)
        except ChatError as exc:
            raise self._failure(exc) from None
        calls["paid"] += 1
        usage = {"prompt": response.prompt_tokens, "completion": response.completion_tokens}
        tokens["prompt"] += usage["prompt"]
        tokens["completion"] += usage["completion"]
        content = response.content
        if self.cache is not None:
            try:
                parse_judgement(content)
            except ValueError:
                return content  # only valid answers are worth keeping
            self.cache.put(key, content, usage)
        return content


    def _failure(self, exc: ChatError) -> ConfigError | LLMError:
        """The one-line error for a request that failed for good, saying what to fix."""
        if exc.timeout:
            return LLMError(f"{self.name} did not answer within {self.settings.llm_timeout:g}s")
        if exc.status is None:
            return LLMError(f"cannot connect to {self.name} at {self.base_url}")
        if exc.status == 401:
            where = f"set a valid {self.provider.key_env}" if self.provider.key_env \
                else "check the API key"
            return ConfigError(f"{self.name} rejected the API key (HTTP 401): {where}")
        if exc.status == 403:
            return ConfigError(f"{self.name} refused access (HTTP 403): {exc.message}")
        if exc.status == 404:
            return ConfigError(f"{self.name} has no model {self.model!r} at {self.base_url} "
                               "(HTTP 404): check --model / LEADENGINE_MODEL")
        if exc.status == 429:
            return LLMError(f"{self.name} is rate limiting requests (HTTP 429) after "
                            f"{self.settings.llm_retries} retries: {exc.message}")
        return LLMError(f"{self.name} returned HTTP {exc.status}: {exc.message}")


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
