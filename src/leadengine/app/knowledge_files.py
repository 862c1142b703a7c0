"""The knowledge files the workspace reads and edits: where they are, which paths may be
touched, and saving one only when the whole knowledge base still loads.

A path comes from a URL, so it is checked before anything is opened: it must be a
relative ``.md`` path inside the knowledge directory, with no empty, ``.``, ``..`` or
hidden segment, no backslash, and no symbolic link anywhere between the directory and the
file (a link could point outside). A new file's name must also be plain: letters, digits,
``-``, ``_`` and ``.`` in each segment. A path refused answers 404 with the reason: no
knowledge file is, or may be, there.

A save is checked the way the engine loads the knowledge: the knowledge files are copied
into a temporary directory, the new text replaces (or joins) them there, and
:meth:`Knowledge.from_dir` loads the copy. Its error, with the temporary directory
taken out, is the message the author sees, and the real file is not touched. Only then
is the text written, atomically (a temporary sibling, then ``os.replace``). The
knowledge version is a hash of every file's path and bytes, and every cache keyed on it
(the bm25 index, the embeddings) is rebuilt for the new version on its next use.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from leadengine.errors import KnowledgeError
from leadengine.knowledge import Knowledge, default_knowledge_dir

#: Largest file text accepted, in UTF-8 bytes. The request body limit
#: (``server.MAX_BODY``, 64 KiB) is reached first by a form or JSON body holding more,
#: so this only says it in the knowledge base's own terms if that limit grows.
MAX_TEXT = 60 * 1024
#: A segment of a new file's path: plain characters, not hidden.
_PLAIN_SEGMENT = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
#: Longest path and path segment accepted, in UTF-8 bytes (most file systems' limits).
_MAX_PATH = 1024
_MAX_NAME = 255
#: One save at a time in this process: two edits checked at once could each load alone
#: and still break the knowledge base together (a condition naming a removed industry).
_SAVING = threading.Lock()
#: Markdown to HTML with raw HTML escaped, never passed through; markdown-it also
#: refuses ``javascript:``, ``vbscript:``, ``file:`` and most ``data:`` links.
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


class Refused(Exception):
    """A request on a knowledge file that is not carried out; ``str()`` is the message
    for the user and ``status`` the HTTP status that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Saved:
    """What a save did: the file, whether it is new, and the knowledge version now."""

    path: str
    created: bool
    version: str
    sha256: str


def knowledge_root(configured: Path | None) -> Path:
    """The knowledge directory, resolved: the configured one, else the one the CLI uses
    (``./knowledge`` when present, else the bundled knowledge)."""
    try:
        root = Path(configured) if configured is not None else default_knowledge_dir()
        resolved = root.resolve(strict=True)
    except (KnowledgeError, OSError):
        raise Refused(404, "no knowledge directory: set knowledge_dir or create "
                           "./knowledge") from None
    if not resolved.is_dir():
        raise Refused(404, "the knowledge path is not a directory")
    return resolved


def loader_files(root: Path) -> list[str]:
    """The relative paths the loader reads under ``root``: every ``.md`` file, hidden
    segments skipped, sorted (the selection of :meth:`Knowledge.from_dir`)."""
    found = (p.relative_to(root) for p in root.rglob("*.md") if p.is_file())
    return sorted(p.as_posix() for p in found if not any(s.startswith(".") for s in p.parts))


def is_linked(root: Path, rel: str) -> bool:
    """Whether any segment of ``rel`` under ``root`` is a symbolic link."""
    current = root
    for segment in rel.split("/"):
        current = current / segment
        if current.is_symlink():
            return True
    return False


def locate(root: Path, rel: str, new: bool = False) -> Path:
    """The file ``rel`` names inside ``root`` (resolved), if the workspace may touch it;
    with ``new``, also a file that does not exist yet but may be created. Refused with
    404 (and the reason) otherwise: no knowledge file is, or may be, at that path."""
    segments = _segments(rel)
    try:
        return _existing_or_new(root, rel, segments, new)
    except OSError as exc:  # a name too long for the file system, say
        raise Refused(404, f"{rel}: cannot be opened ({exc.strerror})") from None


