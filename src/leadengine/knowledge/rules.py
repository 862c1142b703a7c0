"""Machine-readable rules that live in the knowledge base's YAML front matter.

The knowledge files are the single source of truth: their markdown body is the
advisory context an LLM reads, and their front matter (a ``leadengine:`` key)
holds the same rules in a form the offline evaluator can apply. Each file may
contribute any of the sections below; lists are concatenated across files in
load order, ``rubric`` keys are overridden by later files.

Example (abridged)::

    ---
    leadengine:
      geography:
        - name: Bangkok
          country: Thailand
          aliases: [bangkok, กรุงเทพ]
    ---
    # Lead Qualification Criteria
    ...
"""

from __future__ import annotations

import difflib
import json
import string
from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from leadengine.knowledge.signal_names import condition_problem


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Place(_Rule):
    """A target market and the spellings that identify it on a page."""

    name: str = Field(min_length=1)
    country: str = Field(min_length=1)
    aliases: list[str] = Field(min_length=1)
    #: False for well-known places outside our markets (they mark a lead out of market).
    target: bool = True


class Industry(_Rule):
    """An industry we sell to (or recognise), detected by keywords."""

    name: str
    business_type: str
    keywords: list[str] = Field(min_length=1)
    #: Rubric points for being in this industry (0 = recognised, not targeted).
    points: int = Field(ge=0, le=100)


class Exclusion(_Rule):
    """An industry we must not sell certain services to."""

    #: Name of an entry in ``industries``.
    industry: str
    never_sell: list[str] = Field(min_length=1)
    recommend: str
    reason: str
    #: The fit score can never exceed this for an excluded business.
    max_fit: int = Field(ge=0, le=100)


class Service(_Rule):
    """An entry of the service catalogue."""

    name: str
    summary: str
    #: Pick this service when all of these signals hold (``not:x`` negates).
    when: list[str] = Field(default_factory=list)
    #: Lower runs first; the first service whose conditions hold wins.
    priority: int = 100


class SizeSignal(_Rule):
    """A phrase that hints at team size or revenue, with its rubric points."""

    label: str
    keywords: list[str] = Field(min_length=1)
    points: int = Field(ge=-50, le=50)


class Angle(_Rule):
    """One of the strategy framework's conversation angles."""

    name: str = Field(min_length=1)
    #: Conditions on signals (``not:x`` negates); all must hold to trigger.
    when: list[str] = Field(default_factory=list)
    #: If given, at least one of these phrases must appear on the site too.
    keywords: list[str] = Field(default_factory=list)
    #: Lower wins when several angles trigger.
    priority: int = 100
    #: Outreach line; ``{business_name}``, ``{place}`` and ``{industry}`` are filled in.
    framing: str = Field(min_length=1)


#: The languages outreach messages are written in (ISO 639-1: Thai, Burmese, English).
OUTREACH_LANGUAGES = ("en", "th", "my")
#: What an outreach template may name: the lead's own facts (``observation``: what the
#: site shows, in plain words; ``evidence``, the older name of the same), and the rep's
#: name, company, introduction, e-mail signature, pronoun and polite particle.
OUTREACH_FIELDS = ("business_name", "place", "industry", "service", "observation",
                   "evidence", "rep_name", "rep_company", "introduction", "signature", "me",
                   "particle")
#: A chat message (LINE, Messenger, Viber) is at most this long once filled in.
MAX_CHAT = 350


class AliasGroup(_Rule):
    """Words that mean what the English words ``en`` mean: a query (a Thai website, a
    synonym) that holds one retrieves as if it held the English words. Extends the
    shipped glossary (``data/glossary.yaml``)."""

    en: list[str] = Field(min_length=1)
    terms: list[str] = Field(default_factory=list)
    th: list[str] = Field(default_factory=list)
    my: list[str] = Field(default_factory=list)

    def words(self) -> list[str]:
        """Every term of the group, in any language."""
        return [*self.terms, *self.th, *self.my]


