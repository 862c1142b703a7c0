"""Rewriting one section of a knowledge file's front matter (``leadengine: rubric:``,
``geography:``...) and leaving the rest of the file as it was written: its other
sections, their comments, the markdown body. What the workspace's knowledge forms save
through (the raw editor stays for everything else).

Only the section's own lines are replaced: from its key to the next line indented as
little as it is (the next section, or a comment before it). The comment lines right
under the key (what the section is for) are kept; comments further inside go with the
old values, and the form says so.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

#: The front matter: from a first line ``---`` to the next ``---`` line.
_FRONT = re.compile(r"\A---\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)


def section_value(text: str, key: str) -> Any:
    """The ``leadengine.<key>`` value of a knowledge file's text, None when absent."""
    match = _FRONT.match(text.replace("\r\n", "\n"))
    if match is None:
        return None
    meta = yaml.safe_load(match.group(1) or "") or {}
    rules = meta.get("leadengine") if isinstance(meta, dict) else None
    return rules.get(key) if isinstance(rules, dict) else None


class _Dumper(yaml.SafeDumper):
    """Block lists indented under their key (``geography:`` then ``  - name: ...``),
    as the shipped files write them."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _dump(key: str, value: Any, indent: int) -> list[str]:
    """``key:`` and ``value`` as YAML lines at ``indent`` spaces (lists of plain values
    on one line, as the shipped files write aliases)."""
    text = yaml.dump({key: value}, Dumper=_Dumper, allow_unicode=True, sort_keys=False,
                     default_flow_style=None, width=4096)
    return [" " * indent + line if line else line for line in text.rstrip("\n").split("\n")]


def replace_section(text: str, key: str, value: Any) -> str:
    """``text`` with its front matter's ``leadengine.<key>`` set to ``value``: the
    section's lines replaced in place, or added at the end of ``leadengine:`` (a front
    matter, or its ``leadengine:`` key, is added when the file has none)."""
    text = text.replace("\r\n", "\n")
    match = _FRONT.match(text)
    if match is None:
        return "---\n" + "\n".join(["leadengine:", *_dump(key, value, 2)]) + "\n---\n" + text
    lines = (match.group(1) or "").rstrip("\n").split("\n") if match.group(1) else []
    body = text[match.end():]
    top = next((i for i, line in enumerate(lines) if re.match(r"leadengine:\s*(#.*)?$", line)),
               None)
    if top is None:
        lines += ["leadengine:", *_dump(key, value, 2)]
    else:
        lines = _replaced(lines, top, key, value)
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def _replaced(lines: list[str], top: int, key: str, value: Any) -> list[str]:
    """The front matter ``lines`` with the section ``key`` under ``lines[top]``
    (``leadengine:``) replaced, or appended to that mapping."""
    end = next((i for i in range(top + 1, len(lines)) if lines[i].strip()
                and not lines[i].startswith((" ", "\t"))), len(lines))
    children = [i for i in range(top + 1, end) if lines[i].strip()
                and not lines[i].lstrip().startswith("#")]
    indent = len(lines[children[0]]) - len(lines[children[0]].lstrip()) if children else 2
    start = next((i for i in children if re.match(
        rf"{' ' * indent}{re.escape(key)}:(\s|$)", lines[i])), None)
    if start is None:
        last = max(children, default=top)
        stop = next((i for i in range(last + 1, end) if lines[i].strip()
                     and _indent(lines[i]) <= indent), end)
        return lines[:stop] + _dump(key, value, indent) + lines[stop:]
    stop = next((i for i in range(start + 1, end) if lines[i].strip()
                 and _indent(lines[i]) <= indent), end)
    # Blank lines that end the section stay between it and the next one.
    while stop > start + 1 and not lines[stop - 1].strip():
        stop -= 1
    heading = start + 1
    while heading < stop and lines[heading].lstrip().startswith("#"):
        heading += 1
    new = _dump(key, value, indent)
    return lines[:start] + new[:1] + lines[start + 1:heading] + new[1:] + lines[stop:]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