def _existing_or_new(root: Path, rel: str, segments: list[str], new: bool) -> Path:
    if is_linked(root, rel):
        raise Refused(404, f"{rel}: goes through a symbolic link; edit it on disk")
    target = root.joinpath(*segments)
    if not target.resolve().is_relative_to(root):
        raise Refused(404, f"{rel}: outside the knowledge directory")
    if target.is_file():
        return target
    if target.exists():
        raise Refused(404, f"{rel}: not a file")
    if not new:
        raise Refused(404, f"no knowledge file {rel}")
    if any(parent.exists() and not parent.is_dir() for parent in target.parents):
        raise Refused(404, f"{rel}: a part of the path is a file, not a folder")
    odd = next((s for s in segments if not _PLAIN_SEGMENT.fullmatch(s)), None)
    if odd is not None:
        raise Refused(404, f"{rel}: a new file's path may only use letters, digits, "
                           f"'-', '_' and '.' in each part, not starting with '.'")
    return target


def read_text(path: Path) -> str:
    """A knowledge file's text as the loader decodes it (UTF-8, a BOM dropped); bytes
    that are not UTF-8 show as the replacement character."""
    return path.read_bytes().decode("utf-8-sig", errors="replace")


def digest(data: bytes) -> str:
    """The SHA-256 of a file's bytes: what an edit was based on, to detect a conflict."""
    return hashlib.sha256(data).hexdigest()


def save(root: Path, rel: str, text: str, base: str | None = None) -> Saved:
    """Write ``text`` to the knowledge file ``rel`` if the knowledge base still loads
    with it. ``base`` is the :func:`digest` the edit started from: a file changed since
    is refused (409). Refused with 404 for a path it may not write, 413 over
    :data:`MAX_TEXT`, and 422 with the loader's message; the file is unchanged whenever
    it is refused."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, which JSON's \u escapes can carry
        raise Refused(422, f"{rel}: the text is not valid Unicode") from None
    if len(data) > MAX_TEXT:
        raise Refused(413, f"{rel}: the text is {len(data)} bytes; the limit is {MAX_TEXT}")
    with _SAVING:
        target = locate(root, rel, new=True)
        created = not target.exists()
        if base is not None and not created and digest(target.read_bytes()) != base:
            raise Refused(409, f"{rel}: changed since it was opened; reload it and "
                               "make the edit again")
        version = check(root, rel, data)
        _write_atomically(target, data)
    return Saved(path=rel, created=created, version=version, sha256=digest(data))


def check(root: Path, rel: str, data: bytes) -> str:
    """Load the knowledge base as it would be with ``data`` at ``rel`` (a temporary copy
    of its files) and return its version; refused with 422 and the loader's message,
    file names relative to the knowledge directory, when it would not load."""
    return loaded(root, rel, data).version


def loaded(root: Path, rel: str, data: bytes) -> Knowledge:
    """The knowledge base as it would be with ``data`` at ``rel`` (:func:`check`)."""
    with tempfile.TemporaryDirectory(prefix="leadengine-kb-") as scratch:
        copy = Path(scratch)
        for name in loader_files(root):
            _put(copy / name, (root / name).read_bytes())
        _put(copy / rel, data)
        try:
            return Knowledge.from_dir(copy)
        except KnowledgeError as exc:
            message = str(exc).replace(str(copy) + os.sep, "")
            raise Refused(422, message.replace(str(copy), "the knowledge directory")
                          ) from None


def render_markdown(text: str) -> str:
    """A markdown body as HTML, safe to insert: raw HTML in it comes out escaped."""
    html: str = _MARKDOWN.render(text)
    return html


def _segments(rel: str) -> list[str]:
    """The segments of a relative ``.md`` path; refused (404) for anything else."""
    try:
        size = len(rel.encode("utf-8"))
    except UnicodeEncodeError:
        size = 0
    segments = rel.split("/")
    if not size or "\\" in rel or "\0" in rel:
        raise Refused(404, "a knowledge file path is a relative path such as notes.md")
    if size > _MAX_PATH or any(len(s.encode("utf-8")) > _MAX_NAME for s in segments):
        raise Refused(404, f"a knowledge file path is at most {_MAX_PATH} bytes, "
                           f"{_MAX_NAME} a part")
    if rel.startswith("/") or any(s in ("", ".", "..") for s in segments):
        raise Refused(404, f"{rel}: not a relative path inside the knowledge directory")
    if any(s.startswith(".") for s in segments):
        raise Refused(404, f"{rel}: hidden files and folders are not knowledge files")
    if not rel.endswith(".md"):
        raise Refused(404, f"{rel}: only .md files are knowledge files")
    return segments


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to a hidden temporary sibling (the loader skips hidden files), then
    move it over ``target``: a reader sees the old text or the new, never half. The file
    keeps its permissions; a new one is readable by all, writable by its owner."""
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