class OutreachTemplate(_Rule):
    """An outreach message for one angle in one language, written by the team: a short
    chat version and an e-mail (subject and body). ``{business_name}``, ``{place}``,
    ``{industry}``, ``{service}`` and ``{observation}`` (what was seen on the site, in
    plain words) are filled from the lead's facts; ``{introduction}``, ``{signature}``,
    ``{rep_name}``, ``{rep_company}``, ``{me}`` and ``{particle}`` from the settings."""

    #: The angle's name (as in ``angles``), or ``"*"`` for any angle.
    angle: str = Field(min_length=1)
    language: Literal["en", "th", "my"]
    chat: str = Field(min_length=1, max_length=MAX_CHAT)
    subject: str = Field(min_length=1, max_length=200)
    email: str = Field(min_length=1, max_length=4000)

    @field_validator("chat", "subject", "email")
    @classmethod
    def _known_fields(cls, text: str) -> str:
        try:
            names = [name for _, name, _, _ in string.Formatter().parse(text) if name]
        except ValueError as exc:
            raise ValueError(f"not a template ({exc}); write a literal brace as {{{{ }}}}"
                             ) from None
        unknown = [name for name in names if name not in OUTREACH_FIELDS]
        if unknown:
            raise ValueError(f"unknown placeholder {{{unknown[0]}}} (known: "
                             + ", ".join(f"{{{n}}}" for n in OUTREACH_FIELDS) + ")")
        return text


#: What a question's answer is: yes/no, a short text, a whole number, one of its options.
QUESTION_TYPES = ("yes_no", "text", "number", "choice")
#: Longest question accepted (a question is a sentence, not a brief).
MAX_QUESTION = 300


class Question(_Rule):
    """A question the team asks of every lead ("Do they deliver?"), answered from the
    site with the sentence that says so, or ``unknown``."""

    #: The answer's key in the evaluation (``answers.<id>``) and the export's column
    #: (``answer_<id>``): lowercase letters, digits and ``_``.
    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    #: The question, as a rep would ask it.
    ask: str = Field(min_length=3, max_length=MAX_QUESTION)
    type: Literal["yes_no", "text", "number", "choice"] = "yes_no"
    #: The answers a ``choice`` question may have (two or more).
    options: list[str] = Field(default_factory=list)
    #: Words or phrases, in any language, that a sentence answering it would use
    #: ("delivery", "Grab", "ส่งถึงบ้าน"): added to the words of ``ask``.
    hints: list[str] = Field(default_factory=list)
    #: A signal that answers a yes/no question by itself (``ecommerce`` for "Do they sell
    #: online?"): yes when the site shows it, with its evidence.
    signal: str | None = None

    @field_validator("ask")
    @classmethod
    def _one_line(cls, text: str) -> str:
        text = " ".join(text.split())
        if len(text) < 3:
            raise ValueError("a question needs at least 3 characters")
        return text

    @model_validator(mode="after")
    def _options(self) -> Question:
        if self.type == "choice" and len(self.options) < 2:
            raise ValueError(f"question {self.id!r} is a choice: give it two or more options")
        if self.type != "choice" and self.options:
            raise ValueError(f"question {self.id!r} has options but is not a choice")
        if self.signal is not None and self.type != "yes_no":
            raise ValueError(f"question {self.id!r}: only a yes_no question is answered "
                             "by a signal")
        return self


class MaturityLayer(_Rule):
    """One layer of the Digital Maturity Framework and what shows it."""

    name: str
    #: Conditions that count as evidence of maturity in this layer
    #: (``not:x`` negates); the layer's score is the share that hold.
    evidence: list[str] = Field(min_length=1)
    #: Rubric points added in proportion to what the layer lacks (its gap).
    gap_points: int = Field(ge=0, le=100)


class Rubric(_Rule):
    """Points and caps that turn findings into a 0-100 fit score (each 0 to 100: a
    negative weight or a cap past 100 is refused when the knowledge base loads)."""

    base: int = Field(default=10, ge=0, le=100)
    in_target_geography: int = Field(default=25, ge=0, le=100)
    unknown_geography: int = Field(default=5, ge=0, le=100)
    #: Size signals add or remove at most this many points in total.
    size_cap: int = Field(default=10, ge=0, le=100)
    #: A lead whose location the site does not state is at most "worth a look".
    unknown_geography_max_fit: int = Field(default=65, ge=0, le=100)
    out_of_market_max_fit: int = Field(default=35, ge=0, le=100)
    #: A site that shows neither a location nor an industry cannot be judged a good fit.
    unidentified_max_fit: int = Field(default=30, ge=0, le=100)
    #: Most fit for a single small outlet (a café, a tea shop, a family guesthouse, a
    #: six-room inn: :mod:`leadengine.facts.size`): a small buyer, whatever its gaps.
    small_outlet_max_fit: int = Field(default=65, ge=0, le=100)
    #: Most fit for a site of many businesses (a directory, a marketplace, a media
    #: site): its listings are the leads, not the site.
    directory_max_fit: int = Field(default=20, ge=0, le=100)
    bands: dict[str, int] = Field(
        default_factory=lambda: {"high": 70, "medium": 40, "low": 0}
    )

    @field_validator("bands")
    @classmethod
    def _bands_in_range(cls, bands: dict[str, int]) -> dict[str, int]:
        for name, floor in bands.items():
            if not 0 <= floor <= 100:
                raise ValueError(f"the {name!r} band starts at {floor}: a band starts "
                                 "between 0 and 100")
        return bands


