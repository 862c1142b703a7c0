"""The start-up's compiled regexes kept between runs (leadengine.regex_cache): what a
kept entry gives is the pattern ``re`` compiles, a broken file or entry is compiled
again, and only the start-up's patterns are kept."""

from __future__ import annotations

import json
import marshal
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from leadengine import regex_cache
from leadengine.web.category import DEFAULT_TAXONOMY, _load
from tests.conftest import REPO

#: Named groups, flags, look-arounds, Unicode classes, bytes, an inline flag.
PATTERNS: list[tuple[str | bytes, int]] = [
    (r"(?P<street>\d+\s+\w+\s+(?:Road|Rd|Street|St)\b)", re.I),
    (r"(?<!\w)(?:ร้าน|คลินิก)(?:อาหาร|ทันตกรรม)?(?!\w)", 0),
    (r"(?i:book(?:ing)?\s+now)|(?P<n>\d{3,4}-\d{4})", re.M | re.S),
    (rb"^\x00{2,}[^\xff]*$", 0),
    (r"(?x) \b (foo | bar) \b  # verbose", 0),
    (r"^https?://(?:www\.)?facebook\.com/(?P<page>[^/?#]+)", re.ASCII),
]


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of the test's own; the hook off (and re's own cache empty) after."""
    monkeypatch.setenv("LEADENGINE_CACHE_DIR", str(tmp_path / "cache"))
    re.purge()
    yield tmp_path / "cache" / "regex"
    regex_cache.stop()
    re.purge()


def compile_all(patterns: list[tuple[str | bytes, int]]) -> list[re.Pattern[Any]]:
    re.purge()  # re's own per-process cache would answer before the hook is asked
    return [re.compile(pattern, flags) for pattern, flags in patterns]


def test_a_kept_pattern_is_the_one_re_compiles(cache: Path) -> None:
    """Patterns compare equal when their flags, text and engine code are the same."""
    taxonomy = _load.__wrapped__(DEFAULT_TAXONOMY)
    patterns = [*PATTERNS, *((matcher.pattern, 0) for matcher in taxonomy.matchers)]
    fresh = compile_all(patterns)
    regex_cache.start()
    first = compile_all(patterns)  # compiled, and kept
    regex_cache.stop()
    [entry] = cache.glob("start-*.marshal")
    assert set(marshal.loads(entry.read_bytes())) == {(p, int(f)) for p, f in patterns}
    regex_cache.start()
    kept = compile_all(patterns)  # read back
    assert regex_cache._state["added"] == 0
    regex_cache.stop()
    assert fresh == first == kept
    for a, b in zip(fresh, kept, strict=True):
        assert (a.groupindex, a.groups, a.flags) == (b.groupindex, b.groups, b.flags)
    text = "Ring 081-2345 or BOOK NOW at 12 Sukhumvit Road; คลินิกทันตกรรม"
    assert [m.span() for m in kept[0].finditer(text)] == [(29, 46)]
    assert kept[2].search(text).group("n") == "081-2345"  # type: ignore[union-attr]
    assert kept[1].search(text).group() == "คลินิกทันตกรรม"  # type: ignore[union-attr]


def test_a_broken_file_or_entry_is_compiled_again(cache: Path) -> None:
    regex_cache.start()
    compile_all(PATTERNS)
    regex_cache.stop()
    [entry] = cache.glob("start-*.marshal")
    kept = marshal.loads(entry.read_bytes())
    key = (PATTERNS[0][0], int(PATTERNS[0][1]))
    flags, code, groups, groupindex, indexgroup = kept[key]
    # Code the engine refuses (an opcode out of range), and a file cut short.
    kept[key] = (flags, [999_999, *code[1:]], groups, groupindex, indexgroup)
    entry.write_bytes(marshal.dumps(kept))
    regex_cache.start()
    again = compile_all(PATTERNS)
    assert regex_cache._state["added"] == 1
    regex_cache.stop()
    assert again == compile_all(PATTERNS)
    entry.write_bytes(entry.read_bytes()[:100])
    regex_cache.start()
    assert compile_all(PATTERNS)[0].match("12 Main Street")
    regex_cache.stop()
    assert len(marshal.loads(entry.read_bytes())) == len(PATTERNS)  # written whole again


def test_only_the_start_up_s_patterns_are_kept(cache: Path) -> None:
    """After stop(), re compiles as it always does: a page's patterns are not kept."""
    regex_cache.start()
    compile_all(PATTERNS[:2])
    regex_cache.stop()
    assert sys.modules["re._compiler"].compile.__module__ == "re._compiler"  # re's own again
    compile_all([(r"page-made-\d+", 0)])
    [entry] = cache.glob("start-*.marshal")
    assert [p for p, _ in marshal.loads(entry.read_bytes())] == [p for p, _ in PATTERNS[:2]]


def test_a_few_new_patterns_do_not_rewrite_the_file(cache: Path) -> None:
    """Some libraries build a pattern from a set, in another order in each process: a
    start-up with fewer than NEW_ENOUGH new patterns leaves the file as it is."""
    regex_cache.start()
    compile_all(PATTERNS)
    regex_cache.stop()
    [entry] = cache.glob("start-*.marshal")
    before = entry.read_bytes()
    regex_cache.start()
    compile_all([*PATTERNS, *((f"new-{i}", 0) for i in range(regex_cache.NEW_ENOUGH - 1))])
    regex_cache.stop()
    assert entry.read_bytes() == before
    regex_cache.start()
    compile_all([*PATTERNS, *((f"new-{i}", 0) for i in range(regex_cache.NEW_ENOUGH))])
    regex_cache.stop()
    assert len(marshal.loads(entry.read_bytes())) == len(PATTERNS) + regex_cache.NEW_ENOUGH


def test_a_command_s_second_start_compiles_from_the_file(tmp_path: Path) -> None:
    """Two runs of a command: the second's start-up (the pipeline imported, its data
    loaded) compiles next to nothing itself."""
    code = ("import json, sys\n"
            "from leadengine.cli_common import start_up, work_begins\n"
            "from leadengine import regex_cache\n"
            "start_up()\n"
            "import leadengine.batch, leadengine.batch_preload\n"
            "state = regex_cache._state\n"
            "print(json.dumps([state['added'], len(state['used'])]))\n"
            "work_begins()\n")
    env = {"PATH": "/usr/bin:/bin", "LEADENGINE_CACHE_DIR": str(tmp_path / "cache"),
           "HOME": str(tmp_path)}

    def run() -> list[int]:
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=120, check=True)
        result: list[int] = json.loads(done.stdout)
        return result

    added, used = run()
    assert added == used > 500
    added, used = run()
    assert used > 500 and added < regex_cache.NEW_ENOUGH
