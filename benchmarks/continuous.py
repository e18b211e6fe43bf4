"""Search and ingest as users run Hermes: memories arriving session by session, no manual maintenance.

Usage (from a clone; LoCoMo is read from ``--data`` or ``$HERMES_LOCOMO_PATH``, never copied)::

    python -m benchmarks.continuous --data PATH/locomo10.json --sizes base,10k,50k
    python -m benchmarks.continuous --data PATH/locomo10.json --sizes 1M --users 100 --modes continuous \
        --questions 1000
    python -m benchmarks.continuous --corpus synthetic --sizes base      # nothing beside the clone needed
    python -m benchmarks.continuous --data ... --sizes base --profile search-profile.txt

For each size, one process holds two stores fed the same memories and vectors:

- **continuous**: each session (and, above LoCoMo's own size, a filler batch before it) written with one
  ``add_many`` call, questions asked as soon as their evidence is stored; never ``optimize()`` — background
  maintenance the library runs by itself counts;
- **bulk + optimize()**: the same memories through ``add_many`` in batches of 5,000, then ``optimize()``.

Then every question again on both full stores, interleaved. Reported per store: search time minus the query
embedding (p50/p95; the query vector is computed by the model once, timed, and given to the store), the same while
the store fills, R@10, the raw parts timed in the same run (query embedding, the engine's own filtered top-40
query, the keyword leg alone) and ratios, store time per memory and ingest against raw batch embedding, RSS and
disk. Sizes: ``base`` = the conversations as they are (LoCoMo: ~590 memories per user over 10 users), or a total
such as ``10k``/``50k``/``1M`` over ``--users`` users, topped up with filler memories (two real turns of other
conversations joined; their real embeddings summed plus a little noise; see ``benchmarks/_workload.py``).
Before the sizes, an ingest check writes real sessions through ``add_many`` with the real model and compares it
with the model's raw batch embedding of the same texts, session by session, alternating.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import add_data_arguments, log, parse_size, pct, print_table, require_locomo, rss_mb
from benchmarks._runner import RunResult, run_and_report
from benchmarks._stores import BenchStore, HermesStore
from benchmarks._workload import Workload, corpus_label, describe, embed_corpus, load_conversations_for
from benchmarks.locomo import Conversation, parse_range

__all__ = ["ingest_check", "main", "table_rows"]

HEADERS = [
    "size", "store", "memories", "search − query embedding p50 / p95 ms", "while filling p50 / p95 ms",
    "R@10 full / while filling", "raw engine query p50 ms", "keyword leg p50 / p95 ms",
    "search vs raw embed+engine p50", "store µs / memory", "ingest /s with embedding (vs raw)", "RSS MB", "disk MB",
]


def ingest_check(convs: list[Conversation], real: Any, turns: int, root: Path, model: str) -> dict[str, float]:
    """``add_many`` with the real model, session by session, against the model's raw batched embedding of the
    same session's texts right before it (alternating, so both see the same machine load)."""
    from hermes_memory_core import MemoryConfig, MemoryItem, MemoryProvider

    sessions: list[list[Any]] = []
    for conv in convs:
        by: dict[int, list[Any]] = {}
        for t in conv.turns:
            by.setdefault(t.session, []).append(t)
        for s in sorted(by):
            sessions.append([(conv.sample_id, t) for t in by[s]])
            if sum(len(x) for x in sessions) >= turns:
                break
        if sum(len(x) for x in sessions) >= turns:
            break
    raw_s = add_s = 0.0
    n = 0
    cfg = MemoryConfig.model_validate({"data_dir": root / "ingest-check", "embedding_model": model})
    real.embed_documents([t.content for _, t in sessions[0][:8]])  # warm-up: the first call pays the set-up
    with MemoryProvider(cfg, embedder=real) as mem:
        for session in sessions:
            texts = [t.content for _, t in session]
            t0 = time.perf_counter()
            for start in range(0, len(texts), cfg.embedding_batch_size):
                real.embed_documents(texts[start : start + cfg.embedding_batch_size])
            raw_s += time.perf_counter() - t0
            items = [MemoryItem(content=t.content, user_id=u, session_id=f"session_{t.session}", created_at=t.timestamp)
                     for u, t in session]
            t0 = time.perf_counter()
            mem.add_many(items, trusted=True)  # LoCoMo transcripts: the bulk-import opt-out
            add_s += time.perf_counter() - t0
            n += len(texts)
    return {"memories": n, "raw_per_s": n / raw_s, "add_many_per_s": n / add_s, "ratio": add_s / raw_s,
            "embed_doc_s": raw_s / n}


