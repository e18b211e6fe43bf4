"""Helpers shared by the benchmarks: data location, an embedding cache, progress lines, timing statistics, sizes.

Every benchmark that needs LoCoMo takes its path from ``--data PATH`` or the ``HERMES_LOCOMO_PATH`` environment
variable; when neither names a readable file it prints one line saying how to get it and exits with status 2
(:func:`require_locomo`). The data never lives in the repository (CC BY-NC 4.0).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "LOCOMO_ENV",
    "CachedEmbedder",
    "Progress",
    "add_data_arguments",
    "dir_bytes",
    "log",
    "parse_size",
    "pct",
    "print_table",
    "require_locomo",
    "rss_mb",
]

LOCOMO_ENV = "HERMES_LOCOMO_PATH"
_START = time.perf_counter()


def add_data_arguments(parser: argparse.ArgumentParser, synthetic: bool = False) -> None:
    """``--data`` (and ``--corpus`` when the benchmark has a synthetic fallback) with the wording all share."""
    parser.add_argument(
        "--data", default=None, help=f"LoCoMo's locomo10.json (default: ${LOCOMO_ENV}); read, never copied"
    )
    if synthetic:
        parser.add_argument(
            "--corpus", choices=["locomo", "synthetic"], default="locomo",
            help="LoCoMo conversations, or generated bilingual conversations that need nothing beside the clone",
        )


def require_locomo(path: str | None, synthetic_fallback: bool = False) -> Path:
    """The LoCoMo file named by ``path`` or ``$HERMES_LOCOMO_PATH``; else one line on stderr and exit status 2."""
    given = path or os.environ.get(LOCOMO_ENV)
    if given and Path(given).is_file():
        return Path(given)
    where = f" at {given}" if given else ""
    alt = ", or run with --corpus synthetic" if synthetic_fallback else ""
    print(
        f"LoCoMo not found{where}: get data/locomo10.json from https://github.com/snap-research/LoCoMo "
        f"(CC BY-NC 4.0) and pass --data PATH or set {LOCOMO_ENV}{alt}",
        file=sys.stderr,
    )
    raise SystemExit(2)


def log(message: str) -> None:
    """One progress line on stderr, with the seconds since the benchmark started."""
    print(f"[{time.perf_counter() - _START:8.1f} s] {message}", file=sys.stderr, flush=True)


class Progress:
    """Progress of one phase: a line with counts, rate and elapsed time at most every ``every`` seconds."""

    def __init__(self, label: str, total: int, every: float = 10.0) -> None:
        self.label, self.total, self.every = label, max(total, 1), every
        self.start = self._last = time.perf_counter()
        self._finished = False
        log(f"{label}: 0/{total:,}")

    def update(self, done: int, extra: str = "") -> None:
        now = time.perf_counter()
        if self._finished or (now - self._last < self.every and done < self.total):
            return
        self._last, self._finished = now, done >= self.total
        rate = done / max(now - self.start, 1e-9)
        log(f"{self.label}: {done:,}/{self.total:,} ({rate:,.0f}/s){' ' + extra if extra else ''}")


class CachedEmbedder:
    """Wraps a real embedder and caches its document/query vectors on disk, keyed by everything that changes a
    vector: the model, how a query is cut before it is embedded (the embedder's ``query_window``; a change of
    window is a new key, never a stale vector) and the text.

    The vectors are exactly the wrapped model's; the cache only spares recomputing them between runs. Timings
    never come from this class: benchmarks time the wrapped model (``inner``) directly.
    """

    def __init__(self, inner: Any, cache_dir: str | Path | None) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self.dim: int = inner.dim
        self.hits = 0
        self.misses = 0
        self._mem: dict[str, np.ndarray] = {}
        self._query_kind = "q" + str(getattr(inner, "query_window", "whole"))
        self._path: Path | None = None
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
        key = self._key(self._query_kind, text)
        if key not in self._mem:
            self.misses += 1
            self._mem[key] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        else:
            self.hits += 1
        return self._mem[key]

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Several forms of one question (a turn's question as asked and about the user): those not cached in one
        call to the wrapped model when it batches queries (the same vectors as one by one)."""
        keys = [self._key(self._query_kind, t) for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self._mem]
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        batch = getattr(self.inner, "embed_queries", None)
        if todo:
            vecs = batch([texts[i] for i in todo]) if batch is not None else [self.inner.embed_query(texts[i])
                                                                              for i in todo]
            for i, vec in zip(todo, vecs, strict=True):
                self._mem[keys[i]] = np.asarray(vec, dtype=np.float32)
        return [self._mem[k] for k in keys]

    def save(self) -> None:
        if self._path is not None and self.misses:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._path.with_suffix(".tmp.npz")
            np.savez(tmp, **self._mem)  # type: ignore[arg-type]
            tmp.replace(self._path)


def pct(seconds: Sequence[float], q: float) -> float:
    """The ``q``-th percentile of durations given in seconds, in milliseconds (nan when there are none)."""
    if not seconds:
        return float("nan")
    return float(np.percentile(np.asarray(seconds, dtype=np.float64) * 1000.0, q))


def rss_mb() -> float:
    """Resident memory of this process in MiB (psutil when installed, else /proc)."""
    try:
        import psutil

        return float(psutil.Process().memory_info().rss) / 2**20
    except ImportError:  # pragma: no cover - psutil is in the dev extra
        try:
            pages = int(Path("/proc/self/statm").read_text().split()[1])
            return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
        except (OSError, ValueError):
            return float("nan")


def dir_bytes(path: str | Path) -> int:
    """Bytes the files under ``path`` occupy on disk (allocated blocks, as ``du`` counts them: preallocated but
    unwritten parts of sparse files do not count); 0 when it does not exist."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


def parse_size(text: str) -> int:
    """'base' → 0 (the conversations as they are); '10k' → 10,000; '1M' → 1,000,000; '2500' → 2,500."""
    t = text.strip().lower().replace("_", "").replace(",", "")
    if t in ("base", "locomo", "0"):
        return 0
    mult = {"k": 1_000, "m": 1_000_000}.get(t[-1:], 1)
    return int(float(t[:-1] if mult > 1 else t) * mult)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A Markdown table on stdout; floats with three decimals."""
    cells = [[str(h) for h in headers]] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"

    print(line(cells[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print(line(row))
