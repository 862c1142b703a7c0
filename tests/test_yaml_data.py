"""The data files load with libyaml's C loader, to the same data as the safe loader."""

from __future__ import annotations

import pytest
import yaml

from leadengine.knowledge.yaml_data import SAFE_LOADER, safe_load
from tests.conftest import REPO

DATA = sorted((REPO / "src" / "leadengine" / "data").glob("*.yaml"))


def test_the_c_loader_is_used_when_pyyaml_has_it() -> None:
    assert SAFE_LOADER is (yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)


@pytest.mark.parametrize("path", DATA, ids=[p.name for p in DATA])
def test_data_files_read_the_same_as_with_the_python_loader(path) -> None:
    text = path.read_text(encoding="utf-8")
    assert safe_load(text) == yaml.safe_load(text)


def test_it_stays_a_safe_loader() -> None:
    with pytest.raises(yaml.YAMLError):
        safe_load("!!python/object/apply:os.system ['echo no']")
