"""A full disk during ``purge_user``: the purge completes or raises ``StorageFullError`` (never a crash), and once
space is freed the next open and ``reconcile()`` finish it: no file of the store keeps a byte of the user, and the
other user's memories are all there. Runs in child processes on a small tmpfs, on both vector layouts (a bus
error would kill the child: its exit status is checked). Needs root; skipped elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hermes_memory_core.faults.test_disk_full import LAYOUTS, small_disk
from tests.hermes_memory_core.faults.test_disk_full import _fill as fill_disk

ROOT = Path(__file__).resolve().parents[3]
GONE, KEPT = "purged-user-quokka", "kept-user"
MARK = "zebraquokkamarker"

CHILD = """
import json, os, sys
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.errors import HermesMemoryError
from tests.fakes import HashingEmbedder
data, action, gone, kept, mark = sys.argv[1:6]
out = {"error": None}
try:
    cfg = MemoryConfig(data_dir=data, small_store_max_points=int(os.environ["SMALL_MAX"]))
    with MemoryProvider(cfg, embedder=HashingEmbedder(), caller=Caller.admin("t")) as mem:
        if action == "populate":
            for user in (gone, kept):
                mem.add_many([{"content": f"{mark} {user} memory {i} " + "padding " * 40, "user_id": user,
                               "tags": [mark], "session_id": "s"} for i in range(300)])
            mem.remember(f"My name is {mark}", user_id=gone)
        elif action == "purge":
            report = mem.purge_user(gone)
            out["left"] = report.left
        elif action == "finish":
            out["reconciled"] = str(mem.reconcile())
        out["gone"] = len(mem.list_memories(user_id=gone, limit=10000))
        out["kept"] = len(mem.list_memories(user_id=kept, limit=10000))
        out["gone_found"] = len(mem.search(mark, user_id=gone, top_k=50))
except HermesMemoryError as exc:
    out["error"] = [type(exc).__name__, str(exc)]
print(json.dumps(out), flush=True)
"""


def _child(data: Path, action: str, layout: str) -> dict[str, object]:
    env = {**os.environ, "SMALL_MAX": LAYOUTS[layout],
           "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-c", CHILD, str(data), action, GONE, KEPT, MARK], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # 135 would be a bus error
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("layout", ["small", "shard"])
@pytest.mark.parametrize("leave", [0, 64 * 1024], ids=["full", "64KiB"])
def test_a_purge_on_a_full_disk_finishes_once_space_is_freed(tmp_path: Path, layout: str, leave: int) -> None:
    """With no room even to record the erasure, the error says nothing was erased and to purge again; once it is
    recorded, the next open and ``reconcile()`` finish it."""
    # on tmpfs a shard opens only when every page it may fault in fits (~170 MiB): a bigger disk for it
    with small_disk(tmp_path, "tmpfs", 96 if layout == "small" else 320) as disk:
        data = disk / "store"
        made = _child(data, "populate", layout)
        assert made["error"] is None and made["gone"] == 301 and made["kept"] == 300, made
        filler = fill_disk(disk, leave)
        purged = _child(data, "purge", layout)
        error = purged["error"]
        assert error is None or error[0] == "StorageFullError", purged  # type: ignore[index]
        if error is None:
            assert purged["gone"] == 0 and purged["gone_found"] == 0 and purged["kept"] == 300, purged
        filler.unlink()
        finished = _child(data, "finish", layout)
        assert finished["error"] is None and finished["kept"] == 300, finished
        untouched = error is not None and ("nothing of the user was erased yet" in error[1]  # type: ignore[index]
                                           or "purge_user" not in error[1])  # type: ignore[index]  # not even opened
        if untouched:
            assert finished["gone"] == 301, finished  # as the error said: untouched, so purge again
            finished = _child(data, "purge", layout)
            assert finished["error"] is None, finished
        else:
            assert error is None or "the next open or reconcile() finishes it" in error[1], error  # type: ignore[index]
        assert finished["gone"] == 0 and finished["gone_found"] == 0 and finished["kept"] == 300, finished
        # the kept user's memories carry the marker too: the purged user's id (in each of their texts) may not
        # appear in any file
        holding = [str(p.relative_to(data)) for p in data.rglob("*") if p.is_file() and GONE.encode() in p.read_bytes()]
        assert holding == [], holding
