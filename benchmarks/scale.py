"""Scale: add_many throughput and search latency at N memories, against the raw parts in the same run.

This is the bulk-load case (filler memories in large batches, then ``optimize()``), with the generated worst
case for the keyword leg and the server configuration; ``benchmarks.continuous`` measures the store as users fill
it (session by session, no ``optimize()``) next to a bulk load of the same data.

Usage::

    python -m benchmarks.scale --n 10000,100000 --users 10 [--embedding-model all-MiniLM-L6-v2] [--sample 1000]
    # server configuration: PostgreSQL metadata (+ qdrant-client vectors)
    python -m benchmarks.scale --n 10000 --metadata-url postgresql://... [--qdrant-url http://host:6333 | :memory:]

For each N it reports:

- ``add_many`` throughput on ``--sample`` texts against the raw batched embedding of the same texts;
- ``search`` p50/p95 against raw query embedding + a raw engine query (the vector store's own filtered
  search), and the part of search that is not the query embedding (measured with the query vector precomputed);
- RSS and bytes on disk.

Two corpora: ``templates`` (generated sentences over a ~40-word vocabulary: every query term matches ~10% of all
memories, a worst case for the keyword leg) and ``locomo`` (natural conversation turns: pairs of LoCoMo turns,
read from ``--data``, with LoCoMo questions as queries; the data stays outside the package).

Embedding N = 100k texts with a CPU model takes longer than this machine allows, so only ``--sample`` texts are
embedded by the model; the other memories are filled in through the same public ``add_many`` with vectors
that are real sample embeddings plus small Gaussian noise (labelled "filler" below). Search timings use real
query embeddings.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import Progress, pct, print_table, require_locomo, rss_mb
from benchmarks._stores import HermesInternals

SUBJECTS = ["The user", "用户", "My sister", "Our team", "The client", "我朋友", "The manager", "我们公司"]
VERBS = ["likes", "prefers", "avoids", "bought", "is learning", "visited", "喜欢", "正在学习", "计划去", "讨厌"]
OBJECTS = [
    "Python", "Go", "Java", "espresso", "美式咖啡", "hiking in the Alps", "上海", "Berlin", "a new laptop",
    "the violin", "marathon training", "日本料理", "Kubernetes", "watercolor painting", "瑜伽", "sailing", "股票投资",
    "a vegetarian diet", "Rust", "jazz records", "红酒", "the night shift", "chess", "摄影",
]
QUERIES = [
    "What programming language does the user like?", "用户喜欢喝什么？", "Where did they travel?",
    "What is the user learning?", "哪些人喜欢爬山？", "What did the client buy?", "用户的爱好是什么？",
    "Does anyone avoid coffee?", "who plays chess", "投资",
]


def locomo_corpus(path: str, n: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """``n`` natural texts (two LoCoMo turns each) and the LoCoMo questions, for a realistic vocabulary."""
    from benchmarks.locomo import load_conversations

    convs = load_conversations(path, list(range(10)))
    turns = [t.content for c in convs for t in c.turns]
    questions = [q.question for c in convs for q in c.questions]
    rnd = random.Random(seed)
    return [f"{rnd.choice(turns)} {rnd.choice(turns)}" for _ in range(n)], questions


def make_texts(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    return [
        f"{rnd.choice(SUBJECTS)} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)} (note {i}, {rnd.choice(OBJECTS)})"
        for i in range(n)
    ]


class FillerEmbedder:
    """Returns real sample embeddings plus small noise, for the memories beyond the embedded sample."""

    def __init__(self, real: Any, sample_vectors: np.ndarray, seed: int = 11) -> None:
        self.model_id, self.dim = real.model_id, real.dim
        self._real = real
        self._base = sample_vectors
        self._rng = np.random.default_rng(seed)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        idx = self._rng.integers(0, len(self._base), len(texts))
        out = self._base[idx] + self._rng.normal(0, 0.05, (len(texts), self.dim)).astype(np.float32)
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._real.embed_query(text)


class FixedQueryEmbedder:
    """Serves precomputed query vectors, so search can be timed without the model."""

    def __init__(self, inner: Any, table: dict[str, np.ndarray]) -> None:
        self.model_id, self.dim, self._inner, self._table = inner.model_id, inner.dim, inner, table

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._table[text]


def server_setup(metadata_url: str | None, qdrant_url: str | None, dim: int) -> tuple[dict[str, Any], Any]:
    """Config overrides for the server configuration, and a factory of vector stores to hand each provider
    (qdrant-client's ``:memory:`` lives inside one client object, so every provider of a run must share it)."""
    import uuid

    overrides: dict[str, Any] = {}
    if metadata_url:
        overrides.update(metadata_url=metadata_url, metadata_schema=f"bench_{uuid.uuid4().hex[:10]}")
    if not qdrant_url:
        return overrides, lambda: None
    from hermes_memory_core.storage.client_store import QdrantClientVectorStore

    collection = f"bench_{uuid.uuid4().hex[:10]}"
    overrides.update(vector_backend="qdrant", qdrant_url=qdrant_url, collection=collection)
    if qdrant_url != ":memory:":
        return overrides, lambda: None
    from qdrant_client import QdrantClient

    client = QdrantClient(location=":memory:")
    return overrides, lambda: QdrantClientVectorStore(":memory:", dim, collection, client=client)


def disk_mb(mem: Any) -> float:
    """Bytes the store holds: its data directory, plus its PostgreSQL schema in server mode."""
    total = mem.stats().disk_bytes
    if mem.config.metadata_url is not None:
        row = mem.engine.metadata.reader().execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = ? AND c.relkind = 'r'",
            (mem.config.metadata_schema,),
        ).fetchone()
        total += int(row[0])
    return total / 2**20


