"""Prompt-injection defence: text on a website that addresses an AI or tries to set the
evaluation is found, reported, and removed before any evaluator or retriever reads it.

The evaluator also receives the website content fenced as untrusted data (see
:func:`leadengine.prompt.fence`) and is told never to follow instructions in it;
removing the instructions as well means a model that would have obeyed never sees them.
"""

from __future__ import annotations

import re

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
_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)")
#: Every pattern needs one of these words; a page with none of them is skipped with
#: plain substring checks (far cheaper than running the patterns sentence by sentence).
_KEYWORDS = ("ignore", "disregard", "forget", "ai ", "ai:", "llm", "gpt", "assistant", "model",
             "evaluator", "bot", "you are now", "developer", "jailbreak", "system", "score",
             "rating", "rate ", "primary_service", "primary service")


def _suspicious(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _KEYWORDS)


def find_injections(text: str) -> list[str]:
    """The sentences of ``text`` that look like instructions to an AI."""
    if not _suspicious(text):
        return []
    return [" ".join(s.split()) for s in _SENTENCE.findall(text)
            if s.strip() and PATTERNS.search(s)]


def strip_injections(text: str) -> tuple[str, list[str]]:
    """``text`` without its injection sentences, and the sentences removed."""
    if not _suspicious(text):
        return text, []
    found: list[str] = []
    kept: list[str] = []
    for sentence in _SENTENCE.findall(text):
        if sentence.strip() and PATTERNS.search(sentence):
            found.append(" ".join(sentence.split()))
            kept.append("\n" if sentence.endswith("\n") else " ")
        else:
            kept.append(sentence)
    return "".join(kept), found
