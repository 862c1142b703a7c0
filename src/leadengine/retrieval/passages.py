"""Passages: the units the section-level methods retrieve.

Each knowledge file is split at its headings (:func:`leadengine.knowledge.base.split_sections`).
A tiny section (a heading with a line or two) says too little to retrieve on
its own, so it is merged into the section after it (or, at the end of a file,
into the one before); a huge one is split at paragraph breaks so one long
section cannot crowd everything else out of the token budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from leadengine.knowledge.base import Document, Section

#: Sections with fewer words than this are merged into a neighbour.
MIN_WORDS = 40
#: Sections with more words than this are split at paragraph breaks.
MAX_WORDS = 300


@dataclass(frozen=True)
class Passage:
    """A retrievable piece of one knowledge file."""

    #: Position in the knowledge base (load order); ties are broken by it.
    index: int
    path: str
    heading: str | None
    #: The text injected into the prompt; starts with the heading path.
    text: str


def make_passages(documents: list[Document], min_words: int = MIN_WORDS,
                  max_words: int = MAX_WORDS) -> list[Passage]:
    """Passages of every document, in load order."""
    passages: list[Passage] = []
    for doc in documents:
        for heading, body in _pieces(list(doc.sections), min_words, max_words):
            passages.append(Passage(index=len(passages), path=doc.path, heading=heading,
                                    text=_with_heading(heading, body)))
    return passages


def _pieces(sections: list[Section], min_words: int, max_words: int
            ) -> list[tuple[str | None, str]]:
    groups: list[list[Section]] = []
    pending: list[Section] = []
    for section in sections:
        pending.append(section)
        if sum(len(s.text.split()) for s in pending) >= min_words:
            groups.append(pending)
            pending = []
    if pending:
        if groups:
            groups[-1].extend(pending)
        else:
            groups.append(pending)
    pieces: list[tuple[str | None, str]] = []
    for group in groups:
        heading = _group_heading(group)
        if len(group) == 1 and group[0].heading is not None:
            # The heading is shown once, as the passage's heading path.
            body = group[0].text.partition("\n")[2].strip() or group[0].text
        else:
            body = "\n\n".join(s.text for s in group)
        pieces.extend((heading, chunk) for chunk in _split(body, max_words))
    return pieces


def _group_heading(group: list[Section]) -> str | None:
    """One heading for merged sections: their common path, then their own titles."""
    paths = [s.heading.split(" > ") for s in group if s.heading]
    if not paths:
        return None
    if len(paths) == 1:
        return " > ".join(paths[0])
    common: list[str] = []
    for parts in zip(*paths, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    leaves = [p[len(common)] for p in paths if len(p) > len(common)]
    tail = " / ".join(dict.fromkeys(leaves))
    return " > ".join([*common, tail] if tail else common)


def _split(text: str, max_words: int) -> list[str]:
    if len(text.split()) <= max_words:
        return [text]
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in (p for p in text.split("\n\n") if p.strip()):
        words = len(paragraph.split())
        if current and size + words > max_words:
            chunks.append("\n\n".join(current))
            current, size = [], 0
        current.append(paragraph)
        size += words
    if current:
        chunks.append("\n\n".join(current))
    return chunks


def _with_heading(heading: str | None, body: str) -> str:
    return f"## {heading}\n{body}" if heading else body
