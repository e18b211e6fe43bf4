"""Retrieval quality on LoCoMo: the product's hybrid search against BM25 alone and dense alone, one run.

Usage (the command line is a contract)::

    python -m benchmarks.locomo_retrieval --data PATH/locomo10.json --conversations 0-4 --top-k 5,10 --json OUT.json

(``--data`` may be left out when ``$HERMES_LOCOMO_PATH`` names the file.)

Each conversation is loaded through the public API (``add_many``: one memory per turn, text
"speaker: text", ``created_at`` from the session date, the conversation's sample id as user id), then every
question of categories 1-4 with evidence is asked with ``search(..., now=<last session date>)``. BM25 alone is
rank-bm25's ``BM25Okapi`` (the reference scorer) over the conversation's turns with the product's tokenizer;
dense alone is the product's vector leg over the same store. Prints Recall@k and nDCG@10 per category and
overall. Embeddings are cached in ``--cache-dir`` (the same model's vectors, not recomputed).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._common import CachedEmbedder, Progress, add_data_arguments, print_table, require_locomo
from benchmarks.locomo import CATEGORY_NAMES, Conversation, load_conversations, parse_range

__all__ = ["evaluate", "main"]

SYSTEMS = ("hermes", "bm25", "dense")


def _ndcg(ranked: list[str], relevant: set[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def _bm25_top(index: tuple[list[str], Any], query: list[str], depth: int, dia_of: dict[str, str]) -> list[str]:
    ids, bm25 = index
    if not query:
        return []
    scores = bm25.get_scores(query)
    order = sorted(range(len(ids)), key=lambda i: -scores[i])[:depth]
    return [dia_of[ids[i]] for i in order if scores[i] > 0]


def _summarise(rows: list[dict[str, Any]], ks: list[int]) -> dict[str, Any]:
    def agg(subset: list[dict[str, Any]]) -> dict[str, float]:
        out = {f"recall@{k}": statistics.fmean(r[f"recall@{k}"] for r in subset) for k in ks}
        out["ndcg@10"] = statistics.fmean(r["ndcg@10"] for r in subset)
        out["questions"] = len(subset)
        return out

    by_cat = {}
    for cat, name in CATEGORY_NAMES.items():
        subset = [r for r in rows if r["category"] == cat]
        if subset:
            by_cat[name] = agg(subset)
    return {"overall": agg(rows) if rows else {}, "by_category": by_cat}


def evaluate(
    conversations: list[Conversation],
    ks: list[int],
    config_overrides: dict[str, Any] | None = None,
    cache_dir: str | None = ".bench_cache",
    tune: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """Load the conversations into a fresh store and score the three retrievers."""
    from rank_bm25 import BM25Okapi

    from hermes_memory_core import MemoryConfig, MemoryItem, MemoryProvider
    from hermes_memory_core.embedding import load_embedder
    from hermes_memory_core.storage.vectors import VectorFilter
    from hermes_memory_core.text.tokenizer import tokenize, tokenize_query

    depth = max(max(ks), 10)
    with tempfile.TemporaryDirectory(prefix="hermes-locomo-") as tmp:
        cfg = MemoryConfig(data_dir=Path(tmp) / "store", **(config_overrides or {}))
        embedder = CachedEmbedder(load_embedder(cfg.embedding_model, cfg.embedding_threads), cache_dir)
        rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SYSTEMS}
        latencies: list[float] = []
        with MemoryProvider(cfg, embedder=embedder) as mem:
            if tune is not None:
                tune(mem)
            dia_of: dict[str, str] = {}
            bm25: dict[str, tuple[list[str], Any]] = {}
            total_turns = sum(len(c.turns) for c in conversations)
            progress = Progress("loading turns", total_turns)
            loaded = 0
            for conv in conversations:
                items = [
                    MemoryItem(
                        content=t.content,
                        user_id=conv.sample_id,
                        session_id=f"session_{t.session}",
                        created_at=t.timestamp,
                        metadata={"dia_id": t.dia_id},
                    )
                    for t in conv.turns
                ]
                base = loaded

                def on_progress(done: int, _total: int, base: int = base) -> None:
                    progress.update(base + done)

                ids = mem.add_many(items, dialogue=True, on_progress=on_progress, trusted=True)
                bm25[conv.sample_id] = (ids, BM25Okapi([tokenize(t.content) or ["_"] for t in conv.turns]))
                loaded += len(ids)
                dia_of.update({mid: t.dia_id for mid, t in zip(ids, conv.turns, strict=True)})
            embedder.save()
            total_q = sum(len(c.questions) for c in conversations)
            progress = Progress("asking questions", total_q)
            asked = 0
            for conv in conversations:
                for q in conv.questions:
                    relevant = set(q.evidence)
                    t0 = time.perf_counter()
                    hits = mem.search(q.question, user_id=conv.sample_id, top_k=depth, now=conv.last_date)
                    latencies.append(time.perf_counter() - t0)
                    ranked = {
                        "hermes": [dia_of[h.id] for h in hits],
                        "bm25": _bm25_top(bm25[conv.sample_id], tokenize_query(q.question), depth, dia_of),
                        "dense": [
                            dia_of[i]
                            for i, _ in mem.engine.vectors.search(
                                embedder.embed_query(q.question), depth, VectorFilter(conv.sample_id)
                            )
                        ],
                    }
                    for system, docs in ranked.items():
                        row: dict[str, Any] = {"category": q.category}
                        for k in ks:
                            row[f"recall@{k}"] = len(relevant & set(docs[:k])) / len(relevant)
                        row["ndcg@10"] = _ndcg(docs, relevant, 10)
                        rows[system].append(row)
                    asked += 1
                    progress.update(asked)
            embedder.save()
        result = {s: _summarise(rows[s], ks) for s in SYSTEMS}
        result["meta"] = {
            "conversations": [c.sample_id for c in conversations],
            "turns": total_turns,
            "questions": total_q,
            "skipped_evidence_ids": sum(c.skipped_evidence for c in conversations),
            "embedding_model": embedder.model_id,
            "search_p50_ms": 1000 * statistics.median(latencies) if latencies else None,
        }
        return result


def _print(result: dict[str, Any], ks: list[int]) -> None:
    metrics = [f"recall@{k}" for k in ks] + ["ndcg@10"]
    headers = ["system", "category", "questions", *[m.replace("recall", "R") for m in metrics]]
    rows = []
    for system in SYSTEMS:
        for name, vals in [*result[system]["by_category"].items(), ("overall", result[system]["overall"])]:
            rows.append([system, name, vals["questions"], *[vals[m] for m in metrics]])
    print_table(headers, rows)
    meta = result["meta"]
    base = result["bm25"]["overall"], result["dense"]["overall"]
    best = max(b[f"recall@{max(ks)}"] for b in base)
    print(
        f"\n{meta['questions']} questions over {meta['turns']} turns; model {meta['embedding_model']}; "
        f"skipped {meta['skipped_evidence_ids']} evidence ids that point nowhere; "
        f"hermes R@{max(ks)} / best single leg = {result['hermes']['overall'][f'recall@{max(ks)}'] / best:.3f}; "
        f"search p50 {meta['search_p50_ms']:.1f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.locomo_retrieval", description=__doc__.split("\n")[0])
    add_data_arguments(parser)
    parser.add_argument("--conversations", default="0-4", help="indices, e.g. 0-4 (dev) or 5-9 (test)")
    parser.add_argument("--top-k", default="5,10", help="comma-separated cut-offs for recall")
    parser.add_argument("--json", default=None, help="write the numbers to this JSON file")
    parser.add_argument("--embedding-model", default=None, help="override the product's default model")
    parser.add_argument("--cache-dir", default=".bench_cache", help="embedding cache ('' to disable)")
    args = parser.parse_args(argv)
    ks = sorted({int(k) for k in args.top_k.split(",") if k.strip()})
    convs = load_conversations(require_locomo(args.data), parse_range(args.conversations))
    overrides = {"embedding_model": args.embedding_model} if args.embedding_model else {}
    result = evaluate(convs, ks, overrides, args.cache_dir or None)
    _print(result, ks)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
