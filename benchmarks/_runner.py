"""Drives stores through one workload in one process, interleaved, and collects what the tables report.

For every event of :meth:`Workload.stream`, each store gets the same write (timed: store time per memory) or, if
it answers while it fills, the same question (timed: search with the query vector given, i.e. search minus the
query embedding; recall@k against the evidence). The store order rotates from one question to the next, so no
store always runs first. Each question's embedding is computed by the real model right before, timed, and handed
to every store. After the stream, each store's :meth:`finish` (bulk stores: ``optimize()``) and then every
question once more on the full stores, with Hermes' raw parts (engine query, keyword leg) timed beside them.

RSS is one process's: besides the process total, each store is charged the growth of RSS across its own calls
(an approximation: memory freed by one store and reused by another is not tracked).
"""

from __future__ import annotations

import cProfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmarks._common import Progress, log, pct, print_table, rss_mb
from benchmarks._stores import BenchStore, HermesStore
from benchmarks._workload import Ask, Workload, Write

__all__ = ["RunResult", "StoreResult", "run_and_report", "run_workload"]


@dataclass
class StoreResult:
    """Timings (seconds) and measures of one store over one workload."""

    name: str
    memories: int = 0
    write_s: float = 0.0
    finish_s: float = 0.0
    optimize_s: float = 0.0
    rss_mb: float = 0.0
    disk_mb: float = float("nan")
    growth: list[float] = field(default_factory=list)
    growth_recall: list[float] = field(default_factory=list)
    full: list[float] = field(default_factory=list)
    full_recall: list[float] = field(default_factory=list)
    engine: list[float] = field(default_factory=list)
    keyword: list[float] = field(default_factory=list)

    def summary(self, embed_doc_s: float) -> dict[str, Any]:
        """The numbers the tables print (milliseconds, rates, ratios)."""
        per_mem = (self.write_s + self.finish_s) / max(self.memories, 1)
        return {
            "store": self.name,
            "memories": self.memories,
            "search_p50_ms": pct(self.full, 50),
            "search_p95_ms": pct(self.full, 95),
            "growth_p50_ms": pct(self.growth, 50),
            "growth_p95_ms": pct(self.growth, 95),
            "recall": float(np.mean(self.full_recall)) if self.full_recall else float("nan"),
            "growth_recall": float(np.mean(self.growth_recall)) if self.growth_recall else float("nan"),
            "engine_p50_ms": pct(self.engine, 50),
            "engine_p95_ms": pct(self.engine, 95),
            "keyword_p50_ms": pct(self.keyword, 50),
            "keyword_p95_ms": pct(self.keyword, 95),
            "store_us_per_memory": 1e6 * per_mem,
            "optimize_s": self.optimize_s,
            "ingest_vs_raw_embedding": (embed_doc_s + per_mem) / embed_doc_s if embed_doc_s > 0 else float("nan"),
            "ingest_per_s": 1.0 / (embed_doc_s + per_mem) if embed_doc_s > 0 else float("nan"),
            "rss_mb": self.rss_mb,
            "disk_mb": self.disk_mb,
        }


@dataclass
class RunResult:
    """One workload over several stores."""

    label: str
    users: int
    memories: int
    questions: int
    embed_doc_s: float
    embed_query: list[float] = field(default_factory=list)
    full_embed: list[float] = field(default_factory=list)
    stores: list[StoreResult] = field(default_factory=list)
    process_rss_mb: float = 0.0
    wall_s: float = 0.0

    def size(self) -> str:
        """The table's size cell: memories, per user, users."""
        return f"{self.memories:,} ({self.memories // max(self.users, 1):,}/user, {self.users} users)"

    def footer(self) -> str:
        """The line printed under a run's table: the model's own timings and the process."""
        return (f"{self.label}: query embedding (model, same run) p50 {pct(self.full_embed, 50):.2f} / "
                f"p95 {pct(self.full_embed, 95):.2f} ms; raw batch embedding {1 / self.embed_doc_s:.1f} texts/s; "
                f"process RSS {self.process_rss_mb:.0f} MB; {self.questions:,} questions; {self.wall_s:.0f} s")

    def summaries(self) -> list[dict[str, Any]]:
        out = []
        for s in self.stores:
            row = s.summary(self.embed_doc_s)
            if s.engine and len(s.engine) == len(self.full_embed):
                full = [e + x for e, x in zip(self.full_embed, s.full, strict=True)]
                raw = [e + x for e, x in zip(self.full_embed, s.engine, strict=True)]
                row["search_vs_raw_p50"] = pct(full, 50) / pct(raw, 50)
            out.append(row)
        return out


