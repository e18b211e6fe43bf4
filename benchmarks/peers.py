"""Hermes against LangGraph's SqliteStore and raw numpy: same embedder, same data, one process, interleaved.

Usage (needs the optional extra: ``pip install -e '.[peers]'``; LoCoMo from ``--data`` or
``$HERMES_LOCOMO_PATH``)::

    python -m benchmarks.peers --data PATH/locomo10.json --sizes base,10k,50k
    python -m benchmarks.peers --corpus synthetic --sizes base          # nothing beside the clone needed

Every store is fed the continuous-use workload of ``benchmarks.continuous`` (sessions written as they happen,
each with one batch call, questions asked as their evidence completes, then all questions again on the full
stores), with the *same vectors*: Hermes' ``load_embedder("multilingual-e5-small")`` embeds every document once,
and every query once right before it is asked (timed: the query-embedding column), and that vector is given to
each store — so only store time is compared. Stores:

- **hermes**: ``MemoryProvider`` with its embedded defaults (SQLite + Qdrant Edge), hybrid search, top 10;
- **LangGraph SqliteStore**: ``langgraph.store.sqlite.SqliteStore`` on a file, sqlite-vec cosine index over the
  memory text, one namespace per user, ``search(namespace, query=..., limit=10)``;
- **raw numpy**: a float32 matrix per user, one matrix-vector product (the floor).

Reported per store: search time minus the query embedding (p50/p95, full store and while filling), its ratio to
LangGraph SqliteStore's p50, R@10, store time per memory and ingest against raw batch embedding (derived:
the model's batch time per text plus the store's time per memory), RSS charged to the store (approximate: one
process) and disk. Figures from a shared machine are noisy; compare stores within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._common import add_data_arguments, log, parse_size, pct, print_table, require_locomo
from benchmarks._runner import RunResult, run_and_report
from benchmarks._stores import BenchStore, HermesStore, LangGraphSqliteStore, NumpyStore, peers_missing
from benchmarks._workload import (
    Workload,
    corpus_label,
    describe,
    embed_corpus,
    load_conversations_for,
    time_raw_embedding,
)
from benchmarks.locomo import parse_range

__all__ = ["main", "table_rows"]

REFERENCE = "LangGraph SqliteStore"
HEADERS = [
    "size", "store", "memories", "search − query embedding p50 / p95 ms", "while filling p50 / p95 ms",
    f"p50 vs {REFERENCE}", "R@10 full / while filling", "store µs / memory", "ingest /s with embedding (vs raw)",
    "RSS MB (approx.)", "disk MB",
]


def _ms(a: float, b: float) -> str:
    return "—" if a != a else f"{a:.2f} / {b:.2f}"


def table_rows(result: RunResult) -> list[list[Any]]:
    """One row per store, with each store's p50 against the reference store's."""
    size = result.size()
    summaries = result.summaries()
    ref = next((s["search_p50_ms"] for s in summaries if s["store"] == REFERENCE), float("nan"))
    return [
        [
            size, s["store"], f"{s['memories']:,}", _ms(s["search_p50_ms"], s["search_p95_ms"]),
            _ms(s["growth_p50_ms"], s["growth_p95_ms"]), f"{s['search_p50_ms'] / ref:.2f}×",
            f"{s['recall']:.3f} / {s['growth_recall']:.3f}", f"{s['store_us_per_memory']:.0f}",
            f"{s['ingest_per_s']:.1f} ({s['ingest_vs_raw_embedding']:.3f}×)", f"{s['rss_mb']:.0f}",
            f"{s['disk_mb']:.1f}",
        ]
        for s in summaries
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers", description=__doc__.split("\n")[0])
    add_data_arguments(parser, synthetic=True)
    parser.add_argument("--conversations", default="0-9", help="conversation indices, e.g. 0-9 or 0-4")
    parser.add_argument("--sizes", default="base,10k,50k", help="'base' (conversations as they are) or totals: 10k")
    parser.add_argument("--users", type=int, default=None, help="users (default: one per conversation)")
    parser.add_argument("--questions", type=int, default=0, help="ask at most this many questions (0: all)")
    parser.add_argument("--max-sessions", type=int, default=None, help="use only the first N sessions of each")
    parser.add_argument("--embed-sample", type=int, default=256, help="texts timed for the raw batch embedding")
    parser.add_argument("--cache-dir", default=".bench_cache", help="document-embedding cache ('' to disable)")
    parser.add_argument("--json", default=None, help="write every number to this JSON file")
    args = parser.parse_args(argv)
    data = None if args.corpus == "synthetic" else require_locomo(args.data, synthetic_fallback=True)
    missing = peers_missing()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    from hermes_memory_core.embedding import load_embedder

    model = "multilingual-e5-small"
    convs = load_conversations_for(args.corpus, str(data) if data else None, parse_range(args.conversations),
                                   args.max_sessions)
    log(f"corpus: {corpus_label(args.corpus, data)}, {len(convs)} conversations; model {model}; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    real = load_embedder(model)
    vectors = embed_corpus(convs, real, args.cache_dir or None)
    texts = [t.content for c in convs for t in c.turns]
    sample = random.Random(3).sample(texts, min(args.embed_sample, len(texts)))
    embed_doc_s = time_raw_embedding(real, sample)
    log(f"raw batch embedding: {1 / embed_doc_s:.1f} texts/s over {len(sample)} texts")
    results: list[RunResult] = []
    all_rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="hermes-peers-") as tmp:
        root = Path(tmp)
        for size_text in args.sizes.split(","):
            work = Workload(convs, vectors, size=parse_size(size_text), users=args.users or len(convs),
                            questions=args.questions)
            label = f"size {size_text.strip()}"
            log(f"{label}: {describe(work)}")
            stores: list[BenchStore] = [
                HermesStore("hermes", root, real.model_id, real.dim, overrides={"embedding_model": model}),
                LangGraphSqliteStore(REFERENCE, root, real.dim),
                NumpyStore("raw numpy", real.dim),
            ]
            result, rows = run_and_report(work, stores, real, headers=HEADERS, table_rows=table_rows, label=label,
                                          embed_doc_s=embed_doc_s)
            results.append(result)
            all_rows.extend(rows)
    if len(results) > 1:
        print_table(HEADERS, all_rows)
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    if args.json:
        payload = [{"label": r.label, "users": r.users, "memories": r.memories, "questions": r.questions,
                    "query_embedding_p50_ms": pct(r.full_embed, 50), "embed_doc_s": r.embed_doc_s,
                    "stores": r.summaries()} for r in results]
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
