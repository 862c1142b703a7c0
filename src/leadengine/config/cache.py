"""Where retrieval indexes and embeddings, and the compiled place and category data,
are kept between runs.

``$LEADENGINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/leadengine``, else
``~/.cache/leadengine``. Every entry's name carries a hash of what it was built
from (knowledge-base version, tokeniser, model), so an edited knowledge base
never meets a stale index; a file that cannot be read is rebuilt, never fatal.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from leadengine.config import env_setting


def cache_dir() -> Path:
    """The cache root (not created until something is written)."""
    explicit = env_setting("cache_dir")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")  # the platform's convention, not a setting
    return (Path(xdg) if xdg else Path.home() / ".cache") / "leadengine"


def cache_key(*parts: str) -> str:
    """A short stable hash of ``parts``."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def write_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Build ``target`` (a file or a folder) in a temporary sibling, then move it in place,
    so a crash or a concurrent reader never sees half an entry. Failing to write the
    cache (read-only home, full disk) is not an error: the entry is just not kept."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
    except OSError:
        return
    try:
        built = tmp / target.name
        write(built)
        if target.exists():
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            else:
                target.unlink(missing_ok=True)
        os.replace(built, target)
    except OSError:
        pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compiled_entry(folder: str, name: str, *sources: bytes) -> Path:
    """The cache file of data compiled from ``sources`` (a data file's bytes and the
    source of the module that compiles it: an edit to either names another file)."""
    digest = hashlib.sha256(b"\0".join(sources)).hexdigest()[:20]
    return cache_dir() / folder / f"{name}-{digest}.marshal"


def read_compiled(entry: Path) -> Any:
    """The data kept in ``entry``, or None when it is missing or cannot be read.

    Kept with :mod:`marshal` (plain dicts, lists and strings; the format Python keeps
    its own compiled modules in, beside them in the user's folders): the gazetteer's
    3 MB read in 30 ms, where JSON took 50, at every command's start. What is read is
    checked by its reader (a wrong shape is an error it rebuilds on)."""
    try:
        return marshal.loads(entry.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def keep_compiled(entry: Path, state: Any) -> None:
    """Keep ``state`` in ``entry`` (atomically; not an error if it cannot be)."""
    def write(target: Path) -> None:
        target.write_bytes(marshal.dumps(state))

    write_atomically(entry, write)
