"""The prompt an LLM evaluator sends, fitted to the model's tokens-per-minute limit: a
provider refuses outright a request larger than it (HTTP 413), so the pages' text is cut
until the prompt, counted high, fits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from leadengine.facts.site_facts import SiteFacts
from leadengine.judgement.evaluators.chat import Message
from leadengine.judgement.prompt import build_messages, fence, prompt_content
from leadengine.retrieval import Hit
from leadengine.retrieval.budget import estimate_tokens, estimate_tokens_high

#: Tokens budgeted (for the tokens-per-minute limit) for an answer without reasoning...
ANSWER_TOKENS = 400
#: ...and for a reasoning model's thinking, by effort: rough figures for this prompt,
#: corrected from the server's usage once it answers (RateLimiter.settle).
REASONING_TOKENS = {"low": 600, "medium": 1500, "high": 4000}
#: A request (its prompt counted high, plus its room) is held under this share of the
#: model's tokens-per-minute limit: a provider refuses a larger one outright (HTTP 413).
FIT_SHARE = 0.9
#: Tries at cutting the text to fit (each cut aims at the size that fits).
FIT_TRIES = 6


@dataclass(frozen=True)
class Prompt:
    """The messages, the content they fence, the sentences taken out of its facts
    section and, when the pages' text was cut to fit, its length before and after (and
    the warning that says so)."""

    messages: list[Message]
    content: str
    removed: list[str]
    cut_from: int | None = None
    cut_to: int | None = None
    cut: str | None = None


def prompt_for(facts: SiteFacts, hits: Sequence[Hit], system_prompt: str,
               text: str | None = None) -> Prompt:
    """The messages for ``facts`` (the pages' ``text`` given, or all of it)."""
    content, removed = prompt_content(facts, text)
    messages = [Message(m["role"], m["content"]) for m in build_messages(
        fence(content), [h.text for h in hits], system_prompt=system_prompt)]
    return Prompt(messages, content, removed)


def high_tokens(messages: Sequence[Message], scale: float) -> int:
    """The prompt's tokens counted high (scaled by what a refusal taught)."""
    return int(sum(estimate_tokens_high(m.text) for m in messages) * scale) + 1


def fit_prompt(facts: SiteFacts, hits: Sequence[Hit], system_prompt: str,
               allowed: int | None, scale: float) -> Prompt:
    """The prompt for ``facts``, its pages' text cut until the prompt counts at most
    ``allowed`` tokens (None: no limit)."""
    prompt = prompt_for(facts, hits, system_prompt)
    if allowed is None:
        return prompt
    text, length = facts.text, len(facts.text)
    for _ in range(FIT_TRIES):
        over = high_tokens(prompt.messages, scale) - allowed
        if over <= 0 or not text:
            break
        own = max(1, int(estimate_tokens_high(text) * scale))
        text = text[:max(0, int(len(text) * (own - over) / own) - 16)]
        prompt = prompt_for(facts, hits, system_prompt, text)
    if len(text) == length:
        return prompt
    return Prompt(prompt.messages, prompt.content, prompt.removed, length, len(text))


def request_budget(messages: Sequence[Message], answer: int) -> int:
    """Tokens a request is expected to cost: its prompt plus ``answer``."""
    return sum(estimate_tokens(m.text) for m in messages) + answer


def expected_answer(room: int, reasoning_effort: str | None) -> int:
    """Output tokens a request is expected to use (never more than its ``room``):
    an answer, and a reasoning model's thinking at ``reasoning_effort`` (None: it does
    not reason)."""
    thinking = REASONING_TOKENS[reasoning_effort] if reasoning_effort else 0
    return min(room, ANSWER_TOKENS + thinking)
