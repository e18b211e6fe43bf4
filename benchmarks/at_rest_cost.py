"""What ``encrypt_at_rest="all"`` costs against the default ``"permanent"``, on the same data in the same run.

Usage::

    python -m benchmarks.at_rest_cost [--n 2000] [--turns 300] [--queries 200] [--embedding-model multilingual-e5-small]
                                      [--json out.json]

The embedding model's vectors are computed once, before anything is timed, and served from memory to both stores
(the model's cost is the same in both modes and would hide the difference); what is timed is everything else a
call does. Per mode it reports:

- ``add_many`` throughput: ``--n`` long-term memories with tags, written as dialogue turns of 20 sessions;
- ``search`` p50 / p95 over ``--queries`` questions (tag-filtered every fourth);
- a chat turn: ``add_messages`` (user + assistant) p50 / p95 over ``--turns`` turns with ``ring_size`` 12, the
  running summary and promotion running in the background, then ``view()`` p50 / p95;
- ``export`` and ``restore`` of the whole store, and bytes on disk;
- switching the store between the two modes (re-sealing it at open), in both directions.

Each mode runs ``--repeat`` times, the two modes alternating which goes first; every figure is the median of its runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import CachedEmbedder, print_table
from benchmarks.scale import OBJECTS, QUERIES, SUBJECTS, VERBS

MODES = ("permanent", "all")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _texts(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    return [f"{rnd.choice(SUBJECTS)} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)} (note {i})" for i in range(n)]


def _run(mode: str, root: Path, emb: Any, texts: list[str], queries: list[str], turns: int) -> dict[str, float]:
    from hermes_memory_core import Caller, MemoryConfig, MemoryProvider

    key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    cfg = MemoryConfig(data_dir=root / mode, encryption_key=key, encrypt_at_rest=mode, embedding_batch_size=256)
    out: dict[str, float] = {}
    admin = Caller.admin("bench")
    with MemoryProvider(cfg, embedder=emb, caller=admin) as mem:
        items = [{"content": t, "user_id": "u", "session_id": f"s{i % 20}", "tags": [f"t{i % 7}"],
                  "created_at": 1_700_000_000 + 30 * i} for i, t in enumerate(texts)]
        start = time.perf_counter()
        mem.add_many(items, trusted=True)  # a public transcript: the bulk-import opt-out
        out["add_many memories/s"] = len(items) / (time.perf_counter() - start)
        lat = []
        for i, q in enumerate(queries):
            start = time.perf_counter()
            mem.search(q, user_id="u", top_k=10, tags=[f"t{i % 7}"] if i % 4 == 0 else None)
            lat.append(time.perf_counter() - start)
        out["search p50 ms"], out["search p95 ms"] = _pct(lat, 0.5), _pct(lat, 0.95)
        session = mem.session("u", "chat")
        add, view = [], []
        for i in range(turns):
            start = time.perf_counter()
            session.add_messages([("user", f"I usually drink {OBJECTS[i % len(OBJECTS)]} on day {i}"),
                                  ("assistant", f"Noted, day {i}.")])
            add.append(time.perf_counter() - start)
            start = time.perf_counter()
            session.view()
            view.append(time.perf_counter() - start)
        mem.flush()
        out["chat turn p50 ms"], out["chat turn p95 ms"] = _pct(add, 0.5), _pct(add, 0.95)
        out["view p50 ms"], out["view p95 ms"] = _pct(view, 0.5), _pct(view, 0.95)
        start = time.perf_counter()
        mem.export(root / f"{mode}-bundle")
        out["export s"] = time.perf_counter() - start
        out["disk MiB"] = mem.stats().disk_bytes / 2**20
    start = time.perf_counter()
    with MemoryProvider.restore(root / f"{mode}-bundle", cfg.model_copy(update={"data_dir": root / f"{mode}-r"}),
                                embedder=emb):
        out["restore s"] = time.perf_counter() - start
    other = "all" if mode == "permanent" else "permanent"
    start = time.perf_counter()
    with MemoryProvider(cfg.model_copy(update={"encrypt_at_rest": other}), embedder=emb):
        out[f"switch to {other} s"] = time.perf_counter() - start
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.at_rest_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="long-term memories written with add_many")
    parser.add_argument("--turns", type=int, default=300, help="chat turns appended to one session")
    parser.add_argument("--queries", type=int, default=200, help="search calls")
    parser.add_argument("--embedding-model", default="multilingual-e5-small")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode (alternating order); medians are shown")
    parser.add_argument("--json", default=None, help="write the figures to this file")
    args = parser.parse_args(argv)

    from hermes_memory_core.embedding import load_embedder

    texts = _texts(args.n)
    queries = [QUERIES[i % len(QUERIES)] for i in range(args.queries)]
    emb = CachedEmbedder(load_embedder(args.embedding_model), None)
    emb.embed_documents(texts)  # every vector once, before anything is timed
    for q in set(queries):
        emb.embed_query(q)
    runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    for round_no in range(args.repeat):  # modes alternate first and second, each figure is the median of its runs
        for mode in MODES if round_no % 2 == 0 else MODES[::-1]:
            with tempfile.TemporaryDirectory() as tmp:
                runs[mode].append(_run(mode, Path(tmp), emb, texts, queries, args.turns))
    results = {mode: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for mode, rs in runs.items()}
    rows = []
    for measure in results["permanent"]:
        a = results["permanent"][measure]
        b = results["all"].get(measure)
        if b is None:  # the switch rows differ by direction
            continue
        rows.append([measure, round(a, 2), round(b, 2), f"{b / a:.2f}x" if a else "-"])
    rows.append(["switch to the other mode s", round(results["permanent"]["switch to all s"], 2),
                 round(results["all"]["switch to permanent s"], 2), "-"])
    print(f"n={args.n} memories, {args.turns} chat turns, {args.queries} queries; embeddings precomputed "
          f"({emb.model_id}); medians of {args.repeat} runs per mode")
    print_table(["measure", 'encrypt_at_rest="permanent"', 'encrypt_at_rest="all"', "all / permanent"], rows)
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "medians": results, "runs": runs}, indent=2),
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