def _recall(keys: Sequence[str | None], evidence: frozenset[str], k: int) -> float:
    return len(evidence & {x for x in keys[:k] if x is not None}) / len(evidence)


def run_workload(
    work: Workload, stores: Sequence[BenchStore], real: Any, *, label: str, embed_doc_s: float, k: int = 10,
    warmup: int = 5, profiler: cProfile.Profile | None = None, profiled: str | None = None,
) -> RunResult:
    """Run ``work`` against ``stores`` (see the module docstring); ``profiler`` wraps the searches of ``profiled``."""
    t_start = time.perf_counter()
    result = RunResult(label, len(work.users), work.total, work.asked, embed_doc_s)
    by_name = {s.name: StoreResult(s.name) for s in stores}
    result.stores = list(by_name.values())
    turn = 0

    def ask(question: Ask, phase: str) -> None:
        nonlocal turn
        t0 = time.perf_counter()
        qvec = np.asarray(real.embed_query(question.text), dtype=np.float32)
        (result.embed_query if phase == "growth" else result.full_embed).append(time.perf_counter() - t0)
        turn += 1
        order = list(stores[turn % len(stores):]) + list(stores[: turn % len(stores)])
        for store in order:
            if phase == "growth" and not store.continuous:
                continue
            res = by_name[store.name]
            before = rss_mb()
            prof = profiler if profiler is not None and store.name == profiled else None
            if prof is not None:
                prof.enable()
            t0 = time.perf_counter()
            keys = store.search(question.user, question.text, qvec, k, question.now)
            dt = time.perf_counter() - t0
            if prof is not None:
                prof.disable()
            (res.growth if phase == "growth" else res.full).append(dt)
            (res.growth_recall if phase == "growth" else res.full_recall).append(_recall(keys, question.evidence, k))
            if phase == "full" and isinstance(store, HermesStore):
                parts = store.internals
                if parts.engine is not None:
                    t0 = time.perf_counter()
                    parts.engine(qvec, question.user)
                    res.engine.append(time.perf_counter() - t0)
                if parts.keyword is not None:
                    t0 = time.perf_counter()
                    parts.keyword(question.user, question.text)
                    res.keyword.append(time.perf_counter() - t0)
            res.rss_mb += rss_mb() - before

    progress = Progress(f"{label}: writing session by session, asking as evidence completes", work.total)
    written = asked = 0
    for event in work.stream():
        if isinstance(event, Write):
            for store in stores:
                res = by_name[store.name]
                before = rss_mb()
                t0 = time.perf_counter()
                store.write(event)
                res.write_s += time.perf_counter() - t0
                res.rss_mb += rss_mb() - before
                res.memories += len(event.texts)
            written += len(event.texts)
            progress.update(written, f"{asked:,} questions asked")
        else:
            ask(event, "growth")
            asked += 1
    log(f"{label}: stream done, {written:,} memories written, {asked:,} questions asked")
    for store in stores:
        res = by_name[store.name]
        before = rss_mb()
        t0 = time.perf_counter()
        store.finish()
        res.finish_s = time.perf_counter() - t0
        res.rss_mb += rss_mb() - before
        if isinstance(store, HermesStore):
            res.optimize_s = store.optimize_s
        if not store.continuous:
            log(f"{label}: {store.name}: bulk load finished, optimize() took {store.optimize_s if isinstance(store, HermesStore) else 0:.1f} s")
    final = work.final_questions()
    for question in final[:warmup]:  # warm-up, untimed: every store once
        qvec = np.asarray(real.embed_query(question.text), dtype=np.float32)
        for store in stores:
            store.search(question.user, question.text, qvec, k, question.now)
    progress = Progress(f"{label}: the same questions on the full stores", len(final))
    for i, question in enumerate(final, 1):
        ask(question, "full")
        progress.update(i)
    for store in stores:
        by_name[store.name].disk_mb = store.disk_bytes() / 2**20
    result.process_rss_mb = rss_mb()
    result.wall_s = time.perf_counter() - t_start
    return result


def run_and_report(
    work: Workload, stores: Sequence[BenchStore], real: Any, *, headers: Sequence[str],
    table_rows: Callable[[RunResult], list[list[Any]]], **run: Any,
) -> tuple[RunResult, list[list[Any]]]:
    """:func:`run_workload` (``run`` are its keyword arguments), the stores closed whatever happens; then the run's
    table and footer printed. Returns the result and its table rows."""
    try:
        result = run_workload(work, stores, real, **run)
    finally:
        for store in stores:
            store.close()
    rows = table_rows(result)
    print_table(headers, rows)
    print(result.footer() + "\n", flush=True)
    return result, rows
