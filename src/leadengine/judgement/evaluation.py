"""The evaluation schema: the seed's six fields, plus where the answer came from.

An evaluator returns a :class:`Verdict` (its judgement and what it cost); the
pipeline assembles the :class:`Evaluation` from the site's facts and that verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from leadengine.knowledge.rules import Question

#: The strategy framework's six conversation angles.
AngleName = Literal[
    "Revenue Visibility Gap",
    "Conversion Infrastructure Weakness",
    "Operational Bottleneck",
    "Platform Dependency Risk",
    "Underutilized Attention",
    "Competitive Positioning Gap",
]
ANGLES: tuple[str, ...] = get_args(AngleName)


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


class LLMAnswer(Judgement):
    """What the LLM is asked for: the six fields, optionally the angle's name, and the
    answers to the questions when it was asked some (checked against the site later)."""

    angle: AngleName | None = None
    answers: dict[str, Any] | None = None


def answer_schema_with(questions: Sequence[Question]) -> dict[str, Any]:
    """:data:`STRICT_ANSWER_SCHEMA` with the ``answers`` object of ``questions`` (every
    question required, each ``value``, ``evidence`` and ``confidence``)."""
    if not questions:
        return STRICT_ANSWER_SCHEMA
    one = {"type": "object",
           "properties": {"value": {"type": "string"}, "evidence": {"type": "string"},
                          "confidence": {"type": "number"}},
           "required": ["value", "evidence", "confidence"], "additionalProperties": False}
    answers = {"type": "object", "properties": {q.id: one for q in questions},
               "required": [q.id for q in questions], "additionalProperties": False}
    return {**STRICT_ANSWER_SCHEMA,
            "properties": {**STRICT_ANSWER_SCHEMA["properties"], "answers": answers},
            "required": [*STRICT_ANSWER_SCHEMA["required"], "answers"]}


#: The strict JSON Schema sent to models with structured outputs (every property
#: required, no others), mirroring :class:`LLMAnswer`. No ``minimum``/``maximum`` on
#: fit_score: strict mode on Groq does not take them; pydantic still holds the score to
#: 0-100 when the answer is parsed, and a wrong one gets the repair round.
STRICT_ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "business_name": {"type": "string"},
        "business_type": {"type": "string"},
        "primary_service": {"type": "string"},
        "fit_score": {"type": "integer"},
        "reasoning": {"type": "string"},
        "outreach_angle": {"type": "string"},
        "angle": {"type": "string", "enum": list(ANGLES)},
    },
    "required": ["business_name", "business_type", "primary_service", "fit_score",
                 "reasoning", "outreach_angle", "angle"],
    "additionalProperties": False,
}


class Verdict(BaseModel):
    """What an evaluator returns: its judgement, the warnings it adds and what it cost.

    Everything else in an evaluation (signals, maturity, exclusions, the page's
    warnings) is a fact of the site, the same whoever judges. ``business_name`` and
    ``business_type`` may be left None: the facts' name and industry are used then.
    """

    model_config = ConfigDict(extra="forbid")

    business_name: str | None = None
    business_type: str | None = None
    primary_service: str = Field(min_length=1)
    fit_score: int = Field(ge=0, le=100)
    angle: AngleName | None = None
    reasoning: str = Field(min_length=1)
    outreach_angle: str = Field(min_length=1)
    #: What the evaluator corrected or escaped, after the page's own warnings.
    warnings: list[str] = Field(default_factory=list)
    #: Usage, as :class:`Evaluation` documents it.
    tokens: dict[str, int] = Field(default_factory=dict)
    cost_usd: float | None = None
    cached: bool = False
    #: The model that answered, when it is not the evaluator's configured one (a
    #: retired model replaced); None: the evaluator's.
    model: str | None = None
    #: The model's answers to the questions, as it gave them (checked against the site
    #: before they are kept: :func:`leadengine.judgement.model_answers.checked_model_answers`);
    #: None: the evaluator answers none (the offline one).
    answers: dict[str, Any] | None = None


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
    angle: AngleName | None = None
    #: Services the knowledge base forbids for this business (industry exclusions).
    excluded_services: list[str] = Field(default_factory=list)
    #: Digital Maturity Framework layers: score 0-100, evidence found, gaps.
    digital_maturity: dict[str, dict[str, Any]] = Field(default_factory=dict)
    sources: list[Source] = Field(default_factory=list)
    signals: dict[str, Any] = Field(default_factory=dict)
    #: What the evaluation could not see or did not trust: unread subpages, a page cut
    #: short, text addressed to an AI (removed, or in the page's metadata), a name
    #: passed over, an answer corrected (excluded service, fit score above the facts).
    warnings: list[str] = Field(default_factory=list)
    #: Tokens: ``prompt_estimate`` (counted before sending), and the provider's
    #: ``prompt`` / ``completion`` usage, plus ``reasoning`` (the part of ``completion``
    #: a reasoning model spent thinking) when the provider reports it (empty for the
    #: heuristic).
    tokens: dict[str, int] = Field(default_factory=dict)
    #: Price of the LLM calls from the configured price table (None = model not priced;
    #: 0 for the heuristic and for answers from the response cache).
    cost_usd: float | None = None
    #: True when the answer came from the local response cache (nothing was paid).
    cached: bool = False
    #: Where the business is, from the facts: ``address`` (the street address found),
    #: ``city``, ``region``, ``postal_code``, ``country``, ``country_code`` (ISO 3166-1),
    #: ``in_target_geography`` (true / false / null = unknown) and the ``evidence`` it
    #: was read from.
    location: dict[str, Any] = Field(default_factory=dict)
    #: What kind of business it is, from the fixed taxonomy (``docs/website-intelligence.md``):
    #: ``value`` (healthcare, food_beverage... other), ``confidence`` 0-1, ``evidence``.
    category: dict[str, Any] = Field(default_factory=dict)
    #: What kind of site it is (:mod:`leadengine.website.site_kind`): ``value`` (business,
    #: directory, marketplace, media, profile) and the ``evidence``.
    site_kind: dict[str, Any] = Field(default_factory=dict)
    #: How big the business is (:mod:`leadengine.facts.size`): ``value`` (small: a single
    #: small outlet, large: a business with scale, unknown) and the ``evidence``.
    scale: dict[str, Any] = Field(default_factory=dict)
    #: How far the judgement can be trusted (:mod:`leadengine.facts.confidence`): ``level``
    #: (high, medium, low) and the ``reasons`` (no readable text, a language the rules do
    #: not cover, an unidentified industry, location clues that disagree).
    confidence: dict[str, Any] = Field(default_factory=dict)
    #: Every claim of the judgement checked against the site's facts
    #: (:mod:`leadengine.judgement.grounding`): ``ok``, ``failed`` (how many checks failed) and
    #: ``checks``: each ``check`` (name, type, location, service, reasoning, text), its
    #: ``result`` (pass, corrected: replaced by the facts', fail: kept with a warning),
    #: the ``claim`` and the ``evidence``.
    grounding: dict[str, Any] = Field(default_factory=dict)
    #: The first message to send (:mod:`leadengine.judgement.outreach`): ``language`` (en, th, my),
    #: ``angle``, ``chat`` (at most 600 characters), ``email`` (``subject``, ``body``),
    #: ``evidence`` (what it quotes from the site) and ``template``; None when the
    #: knowledge base has no outreach templates.
    outreach_message: dict[str, Any] | None = None
    #: The knowledge base's (and the run's) questions answered
    #: (:mod:`leadengine.judgement.questions`): per question id, ``value`` (yes, no or
    #: unknown; a number; one of its options; a text), ``evidence`` (the sentence quoted
    #: from the site, empty when unknown), ``source`` (the page it is on) and
    #: ``confidence`` (0 to 1).
    answers: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def to_json(self) -> str:
        """Pretty JSON with the seed's six fields first."""
        return self.model_dump_json(indent=2)