#: The team's markets, when a knowledge base's front matter lists no ``geography``.
DEFAULT_GEOGRAPHY = (
    Place(name="Yangon", country="Myanmar", aliases=["yangon", "rangoon", "ရန်ကုန်"]),
    Place(name="Mandalay", country="Myanmar", aliases=["mandalay", "မန္တလေး"]),
    Place(name="Bangkok", country="Thailand",
          aliases=["bangkok", "krung thep", "กรุงเทพ", "กทม"]),
)


class Rules(_Rule):
    """Everything the offline evaluator needs, merged from all knowledge files."""

    geography: list[Place] = Field(default_factory=list)
    industries: list[Industry] = Field(default_factory=list)
    exclusions: list[Exclusion] = Field(default_factory=list)
    services: list[Service] = Field(default_factory=list)
    size_signals: list[SizeSignal] = Field(default_factory=list)
    maturity_layers: list[MaturityLayer] = Field(default_factory=list)
    angles: list[Angle] = Field(default_factory=list)
    outreach: list[OutreachTemplate] = Field(default_factory=list)
    aliases: list[AliasGroup] = Field(default_factory=list)
    questions: list[Question] = Field(default_factory=list)
    rubric: Rubric = Field(default_factory=Rubric)

    @property
    def places(self) -> list[Place]:
        """The geography the site is placed in: the front matter's, else the team's
        markets (:data:`DEFAULT_GEOGRAPHY`)."""
        return self.geography or list(DEFAULT_GEOGRAPHY)

    def merged_with(self, other: Rules, other_fields: set[str]) -> Rules:
        """Return these rules extended by ``other`` (lists appended, rubric replaced)."""
        data = self.model_dump()
        for name in other_fields:
            value = getattr(other, name)
            if name == "rubric":
                data["rubric"] = {**data["rubric"], **value.model_dump(exclude_unset=True)}
            else:
                data[name] = data[name] + [item.model_dump() for item in value]
        return Rules.model_validate(data)

    def condition_problems(self, industries: list[str]) -> Iterator[str]:
        """Each condition of these rules that names no known signal or industry, as
        ``angles["Name"].when: unknown signal 'x' (did you mean 'y'?)``.

        ``industries`` are the whole knowledge base's industry names, not only these
        rules': one file's conditions may name another file's industries.
        """
        for where, conditions in self._conditions():
            for condition in conditions:
                problem = condition_problem(condition, industries)
                if problem is not None:
                    yield f"{where}: {problem}"

    def question_problems(self, known: set[str]) -> Iterator[str]:
        """Each question whose id another question has (``known``: the ids of the files
        read before, grown as this one's are read), or that names an unknown signal."""
        for question in self.questions:
            if question.id in known:
                yield f"questions[{_quoted(question.id)}]: the id is used twice"
            known.add(question.id)
            if question.signal is not None:
                problem = condition_problem(question.signal, [])
                if problem is not None:
                    yield f"questions[{_quoted(question.id)}].signal: {problem}"

    def outreach_problems(self, angles: list[Angle]) -> Iterator[str]:
        """Each outreach template naming an angle the knowledge base does not define."""
        names = [angle.name for angle in angles]
        for template in self.outreach:
            if template.angle != "*" and template.angle not in names:
                close = difflib.get_close_matches(template.angle, names, n=1)
                hint = f" (did you mean {_quoted(close[0])}?)" if close else ""
                yield (f"outreach[{_quoted(template.angle)}, {template.language}].angle: "
                       f"unknown angle {_quoted(template.angle)}{hint}")

    def _conditions(self) -> Iterator[tuple[str, list[str]]]:
        """(where, conditions) for every condition list, where as ``services["Name"].when``
        (the rule's name: what the author searches the file for)."""
        for service in self.services:
            yield f"services[{_quoted(service.name)}].when", service.when
        for angle in self.angles:
            yield f"angles[{_quoted(angle.name)}].when", angle.when
        for layer in self.maturity_layers:
            yield f"maturity_layers[{_quoted(layer.name)}].evidence", layer.evidence


def _quoted(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)
