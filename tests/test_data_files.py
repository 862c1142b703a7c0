"""The shipped data files are edited by hand; YAML lets a key be written twice in one
mapping and keeps only the last, silently. A second ``also:`` in one group, or a second
``online:`` under ``unrelated:``, once dropped a whole list that way."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

DATA = Path(__file__).resolve().parent.parent / "src" / "leadengine" / "data"


class _Strict(yaml.SafeLoader):
    """A safe loader that fails on a key written twice in one mapping."""


def _mapping(loader: _Strict, node: yaml.MappingNode, deep: bool = False) -> Any:
    keys = [loader.construct_object(key, deep=True) for key, _ in node.value]
    twice = sorted(str(k) for k, count in Counter(keys).items() if count > 1)
    if twice:
        raise AssertionError(f"line {node.start_mark.line + 1}: {', '.join(twice)} twice")
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


_Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


@pytest.mark.parametrize("path", sorted(DATA.rglob("*.yaml")), ids=lambda p: p.name)
def test_no_key_is_written_twice_in_a_data_file(path: Path) -> None:
    yaml.load(path.read_text(encoding="utf-8"), Loader=_Strict)


def test_the_strict_loader_finds_a_key_written_twice() -> None:
    with pytest.raises(AssertionError, match="also twice"):
        yaml.load("groups:\n  - en: [a]\n    also: [b]\n    also: [c]\n", Loader=_Strict)
