"""Knowledge that stays current (docs/core.md#knowledge-that-stays-current): what one-memory-per-fact, as-of search and complete erasure cost.

Usage::

    python -m benchmarks.knowledge --n 2000,20000 --users 10 [--embedding-model hashing|multilingual-e5-small]
    python -m benchmarks.knowledge --n 2000 --metadata-url postgresql://... [--qdrant-url :memory:]

For each store size N (memories spread over ``--users`` users, each user's share also updated in 10% of its
memories) it reports:

- **same-fact check** — :func:`~hermes_memory_core.lifecycle.dedupe.find_duplicate` (what ``remember`` and
  promotion run before every write), p50/p95 over repeated and new statements, and ``remember`` end to end;
- **as-of search** — ``search(as_of=...)`` from before the updates, against ``search`` without it (p50/p95);
- **erasure** — ``purge_user`` of one user (rows, vectors, the vector shard rewrite, the keyword shard merge and
  WAL truncation, or PostgreSQL's VACUUM FULL) and ``delete(hard=True)`` of one memory.

``hashing`` (default) is a feature-hashing embedder that needs no model: erasure and the same-fact check do not
depend on the model; as-of search re-embeds changed versions, so run it with the real model for that column.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import print_table

THINGS = ["green tea", "black coffee", "jazz records", "Python", "Rust", "cycling", "chess", "Lisbon", "Berlin",
          "sourdough", "hiking", "Vim", "the piano", "sci-fi novels", "a red bicycle", "two cats", "yoga"]
VERBS = ["likes", "often talks about", "recently bought", "is learning", "plans a trip with", "writes about"]
ZH = ["绿茶", "美式咖啡", "爬山", "钢琴", "科幻小说", "骑行", "围棋", "杭州", "上海", "两只猫"]


class HashingEmbedder:
    """Feature hashing over words, L2-normalised: deterministic, no model (dim 384)."""

    model_id = "benchmarks/hashing-384"
    dim = 384

    def _vec(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, np.float32)
        for word in text.lower().split():
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if h >> 63 else -1.0
        n = float(np.linalg.norm(vec)) or 1.0
        return vec / n

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)


def _sentence(rnd: random.Random, i: int) -> str:
    if i % 4 == 0:
        return f"用户{rnd.choice(['喜欢', '经常聊', '最近买了', '在学'])}{rnd.choice(ZH)}（第{i}条）"
    return f"The user {rnd.choice(VERBS)} {rnd.choice(THINGS)} (note {i})"


def _timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def _p(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(n: int, users: int, args: argparse.Namespace) -> dict[str, float]:
    from hermes_memory_core import Caller, MemoryConfig, MemoryProvider, MemoryType
    from hermes_memory_core.lifecycle.dedupe import find_duplicate

    rnd = random.Random(n)
    clock = [1_700_000_000.0]
    embedder: Any = HashingEmbedder()
    if args.embedding_model != "hashing":
        from hermes_memory_core.embedding import load_embedder

        embedder = load_embedder(args.embedding_model)
    with tempfile.TemporaryDirectory() as tmp:
        overrides: dict[str, Any] = {"data_dir": Path(tmp) / "store", "encryption_key": "A" * 43 + "="}
        if args.metadata_url:
            overrides.update(metadata_url=args.metadata_url, metadata_schema=f"bench_{n}_{int(time.time())}",
                             vector_backend="qdrant", qdrant_url=args.qdrant_url, collection=f"bench_{n}")
        cfg = MemoryConfig(**overrides)
        mem = MemoryProvider(cfg, embedder=embedder, caller=Caller.admin("bench"), clock=lambda: clock[0])
        try:
            texts = [_sentence(rnd, i) for i in range(n)]
            items = [{"content": t, "user_id": f"u{i % users}", "tags": ["bench"]} for i, t in enumerate(texts)]
            for start in range(0, n, 2000):
                mem.add_many(items[start : start + 2000])
            before_updates = int(clock[0])
            clock[0] += 3600
            mine = [r.id for r in mem.list_memories(user_id="u0", limit=10_000)]
            for mid in mine[: max(1, len(mine) // 10)]:
                mem.update(mid, f"The user changed their mind about {rnd.choice(THINGS)}")
            clock[0] += 3600
            # same-fact check: repeated statements and new ones
            own = [t for i, t in enumerate(texts) if i % users == 0]
            probes = [rnd.choice(own) for _ in range(args.repeat)] + [_sentence(rnd, n + i) for i in range(args.repeat)]
            tiers = (MemoryType.LONG_TERM, MemoryType.PERMANENT)
            check = [t for p in probes for t in _timed(lambda p=p: find_duplicate(mem.engine.lookups, "u0", p, tiers, None), 1)]
            said = [f"I like {rnd.choice(THINGS)} (note {i})" for i in range(args.repeat)]
            remember = [t for s in said + said for t in _timed(lambda s=s: mem.remember(s, user_id="u0"), 1)]
            # as-of search against the usual one
            queries = [rnd.choice(THINGS + ZH) for _ in range(args.repeat)]
            plain = [_timed(lambda q=q: mem.search(q, user_id="u0", top_k=10), 1)[0] for q in queries]
            as_of = [_timed(lambda q=q: mem.search(q, user_id="u0", top_k=10, as_of=before_updates), 1)[0]
                     for q in queries]
            # erasure
            victim = mem.add("The user's one-off note to erase", user_id="u1")
            hard = _timed(lambda: mem.delete(victim, hard=True), 1)[0]
            report = mem.purge_user(f"u{users - 1}")
        finally:
            mem.close()
    return {
        "n": n, "check_p50": _p(check, 0.5), "check_p95": _p(check, 0.95), "remember_p50": _p(remember, 0.5),
        "search_p50": _p(plain, 0.5), "as_of_p50": _p(as_of, 0.5), "as_of_p95": _p(as_of, 0.95),
        "hard_delete_s": hard / 1000, "purge_s": report.seconds, "purged": report.memories,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", default="2000,20000", help="store sizes, comma-separated")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=50, help="timed calls per measurement")
    parser.add_argument("--embedding-model", default="hashing")
    parser.add_argument("--metadata-url", default=None)
    parser.add_argument("--qdrant-url", default=":memory:")
    args = parser.parse_args(argv)
    rows = []
    for n in (int(x) for x in args.n.split(",")):
        r = run(n, args.users, args)
        rows.append([r["n"], r["check_p50"], r["check_p95"], r["remember_p50"], r["search_p50"], r["as_of_p50"],
                     r["as_of_p95"], r["hard_delete_s"], r["purge_s"], int(r["purged"])])
        print(f"done n={n}: {statistics.fmean([rows[-1][1]]):.2f} ms same-fact check p50", flush=True)
    print_table(["memories", "same-fact p50 ms", "p95 ms", "remember p50 ms", "search p50 ms", "as-of p50 ms",
                 "as-of p95 ms", "hard delete s", "purge_user s", "purged"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
