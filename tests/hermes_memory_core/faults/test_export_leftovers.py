"""No leftovers: the partial folder of an export killed mid-way (it holds the user's rows) is removed
by the next export, the next open, or ``purge_user``, which reports it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.portability import verify_bundle
from hermes_memory_core.portability.leftovers import PARTIALS_META
from tests.conftest import ADMIN, make_config
from tests.fakes import HashingEmbedder

ROOT = Path(__file__).resolve().parents[3]

#: Writes a store, then exports it and is SIGKILLed once the bundle's rows are written, before its vectors.
KILLED_EXPORT = """
import os, signal, sys
from hermes_memory_core import MemoryProvider
from hermes_memory_core.portability import export as export_module
from tests.conftest import ADMIN, make_config
from tests.fakes import HashingEmbedder
from pathlib import Path

def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

mem = MemoryProvider(make_config(Path(sys.argv[1])), embedder=HashingEmbedder(), caller=ADMIN)
mem.add("alice's secret: the vault code is 4242", user_id="alice")
export_module._write_vectors = killed
mem.export(sys.argv[2], user_id="alice")
"""


def _killed_export(tmp_path: Path) -> Path:
    """Run an export that is killed mid-way; returns the partial folder it left (with the user's rows)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-c", KILLED_EXPORT, str(tmp_path / "store"), str(tmp_path / "out" / "b1")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    partial = [p for p in (tmp_path / "out").iterdir() if ".partial-" in p.name]
    assert len(partial) == 1
    with sqlite3.connect(partial[0] / "metadata.sqlite") as conn:  # what the issue found: plaintext rows
        assert conn.execute("SELECT count(*) FROM memory_entries").fetchone()[0] == 1
    return partial[0]


def test_the_next_open_removes_a_killed_exports_folder(tmp_path: Path) -> None:
    partial = _killed_export(tmp_path)
    with MemoryProvider(make_config(tmp_path / "store"), embedder=HashingEmbedder(), caller=ADMIN) as mem:
        assert not partial.exists()
        assert mem.engine.metadata.get_meta(PARTIALS_META) == "[]"


def test_purge_user_removes_and_reports_a_killed_exports_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    partial = _killed_export(tmp_path)
    from hermes_memory_core import provider

    monkeypatch.setattr(provider, "finish_erasures", lambda engine: 0)  # not the open's clean-up: purge's own
    with MemoryProvider(make_config(tmp_path / "store"), embedder=HashingEmbedder(), caller=ADMIN) as mem:
        assert partial.exists()
        report = mem.purge_user("alice")
        assert report.exports_removed == (str(partial),) and report.as_dict()["exports_removed"] == [str(partial)]
    assert not partial.exists()


def test_the_next_export_removes_it_and_a_bundle_carries_no_record(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    partial = _killed_export(tmp_path)
    from hermes_memory_core import provider

    monkeypatch.setattr(provider, "finish_erasures", lambda engine: 0)  # not the open's clean-up: export's own
    with MemoryProvider(make_config(tmp_path / "store"), embedder=HashingEmbedder(), caller=ADMIN) as mem:
        assert partial.exists()
        mem.export(tmp_path / "out" / "b2")
        assert not partial.exists() and mem.engine.metadata.get_meta(PARTIALS_META) == "[]"
    verify_bundle(tmp_path / "out" / "b2", HashingEmbedder().dim)
    with sqlite3.connect(tmp_path / "out" / "b2" / "metadata.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM memory_meta WHERE key = ?", (PARTIALS_META,)).fetchone()[0] == 0


def test_a_live_export_of_this_process_is_not_removed(mem: MemoryProvider, tmp_path: Path) -> None:
    from hermes_memory_core.portability.leftovers import note_partial, remove_partial_exports

    live = tmp_path / ".b.partial-live"
    live.mkdir()
    note_partial(mem.engine, live)
    assert remove_partial_exports(mem.engine) == [] and live.exists()


@pytest.mark.parametrize("name", ["not-a-partial", "link.partial-x"])
def test_only_partial_folders_are_ever_removed(mem: MemoryProvider, tmp_path: Path, name: str) -> None:
    import json

    folder = tmp_path / name
    if name.startswith("link"):
        (tmp_path / "real").mkdir()
        folder.symlink_to(tmp_path / "real")
    else:
        folder.mkdir()
    record = [{"path": str(folder), "pid": 2**22 + 7, "host": os.uname().nodename}]
    mem.engine.metadata.set_meta(PARTIALS_META, json.dumps(record))
    from hermes_memory_core.portability.leftovers import remove_partial_exports

    assert remove_partial_exports(mem.engine) == [] and folder.exists()
