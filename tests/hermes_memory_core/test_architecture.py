"""The rules of the house, checked on the source: what may import what, no import circle anywhere, one memory-block
renderer, and tests that mirror the packages.

Layers, top to bottom (a module imports its own layer or lower ones, never a higher one)::

    facade       provider (with administration), cli, the package's __init__
    rooms        short_term, lifecycle, retrieval, portability, rendering, context
    engine       engine (a package: the components and the MemoryEngine that wires them)
    services     storage, embedding, trust
    base         text, types, errors, config, validation, llm, tokens, version, async_twins, _startup,
                 busy, open_providers, lru

Every import counts: module level, inside functions, and under ``TYPE_CHECKING``.

Above the engine, rooms are handed the engine's components they need (``engine/faces.py``), never
``MemoryEngine`` itself, and ask them instead of reaching into the shared parts; the few reach-ins left say why in a
``# reach-in:`` comment. No class but the facade has more than 25 public methods.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import hermes_memory_core

ROOT = Path(hermes_memory_core.__file__).parent
PACKAGE = "hermes_memory_core"
LAYERS = {
    "facade": 5, "provider": 5, "administration": 5, "cli": 5,
    "short_term": 4, "lifecycle": 4, "retrieval": 4, "portability": 4, "rendering": 4, "context": 4, "answering": 4,
    "engine": 3,
    "storage": 2, "embedding": 2, "trust": 2,
    "text": 1, "types": 1, "errors": 1, "config": 1, "validation": 1, "llm": 1, "tokens": 1, "version": 1,
    "async_twins": 1, "_startup": 1, "busy": 1, "open_providers": 1, "lru": 1,
}
ADAPTERS = ("langchain_hermes_memory", "llama_index_hermes_memory", "hermes_memory_agents", "hermes_memory_console")


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


#: The engine's storage parts; outside the engine layer and ``storage/`` they are reached only with a reason.
ENGINE_PARTS = frozenset({"metadata", "vectors", "hot", "past_vectors"})
MAX_REACH_INS = 15


def _is_engine(node: ast.expr) -> bool:
    """``engine``, ``eng``, ``self.engine``, ``mem.engine``, ``self._engine``, the shared ``parts`` (``engine.parts``,
    ``self._parts``) and the like."""
    if isinstance(node, ast.Name):
        return node.id in {"engine", "eng", "_engine", "parts", "_parts"} or node.id.endswith("_engine")
    return isinstance(node, ast.Attribute) and node.attr in {"engine", "_engine", "parts", "_parts"}


def _reach_ins() -> list[tuple[str, int, str]]:
    """``(module, line, source line)`` of every access to an engine part above the engine layer."""
    found = []
    for name, path in MODULES.items():
        if _layer(name) <= LAYERS["engine"]:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        found.extend((name, node.lineno, lines[node.lineno - 1]) for node in ast.walk(ast.parse("\n".join(lines)))
                     if isinstance(node, ast.Attribute) and node.attr in ENGINE_PARTS and _is_engine(node.value))
    return found


def test_rooms_ask_the_engine() -> None:
    """At most a handful of reach-ins into the engine's parts outside the engine and storage, each with a reason
    (``# reach-in: why`` on its line or the line above)."""
    found = _reach_ins()
    assert len(found) <= MAX_REACH_INS, [f"{m}:{n}" for m, n, _ in found]
    unexplained = []
    for module, lineno, line in found:
        above = MODULES[module].read_text(encoding="utf-8").splitlines()[lineno - 2] if lineno > 1 else ""
        if "# reach-in: " not in line and not above.strip().startswith("# reach-in: "):
            unexplained.append(f"{module}:{lineno}")
    assert unexplained == []


def test_the_reach_in_check_sees_every_spelling() -> None:
    """The check finds the spellings a room would use (so a count of zero means none, not a blind check)."""
    code = ("engine.metadata.get(x)\nself.engine.vectors.count()\nmem.engine.hot\neng.past_vectors\nrec.metadata\n"
            "engine.parts.metadata\nself._parts.vectors")
    hits = [n for n in ast.walk(ast.parse(code))
            if isinstance(n, ast.Attribute) and n.attr in ENGINE_PARTS and _is_engine(n.value)]
    assert len(hits) == 6


MAX_PROTOCOL_METHODS = 20


def _protocols() -> dict[str, int]:
    """``module.Class`` → how many methods it declares itself, for every protocol class of the core."""
    found = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                (isinstance(b, ast.Name) and b.id == "Protocol") or (isinstance(b, ast.Attribute) and b.attr == "Protocol")
                for b in node.bases
            ):
                found[f"{name}.{node.name}"] = sum(isinstance(s, ast.FunctionDef) for s in node.body)
    return found


