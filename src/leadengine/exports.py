"""Lazy exports for a package's ``__init__`` (PEP 562): its public names, each imported
from the module that defines it on first use.

A package whose modules are also imported one at a time (a command that reads only the
store, ``leadengine --help``) would otherwise import all of them, and their libraries,
the first time any one is. Each such ``__init__`` lists its names once, as a table, and
repeats the imports under ``TYPE_CHECKING`` for type checkers; ``tests/test_architecture.py``
checks that the two agree and that every name resolves.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, table: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose public names are the keys
    of ``table`` (name -> the module that defines it). A name is imported when first
    read and kept in the package's namespace, so later reads skip this."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*table, *namespace.get("__all__", ())})

    return __getattr__, __dir__
