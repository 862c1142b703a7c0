"""A question's answer: its value, the sentence quoted as evidence, the page it is on
and a confidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leadengine.judgement.sentences import Line

UNKNOWN = "unknown"
#: Longest evidence quoted (a line is cut there).
MAX_EVIDENCE = 300


@dataclass(frozen=True)
class Answer:
    """A question's answer: ``value`` (yes / no / unknown, a number, an option, a
    text), the ``evidence`` sentence quoted from the site, the page it is on
    (``source``) and a ``confidence`` from 0 to 1."""

    value: str | int
    evidence: str = ""
    source: str = ""
    confidence: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "evidence": self.evidence, "source": self.source,
                "confidence": round(self.confidence, 2)}


NOT_ANSWERED = Answer(UNKNOWN)


def evidence_of(line: Line) -> str:
    """What is quoted of ``line``: all of it, cut at a space past :data:`MAX_EVIDENCE`."""
    text = line.text
    return text if len(text) <= MAX_EVIDENCE else text[:MAX_EVIDENCE].rsplit(" ", 1)[0]
