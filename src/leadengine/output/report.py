"""Readable lead reports: one evaluation as text for a terminal, or as a one-page
markdown brief to paste into a chat or a ticket.

Presenters read the evaluation's JSON form (``Evaluation.model_dump(mode="json")``,
which is also what the store keeps), so ``evaluate`` and ``show`` print the same
report for the same evaluation, and a stored row from an older version still renders
(every field is read with a default).
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from leadengine.judgement.bands import band_name
from leadengine.knowledge.signal_names import label

#: Output formats of ``evaluate`` and ``show``.
FORMATS = ("text", "markdown", "json")

#: The signals a salesperson reads, in reading order, with their labels (the registry's).
KEY_SIGNALS: tuple[tuple[str, str], ...] = tuple(
    (name, label(name)) for name in (
        "https", "mobile_viewport", "analytics", "google_tag_manager", "meta_pixel",
        "tiktok_pixel", "contact_form", "online_booking", "ecommerce", "online_payment",
        "chat_widget", "facebook_link", "messaging_link", "own_domain_email", "facebook_only"))
#: Absences worth saying out loud: each is a gap the team can sell against.
KEY_GAPS: tuple[str, ...] = ("https", "analytics", "contact_form", "online_booking")

_WIDTH = 88
_LABEL = 11


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun in the number it takes: "1 evaluation", "3 evaluations",
    "0 models" (``nouns``: the plural when it is not the noun and an s)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def render_report(data: dict[str, Any], fmt: str, bands: dict[str, int] | None = None
                  ) -> str:
    """``data`` (an evaluation as JSON data) as a ``text`` or ``markdown`` report."""
    if fmt == "markdown":
        return markdown_report(data, bands)
    return text_report(data, bands)


# -- what both formats say ---------------------------------------------------------------


def _signals(data: dict[str, Any]) -> dict[str, Any]:
    signals = data.get("signals")
    return signals if isinstance(signals, dict) else {}


def _evidence(data: dict[str, Any], name: str) -> str:
    evidence = _signals(data).get("evidence") or {}
    return str(evidence.get(name) or "")


def location(data: dict[str, Any]) -> str:
    """Where the business is: the city and country first (a long address is cut on a
    narrow screen), then the street address as the page states it; else ''."""
    facts = data.get("location")
    address = _evidence(data, "address")
    if isinstance(facts, dict):
        address = str(facts.get("address") or address)
        place = [str(part) for part in (facts.get("city"), facts.get("country")) if part]
        if place:
            return f"{', '.join(place)} · {address}" if address else ", ".join(place)
    return address


def city(data: dict[str, Any]) -> str:
    """The city the facts place the business in, else its address as found."""
    facts = data.get("location")
    if isinstance(facts, dict) and facts.get("city"):
        return str(facts["city"])
    return _evidence(data, "address")


def found_signals(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, evidence) for every key signal the site has."""
    signals = _signals(data)
    return [(label, _evidence(data, name)) for name, label in KEY_SIGNALS
            if signals.get(name) is True]


def missing_signals(data: dict[str, Any]) -> list[str]:
    """Labels of the key gaps: signals the site lacks (unknown ones are not gaps)."""
    signals = _signals(data)
    unknown = set(signals.get("unknown") or [])
    labels = dict(KEY_SIGNALS)
    return [labels[name] for name in KEY_GAPS
            if signals.get(name) is False and name not in unknown]


def contacts(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, value) for phones, e-mails and social / messaging links."""
    signals = _signals(data)
    rows = [("Phone", str(p)) for p in signals.get("phones") or []]
    rows += [("E-mail", str(e)) for e in signals.get("emails") or []]
    social = signals.get("social") or {}
    if isinstance(social, dict):
        rows += [(str(kind).capitalize(), str(url)) for kind, url in social.items()]
    return rows


def answers(data: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(question id, value, evidence quoted, the page it is on) of each answer."""
    found = data.get("answers")
    if not isinstance(found, dict):
        return []
    return [(str(key), str(answer.get("value", "unknown")), str(answer.get("evidence") or ""),
             str(answer.get("source") or ""))
            for key, answer in found.items() if isinstance(answer, dict)]


def sources(data: dict[str, Any]) -> list[str]:
    """The knowledge passages the evaluation was given, as ``file > heading``."""
    out = []
    for source in data.get("sources") or []:
        heading = source.get("heading")
        out.append(str(source.get("path")) + (f" > {heading}" if heading else ""))
    return out


def maturity(data: dict[str, Any]) -> list[tuple[str, int, list[str]]]:
    """(layer, score, gaps) of the digital-maturity layers, in the framework's order."""
    layers = data.get("digital_maturity") or {}
    return [(str(name), int(layer.get("score") or 0), [_gap(g) for g in layer.get("gaps") or []])
            for name, layer in layers.items() if isinstance(layer, dict)]