def test_every_protocol_is_a_contract_a_reader_can_hold() -> None:
    """No protocol declares more than 20 methods; the metadata store declares only the roles it holds."""
    from hermes_memory_core.storage.metadata import ROLE_ATTRIBUTES

    found = _protocols()
    assert f"{PACKAGE}.storage.metadata.MemoryRecords" in found
    assert {k: n for k, n in found.items() if n > MAX_PROTOCOL_METHODS} == {}
    assert found[f"{PACKAGE}.storage.metadata.MetadataStore"] == len(ROLE_ATTRIBUTES)


def _role_methods(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if callable(v) and not n.startswith("_")}


def test_the_metadata_store_is_its_roles() -> None:
    """Every method of a metadata store comes from exactly one role; the store is the ``Connection`` role and holds
    every other one as the attribute ``ROLE_ATTRIBUTES`` names (a property of the protocol, typed as that role)."""
    from typing import get_type_hints

    from hermes_memory_core.storage.metadata import ROLE_ATTRIBUTES, ROLES, Connection, MetadataStore

    owners: dict[str, list[str]] = {}
    for role in ROLES:
        for method in _role_methods(role):
            owners.setdefault(method, []).append(role.__name__)
    assert {m: o for m, o in owners.items() if len(o) > 1} == {}
    assert all(0 < len(_role_methods(role)) <= MAX_PROTOCOL_METHODS for role in ROLES)
    assert set(ROLES) == {Connection, *ROLE_ATTRIBUTES}
    assert [b for b in MetadataStore.__bases__ if b.__module__ == MetadataStore.__module__] == [Connection]
    for role, attribute in ROLE_ATTRIBUTES.items():
        held = vars(MetadataStore)[attribute]
        assert isinstance(held, property) and get_type_hints(held.fget)["return"] is role, attribute


#: The most public methods of a role object of a SQL store (the roles' protocols hold at most 20 each).
MAX_ROLE_OBJECT_METHODS = 20


def test_a_sql_store_holds_one_object_per_role_and_inherits_none(tmp_path: Path) -> None:
    """A SQL store answers only its ``Connection`` methods itself; each other role is an object of its own (at most
    20 public methods, no base class of ours: no class cut into inherited halves), with every method of its role,
    and no two roles share an object."""
    from hermes_memory_core.storage import SQLiteMetadataStore
    from hermes_memory_core.storage.metadata import ROLE_ATTRIBUTES, Connection

    store = SQLiteMetadataStore(tmp_path / "m.db")  # built, not opened: the roles are there from the start
    sizes = _class_sizes()
    objects = []
    for role, attribute in ROLE_ATTRIBUTES.items():
        held = getattr(store, attribute)
        objects.append(held)
        assert _role_methods(role) <= set(dir(held)), attribute
        assert not any(hasattr(store, method) for method in _role_methods(role)), attribute  # only through the role
        assert type(held).__bases__ == (object,), type(held)
        assert sizes[f"{type(held).__module__}.{type(held).__qualname__}"] <= MAX_ROLE_OBJECT_METHODS
    assert len({id(o) for o in objects}) == len(objects)
    assert _role_methods(Connection) <= set(dir(store))


