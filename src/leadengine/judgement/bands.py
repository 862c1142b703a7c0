"""The rubric bands a fit score falls in (light: the reports and the CLI read them at
start-up)."""

from __future__ import annotations

#: Fit-score bands by their lowest score, when the knowledge base gives none (the
#: shipped rubric's).
DEFAULT_BANDS: dict[str, int] = {"high": 70, "medium": 40, "low": 0}


def band_name(score: int, bands: dict[str, int] | None = None) -> str:
    """The rubric band ("High", "Medium", "Low") a fit score falls in."""
    for name, floor in sorted((bands or DEFAULT_BANDS).items(), key=lambda item: -item[1]):
        if score >= floor:
            return name.capitalize()
    return "Low"