def _gap(name: Any) -> str:
    """A rule's gap name in words: ``contact_form`` -> "contact form", and a gap that
    is a signal's presence (``not:facebook_only``) -> "is facebook only"."""
    text = str(name)
    prefix = "is " if text.startswith("not:") else ""
    return prefix + text.removeprefix("not:").replace("_", " ")


def provenance(data: dict[str, Any]) -> str:
    """Who judged, with what, at what cost."""
    provider, model = data.get("provider", "?"), data.get("model", "?")
    rag = "with advisory context (RAG)" if data.get("rag") else "without advisory context"
    line = f"Evaluated by {provider} ({model}) {rag}"
    if data.get("cached"):
        line += ", answered from the response cache"
    cost = data.get("cost_usd")
    if provider != "heuristic" and isinstance(cost, int | float):
        line += f", cost ${cost:.4f}"
    return line + "."


# -- text --------------------------------------------------------------------------------


def outreach_message(data: dict[str, Any]) -> tuple[str, str, str] | None:
    """(chat, e-mail subject, e-mail body) of the evaluation's message, if it has one."""
    message = data.get("outreach_message")
    if not isinstance(message, dict) or not message.get("chat"):
        return None
    email = message.get("email")
    email = email if isinstance(email, dict) else {}
    return (str(message["chat"]), str(email.get("subject", "")),
            str(email.get("body", "")))


def _field(label: str, value: str) -> list[str]:
    """``label  value`` with the value wrapped under itself."""
    lines = textwrap.wrap(value, _WIDTH - _LABEL - 2) or [""]
    return [f"{label:<{_LABEL}}  {lines[0]}",
            *(f"{'':<{_LABEL}}  {line}" for line in lines[1:])]


def _bar(score: int) -> str:
    filled = max(0, min(10, round(score / 10)))
    return "#" * filled + "." * (10 - filled)


def doubt(data: dict[str, Any]) -> str:
    """The judgement's confidence and its reasons when it is not high ("" otherwise)."""
    confidence = data.get("confidence") or {}
    level = confidence.get("level")
    if not level or level == "high":
        return ""
    reasons = "; ".join(str(r) for r in confidence.get("reasons") or [])
    return f"{level}: {reasons}" if reasons else str(level)


def grounding(data: dict[str, Any]) -> tuple[str, list[str]]:
    """The grounding block as a summary line and one line per failed check (empty for
    an evaluation stored before grounding existed)."""
    block = data.get("grounding") or {}
    checks = block.get("checks") or []
    if not checks:
        return "", []
    failed = [c for c in checks if c.get("result") != "pass"]
    if not failed:
        return f"all {len(checks)} claims agree with the site", []
    summary = f"{len(failed)} of {len(checks)} claims not borne out by the site"
    return summary, [f"{c.get('check')} {str(c.get('claim') or '')[:80]!r}: {c.get('result')}"
                     f" — {c.get('evidence', '')}" for c in failed]


def text_report(data: dict[str, Any], bands: dict[str, int] | None = None) -> str:
    """A plain-text report for a terminal (no markup, no JSON)."""
    score = int(data.get("fit_score") or 0)
    lines = [f"{data.get('business_name', '?')}  ({data.get('business_type', '?')})"]
    if data.get("url"):
        lines.append(str(data["url"]))
    lines.append("")
    lines += _field("Location", location(data) or "not stated on the site")
    lines += _field("Fit score", f"{score}/100 ({band_name(score, bands)})")
    if doubt(data):
        lines += _field("Confidence", doubt(data))
    lines += _field("Pitch", str(data.get("primary_service", "")))
    if data.get("angle"):
        lines += _field("Angle", str(data["angle"]))
    lines += _field("Outreach", str(data.get("outreach_angle", "")))
    lines += ["", "Why", *_indent(textwrap.wrap(str(data.get("reasoning", "")), _WIDTH - 2))]
    message = outreach_message(data)
    if message is not None:
        chat, subject, _ = message
        lines += ["", "Message (chat)", *_indent(textwrap.wrap(chat, _WIDTH - 2)),
                  "", "E-mail subject", f"  {subject}"]
    found, missing = found_signals(data), missing_signals(data)
    if found or missing:
        lines += ["", "What the site shows"]
        lines += [f"  + {label}" + (f": {_short(evidence, _WIDTH - len(label) - 6)}"
                                     if evidence else "")
                  for label, evidence in found]
        lines += [f"  - no {label.lower()}" for label in missing]
    if contacts(data):
        lines += ["", "Contacts", *(f"  {kind:<10} {value}" for kind, value in contacts(data))]
    if answers(data):
        lines += ["", "Answers"]
        lines += [f"  {key}: {value}" + (f'  ("{_short(quote, _WIDTH - len(key) - 12)}")'
                                          if quote else "")
                  for key, value, quote, _ in answers(data)]
    if maturity(data):
        lines += ["", "Digital maturity"]
        lines += [f"  {name:<16} {score_:>3}  {_bar(score_)}"
                  + (f"  missing: {', '.join(gaps)}" if gaps else "")
                  for name, score_, gaps in maturity(data)]
    if data.get("excluded_services"):
        lines += ["", "Never pitch: " + ", ".join(data["excluded_services"])]
    if sources(data):
        lines += ["", "Knowledge used", *(f"  {s}" for s in sources(data))]
    summary, failed = grounding(data)
    if summary:
        lines += ["", f"Grounding: {summary}", *(f"  x {line}" for line in failed)]
    if data.get("warnings"):
        lines += ["", "Warnings", *(f"  ! {w}" for w in data["warnings"])]
    if data.get("error"):
        lines += ["", f"Error: {data['error']}"]
    lines += ["", provenance(data)]
    return "\n".join(lines)


