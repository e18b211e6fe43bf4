"""How big an embedded store is on disk, and how fast it searches, at 20 / 1k / 10k / 100k memories.

Usage::

    python -m benchmarks.store_size [--sizes 20,1k,10k,100k] [--layouts small,shard] [--queries 200]
                                    [--dir /tmp] [--embedder hashing|model]

For each size and layout a new store is written in a temporary folder under ``--dir`` through the public
``add_many`` path (batches of 1,000 long-term memories of one user), closed, and measured:

- ``apparent MiB``: the files' sizes (``du --apparent-size``): what a copy, an archive or a sync client that does
  not keep files sparse moves;
- ``real MiB``: the blocks allocated (``du``);
- ``add s`` (all of ``add_many``), ``open s`` (opening the closed store again), ``search p50/p95 ms``
  (``MemoryProvider.search``, ``top_k=5``, over ``--queries`` questions) and ``vector p50 ms`` (the vector leg
  alone: ``engine.vectors.search``);
- ``read-only open s``: opening it with ``read_only=True`` (the vector shard is then copied, holes kept, into a
  private temporary folder; a small store's vector file likewise).

Layouts: ``small`` is the default (vectors in one SQLite file until 10,000 points, then a shard); ``shard`` is a
shard from the first point, as every store was written before small stores existed. ``--embedder hashing`` (the
default) embeds with a fast deterministic feature-hashing embedder (384 dimensions, like the default model) so that
100k memories take minutes, not hours: sizes and search times do not depend on which vectors are stored, only on
how many; ``--embedder model`` uses the configured model.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import dir_bytes, parse_size, pct, print_table

WORDS = ("python rust coffee tea hiking chess paris tokyo piano guitar dog cat garden bike rain sun jazz novel "
         "sister brother doctor teacher monday friday summer winter pasta curry football tennis").split()


class HashingEmbedder:
    """Deterministic 384-dimensional bag-of-words vectors (feature hashing), L2-normalised."""

    model_id = "benchmarks/hashing-384"
    dim = 384

    def _one(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for token in text.lower().split():
            h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if h >> 63 else -1.0
        return vec / (float(np.linalg.norm(vec)) or 1.0)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._one(text)


def apparent_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _texts(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=8)) + f" (note {i})" for i in range(n)]


def run_one(size: int, layout: str, root: Path, embedder: Any, queries: list[str]) -> list[Any]:
    from hermes_memory_core import Caller, MemoryConfig, MemoryProvider

    data = Path(tempfile.mkdtemp(prefix=f"size-{size}-{layout}-", dir=root))
    # "shard": a store as written before small stores, a shard from its first point
    cfg = MemoryConfig(data_dir=data, embedding_batch_size=1000, embedding_model="all-MiniLM-L6-v2",
                       small_store_max_points=0 if layout == "shard" else 10_000)
    caller = Caller.admin("benchmark")

    texts = _texts(size, seed=size)
    start = time.perf_counter()
    with MemoryProvider(cfg, embedder=embedder, caller=caller) as mem:
        for at in range(0, size, 1000):
            mem.add_many([{"content": t, "user_id": "u"} for t in texts[at:at + 1000]], trusted=True)
    added = time.perf_counter() - start
    apparent, real = apparent_bytes(data), dir_bytes(data)
    start = time.perf_counter()
    mem = MemoryProvider(cfg, embedder=embedder, caller=caller)
    opened = time.perf_counter() - start
    try:
        from hermes_memory_core.storage.vectors import VectorFilter

        mem.search(queries[0], user_id="u")  # warm
        took, vec_took = [], []
        for q in queries:
            t0 = time.perf_counter()
            mem.search(q, user_id="u", top_k=5)
            took.append(time.perf_counter() - t0)
            qv = embedder.embed_query(q)
            t0 = time.perf_counter()
            mem.engine.vectors.search(qv, 20, VectorFilter("u"))
            vec_took.append(time.perf_counter() - t0)
    finally:
        mem.close()
    start = time.perf_counter()
    with MemoryProvider(cfg.model_copy(update={"read_only": True}), embedder=embedder, caller=caller) as ro:
        ro_open = time.perf_counter() - start
        assert ro.stats().total_active == size
    shutil.rmtree(data, ignore_errors=True)
    return [size, layout, round(added, 2), round(apparent / 2**20, 2), round(real / 2**20, 2), round(opened, 3),
            round(pct(took, 50), 2), round(pct(took, 95), 2),
            round(statistics.median(vec_took) * 1000, 3), round(ro_open, 3)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.store_size", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20,1k,10k,100k", help="memory counts (default 20,1k,10k,100k)")
    parser.add_argument("--layouts", default="small,shard", help="small (the default layout), shard, or both")
    parser.add_argument("--queries", type=int, default=200, help="search questions per store (default 200)")
    parser.add_argument("--dir", default=None, help="folder the stores are written in (default: the temp folder)")
    parser.add_argument("--embedder", choices=["hashing", "model"], default="hashing")
    args = parser.parse_args(argv)
    embedder: Any = HashingEmbedder()
    if args.embedder == "model":
        from hermes_memory_core.embedding import load_embedder

        embedder = load_embedder("all-MiniLM-L6-v2", 1, 64)
    root = Path(args.dir or tempfile.gettempdir())
    queries = _texts(args.queries, seed=99)
    rows = []
    for size in (parse_size(s) for s in args.sizes.split(",")):
        for layout in args.layouts.split(","):
            rows.append(run_one(size, layout.strip(), root, embedder, queries))
            print(f"# {size} {layout} done", flush=True)
    print(f"# {os.cpu_count()} CPUs; stores under {root}")
    print_table(["memories", "layout", "add s", "apparent MiB", "real MiB", "open s", "search p50 ms",
                 "search p95 ms", "vector p50 ms", "read-only open s"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
