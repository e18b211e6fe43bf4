"""The benchmarks as a user runs them from a fresh clone: one-line refusal without data, and small real runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks._common import parse_size
from benchmarks._stores import NumpyStore, peers_missing
from benchmarks._synthetic import synthetic_conversations
from benchmarks._workload import Ask, Workload, Write

ROOT = Path(__file__).resolve().parents[2]
NEEDS_DATA = [
    ["benchmarks.continuous"],
    ["benchmarks.peers"],
    ["benchmarks.locomo_retrieval"],
    ["benchmarks.token_savings"],
    ["benchmarks.chat_replay"],
    ["benchmarks.scale", "--corpus", "locomo", "--n", "100"],
]


def _run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HERMES_LOCOMO_PATH"}
    env.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("command", NEEDS_DATA, ids=lambda c: c[0])
def test_without_locomo_one_line_and_status_2(command: list[str], tmp_path: Path) -> None:
    done = _run(command, tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "HERMES_LOCOMO_PATH" in lines[0] and "--data" in lines[0]
    missing = _run([*command, "--data", str(tmp_path / "nowhere.json")], tmp_path)
    assert missing.returncode == 2 and "nowhere.json" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1


def test_parse_size() -> None:
    assert [parse_size(x) for x in ("base", "10k", "1M", "2500", "1.5k")] == [0, 10_000, 1_000_000, 2_500, 1_500]


def _workload(size: int, users: int = 3) -> Workload:
    convs = synthetic_conversations(count=3, sessions=4, turns_per_session=6, facts_per_session=2)
    rng = np.random.default_rng(0)
    vectors = {}
    for c in convs:
        for t in c.turns:
            v = rng.normal(size=16).astype(np.float32)
            vectors[t.content] = v / np.linalg.norm(v)
    return Workload(convs, vectors, size=size, users=users)


def test_workload_asks_each_question_after_its_evidence_and_reaches_the_size() -> None:
    work = _workload(size=300)
    assert work.total == 300
    stored: dict[str, set[str]] = {}
    writes = asks = filler = 0
    for event in work.stream():
        if isinstance(event, Write):
            writes += 1
            assert event.vectors.shape == (len(event.texts), 16)
            assert np.allclose(np.linalg.norm(event.vectors, axis=1), 1.0, atol=1e-5)
            filler += sum(k is None for k in event.keys)
            stored.setdefault(event.user, set()).update(k for k in event.keys if k is not None)
        else:
            assert isinstance(event, Ask)
            assert event.evidence <= stored[event.user], "asked before its evidence was written"
            asks += 1
    assert filler == 300 - 3 * 24 and asks == work.asked == len(work.final_questions()) > 0
    assert sum(len(s) for s in stored.values()) == 3 * 24


def test_numpy_floor_finds_the_exact_nearest() -> None:
    work = _workload(size=0)
    store = NumpyStore("numpy", 16)
    everything: dict[str, list[tuple[str, np.ndarray]]] = {}
    for event in work.stream():
        if isinstance(event, Write):
            store.write(event)
            everything.setdefault(event.user, []).extend(
                (k, v) for k, v in zip(event.keys, event.vectors, strict=True) if k is not None)
    user = work.users[0].user
    q = everything[user][5][1]
    expect = sorted(everything[user], key=lambda kv: -float(kv[1] @ q))[:3]
    assert store.search(user, "q", q, 3, 0) == [k for k, _ in expect]


@pytest.mark.slow
def test_continuous_runs_with_nothing_beside_the_clone(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = _run(["benchmarks.continuous", "--corpus", "synthetic", "--conversations", "0-1", "--max-sessions", "2",
                 "--sizes", "base,200", "--ingest-turns", "20", "--cache-dir", "", "--json", str(out)], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "hermes continuous" in done.stdout and "hermes bulk + optimize()" in done.stdout
    runs = json.loads(out.read_text())["runs"]
    assert [r["memories"] for r in runs] == [88, 200]
    for run in runs:
        for store in run["stores"]:
            assert 0.0 <= store["recall"] <= 1.0 and store["search_p50_ms"] > 0 and store["disk_mb"] > 0
            assert store["engine_p50_ms"] > 0 and store["keyword_p50_ms"] > 0


@pytest.mark.slow
def test_peers_runs_or_says_what_to_install(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = _run(["benchmarks.peers", "--corpus", "synthetic", "--conversations", "0-1", "--max-sessions", "2",
                 "--sizes", "base", "--embed-sample", "16", "--cache-dir", "", "--json", str(out)], tmp_path)
    if peers_missing() is not None:
        assert done.returncode == 2 and ".[peers]" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        return
    assert done.returncode == 0, done.stderr[-2000:]
    stores = {s["store"]: s for s in json.loads(out.read_text())[0]["stores"]}
    assert set(stores) == {"hermes", "LangGraph SqliteStore", "raw numpy"}
    # both vector-only peers rank by exact cosine over the same vectors: the same recall
    assert stores["raw numpy"]["recall"] == pytest.approx(stores["LangGraph SqliteStore"]["recall"])
    assert all(s["search_p50_ms"] > 0 for s in stores.values())


@pytest.mark.slow
def test_chat_replay_runs_every_surface_and_sessions_keep_up_with_direct_writes() -> None:
    """A small synthetic conversation through every chat surface: each run answers the same questions, and the
    core sessions recall what the same turns written directly recall."""
    from benchmarks.chat_replay import SURFACES, evaluate

    convs = synthetic_conversations(count=1, sessions=3, turns_per_session=8, facts_per_session=2)
    results = {s: evaluate(convs, s, cache_dir=None) for s in SURFACES}
    assert len({r["questions"] for r in results.values()}) == 1 and results["direct"]["questions"] > 0
    assert results["sessions"]["recall"] >= results["direct"]["recall"] - 0.05
    assert all(r["recall"] > 0 and r["disk_bytes_per_memory"] > 0 for r in results.values()), results