#: The most classes of our own in a SQL metadata store's chain: the dialect's store and the shared store (roles are
#: held, not inherited). What differs by dialect is held, not inherited.
MAX_STORE_CHAIN = 2


def test_sql_stores_hold_their_dialect_parts() -> None:
    """A SQL metadata store is the shared rows over the two parts its dialect hands it (a database and a keyword
    index, in ``storage/sql/parts.py``), held as attributes: its class chain stays short."""
    from hermes_memory_core.storage import PostgresMetadataStore, SQLiteMetadataStore, SQLMetadataStore
    from hermes_memory_core.storage.sql import parts

    for store in (SQLiteMetadataStore, PostgresMetadataStore):
        chain = [c.__qualname__ for c in store.__mro__ if c.__module__.startswith(PACKAGE + ".")]
        assert len(chain) <= MAX_STORE_CHAIN, chain
        assert chain[:2] == [store.__qualname__, SQLMetadataStore.__qualname__]
    held = inspect.signature(SQLMetadataStore.__init__).parameters
    assert {name: str(p.annotation) for name, p in held.items() if name != "self"} == {
        "db": "SQLDatabase", "postings": "KeywordPostings"}
    assert {"SQLDatabase", "KeywordPostings"} <= set(parts.__all__)


def test_short_term_owns_its_ring() -> None:
    """The ring and its compaction live in ``short_term``, which asks no other room: the lifecycle hands it what
    becomes of turns leaving the ring."""
    room = f"{PACKAGE}.short_term"
    assert f"{room}.compaction" in MODULES
    others = {f"{PACKAGE}.{r}" for r, layer in LAYERS.items() if layer == LAYERS["short_term"] and r != "short_term"}
    reach = sorted(d for m, deps in GRAPH.items() if m.startswith(room) for d in deps
                   if any(d == o or d.startswith(o + ".") for o in others))
    assert reach == []


#: The most public methods (properties included) of any class but the facade.
MAX_PUBLIC_METHODS = 25
#: The modules outside the engine that may name ``MemoryEngine``: the facade that opens it, the administration
#: half of the facade, and the restore that opens the restored store.
ENGINE_NAMERS = {f"{PACKAGE}.provider", f"{PACKAGE}.administration", f"{PACKAGE}.portability.restore"}


def _public_methods(cls: ast.ClassDef) -> int:
    return sum(isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and not s.name.startswith("_") for s in cls.body)


def _class_sizes() -> dict[str, int]:
    """``module.Class`` → public methods, counting those of the core's own base classes too (a class cut into
    inherited halves counts whole)."""
    classes = {node.name: (name, node) for name, path in MODULES.items()
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.ClassDef)}

    def size(node: ast.ClassDef, seen: frozenset[str] = frozenset()) -> int:
        bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in classes and b.id not in seen]
        return _public_methods(node) + sum(size(classes[b][1], seen | {node.name}) for b in bases)

    return {f"{module}.{cls}": size(node) for cls, (module, node) in classes.items()}


#: Classes allowed past :data:`MAX_PUBLIC_METHODS`: the facade only (the metadata store is one object per role,
#: ``test_a_sql_store_holds_one_object_per_role_and_inherits_none``).
SWITCHBOARDS_ALLOWED = {f"{PACKAGE}.provider.MemoryProvider"}


def test_no_class_but_the_facade_is_a_switchboard() -> None:
    """No class of the core but ``MemoryProvider`` has more than 25 public methods, its own and its bases' (a class cut into inherited halves counts whole)."""
    sizes = _class_sizes()
    assert sizes[f"{PACKAGE}.provider.MemoryProvider"] > MAX_PUBLIC_METHODS  # the check counts what it should
    big = {c: n for c, n in sizes.items() if n > MAX_PUBLIC_METHODS and c not in SWITCHBOARDS_ALLOWED}
    assert big == {}


