"""The regular expressions a command compiles while it starts, kept compiled between runs.

A batch's start compiles about 800 regexes (the category taxonomy's word tries, the
address and signal rules, the libraries' own): 100-150 ms of its one-core start-up,
spent again by every command, on the same patterns each time. Python keeps compiled
regexes only for the life of a process. Here, from :func:`start` (a command's start) to
:func:`stop` (its work begins), each pattern's compiled form, the SRE code that
``re`` hands to its C engine, is looked up in a file of the cache folder and, when it
is there, given to the engine directly; what was compiled anew is added to the file
when the start-up ends. A pattern compiled later (from a page, from the knowledge base)
is compiled as usual and not kept.

What is kept is exactly what ``re`` computed for the same pattern and flags in the same
Python (the file's name hashes the Python version and the engine's magic number), and
the engine checks any code it is given: an entry that is not right is compiled again.
The file is one of the cache folder's compiled entries
(:func:`~leadengine.retrieval.cache.compiled_entry`: marshal, written atomically).
Nothing here can fail a command: without the file, or on another Python, ``re`` works
as it always does.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable
from typing import Any

#: What :func:`_arguments` gives: the engine's ``compile`` arguments after the pattern.
Compiled = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

#: Patterns kept at most (a start-up compiles about 800; a command whose work never
#: began, see :func:`stop`, stops adding there).
MOST = 4000

#: New patterns that make a start-up rewrite the file. A few are new at every start
#: (the standard library's tokenizer and another library build a pattern from a set,
#: whose order changes from process to process): not worth a rewrite each time.
NEW_ENOUGH = 8

_state: dict[str, Any] = {}


def start() -> None:
    """Compile regexes from the kept file until :func:`stop`."""
    if "original" in _state:
        return
    _state.clear()
    try:
        import _sre

        _compiler: Any = importlib.import_module("re._compiler")
        _parser: Any = importlib.import_module("re._parser")
    except ImportError:  # another Python's regex engine
        return
    if not (callable(getattr(_compiler, "compile", None)) and hasattr(_compiler, "_code")
            and hasattr(_parser, "parse")):
        return
    original: Callable[..., Any] = _compiler.compile
    used: dict[tuple[str | bytes, int], Compiled] = {}
    _state.update(kept=None, used=used, original=original, added=0, compiler=_compiler)

    def load() -> dict[tuple[str | bytes, int], Compiled]:
        # On the first pattern, not before: a command that compiles none (--help) reads
        # nothing, nor the settings that name the cache folder.
        from leadengine.retrieval.cache import compiled_entry, read_compiled

        tag = f"{sys.version}\0{_sre.MAGIC}\0{sys.implementation.cache_tag}"
        _state["entry"] = compiled_entry("regex", "start", tag.encode())
        loaded = read_compiled(_state["entry"])
        _state["kept"] = loaded if isinstance(loaded, dict) else {}
        return _state["kept"]  # type: ignore[no-any-return]

    def compile(pattern: Any, flags: int = 0) -> Any:
        if not isinstance(pattern, str | bytes) or flags & _compiler.SRE_FLAG_DEBUG:
            return original(pattern, flags)
        key = (pattern, int(flags))
        kept = _state["kept"]
        known = (load() if kept is None else kept).get(key)
        if known is not None:
            with contextlib.suppress(TypeError, ValueError, RuntimeError, OverflowError):
                compiled = _sre.compile(pattern, *known)
                used[key] = known
                return compiled
        compiled = original(pattern, flags)
        if len(used) >= MOST:
            return compiled
        with contextlib.suppress(Exception):  # not kept if it cannot be reproduced
            arguments = _arguments(_compiler, _parser, pattern, int(flags))
            if _sre.compile(pattern, *arguments) == compiled and key not in used:
                used[key] = arguments
                _state["added"] += 1
        return compiled

    _compiler.compile = compile


def stop() -> None:
    """Back to ``re``'s own compiling; the patterns of this start-up kept, when some
    were new (:data:`NEW_ENOUGH`). The file then holds this start-up's patterns only, so
    those a new version of the code no longer compiles leave it."""
    if "original" not in _state:
        return
    _state["compiler"].compile = _state.pop("original")
    if _state["added"] < (NEW_ENOUGH if _state["kept"] else 1):
        return
    from leadengine.retrieval.cache import keep_compiled

    keep_compiled(_state["entry"], _state["used"])


def _arguments(compiler: Any, parser: Any, pattern: str | bytes, flags: int) -> Compiled:
    """What ``re._compiler.compile`` passes to the engine for ``pattern`` (its steps)."""
    parsed = parser.parse(pattern, flags)
    code = compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(flags | parsed.state.flags), [int(op) for op in code],
            parsed.state.groups - 1, groupindex, tuple(indexgroup))
