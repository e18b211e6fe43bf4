"""Helpers shared by the benchmarks: an embedding cache, progress output and table printing."""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CachedEmbedder", "Progress", "print_table"]


class CachedEmbedder:
    """Wraps a real embedder and caches its document/query vectors on disk by (model, text) hash.

    The vectors are exactly the wrapped model's; the cache only spares recomputing them between runs.
    """

    def __init__(self, inner: Any, cache_dir: str | Path | None) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.hits = 0
        self.misses = 0
        self._mem: dict[str, np.ndarray] = {}
        self._path = None
        if cache_dir:
            safe = hashlib.sha1(self.model_id.encode()).hexdigest()[:12]
            self._path = Path(cache_dir) / f"emb-{safe}.npz"
            if self._path.exists():
                with np.load(self._path) as data:
                    self._mem = {k: data[k] for k in data.files}

    def _key(self, kind: str, text: str) -> str:
        return kind + hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key("d", t) for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self._mem]
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        if todo:
            vecs = self.inner.embed_documents([texts[i] for i in todo])
            for i, vec in zip(todo, vecs, strict=True):
                self._mem[keys[i]] = np.asarray(vec, dtype=np.float32)
        return np.stack([self._mem[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        key = self._key("q", text)
        if key not in self._mem:
            self.misses += 1
            self._mem[key] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        else:
            self.hits += 1
        return self._mem[key]

    def save(self) -> None:
        if self._path is not None and self.misses:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._path.with_suffix(".tmp.npz")
            np.savez(tmp, **self._mem)
            tmp.replace(self._path)


class Progress:
    """A one-line progress indicator on stderr."""

    def __init__(self, label: str, total: int) -> None:
        self.label, self.total, self.start = label, max(total, 1), time.time()
        self._last = 0.0

    def update(self, done: int) -> None:
        now = time.time()
        if now - self._last < 0.5 and done < self.total:
            return
        self._last = now
        rate = done / max(now - self.start, 1e-9)
        sys.stderr.write(f"\r{self.label}: {done}/{self.total} ({rate:.0f}/s)   ")
        if done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(h) for h in headers]] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    line = lambda row: "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"  # noqa: E731
    print(line(cells[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print(line(row))
