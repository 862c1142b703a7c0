"""Forms for the parts of the knowledge base a salesperson changes most: the target
cities, the rubric's weights, the conversation angles and the message templates. Each
form reads its section from the knowledge file that defines it, and on "Preview" or
"Save" writes the section back into a copy of that file's text
(:func:`leadengine.knowledge.front_matter.replace_section`), which the loader checks as
for any edit: its message is shown on the form and nothing is saved. "Preview" also
estimates the stored leads' scores under the edited knowledge
(:func:`leadengine.judgement.rescore`) and says how many would change band.

A form's fields are named ``<row>-<field>`` (``3-name``); a row whose ``remove`` box is
ticked, or whose fields are all empty (the spare row for adding one), is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from leadengine.knowledge import DEFAULT_GEOGRAPHY, Rules

#: Rubric fields the form shows, with what each means to a salesperson.
RUBRIC_FIELDS: dict[str, str] = {
    "base": "Points every lead starts with",
    "in_target_geography": "Points for a lead in a target city",
    "unknown_geography": "Points when the site does not say where it is",
    "size_cap": "Most points size signals add or take away",
    "out_of_market_max_fit": "Highest score for a lead outside our markets",
    "unknown_geography_max_fit": "Highest score when the location is not stated",
    "unidentified_max_fit": "Highest score when neither location nor industry shows",
    "small_outlet_max_fit": "Highest score for a single small outlet",
    "directory_max_fit": "Highest score for a directory or marketplace",
}
BANDS = ("high", "medium", "low")


class FormError(ValueError):
    """A field that cannot be read (not a number): the message names it."""


@dataclass(frozen=True)
class Section:
    """One form: the front matter key it edits and how its fields read and write."""

    name: str
    key: str
    title: str
    #: The values the form shows, from the section's current value.
    rows: Callable[[Any, Rules], Any]
    #: The section's new value from the submitted fields.
    parse: Callable[[Mapping[str, str]], Any]


def _words(text: str) -> list[str]:
    return [word.strip() for word in text.replace("\n", ",").split(",") if word.strip()]


def _number(fields: Mapping[str, str], name: str, label: str) -> int:
    text = fields.get(name, "").strip()
    try:
        return int(text)
    except ValueError:
        raise FormError(f"{label}: {text!r} is not a whole number") from None


def _rows(fields: Mapping[str, str], names: tuple[str, ...]) -> list[dict[str, str]]:
    """The submitted rows in order: ``{field: value}``, spare and removed rows left out."""
    numbers = sorted({int(key.split("-", 1)[0]) for key in fields
                      if key.split("-", 1)[0].isdigit() and "-" in key})
    found = []
    for number in numbers:
        row = {name: fields.get(f"{number}-{name}", "").strip() for name in names}
        if fields.get(f"{number}-remove") or not any(row.values()):
            continue
        found.append(row)
    return found


def _geography_rows(value: Any, rules: Rules) -> list[dict[str, Any]]:
    places = value if isinstance(value, list) else [
        place.model_dump() for place in (rules.geography or DEFAULT_GEOGRAPHY)]
    return [{"name": p.get("name", ""), "country": p.get("country", ""),
             "aliases": ", ".join(p.get("aliases") or []),
             "target": p.get("target", True)} for p in places if isinstance(p, dict)]


def _parse_geography(fields: Mapping[str, str]) -> list[dict[str, Any]]:
    return [{"name": row["name"], "country": row["country"],
             "aliases": _words(row["aliases"]), "target": row["target"] == "yes"}
            for row in _rows(fields, ("name", "country", "aliases", "target"))
            if row["name"] or row["country"] or row["aliases"]]


def _rubric_rows(value: Any, rules: Rules) -> dict[str, Any]:
    current = rules.rubric.model_dump()
    given = value if isinstance(value, dict) else {}
    return {**current, **given, "bands": {**current["bands"], **(given.get("bands") or {})}}


def _parse_rubric(fields: Mapping[str, str]) -> dict[str, Any]:
    rubric: dict[str, Any] = {name: _number(fields, name, label)
                              for name, label in RUBRIC_FIELDS.items()}
    rubric["bands"] = {band: _number(fields, f"band-{band}", f"the {band} band's floor")
                       for band in BANDS}
    return rubric


def _angle_rows(value: Any, rules: Rules) -> list[dict[str, Any]]:
    angles = value if isinstance(value, list) else []
    return [{"name": a.get("name", ""), "when": ", ".join(a.get("when") or []),
             "keywords": ", ".join(a.get("keywords") or []),
             "priority": a.get("priority", 100), "framing": a.get("framing", "")}
            for a in angles if isinstance(a, dict)]


def _parse_angles(fields: Mapping[str, str]) -> list[dict[str, Any]]:
    angles = []
    for number, row in enumerate(_rows(fields, ("name", "when", "keywords", "priority",
                                                "framing")), 1):
        angle: dict[str, Any] = {"name": row["name"], "when": _words(row["when"])}
        if row["keywords"]:
            angle["keywords"] = _words(row["keywords"])
        angle["priority"] = _number({"p": row["priority"] or "100"}, "p",
                                    f"angle {number}'s priority")
        angle["framing"] = row["framing"]
        angles.append(angle)
    return angles


def _template_rows(value: Any, rules: Rules) -> list[dict[str, Any]]:
    templates = value if isinstance(value, list) else []
    return [{"angle": t.get("angle", ""), "language": t.get("language", "en"),
             "chat": t.get("chat", ""), "subject": t.get("subject", ""),
             "email": t.get("email", "")} for t in templates if isinstance(t, dict)]


def _parse_templates(fields: Mapping[str, str]) -> list[dict[str, Any]]:
    return [{"angle": row["angle"], "language": row["language"] or "en",
             "chat": row["chat"], "subject": row["subject"],
             "email": row["email"].replace("\r\n", "\n")}
            for row in _rows(fields, ("angle", "language", "chat", "subject", "email"))
            if row["angle"] or row["chat"] or row["subject"] or row["email"]]


SECTIONS: dict[str, Section] = {
    "cities": Section("cities", "geography", "Target cities", _geography_rows,
                      _parse_geography),
    "rubric": Section("rubric", "rubric", "Rubric weights", _rubric_rows, _parse_rubric),
    "angles": Section("angles", "angles", "Conversation angles", _angle_rows,
                      _parse_angles),
    "templates": Section("templates", "outreach", "Message templates", _template_rows,
                         _parse_templates),
}
#: Keys whose later files override earlier ones (the form edits the last that has it).
OVERRIDDEN = ("rubric",)
