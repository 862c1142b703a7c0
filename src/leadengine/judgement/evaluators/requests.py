"""A request to a chat model, as the model's capabilities allow: a strict JSON schema
where it takes one, the sampling temperature and reasoning effort where it takes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leadengine.config import Settings
from leadengine.config.catalogue import Capabilities
from leadengine.judgement.evaluation import answer_schema_with
from leadengine.judgement.evaluators.chat import ChatRequest, Message
from leadengine.knowledge.rules import Question


def answer_schema(settings: Settings, capabilities: Capabilities,
                  questions: Sequence[Question] = ()) -> dict[str, Any] | None:
    """The strict JSON Schema for models that take one (with the questions' answers
    when there are some); None = JSON mode (or, where the wire format has none, the
    backend's JSON-only instruction)."""
    mode = settings.structured_output
    if mode == "auto":
        mode = "json_schema" if capabilities.schema else "json_object"
    return answer_schema_with(questions) if mode == "json_schema" else None


def build_request(messages: Sequence[Message], room: int, model: str,
                  capabilities: Capabilities, settings: Settings, sampling: bool,
                  schema: dict[str, Any] | None = None,
                  schema_name: str = "lead_evaluation",
                  questions: Sequence[Question] = ()) -> ChatRequest:
    """The request to ``model``: at most ``room`` output tokens, the sampling temperature
    (unless the model refused it: ``sampling`` False) and reasoning effort where the
    model takes them, and the strict schema (``schema``, for another answer than the
    evaluation) where it takes one."""
    effort = capabilities.effort(settings.reasoning_effort)
    sampled = capabilities.sampling and sampling
    strict = answer_schema(settings, capabilities, questions)
    return ChatRequest(model=model, messages=tuple(messages), max_tokens=room,
                       temperature=settings.temperature if sampled else None,
                       schema=strict if schema is None or strict is None else schema,
                       schema_name=schema_name, reasoning_effort=effort)