def drop_schema(cfg: Any) -> None:
    if cfg.metadata_url is None:
        return
    import psycopg

    with psycopg.connect(cfg.metadata_url.get_secret_value(), autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{cfg.metadata_schema}" CASCADE')


def run(
    n: int, users: int, model: str, sample: int, rounds: int, optimize: bool = True, corpus: str = "templates",
    data: str | None = None, metadata_url: str | None = None, qdrant_url: str | None = None,
) -> list[list[Any]]:
    from hermes_memory_core import MemoryConfig, MemoryItem, MemoryProvider
    from hermes_memory_core.embedding import load_embedder

    real = load_embedder(model)
    if corpus == "locomo":
        texts, query_pool = locomo_corpus(str(require_locomo(data)), n)
    else:
        texts, query_pool = make_texts(n), QUERIES
    sample = min(sample, n)
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="hermes-scale-") as tmp:
        overrides, vector_store = server_setup(metadata_url, qdrant_url, real.dim)
        cfg = MemoryConfig(data_dir=Path(tmp) / "s", embedding_model=model, embedding_batch_size=64, **overrides)
        setup = ("PostgreSQL" if metadata_url else "SQLite") + " + " + (
            f"qdrant-client {qdrant_url}" if qdrant_url else "Qdrant Edge"
        )
        # raw batched embedding of the sample (after one warm-up batch: the model's first call pays its set-up)
        real.embed_documents(texts[:8])
        t0 = time.perf_counter()
        sample_vecs = np.concatenate(
            [real.embed_documents(texts[i : i + 64]) for i in range(0, sample, 64)]
        )
        raw_rate = sample / (time.perf_counter() - t0)
        items = [MemoryItem(content=t, user_id=f"user{i % users}", session_id=f"s{i // 50}") for i, t in enumerate(texts)]
        with MemoryProvider(cfg, embedder=real, vector_store=vector_store()) as mem:
            t0 = time.perf_counter()
            mem.add_many(items[:sample], trusted=True)  # transcripts: the bulk-import opt-out
            add_rate = sample / (time.perf_counter() - t0)
        rows.append([n, f"corpus: {corpus}; {setup}", "", "", ""])
        rows.append([n, "add_many (embedded sample)", f"{add_rate:.1f}/s", f"{raw_rate:.1f}/s raw embed", f"{add_rate / raw_rate:.2f}"])
        filler = FillerEmbedder(real, sample_vecs)
        with MemoryProvider(cfg, embedder=filler, vector_store=vector_store()) as mem:
            progress = Progress(f"filling to {n}", n - sample)
            t0 = time.perf_counter()
            if n > sample:
                mem.config.embedding_batch_size = 2000
                mem.add_many(items[sample:], on_progress=lambda d, _t: progress.update(d))
            fill_rate = (n - sample) / max(time.perf_counter() - t0, 1e-9)
        rows.append([n, "add_many storage only (filler vectors)", f"{fill_rate:.0f}/s", "", ""])
        optimize_s = 0.0
        if optimize:
            with MemoryProvider(cfg, embedder=real, vector_store=vector_store()) as mem:
                t0 = time.perf_counter()
                mem.optimize()
                optimize_s = time.perf_counter() - t0
            rows.append([n, "optimize() after the bulk load", f"{optimize_s:.1f} s", "", ""])
        queries = [query_pool[i % len(query_pool)] + ("" if i < len(query_pool) else f" #{i}") for i in range(rounds)]
        embed_times, qvecs = [], {}
        for q in queries:
            t0 = time.perf_counter()
            qvecs[q] = real.embed_query(q)
            embed_times.append(time.perf_counter() - t0)
        with MemoryProvider(cfg, embedder=FixedQueryEmbedder(real, qvecs), vector_store=vector_store()) as mem:
            for q in queries[:5]:  # warm up
                mem.search(q, user_id="user0")
            parts = HermesInternals(mem)
            if parts.engine is None or parts.keyword is None:
                raise SystemExit("benchmarks/_stores.py HermesInternals no longer finds the engine or keyword leg")
            engine: list[float] = []
            keyword: list[float] = []
            rest: list[float] = []
            for i, q in enumerate(queries):
                uid = f"user{i % users}"
                t0 = time.perf_counter()
                parts.engine(qvecs[q], uid)
                engine.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                parts.keyword(uid, q)
                keyword.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                mem.search(q, user_id=uid, top_k=5)
                rest.append(time.perf_counter() - t0)
            disk = disk_mb(mem)
        # adding memories needs no rebuild: 1% more, one add() at a time, then the same searches again
        extra = [MemoryItem(content=texts[i % len(texts)], user_id=f"user{i % users}", session_id=f"late{i // 50}")
                 for i in range(max(n // 100, 50))]
        with MemoryProvider(cfg, embedder=filler, vector_store=vector_store()) as mem:
            for item in extra:
                mem.add(item.content, user_id=item.user_id, session_id=item.session_id)
        with MemoryProvider(cfg, embedder=FixedQueryEmbedder(real, qvecs), vector_store=vector_store()) as mem:
            after = []
            for i, q in enumerate(queries):
                t0 = time.perf_counter()
                mem.search(q, user_id=f"user{i % users}", top_k=5)
                after.append(time.perf_counter() - t0)
        full = [e + r for e, r in zip(embed_times, rest, strict=True)]
        raw = [e + g for e, g in zip(embed_times, engine, strict=True)]
        rows.append([n, "query embedding (raw model)", f"p50 {pct(embed_times, 50):.2f} ms", f"p95 {pct(embed_times, 95):.2f} ms", ""])
        rows.append([n, "raw engine query (filtered top-40)", f"p50 {pct(engine, 50):.2f} ms", f"p95 {pct(engine, 95):.2f} ms", ""])
        rows.append([n, "keyword leg alone (metadata store BM25, top-40)", f"p50 {pct(keyword, 50):.2f} ms", f"p95 {pct(keyword, 95):.2f} ms", ""])
        rows.append([n, "search minus query embedding", f"p50 {pct(rest, 50):.2f} ms", f"p95 {pct(rest, 95):.2f} ms", ""])
        rows.append([n, f"  after {len(extra)} more single add() calls", f"p50 {pct(after, 50):.2f} ms", f"p95 {pct(after, 95):.2f} ms", ""])
        rows.append([n, "search vs raw embed+engine (p50)", f"{pct(full, 50):.2f} ms", f"{pct(raw, 50):.2f} ms", f"{pct(full, 50) / pct(raw, 50):.2f}"])
        rows.append([n, "RSS / disk", f"{rss_mb():.0f} MB", f"{disk:.0f} MB", ""])
        drop_schema(cfg)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__.split("\n")[0])
    parser.add_argument("--n", default="10000,100000", help="comma-separated store sizes")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--embedding-model", default="multilingual-e5-small")
    parser.add_argument("--sample", type=int, default=1000, help="texts embedded by the real model per size")
    parser.add_argument("--rounds", type=int, default=200, help="search queries timed per size")
    parser.add_argument("--no-optimize", action="store_true", help="time searches without optimize() first")
    parser.add_argument("--corpus", choices=["templates", "locomo"], default="templates",
                        help="generated template sentences (worst case for BM25) or natural LoCoMo turns")
    parser.add_argument("--data", default=None, help="locomo10.json for --corpus locomo (default: $HERMES_LOCOMO_PATH)")
    parser.add_argument("--metadata-url", default=None,
                        help="server configuration: PostgreSQL URL for metadata (a fresh schema per size, dropped after)")
    parser.add_argument("--qdrant-url", default=None,
                        help="server configuration: vectors through qdrant-client (a server URL, or ':memory:')")
    args = parser.parse_args(argv)
    rows: list[list[Any]] = []
    for n in [int(x) for x in args.n.split(",")]:
        rows.extend(run(n, args.users, args.embedding_model, args.sample, args.rounds, not args.no_optimize,
                        args.corpus, args.data, args.metadata_url, args.qdrant_url))
    print_table(["N", "measure", "hermes", "raw", "ratio"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
