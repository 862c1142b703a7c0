"""The evaluation schema: the seed's six fields, plus where the answer came from."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Judgement(BaseModel):
    """The six fields every evaluation has; what an LLM must return."""

    model_config = ConfigDict(extra="ignore")

    business_name: str = Field(min_length=1)
    business_type: str = Field(min_length=1)
    primary_service: str = Field(min_length=1)
    fit_score: int = Field(ge=0, le=100)
    reasoning: str = Field(min_length=1)
    outreach_angle: str = Field(min_length=1)

    @field_validator("business_name", "business_type", "primary_service", "reasoning",
                     "outreach_angle")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be blank")
        return value


class Source(BaseModel):
    """A knowledge-base passage that was given to the evaluator."""

    path: str
    heading: str | None = None
    score: float


class Evaluation(Judgement):
    """A complete evaluation as printed and stored."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    #: Who produced the judgement: ``heuristic`` or the LLM provider's name.
    provider: str
    model: str
    #: Whether advisory context from the knowledge base was used.
    rag: bool
    #: The strategy framework's conversation angle, when the evaluator names one.
    angle: str | None = None
    #: Services the knowledge base forbids for this business (industry exclusions).
    excluded_services: list[str] = Field(default_factory=list)
    #: Digital Maturity Framework layers: score 0-100, evidence found, gaps.
    digital_maturity: dict[str, dict[str, Any]] = Field(default_factory=dict)
    sources: list[Source] = Field(default_factory=list)
    signals: dict[str, Any] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    #: Prompt/completion tokens reported by the provider (empty for the heuristic).
    tokens: dict[str, int] = Field(default_factory=dict)

    def to_json(self) -> str:
        """Pretty JSON with the seed's six fields first."""
        return self.model_dump_json(indent=2)
