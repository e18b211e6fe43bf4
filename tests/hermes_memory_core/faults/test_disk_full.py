"""A full disk is an error, not a crash: on a small tmpfs, opening, creating and writing a store with
the disk (nearly) full raises StorageFullError naming the folder; nothing acknowledged is lost, and once space is
freed the same store opens and takes writes. Each scenario runs in a child process (a bus error would kill it, and
the test reads its exit status). Each runs on both vector layouts: ``small`` (a new store's vectors in one SQLite
file) and ``shard`` (the vector engine's preallocated, memory-mapped files from the first point: the bus-error
risk). Needs root (to mount a tmpfs); skipped elsewhere."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

CHILD = """
import json, os, sys
from pathlib import Path
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.errors import HermesMemoryError
from tests.fakes import HashingEmbedder

data, action = Path(sys.argv[1]), sys.argv[2]
out = {"ids": [], "error": None}
try:
    cfg = MemoryConfig(data_dir=data, small_store_max_points=int(os.environ["SMALL_MAX"]))
    with MemoryProvider(cfg, embedder=HashingEmbedder(), caller=Caller.admin("t")) as mem:
        out["opened"] = True
        if action == "fill":
            for i in range(100000):
                ids = mem.add_many([{"content": f"memory {i}-{j} " + "padding " * 200, "user_id": "u"}
                                    for j in range(16)])
                out["ids"] += ids
                print(json.dumps({"ack": ids}), flush=True)
        elif action == "add":
            out["ids"] = mem.add_many([{"content": "written after the disk was freed", "user_id": "u"}])
        elif action == "check":
            out["count"] = mem.stats().total_active
            out["present"] = [i for i in json.loads(Path(sys.argv[3]).read_text()) if mem.get(i).id == i]
except HermesMemoryError as exc:
    out["error"] = [type(exc).__name__, str(exc)]
