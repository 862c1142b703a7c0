"""The package's shape: no import cycles, a pinned public API, data that does not import
the index that reads it."""

from __future__ import annotations

import ast
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import leadengine
from tests.conftest import REPO

PACKAGE = REPO / "src" / "leadengine"


# --- the module-level import graph ----------------------------------------------------


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(module: str, path: Path) -> str:
    """The package a module's relative imports start from."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_nodes(body: list[ast.stmt], *, late: bool = False
                 ) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module is imported: not inside a function
    (it runs later, if ever) nor under ``if TYPE_CHECKING:`` (it never runs); class
    bodies, ``try`` and ordinary ``if`` blocks do run. With ``late``, those inside
    functions too: an import moved into a function still ties the two modules."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not late:
            continue
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            found.extend(import_nodes(node.orelse, late=late))
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, []):
                    inner = child.body if isinstance(child, ast.excepthandler | ast.match_case) \
                        else [child]
                    found.extend(import_nodes(inner, late=late))
    return found


def import_time_nodes(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    return import_nodes(body)


def all_import_nodes(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    return import_nodes(body, late=True)


def imported_modules(node: ast.Import | ast.ImportFrom, module: str, path: Path,
                     known: set[str]) -> set[str]:
    """The modules ``node`` names: ``import a.b``, or ``from p import x`` (the submodule
    ``p.x`` when there is one, else ``p``, whose attribute ``x`` is read)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = node.module or ""
    if node.level:
        anchor = package_of(module, path).split(".")
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    submodules = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known}
    return submodules if len(submodules) == len(node.names) else {base, *submodules}


def import_graph(package: Path = PACKAGE, *, late: bool = False) -> dict[str, set[str]]:
    """``module -> modules of this package it imports at import time`` (with ``late``,
    also those its functions import when they run). Importing ``a.b.c`` first runs the
    packages ``a`` and ``a.b``, so they count too, except the importer's own packages:
    those are already running when it is imported."""
    files = {module_name(p, package): p for p in package.rglob("*.py")}
    known = set(files)
    graph: dict[str, set[str]] = {}
    for module, path in sorted(files.items()):
        own = set(ancestors(module))
        edges: set[str] = set()
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for node in (all_import_nodes if late else import_time_nodes)(body):
            for target in imported_modules(node, module, path, known):
                edges.add(target)
                edges.update(p for p in ancestors(target) if p not in own)
        graph[module] = {m for m in edges if m in known and m != module}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component (Tarjan), as a closed path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [closed_path(graph, set(c), c[0]) for c in components]


def closed_path(graph: dict[str, set[str]], component: set[str], start: str) -> list[str]:
    """A shortest path from ``start`` back to itself inside ``component``."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & component):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"{start} is not on a cycle")


def test_the_graph_walker_sees_what_python_runs() -> None:
    source = ast.parse(
        "import a\nfrom b import c\nif TYPE_CHECKING:\n    import d\nelse:\n    import e\n"
        "def f():\n    import g\nclass C:\n    import h\ntry:\n    import i\n"
        "except ImportError:\n    import j\n")
    names = [n.names[0].name if isinstance(n, ast.Import) else n.module
             for n in import_time_nodes(source.body)]
    assert names == ["a", "b", "e", "h", "i", "j"]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_a_cycle_through_a_package_init_is_found(tmp_path: Path) -> None:
    """The cycle this test exists for: data importing a retrieval submodule runs the
    retrieval package first, and that package imports the data back."""
    files = {
        "__init__.py": "",
        "knowledge.py": "from typing import TYPE_CHECKING\nfrom pkg.retrieval.passages import P\n"
                        "if TYPE_CHECKING:\n    from pkg.retrieval.index import Index\n",
        "retrieval/__init__.py": "from pkg.knowledge import KnowledgeBase\n",
        "retrieval/passages.py": "from pkg.retrieval import Hit\n",
        "retrieval/index.py": "from pkg import knowledge\n",
    }
    for name, text in files.items():
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path / "pkg")
    assert graph["pkg.knowledge"] == {"pkg.retrieval", "pkg.retrieval.passages"}
    assert graph["pkg.retrieval.index"] == {"pkg.knowledge"}
    assert find_cycles(graph) == [["pkg.knowledge", "pkg.retrieval", "pkg.knowledge"]]
    (tmp_path / "pkg" / "retrieval" / "__init__.py").write_text("", encoding="utf-8")
    assert find_cycles(import_graph(tmp_path / "pkg")) == []


def test_no_import_cycles() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_import_cycles_counting_imports_inside_functions() -> None:
    """An import moved into a function hides a cycle from Python, not from a reader:
    the two modules still need each other."""
    cycles = find_cycles(import_graph(late=True))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


# --- layers: who may import whom --------------------------------------------------------

#: The packages (and the top-level modules beside them), lowest first: each may import
#: only those below it. The one place the layering is written: docs/architecture.md shows
#: it, and a test keeps the page and this list the same. ``leadengine`` itself (its
#: ``__init__``, which imports its public names lazily) and ``exports`` stand outside.
LAYERS = ("errors", "exports", "config", "knowledge", "retrieval", "website", "facts",
          "judgement", "output", "store", "pipeline", "batch", "app", "cli", "__main__")


def layer_of(module: str) -> str:
    """``leadengine.website.load`` -> ``website``; ``leadengine`` -> ``leadengine``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_every_package_has_a_layer() -> None:
    tops = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
            if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.name != "__init__.py"}
    assert tops == set(LAYERS)


