"""A second process opening the same embedded data directory gets a clear, typed error."""

import subprocess
import sys
from pathlib import Path

from hermes_memory_core import MemoryConfig, MemoryProvider

CHILD = """
import sys
from hermes_memory_core import MemoryConfig, MemoryProvider, StoreLockedError
try:
    MemoryProvider(MemoryConfig(data_dir=sys.argv[1], embedding_model="multilingual-e5-small"))
except StoreLockedError as exc:
    print("LOCKED:", exc)
    sys.exit(3)
sys.exit(0)
"""


def test_second_process_gets_store_locked(tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    import os

    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d"), embedder=real_embedder) as mem:
        mem.add("held", user_id="u")
        res = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "d")], capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 3, res.stderr
        assert f"process {os.getpid()}" in res.stdout and "server mode" in res.stdout
    # released on close: a new process may open it now
    res = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "d")], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_dimension_mismatch_between_model_and_config(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from hermes_memory_core import DimensionMismatchError

    with pytest.raises(DimensionMismatchError, match=r"384.*512|512.*384"):
        MemoryProvider(MemoryConfig(data_dir=tmp_path / "x", vector_dim=512), embedder=embedder)
