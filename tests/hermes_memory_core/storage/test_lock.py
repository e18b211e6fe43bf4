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


def test_the_lock_error_names_server_mode_on_both_backends(tmp_path: Path) -> None:
    """Another process holds the folder: the one line names both server-mode settings and where they are explained."""
    import json

    import pytest

    from hermes_memory_core import StoreLockedError
    from hermes_memory_core.storage.lock import DataDirLock

    lock_file = tmp_path / "d" / "hermes.lock"
    lock_file.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, json, sys, time; fh = open(sys.argv[1], 'a+'); fcntl.flock(fh, fcntl.LOCK_EX); "
        "fh.write(json.dumps({'pid': 4242, 'host': 'elsewhere', 'since': 0})); fh.flush(); print('held', flush=True); "
        "time.sleep(60)"), str(lock_file)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreLockedError) as exc:
            DataDirLock(tmp_path / "d").acquire()
    finally:
        holder.kill()
        holder.wait()
    text = str(exc.value)
    assert "process 4242 on elsewhere" in text and "this process" not in text and "\n" not in text
    assert "metadata_url='postgresql://" in text and "vector_backend='qdrant'" in text and "qdrant_url=" in text
    assert "docs/configuration.md#server-mode-many-processes-one-memory" in text
    assert json.loads(lock_file.read_text())["pid"] == 4242  # the holder's record is left as it was


def test_a_second_provider_in_the_same_process_is_told_so(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    import os

    import pytest

    from hermes_memory_core import StoreLockedError

    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d"), embedder=embedder) as mem:
        mem.add("held", user_id="u")
        with pytest.raises(StoreLockedError) as exc:
            MemoryProvider(MemoryConfig(data_dir=tmp_path / "d"), embedder=embedder)
        assert [h.content for h in mem.search("held", user_id="u")] == ["held"]  # the first store is untouched
    text = str(exc.value)
    assert f"already open in this process (process {os.getpid()}" in text and "another MemoryProvider" in text