def _ms(a: float, b: float | None = None) -> str:
    if a != a:  # nan
        return "n/a"
    return f"{a:.2f}" if b is None else f"{a:.2f} / {b:.2f}"


def table_rows(result: RunResult) -> list[list[Any]]:
    """One table row per store of a run."""
    size = result.size()
    rows: list[list[Any]] = []
    for s in result.summaries():
        growth_recall = "—" if s["growth_recall"] != s["growth_recall"] else f"{s['growth_recall']:.3f}"
        rows.append([
            size, s["store"], f"{s['memories']:,}", _ms(s["search_p50_ms"], s["search_p95_ms"]),
            _ms(s["growth_p50_ms"], s["growth_p95_ms"]) if s["growth_p50_ms"] == s["growth_p50_ms"] else "—",
            f"{s['recall']:.3f} / {growth_recall}", _ms(s["engine_p50_ms"]),
            _ms(s["keyword_p50_ms"], s["keyword_p95_ms"]),
            f"{s['search_vs_raw_p50']:.2f}×" if "search_vs_raw_p50" in s else "n/a",
            f"{s['store_us_per_memory']:.0f}" + (f" (optimize {s['optimize_s']:.1f} s)" if s["optimize_s"] else ""),
            f"{s['ingest_per_s']:.1f} ({s['ingest_vs_raw_embedding']:.3f}×)", f"{s['rss_mb']:.0f}", f"{s['disk_mb']:.1f}",
        ])
    return rows