def test_imports_run_down_the_layers() -> None:
    """Counting imports inside functions: website never imports facts, judgement, store
    or app; facts never judgement; knowledge never retrieval; and so on down the list."""
    rank = {name: index for index, name in enumerate(LAYERS)}
    upward = sorted(f"{module} -> {target}"
                    for module, targets in import_graph(late=True).items()
                    for target in targets
                    if layer_of(module) != "leadengine" and layer_of(target) != "leadengine"
                    and rank[layer_of(target)] > rank[layer_of(module)])
    assert not upward, "imports running up the layers:\n" + "\n".join(upward)


def from_imports(package: Path = PACKAGE) -> list[tuple[str, str, list[str]]]:
    """(importing module, imported module, names) of every ``from leadengine... import``
    in the package that can run (not under ``TYPE_CHECKING``)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        module = module_name(path, package)
        for node in all_import_nodes(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("leadengine"):
                found.append((module, node.module or "", [a.name for a in node.names]))
    return found


def test_no_private_name_is_imported_across_packages() -> None:
    def private(name: str) -> bool:
        return name.startswith("_") and not name.endswith("__")

    crossing = sorted(f"{module}: {', '.join(filter(private, names))} from {source}"
                      for module, source, names in from_imports()
                      if layer_of(module) != layer_of(source) and any(map(private, names)))
    assert not crossing, crossing


def test_app_and_cli_use_packages_public_names_only() -> None:
    """The workspace and the command line import other packages' names from the package
    (``from leadengine.store import Store``), and only names in its ``__all__``."""
    import importlib

    found = []
    for module, source, names in from_imports():
        if layer_of(module) not in ("app", "cli") or layer_of(source) == layer_of(module):
            continue
        if source.count(".") > 1:
            found.append(f"{module}: from {source} (a module inside a package)")
        elif source != "leadengine" and layer_of(source) not in ("errors", "pipeline"):
            public = importlib.import_module(source).__all__
            found += [f"{module}: {name} is not in {source}.__all__"
                      for name in names if name not in public]
    assert not found, found


@pytest.mark.parametrize("package", sorted(
    module_name(path, PACKAGE) for path in PACKAGE.rglob("__init__.py")
    if "_EXPORTS" in path.read_text(encoding="utf-8")))
def test_a_package_s_lazy_exports_resolve_and_match_its_type_imports(package: str) -> None:
    """A lazily exported name is in the table, in ``__all__``, imported for type checkers
    from the same module, and there."""
    import importlib

    path = PACKAGE.parent.joinpath(*package.split("."), "__init__.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for_types = {alias.name: node.module for top in tree.body
                 if isinstance(top, ast.If) and is_type_checking(top.test)
                 for node in top.body if isinstance(node, ast.ImportFrom)
                 for alias in node.names}
    module = importlib.import_module(package)
    table = module._EXPORTS
    if package != "leadengine":  # the top's table is pinned by test_exported_members
        assert for_types == table
    assert set(table) <= set(module.__all__) == set(dir(module))
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_the_architecture_page_lists_every_package_with_its_layer() -> None:
    """docs/architecture.md has one section per entry of LAYERS, lowest first, and each
    says what it may import: exactly the layers below it."""
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    sections = re.findall(r"^### `([\w.]+?)(?:/|\.py)`\n(.*?)(?=^### |\Z)", page, re.S | re.M)
    assert [name for name, _ in sections] == list(LAYERS)
    for index, (name, text) in enumerate(sections):
        said = re.search(r"May import: (.*?)\.(?:\s|$)", " ".join(text.split()))
        assert said is not None, name
        expected = ", ".join(LAYERS[:index]) or "nothing of the package"
        assert said.group(1) == expected, name


# --- sizes a reader can hold -----------------------------------------------------------

#: The most modules at the package's top (its public face: ``__init__``, ``__main__``,
#: ``errors``, ``pipeline``, ``exports``), lines in one module, lines in one function.
MAX_TOP_MODULES, MAX_MODULE_LINES, MAX_FUNCTION_LINES = 12, 400, 60


def test_the_top_level_is_the_public_face() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top


def test_no_module_or_function_is_too_long_to_read() -> None:
    long_modules, long_functions = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(PACKAGE)
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long_modules.append(f"{where}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append(f"{where}: {node.name} ({length} lines)")
    assert not long_modules and not long_functions, long_modules + long_functions


def printed_json(code: str) -> Any:
    """What ``code``, run in a new Python process, prints as JSON (a fresh process: the
    modules it imports are its own, not the test run's)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=REPO, check=True)
    return json.loads(done.stdout)


def test_no_cpython_internals() -> None:
    """Speed never buys risk: nothing reaches into the regex engine's private modules
    (``_sre``, ``re._compiler``, ``re._parser``, ``sre_compile``), which a Python
    upgrade may change without a test here seeing it."""
    private = re.compile(r"\b(?:import\s+_sre|from\s+_sre\b|_sre\.|re\._compiler|"
                         r"re\._parser|sre_compile|sre_parse|\"re\._compiler\"|\"_sre\")")
    found = [f"{path.relative_to(PACKAGE)}:{number}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if private.search(line)]
    assert not found, found


def test_knowledge_does_not_import_retrieval() -> None:
    """Data does not import the index that reads it: the index imports the knowledge."""
    graph = import_graph()
    assert not {m for m in graph["leadengine.knowledge.base"]
                if m.startswith("leadengine.retrieval")}
    assert "leadengine.knowledge.base" in graph["leadengine.retrieval.index"]
    assert not [m for m in graph if m.startswith("leadengine.knowledge")
                and {n for n in graph[m] if n.startswith("leadengine.retrieval")}]


def test_knowledge_imports_without_numpy_bm25s_or_retrieval() -> None:
    code = ("import sys, json, leadengine.knowledge.base\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'bm25s', 'Stemmer') or m.startswith('leadengine.retrieval'))))")
    assert printed_json(code) == []


def test_loading_and_reading_a_knowledge_base_builds_no_index(tmp_path: Path) -> None:
    """``leadengine.KnowledgeBase`` (the data with ``retrieve`` added) loads and reads
    without the index: no numpy, bm25s or retrieval method until something retrieves."""
    (tmp_path / "a.md").write_text("---\nleadengine:\n  rubric:\n    base: 12\n---\n"
                                   "# Criteria\n## Scoring Rubric\nBangkok clinics first.\n",
                                   encoding="utf-8")
    code = ("import sys, json\nfrom leadengine import KnowledgeBase\n"
            f"kb = KnowledgeBase.from_dir({str(tmp_path)!r})\n"
            "facts = [len(kb.documents), len(kb.sections), kb.rules.rubric.base, kb.version,"
            " kb.rubric_text()]\n"
            "print(json.dumps([facts, sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'bm25s') or m.startswith(('leadengine.retrieval.index', "
            "'leadengine.retrieval.bm25', 'leadengine.retrieval.embed')))]))")
    facts, loaded = printed_json(code)
    assert facts[:3] == [1, 2, 12] and facts[4].startswith("## Scoring Rubric")
    assert loaded == []


# --- the public API -------------------------------------------------------------------


def test_exported_members() -> None:
    """Every public name resolves, and the list is exactly this (httpx's
    ``test_exported_members`` style): adding or removing an export is a decision."""
    assert leadengine.__all__ == [
        "SYSTEM_PROMPT",
        "ConfigError",
        "ContentError",
        "Document",
        "Evaluation",
        "Evaluator",
        "FetchError",
        "Hit",
        "Judgement",
        "KnowledgeBase",
        "KnowledgeError",
        "LLMError",
        "LeadEngineError",
        "ModelUnavailable",
        "QuotaExhausted",
        "RAGSystem",
        "Section",
        "Settings",
        "StoreError",
        "__version__",
        "build_messages",
        "build_user_content",
        "evaluate",
        "evaluate_url",
        "make_evaluator",
    ]
    # The order is ruff's (RUF022: constants, classes, functions); each name once, and
    # each one in the lazy-import table.
    assert len(set(leadengine.__all__)) == len(leadengine.__all__)
    assert set(leadengine.__all__) == {*leadengine._EXPORTS, "__version__"}
    for name in leadengine.__all__:
        member = getattr(leadengine, name)
        owner = getattr(member, "__module__", "leadengine")
        assert owner.startswith("leadengine"), (name, owner)
    assert sorted(dir(leadengine)) == sorted(leadengine.__all__)


def test_every_error_class_is_exported() -> None:
    from leadengine import errors

    classes = {name for name, value in vars(errors).items()
               if inspect.isclass(value) and issubclass(value, Exception)
               and value.__module__ == errors.__name__}
    assert classes <= set(leadengine.__all__)


def test_unknown_attribute() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = leadengine.nope  # type: ignore[attr-defined]


def test_importing_the_package_imports_nothing_heavy() -> None:
    code = ("import sys, json, leadengine\n"
            "print(json.dumps(sorted(m for m, module in sys.modules.items() if module and ("
            "m.split('.')[0] in ('numpy', 'httpx', 'pydantic', 'yaml') or "
            "m.startswith('leadengine.')))))")
    assert printed_json(code) == []


def test_a_batch_s_start_up_imports_nothing_it_does_not_run(tmp_path: Path) -> None:
    """A batch imports the whole pipeline before it forks its shards; not httpx's own
    command-line client (rich and pygments: 50 ms) nor, on SQLite, the PostgreSQL
    dialect (45 ms, at a shard's first claim)."""
    db = tmp_path / "claims.db"
    code = ("import sys, json, leadengine.cli, leadengine.store, leadengine.batch.preload\n"
            "import httpx\n"
            f"store = leadengine.store.Store({str(db)!r})\n"
            "key = store.open_run('urls.txt', 'kb1', 'heuristic', 'rules')\n"
            "assert store.claim_urls(key, ['https://a.example/'])\n"
            "print(json.dumps([callable(httpx.main), sorted(m for m in sys.modules if "
            "m.split('.')[0] in ('rich', 'pygments') or "
            "m.startswith('sqlalchemy.dialects.postgresql'))]))")
    assert printed_json(code) == [True, []]


def test_api_and_engine_default_methods_are_both_documented() -> None:
    """``KnowledgeBase.retrieve`` defaults to the seed's ``keyword`` (DESIGN.md documents
    that call); the engine defaults to ``hybrid``. They differ on purpose, and say so."""
    from leadengine import KnowledgeBase, Settings
    from leadengine.retrieval.index import RetrievalIndex

    api = inspect.signature(KnowledgeBase.retrieve).parameters["method"].default
    index = inspect.signature(RetrievalIndex.retrieve).parameters["method"].default
    assert (api, index, Settings().retrieval_method) == ("keyword", "keyword", "hybrid")
    for doc in (KnowledgeBase.retrieve.__doc__, RetrievalIndex.retrieve.__doc__):
        assert doc is not None and "keyword" in doc and "retrieval_method" in doc
    reference = (REPO / "docs" / "rag-api.md").read_text(encoding="utf-8")
    assert "Settings.retrieval_method" in reference and 'method="keyword"' in reference
