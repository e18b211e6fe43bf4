"""Crash consistency: SIGKILL a writer at random points, 24 times; reopen + reconcile loses nothing acknowledged."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_memory_core import BundleError, MemoryProvider, NotFoundError
from hermes_memory_core.portability import verify_bundle
from tests.conftest import ADMIN, TEST_KEY, make_config

WRITER = """
import sys, random
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
data, mode, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(seed)
mem = MemoryProvider(MemoryConfig(data_dir=data, encryption_key=sys.argv[4]), caller=Caller.admin("crash-test"))
def ack(*parts):
    print(" ".join(str(p) for p in parts), flush=True)
ids = [r.id for b in mem.engine.metadata.records.iter_active() for r in b]
ack("READY")
i = 0
while True:
    i += 1
    if mode == "add_many" or not ids:
        tier = rnd.choice(["long_term", "permanent", "short_term"])
        new = mem.add_many([{"content": f"crash memory {seed}-{i}-{j} about topic {rnd.random()}", "user_id": "u",
                             "memory_type": tier, "session_id": "s"} for j in range(rnd.randint(1, 40))])
        ids.extend(new)
        ack("ADD", *new)
    elif mode == "update":
        mid = rnd.choice(ids)
        version = mem.update(mid, f"updated {seed}-{i} {rnd.random()}")
        ack("UPDATE", mid, version)
    elif mode == "delete":
        mid = ids.pop(rnd.randrange(len(ids)))
        ack("DELETING", mid)  # before it commits: a kill between the commit and the ack below leaves it deleted
        mem.delete(mid, reason="crash test")
        ack("DELETE", mid)
    elif mode == "export":
        mem.export(f"{data}-bundles/b{seed}-{i}")
        ack("EXPORT", f"{data}-bundles/b{seed}-{i}")
"""

MODES = ["add_many", "update", "delete", "export"]


@pytest.mark.slow
def test_sigkill_at_random_points_loses_nothing_acknowledged(tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "store"
    (tmp_path / "store-bundles").mkdir()
    rnd = random.Random(1234)
    added: set[str] = set()
    deleted: set[str] = set()
    in_flight: list[str] = []  # deletes a kill may have cut between their commit and their ack
    versions: dict[str, int] = {}
    bundles: list[str] = []
    kills = cut_deletes = 0
    for round_no in range(24):
        mode = MODES[round_no % len(MODES)] if round_no >= 2 else "add_many"
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(data), mode, str(round_no), TEST_KEY],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # blocks until the child's store is open (however slow the machine)
        assert first.strip() == "READY", (first, proc.stderr.read() if proc.stderr else "")
        # then wait for a few acknowledged writes (not a fixed time: a loaded machine may have done none by then)
        seen = [proc.stdout.readline() for _ in range(rnd.randint(1, 4))]
        time.sleep(rnd.uniform(0.0, 0.4))  # and kill it at a random point of its next writes
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        assert proc.stderr is not None
        # read() continues from what readline() buffered (communicate() would read the pipe past it, losing lines)
        out, err = "".join(seen) + proc.stdout.read(), proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL, err[-2000:]
        kills += 1
        for line in out.splitlines():
            kind, *rest = line.split()
            if kind == "READY":
                continue
            if kind == "ADD":
                added.update(rest)
            elif kind == "UPDATE":
                versions[rest[0]] = max(versions.get(rest[0], 0), int(rest[1]))
            elif kind == "DELETING":
                in_flight.append(rest[0])
            elif kind == "DELETE":
                deleted.add(rest[0])
            elif kind == "EXPORT":
                bundles.append(rest[0])
        with MemoryProvider(make_config(data), embedder=real_embedder, caller=ADMIN) as mem:
            mem.reconcile()
            assert mem.reconcile().as_dict() == {"metadata_orphans_reindexed": 0, "vector_orphans_removed": 0,
                                                 "keyword_rows_repaired": 0, "expired_removed": 0,
                                                 "erasures_finished": 0, "erasures_left": 0}
            assert mem.engine.metadata.integrity_check() == "ok"
            points = {p.id for b in mem.engine.vectors.iter_points(with_vectors=False) for p in b}
            for mid in [m for m in in_flight if m not in deleted]:  # unacknowledged: either outcome, never half
                try:
                    assert mem.get(mid).id == mid and mid in points
                except NotFoundError:
                    assert mid not in points
                    deleted.add(mid)
                    cut_deletes += 1
            in_flight.clear()
            for mid in added - deleted:
                assert mem.get(mid).id == mid and mid in points
                assert mem.get(mid).version >= versions.get(mid, 1)
            for mid in deleted:
                with pytest.raises(NotFoundError):
                    mem.get(mid)
                assert mid not in points
    assert kills >= 20 and len(added) > 50 and deleted and versions and bundles
    print(f"{cut_deletes} deletes were committed but killed before their ack")
    on_disk = list((tmp_path / "store-bundles").iterdir())
    staging = [p for p in on_disk if ".partial-" in p.name]
    final = [p for p in on_disk if ".partial-" not in p.name]
    assert {str(p) for p in final} >= set(bundles)
    for p in final:  # acknowledged, or renamed into place just before the kill: complete either way
        verify_bundle(p, 384)
    for p in staging:  # killed mid-export: the manifest is written last, after every data file
        if (p / "manifest.json").exists():
            verify_bundle(p, 384)  # killed between the manifest and the rename: complete
        else:
            with pytest.raises(BundleError):  # half-written: never accepted
                verify_bundle(p, 384)
