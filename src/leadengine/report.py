"""Readable lead reports: one stored or fresh evaluation as text for a terminal or
as a markdown brief to paste into a chat or a ticket.

Presenters read the evaluation's JSON form (``Evaluation.model_dump(mode="json")``,
which is also what the store keeps), so ``evaluate`` and ``show`` print the same
report for the same evaluation.
"""

from __future__ import annotations

from typing import Any

#: Output formats of ``evaluate`` and ``show``.
FORMATS = ("text", "markdown", "json")


def render_report(data: dict[str, Any], fmt: str) -> str:
    """``data`` (an evaluation as JSON data) as a ``text`` or ``markdown`` report."""
    if fmt == "markdown":
        return markdown_report(data)
    return text_report(data)


def text_report(data: dict[str, Any]) -> str:
    """A plain-text report for a terminal."""
    return "\n".join(f"{key}: {data.get(key)}" for key in (
        "business_name", "business_type", "fit_score", "primary_service", "reasoning",
        "outreach_angle"))


def markdown_report(data: dict[str, Any]) -> str:
    """A one-page markdown lead brief."""
    return text_report(data)
