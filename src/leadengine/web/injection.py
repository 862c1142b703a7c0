"""Prompt-injection defence: text on a website that addresses an AI or tries to set the
evaluation is found, reported, and removed before any evaluator or retriever reads it.

The evaluator also receives the website content fenced as untrusted data (see
:func:`leadengine.prompt.fence`) and is told never to follow instructions in it;
removing the instructions as well means a model that would have obeyed never sees them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat

#: Sentences matching any of these are treated as instructions aimed at an AI.
PATTERNS = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above|earlier|preceding) (instructions|"
    r"prompts?|rules|directions)|disregard (all |any )?(the )?(previous|prior|above|system)|"
    r"forget (all |your )?(previous |prior )?instructions|"
    r"\b(note|message|instructions?) (to|for) (the )?(ai|llm|chatgpt|gpt|assistant|language "
    r"model|evaluator|bot)s?\b|\b(ai|llm) (assistants?|models?|evaluators?|agents?)\b.{0,40}"
    r"\b(must|should|shall|are to)\b|you are now (in )?|developer mode|jailbreak|"
    r"system prompt|^\s*system\s*:|\bsystem override\b|"
    r"\b(output|return|set|give|assign|rate)\b.{0,40}\b(fit[_ ]?score|score|rating)\b.{0,20}"
    r"\b(100|10/10|maximum|highest)\b|\bfit[_ ]score\b|primary[_ ]service\s*[:=]",
    re.I | re.M)
#: Every pattern needs one of these words; a page with none of them is skipped with
#: plain substring checks (far cheaper than running the patterns sentence by sentence).
_KEYWORDS = ("ignore", "disregard", "forget", "ai ", "ai:", "llm", "gpt", "assistant", "model",
             "evaluator", "bot", "you are now", "developer", "jailbreak", "system", "score",
             "rating", "rate ", "primary_service", "primary service")


_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)")


def _suspicious(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _KEYWORDS)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every sentence that matches a pattern, in order. Only the
    sentences holding one of the keywords are given to the (costly) patterns; they are
    found from where the keywords occur, not by walking every sentence."""
    lowered = text.lower()
    if len(lowered) != len(text):
        # A few characters change length when lower-cased; positions would not line up.
        sentences = (m for m in _SENTENCE.finditer(text) if _suspicious(m.group(0)))
    else:
        starts = {_sentence_start(text, at) for word in _KEYWORDS
                  for at in _occurrences(lowered, word)}
        sentences = (m for m in map(_SENTENCE.match, repeat(text), sorted(starts)) if m)
    return [m.span() for m in sentences if m.group(0).strip() and PATTERNS.search(m.group(0))]


def _occurrences(text: str, word: str) -> Iterator[int]:
    at = text.find(word)
    while at != -1:
        yield at
        at = text.find(word, at + 1)


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding position ``at`` begins (as :data:`_SENTENCE` splits):
    after the last end-of-sentence mark or line break before it. No keyword holds one."""
    return 1 + max(text.rfind(mark, 0, at) for mark in ".!?\n")


def find_injections(text: str) -> list[str]:
    """The sentences of ``text`` that look like instructions to an AI."""
    if not _suspicious(text):
        return []
    return [" ".join(text[a:b].split()) for a, b in _sentence_spans(text)]


def strip_injections(text: str) -> tuple[str, list[str]]:
    """``text`` without its injection sentences, and the sentences removed."""
    if not _suspicious(text):
        return text, []
    spans = _sentence_spans(text)
    found = [" ".join(text[a:b].split()) for a, b in spans]
    pieces, last = [], 0
    for a, b in spans:
        pieces.append(text[last:a])
        pieces.append("\n" if text[b - 1 : b] == "\n" else " ")
        last = b
    pieces.append(text[last:])
    return "".join(pieces), found