#: The most public methods of an engine component (the issue's "about 15").
MAX_COMPONENT_METHODS = 15


def test_the_engine_is_components() -> None:
    """The engine is a package of components, each with a small face (at most 15 public methods), and the engine
    that wires them adds no operations of its own beyond opening and closing."""
    from hermes_memory_core import engine

    sizes = _class_sizes()
    components = ["parts.StoreParts", "lookups.Lookups", "vector_reads.VectorReads", "reads.Reads", "writes.Writes",
                  "erasure.Eraser", "sealing.Sealing", "upkeep.Upkeep", "access.AccessBuffer", "access.Languages"]
    for component in components:
        assert sizes[f"{PACKAGE}.engine.{component}"] <= MAX_COMPONENT_METHODS, component
    assert sizes[f"{PACKAGE}.engine.MemoryEngine"] <= 12
    assert engine.MemoryEngine.__bases__ == (object,)  # held, not inherited


def test_rooms_do_not_name_the_engine() -> None:
    """At most three modules outside the engine name ``MemoryEngine`` (the facade, its administration half and the
    restore that opens a store): every room is typed against the components it is handed."""
    naming = set()
    for name, path in MODULES.items():
        if name == f"{PACKAGE}.engine" or name.startswith(f"{PACKAGE}.engine."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Name) and node.id == "MemoryEngine") or \
                    (isinstance(node, ast.alias) and node.name == "MemoryEngine") or \
                    (isinstance(node, ast.Attribute) and node.attr == "MemoryEngine"):
                naming.add(name)
    assert naming <= ENGINE_NAMERS, sorted(naming - ENGINE_NAMERS)


def _positional_jobs(source: str) -> list[int]:
    """Lines that build or read a job as a tuple: a subscript of ``job``, or a tuple opening with a string literal
    handed to ``submit``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "job":
            found.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "submit":
            found += [a.lineno for a in node.args if isinstance(a, ast.Tuple) and a.elts
                      and isinstance(a.elts[0], ast.Constant) and isinstance(a.elts[0].value, str)]
    return found


def test_background_jobs_are_typed_values() -> None:
    """No job of the lifecycle is a tuple of a string kind read by position: each kind is a frozen dataclass
    (``lifecycle/background.py``), dispatched by its type; the short-term room hears of nothing but
    ``SessionEvents``."""
    from hermes_memory_core.lifecycle import background
    from hermes_memory_core.short_term.session import Sessions

    found = {f"{path.name}:{n}" for path in (ROOT / "lifecycle").rglob("*.py")
             for n in _positional_jobs(path.read_text(encoding="utf-8"))}
    assert found == set()
    for kind in background.Job.__args__:  # type: ignore[attr-defined]
        assert kind.__dataclass_params__.frozen, kind
    assert list(inspect.signature(Sessions.__init__).parameters) == ["self", "parts", "events"]


def test_the_job_check_sees_tuples() -> None:
    assert _positional_jobs('w.submit(("end", u, s))\nif job[0] == "x": pass') == [1, 2]


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
WHOLE_PACKAGE_TESTS = {"test_architecture.py", "test_imports.py", "test_package_face.py", "test_readme_knowledge.py"}


def test_tests_mirror_the_packages() -> None:
    folders = sorted(p.relative_to(TESTS) for p in TESTS.rglob("*") if p.is_dir() and p.name != "__pycache__")
    stray = [str(f) for f in folders if str(f) != "faults" and not (ROOT / f / "__init__.py").is_file()]
    assert stray == [], f"test folders that name no package of hermes_memory_core: {stray}"
    top_modules = {p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"}
    loose = [p.name for p in TESTS.glob("test_*.py") if p.name not in WHOLE_PACKAGE_TESTS
             and not any(p.stem == f"test_{m}" or p.stem.startswith(f"test_{m}_") for m in top_modules)]
    assert loose == [], f"top-level tests that belong in a package folder: {loose}"
