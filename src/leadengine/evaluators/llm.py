"""The LLM evaluator: any OpenAI-compatible chat-completions endpoint via the ``openai`` SDK.

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

import openai
from pydantic import ValidationError

from leadengine.config import Provider, Settings
from leadengine.errors import ConfigError, LLMError
from leadengine.evaluation import Evaluation, Judgement, Source
from leadengine.prompt import build_messages
from leadengine.retrieval import Hit
from leadengine.web.site import Site

_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)

REPAIR_PROMPT = (
    "Your previous answer was not a valid evaluation: {errors}\n"
    "Reply with only the corrected JSON object with the fields business_name, "
    "business_type, primary_service, fit_score (integer 0-100), reasoning and "
    "outreach_angle."
)


class LLMEvaluator:
    """Evaluates a site by asking a chat model for the JSON evaluation."""

    def __init__(self, settings: Settings, provider: Provider,
                 client: openai.AsyncOpenAI | None = None) -> None:
        self.settings = settings
        self.provider = provider
        self.name = provider.name
        self.model = settings.model or provider.default_model
        self.base_url = settings.base_url or provider.base_url
        self.client = client or openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=settings.api_key(provider),
            timeout=settings.llm_timeout,
            max_retries=settings.llm_retries,
        )

    async def evaluate(self, site: Site, hits: Sequence[Hit], *, rag: bool) -> Evaluation:
        messages: list[dict[str, Any]] = build_messages(site.content, [h.text for h in hits])
        tokens = {"prompt": 0, "completion": 0}
        answer = await self._complete(messages, tokens)
        try:
            judgement = parse_judgement(answer)
        except ValueError as first_error:
            messages += [{"role": "assistant", "content": answer},
                         {"role": "user", "content": REPAIR_PROMPT.format(errors=first_error)}]
            answer = await self._complete(messages, tokens)
            try:
                judgement = parse_judgement(answer)
            except ValueError as error:
                raise LLMError(f"{self.name} model {self.model!r} did not return a valid "
                               f"evaluation after one repair attempt: {error}") from None
        return Evaluation(
            **judgement.model_dump(),
            url=site.page.url,
            provider=self.name,
            model=self.model,
            rag=rag,
            sources=[Source(path=h.path, heading=h.heading, score=h.score) for h in hits],
            signals=site.signals.as_dict(),
            warnings=site.warnings(),
            tokens=tokens,
        )

    async def _complete(self, messages: list[dict[str, Any]], tokens: dict[str, int]) -> str:
        try:
            response = await self.client.chat.completions.create(  # type: ignore[call-overload]
                model=self.model,
                messages=messages,
                temperature=self.settings.temperature,
                response_format={"type": "json_object"},
            )
        except openai.AuthenticationError:
            where = f"set a valid {self.provider.key_env}" if self.provider.key_env \
                else "check the API key"
            raise ConfigError(f"{self.name} rejected the API key (HTTP 401): {where}") from None
        except openai.PermissionDeniedError as exc:
            raise ConfigError(f"{self.name} refused access (HTTP 403): {_message(exc)}") from None
        except openai.NotFoundError:
            raise ConfigError(f"{self.name} has no model {self.model!r} at {self.base_url} "
                              "(HTTP 404): check --model / LEADENGINE_MODEL") from None
        except openai.RateLimitError as exc:
            raise LLMError(f"{self.name} is rate limiting requests (HTTP 429) after "
                           f"{self.settings.llm_retries} retries: {_message(exc)}") from None
        except openai.APITimeoutError:
            raise LLMError(f"{self.name} did not answer within {self.settings.llm_timeout:g}s"
                           ) from None
        except openai.APIConnectionError:
            raise LLMError(f"cannot connect to {self.name} at {self.base_url}") from None
        except openai.APIStatusError as exc:
            raise LLMError(f"{self.name} returned HTTP {exc.status_code}: {_message(exc)}"
                           ) from None
        if response.usage is not None:
            tokens["prompt"] += response.usage.prompt_tokens or 0
            tokens["completion"] += response.usage.completion_tokens or 0
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""


def parse_judgement(answer: str) -> Judgement:
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
        return Judgement.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'object'}: {e['msg']}"
                             for e in exc.errors())
        raise ValueError(problems) from None


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc.message)