def _indent(lines: list[str]) -> list[str]:
    return [f"  {line}" for line in lines]


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- markdown ----------------------------------------------------------------------------


def _md(text: Any) -> str:
    """Text from a website, made inert in markdown: no tables broken, no links, HTML or
    emphasis smuggled in by the page. A bare web address becomes an autolink."""
    out = " ".join(str(text).split())
    if _URL.fullmatch(out):
        return f"<{out}>"
    for char in "\\`*_[]<|":
        out = out.replace(char, "\\" + char)
    return out


_URL = re.compile(r"https?://[^\s<>`|]+")


def markdown_report(data: dict[str, Any], bands: dict[str, int] | None = None) -> str:
    """A one-page markdown lead brief."""
    score = int(data.get("fit_score") or 0)
    where = location(data)
    lines = [f"# {_md(data.get('business_name', '?'))}", "",
             f"**{_md(data.get('business_type', '?'))}**"
             + (f" · {_md(where)}" if where else " · location not stated on the site")
             + (f" · <{data['url']}>" if data.get("url") else ""), "",
             "| Fit score | Pitch | Angle |", "|---|---|---|",
             f"| **{score}**/100 ({band_name(score, bands)}) | "
             f"{_md(data.get('primary_service', ''))} | {_md(data.get('angle') or '-')} |",
             *([f"**Confidence:** {_md(doubt(data))}", ""] if doubt(data) else []),
             "", f"**Why:** {_md(data.get('reasoning', ''))}", "",
             f"**Outreach angle:** {_md(data.get('outreach_angle', ''))}"]
    message = outreach_message(data)
    if message is not None:
        chat, subject, body = message
        lines += ["", "## Message", "", f"**Chat:** {_md(chat)}", "",
                  f"**E-mail:** {_md(subject)}", "", *(f"> {_md(line)}" if line else ">"
                                                      for line in body.splitlines())]
    if answers(data):
        lines += ["", "## Answers", "", "| Question | Answer | The site says |", "|---|---|---|"]
        lines += [f"| {_md(key)} | **{_md(value)}** | {_md(_short(quote, 120)) or '-'} |"
                  for key, value, quote, _ in answers(data)]
    found, missing = found_signals(data), missing_signals(data)
    if found or missing:
        lines += ["", "## What the site shows", ""]
        lines += [f"- {label}" + (f": {_md(_short(evidence))}" if evidence else "")
                  for label, evidence in found]
        lines += [f"- No {label.lower()}" for label in missing]
    if contacts(data):
        lines += ["", "## Contacts", "", *(f"- {kind}: {_md(value)}"
                                         for kind, value in contacts(data))]
    if maturity(data):
        lines += ["", "## Digital maturity", "", "| Layer | Score | Missing |", "|---|---|---|"]
        lines += [f"| {name} | {score_} | {', '.join(gaps) or '-'} |"
                  for name, score_, gaps in maturity(data)]
    if data.get("excluded_services"):
        lines += ["", "**Never pitch:** " + ", ".join(_md(s) for s in data["excluded_services"])]
    if sources(data):
        lines += ["", "## Knowledge used", ""]
        lines += [f"- `{s.get('path')}`" + (f" > {_md(s['heading'])}" if s.get("heading") else "")
                  for s in data.get("sources") or []]
    summary, failed = grounding(data)
    if summary:
        lines += ["", "## Grounding", "", f"{_md(summary)}", *(f"- {_md(line)}"
                                                             for line in failed)]
    if data.get("warnings"):
        lines += ["", "## Warnings", "", *(f"- {_md(w)}" for w in data["warnings"])]
    lines += ["", f"_{provenance(data)}_", ""]
    return "\n".join(lines)
