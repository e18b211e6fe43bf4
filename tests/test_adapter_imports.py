"""Importing an adapter without its framework names the extra to install, in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Runs in a child: the named top-level modules cannot be imported, then the adapter is.
CHILD = """
import importlib.abc, sys
BLOCKED = set(sys.argv[2].split(","))

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Block())
try:
    __import__(sys.argv[1])
except ModuleNotFoundError as exc:
    print(type(exc).__name__, exc.name, "|", exc)
    sys.exit(3)
print("imported")
"""


@pytest.mark.parametrize(("adapter", "blocked", "extra"), [
    ("langchain_hermes_memory", "langchain_core,langchain,langgraph", "[langchain]"),
    ("langchain_hermes_memory", "langgraph", "[langchain]"),
    ("llama_index_hermes_memory", "llama_index", "[llama-index]"),
])
def test_a_missing_framework_names_the_extra(adapter: str, blocked: str, extra: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    res = subprocess.run([sys.executable, "-c", CHILD, adapter, blocked], capture_output=True, text=True, env=env,
                         timeout=300)
    assert res.returncode == 3, res.stdout + res.stderr
    assert f'pip install "hermes-memory-layer{extra}"' in res.stdout and "\n" not in res.stdout.strip()
    assert res.stdout.split()[1].split(".")[0] in blocked.split(",")  # the missing module is still named


def test_the_adapters_import_when_their_framework_is_there() -> None:
    import langchain_hermes_memory
    import llama_index_hermes_memory

    assert langchain_hermes_memory.HermesStore and llama_index_hermes_memory.HermesMemory
