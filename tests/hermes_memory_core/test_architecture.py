"""The rules of the house, checked on the source: what may import what, no import circle anywhere, one memory-block
renderer, and tests that mirror the packages.

Layers, top to bottom (a module imports its own layer or lower ones, never a higher one)::

    facade       provider (with administration), cli, the package's __init__
    rooms        short_term, lifecycle, retrieval, portability, rendering
    engine       engine
    services     storage, embedding, trust
    base         text, types, errors, config, validation, llm, tokens, version, async_twins

Every import counts: module level, inside functions, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hermes_memory_core

ROOT = Path(hermes_memory_core.__file__).parent
PACKAGE = "hermes_memory_core"
LAYERS = {
    "facade": 5, "provider": 5, "administration": 5, "cli": 5,
    "short_term": 4, "lifecycle": 4, "retrieval": 4, "portability": 4, "rendering": 4,
    "engine": 3,
    "storage": 2, "embedding": 2, "trust": 2,
    "text": 1, "types": 1, "errors": 1, "config": 1, "validation": 1, "llm": 1, "tokens": 1, "version": 1,
    "async_twins": 1,
}
ADAPTERS = ("langchain_hermes_memory", "llama_index_hermes_memory", "hermes_memory_agents")


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(path: Path, name: str) -> set[str]:
    """Every core module ``name`` imports, resolved to a module (``from a import b`` is ``a.b`` if that is one)."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else base)
    return {m for m in found if m.split(".")[0] == PACKAGE and m in MODULES and m != name}


GRAPH = {name: _imports(path, name) for name, path in MODULES.items()}


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS["facade"] if len(parts) == 1 else LAYERS[parts[1]]


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        assert _layer(module) > 0, module


@pytest.mark.parametrize("module", sorted(MODULES))
def test_nothing_points_up(module: str) -> None:
    upward = [dep for dep in GRAPH[module] if _layer(dep) > _layer(module)]
    assert upward == [], f"{module} imports a higher layer: {upward}"


def test_nothing_below_the_facade_imports_it() -> None:
    users = sorted(m for m, deps in GRAPH.items() if m != PACKAGE and ({f"{PACKAGE}.provider", PACKAGE} & deps))
    assert users and all(u == f"{PACKAGE}.cli" or u.startswith(f"{PACKAGE}.cli.") for u in users), users


def test_no_import_circle() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    assert cycles == []


def test_modules_stay_small() -> None:
    """Every module of the core and of the adapters stays under 600 lines."""
    folders = [ROOT, *(ROOT.parent / adapter for adapter in ADAPTERS)]
    long = {
        str(p.relative_to(ROOT.parent)): n
        for folder in folders
        for p in folder.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 600
    }
    assert long == {}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapters_use_only_public_names(adapter: str) -> None:
    folder = ROOT.parent / adapter
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
                assert node.module == PACKAGE, f"{path.name} imports {node.module}"
                assert all(a.name in hermes_memory_core.__all__ for a in node.names), path.name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith(PACKAGE + ".") for a in node.names), path.name


def test_short_term_owns_its_ring() -> None:
    """The ring and its compaction live in ``short_term``, which asks no other room: the lifecycle hands it what
    becomes of turns leaving the ring."""
    room = f"{PACKAGE}.short_term"
    assert f"{room}.compaction" in MODULES
    others = {f"{PACKAGE}.{r}" for r, layer in LAYERS.items() if layer == LAYERS["short_term"] and r != "short_term"}
    reach = sorted(d for m, deps in GRAPH.items() if m.startswith(room) for d in deps
                   if any(d == o or d.startswith(o + ".") for o in others))
    assert reach == []


def test_one_memory_block_renderer() -> None:
    """Every memory block is rendered by ``hermes_memory_core/rendering.py`` (escaping, read-time guard, dates,
    tier labels): no other module of the core or the adapters writes the block's markers or defines its own."""
    renderer = ROOT / "rendering.py"
    offenders = []
    for folder in [ROOT, *(ROOT.parent / adapter for adapter in ADAPTERS)]:
        for path in folder.rglob("*.py"):
            if path == renderer:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and "hermes_memory>" in node.value:
                    offenders.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} writes a block marker")
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, ast.AnnAssign) else []
                offenders += [f"{path.relative_to(ROOT.parent)}:{node.lineno} defines {t.id}" for t in targets
                              if isinstance(t, ast.Name) and t.id in ("MEMORY_BLOCK_START", "MEMORY_BLOCK_END")]
    assert offenders == []
    assert "hermes_memory>" in renderer.read_text(encoding="utf-8")


#: The tests of ``hermes_memory_core/x/y.py`` live in ``tests/hermes_memory_core/x/test_y.py``; crash, concurrency
#: and fault tests in ``faults/``. At the top level: the tests of the top-level modules (``test_<module>.py`` or
#: ``test_<module>_<topic>.py``) and these, which look at the whole package.
TESTS = Path(__file__).resolve().parent
WHOLE_PACKAGE_TESTS = {"test_architecture.py", "test_imports.py", "test_readme_knowledge.py"}


def test_tests_mirror_the_packages() -> None:
    folders = sorted(p.relative_to(TESTS) for p in TESTS.rglob("*") if p.is_dir() and p.name != "__pycache__")
    stray = [str(f) for f in folders if str(f) != "faults" and not (ROOT / f / "__init__.py").is_file()]
    assert stray == [], f"test folders that name no package of hermes_memory_core: {stray}"
    top_modules = {p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"}
    loose = [p.name for p in TESTS.glob("test_*.py") if p.name not in WHOLE_PACKAGE_TESTS
             and not any(p.stem == f"test_{m}" or p.stem.startswith(f"test_{m}_") for m in top_modules)]
    assert loose == [], f"top-level tests that belong in a package folder: {loose}"