def write_profile(profiler: cProfile.Profile, path: str, searches: int, top: int = 40) -> None:
    """Top functions of the profiled searches by cumulative and by own time, and the callers of the costliest, as
    text in ``path``; the raw statistics in ``path``.pstats."""
    out = io.StringIO()
    out.write(f"cProfile of MemoryProvider.search, {searches} searches (continuous use); times include "
              "profiler overhead\n\n")
    for key, title in (("cumulative", "by cumulative time"), ("tottime", "by own (self) time")):
        out.write(f"===== top {top} {title} =====\n")
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key).print_stats(top)
    out.write("===== who calls the 10 functions with the most own time =====\n")
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_callers(10)
    Path(path).write_text(out.getvalue(), encoding="utf-8")
    profiler.dump_stats(path + ".pstats")  # for python -m pstats / snakeviz


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.continuous", description=__doc__.split("\n")[0])
    add_data_arguments(parser, synthetic=True)
    parser.add_argument("--conversations", default="0-9", help="conversation indices, e.g. 0-9 or 0-4")
    parser.add_argument("--sizes", default="base,10k,50k", help="'base' (conversations as they are) or totals: 10k,1M")
    parser.add_argument("--users", type=int, default=None, help="users (default: one per conversation)")
    parser.add_argument("--modes", default="continuous,bulk", help="continuous, bulk (bulk load + optimize())")
    parser.add_argument("--questions", type=int, default=0, help="ask at most this many questions (0: all)")
    parser.add_argument("--max-sessions", type=int, default=None, help="use only the first N sessions of each")
    parser.add_argument("--ingest-turns", type=int, default=256, help="turns in the real-model ingest check")
    parser.add_argument("--bulk-batch", type=int, default=5000, help="memories per add_many call in bulk mode")
    parser.add_argument("--embedding-model", default="multilingual-e5-small")
    parser.add_argument("--cache-dir", default=".bench_cache", help="document-embedding cache ('' to disable)")
    parser.add_argument("--metadata-url", default=None, help="server mode: PostgreSQL URL (a schema per store)")
    parser.add_argument("--profile", default=None, help="cProfile the continuous store's searches into this file")
    parser.add_argument("--json", default=None, help="write every number to this JSON file")
    args = parser.parse_args(argv)
    data = None if args.corpus == "synthetic" else require_locomo(args.data, synthetic_fallback=True)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - {"continuous", "bulk"}:
        parser.error("--modes takes continuous and/or bulk")
    from hermes_memory_core.embedding import load_embedder

    convs = load_conversations_for(args.corpus, str(data) if data else None, parse_range(args.conversations),
                                   args.max_sessions)
    users = args.users or len(convs)
    log(f"corpus: {corpus_label(args.corpus, data)}, {len(convs)} conversations; model {args.embedding_model}; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    real = load_embedder(args.embedding_model)
    vectors = embed_corpus(convs, real, args.cache_dir or None)
    overrides: dict[str, Any] = {"embedding_model": args.embedding_model}
    if args.metadata_url:
        overrides["metadata_url"] = args.metadata_url
    results: list[RunResult] = []
    all_rows: list[list[Any]] = []
    profiler = cProfile.Profile() if args.profile else None
    with tempfile.TemporaryDirectory(prefix="hermes-continuous-") as tmp:
        root = Path(tmp)
        log(f"ingest check: add_many with the real model vs raw batch embedding, ~{args.ingest_turns} turns")
        check = ingest_check(convs, real, args.ingest_turns, root, args.embedding_model)
        log(f"ingest check: add_many {check['add_many_per_s']:.1f}/s vs raw embedding {check['raw_per_s']:.1f}/s "
            f"({check['ratio']:.3f}×) over {check['memories']} memories")
        for size_text in args.sizes.split(","):
            work = Workload(convs, vectors, size=parse_size(size_text), users=users, questions=args.questions)
            label = f"size {size_text.strip()}"
            log(f"{label}: {describe(work)}")
            stores: list[BenchStore] = []
            for mode in modes:
                name = "hermes continuous" if mode == "continuous" else "hermes bulk + optimize()"
                if args.metadata_url:
                    name += " (PostgreSQL)"
                stores.append(HermesStore(name, root, real.model_id, real.dim, bulk=mode == "bulk",
                                          bulk_batch=args.bulk_batch, overrides=overrides))
            result, rows = run_and_report(
                work, stores, real, headers=HEADERS, table_rows=table_rows, label=label,
                embed_doc_s=check["embed_doc_s"], profiler=profiler,
                profiled=stores[0].name if stores[0].continuous else None,
            )
            results.append(result)
            all_rows.extend(rows)
    if len(results) > 1:
        print_table(HEADERS, all_rows)
        for result in results:
            print(result.footer())
    print(f"ingest check (real model, {check['memories']} memories, session by session): add_many "
          f"{check['add_many_per_s']:.1f}/s vs raw batch embedding {check['raw_per_s']:.1f}/s = {check['ratio']:.3f}×")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; RSS {rss_mb():.0f} MB")
    if profiler is not None:
        searches = sum(len(r.stores[0].growth) + len(r.stores[0].full) for r in results)
        write_profile(profiler, args.profile, searches)
        print(f"profile written to {args.profile} (timings of a profiled run are inflated)", file=sys.stderr)
    if args.json:
        payload = {"ingest_check": check, "runs": [
            {"label": r.label, "users": r.users, "memories": r.memories, "questions": r.questions,
             "query_embedding_p50_ms": pct(r.full_embed, 50), "query_embedding_p95_ms": pct(r.full_embed, 95),
             "embed_doc_s": r.embed_doc_s, "process_rss_mb": r.process_rss_mb, "wall_s": r.wall_s,
             "stores": r.summaries()} for r in results]}
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