print(json.dumps(out), flush=True)
"""


@contextlib.contextmanager
def small_disk(tmp_path: Path, kind: str, mib: int) -> Iterator[Path]:
    """A small filesystem mounted for the test: ``tmpfs``, or ``ext4`` on a loop device (unmounted afterwards)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small filesystem")
    mount = tmp_path / f"{kind}-{mib}"
    mount.mkdir()
    if kind == "tmpfs":
        cmd = ["mount", "-t", "tmpfs", "-o", f"size={mib}m", "tmpfs", str(mount)]
    else:
        image = tmp_path / f"{kind}-{mib}.img"
        with image.open("wb") as fh:
            fh.truncate(mib * 2**20)
        # no blocks reserved for root: the tests run as root, and "full" must mean full for them too
        made = subprocess.run(["mkfs.ext4", "-q", "-F", "-m", "0", str(image)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"cannot make an ext4 image here: {made.stderr.strip()}")
        cmd = ["mount", "-o", "loop", str(image), str(mount)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a {kind} here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


#: Points a new store keeps in its small vector file, per layout.
LAYOUTS = {"small": "10000", "shard": "0"}


def _run(data: Path, action: str, ids: object = None, layout: str = "shard") -> tuple[int, dict[str, object], list[str]]:
    extra = []
    if ids is not None:
        listed = data.parent.parent / f"ids-{uuid.uuid4().hex[:6]}.json"  # beside the small disk, not on it
        listed.write_text(json.dumps(ids))
        extra.append(str(listed))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
           "SMALL_MAX": LAYOUTS[layout]}
    done = subprocess.run([sys.executable, "-c", CHILD, str(data), action, *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    lines = done.stdout.splitlines()
    acked = [i for line in lines if line.startswith('{"ack"') for i in json.loads(line)["ack"]]
    result = json.loads(lines[-1]) if lines and lines[-1].startswith('{"ids"') else {}
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # 135 was the bus error
    return done.returncode, result, acked


def _fill(mount: Path, leave: int) -> Path:
    """A file taking all but ``leave`` bytes of the mount (``leave=0``: every byte it can get, written until the
    filesystem says it is full: ext4 keeps some blocks for its own bookkeeping)."""
    filler = mount / f"filler-{uuid.uuid4().hex[:6]}"
    st = os.statvfs(mount)
    size = max(0, st.f_bavail * st.f_frsize - max(leave, 2**20 if leave == 0 else 0))
    with filler.open("wb") as fh:
        fh.truncate(0)
        os.posix_fallocate(fh.fileno(), 0, size) if size else None
    if leave == 0:
        with filler.open("ab", buffering=0) as fh, contextlib.suppress(OSError):
            while True:
                fh.write(b"\0" * 4096)
    return filler


@pytest.mark.parametrize(("kind", "mib", "layout"), [("tmpfs", 40, "shard"), ("ext4", 64, "shard"),
                                                     ("tmpfs", 16, "small")])
def test_writing_until_the_disk_is_full_is_an_error_and_loses_nothing(tmp_path: Path, kind: str, mib: int,
                                                                      layout: str) -> None:
    with small_disk(tmp_path, kind, mib) as disk:
        data = disk / "store"
        _rc, result, acked = _run(data, "fill", layout=layout)
        error = result["error"]
        assert error is not None and error[0] == "StorageFullError" and str(data) in error[1], result  # type: ignore[index]
        assert acked and result["ids"] == acked
        _rc, full, _ = _run(data, "check", acked, layout)  # reopened on the full disk: it reads, or a typed error
        assert full["present"] == acked if full["error"] is None else full["error"][0] == "StorageFullError"  # type: ignore[index]
        shutil.copytree(data, tmp_path / "copy", symlinks=True)  # the store, on a disk with room
    _rc, moved, _ = _run(tmp_path / "copy", "check", acked, layout)
    assert moved["error"] is None and moved["present"] == acked and moved["count"] == len(acked)


@pytest.mark.parametrize(("kind", "mib"), [("tmpfs", 256), ("ext4", 64)])
@pytest.mark.parametrize(("layout", "leave"), [("shard", 64 * 1024), ("shard", 4 * 2**20), ("small", 0),
                                               ("small", 128 * 1024)],
                         ids=["shard-64KiB", "shard-4MiB", "small-0", "small-128KiB"])
def test_a_nearly_full_disk_is_an_error_then_the_store_works_once_freed(tmp_path: Path, kind: str, mib: int,
                                                                       layout: str, leave: int) -> None:
    """The engine's shard needs 16 MiB free to write (a page it faults in on a full disk is a bus error); a small
    store writes until SQLite meets the full disk."""
    with small_disk(tmp_path, kind, mib) as disk:
        data = disk / "store"
        _rc, first, _ = _run(data, "add", layout=layout)
        assert first["error"] is None and len(first["ids"]) == 1  # type: ignore[arg-type]
        filler = _fill(disk, leave)
        _rc, full, _ = _run(data, "add", layout=layout)
        assert full["error"] is not None and full["error"][0] == "StorageFullError", full  # type: ignore[index]
        filler.unlink()
        _rc, freed, _ = _run(data, "check", first["ids"], layout)
        assert freed["error"] is None and freed["present"] == first["ids"] and freed["count"] == 1, freed
        _rc, later, _ = _run(data, "add", layout=layout)
        assert later["error"] is None and len(later["ids"]) == 1  # type: ignore[arg-type]


@pytest.mark.parametrize("leave", [128 * 1024, 140 * 1024, 150 * 1024], ids=["128KiB", "140KiB", "150KiB"])
def test_an_add_the_full_disk_refused_is_not_there_once_space_is_freed(tmp_path: Path, leave: int) -> None:
    """With a little room left, the rows fit and the vector file does not (on this tmpfs, 150 KiB): the add that
    failed must not be there once space is freed. Deleting its rows again would need room too; they roll back."""
    with small_disk(tmp_path, "tmpfs", 256) as disk:
        data = disk / "store"
        _rc, first, _ = _run(data, "add", layout="small")
        filler = _fill(disk, leave)
        _rc, full, _ = _run(data, "add", layout="small")
        filler.unlink()
        _rc, freed, _ = _run(data, "check", first["ids"], "small")
        assert freed["error"] is None and freed["present"] == first["ids"], freed
        assert freed["count"] == 1 + (full["error"] is None), (full, freed)  # stored only when acknowledged


@pytest.mark.parametrize(("kind", "mib"), [("tmpfs", 40), ("ext4", 64)])
@pytest.mark.parametrize(("layout", "leave"), [("shard", 2 * 2**20), ("small", 0), ("small", 100 * 1024),
                                               ("small", 300 * 1024)],
                         ids=["shard-2MiB", "small-0", "small-100KiB", "small-300KiB"])
def test_a_new_store_on_a_full_disk_opens_once_space_is_freed(tmp_path: Path, kind: str, mib: int, layout: str,
                                                              leave: int) -> None:
    with small_disk(tmp_path, kind, mib) as disk:
        filler = _fill(disk, leave)
        data = disk / "store"
        _rc, full, _ = _run(data, "add", layout=layout)
        assert full["error"] is not None and full["error"][0] == "StorageFullError", full  # type: ignore[index]
        filler.unlink()
        _rc, freed, _ = _run(data, "add", layout=layout)
        assert freed["error"] is None and len(freed["ids"]) == 1, freed  # type: ignore[arg-type]


def test_an_export_to_a_full_disk_is_an_error_and_leaves_nothing(tmp_path: Path, mem) -> None:  # type: ignore[no-untyped-def]
    from hermes_memory_core import StorageFullError

    mem.add_many([{"content": f"memory {i} " + "padding " * 100, "user_id": "u"} for i in range(200)])
    with small_disk(tmp_path, "tmpfs", 8) as disk:
        _fill(disk, 256 * 1024)
        with pytest.raises(StorageFullError, match=str(disk)):
            mem.export(disk / "bundle")
        assert [p.name for p in disk.iterdir() if not p.name.startswith("filler-")] == []
    assert mem.stats().total_active == 200


def test_a_read_only_filesystem_is_not_taken_for_a_full_disk(tmp_path: Path) -> None:
    from hermes_memory_core.storage.edge_store import free_bytes

    with small_disk(tmp_path, "tmpfs", 1) as disk:
        assert free_bytes(disk / "store") is not None
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        assert free_bytes(disk / "store") is None  # its own error says read-only, not "full"
