"""Hermes Agent provider: prefetch latency against Hermes' 8 s budget, sync_turn, and session-end extraction.

Usage::

    python -m benchmarks.hermes_agent --n 200,2000 [--queries 40] [--hermes-agent DIR]

For each store size N (long-term memories of the one user, plus a few permanent facts) it reports:

- ``prefetch`` p50/p95/max over questions (what Hermes waits for before each turn, on a thread with an 8 s
  budget: ``agent.memory_manager._EXTERNAL_PREFETCH_TIMEOUT_S``), and over greetings/fillers (the recall gate
  answers those without searching);
- the raw part it is built on: one query embedding (``embed_query``) p50/p95;
- with ``--hermes-agent DIR`` (a folder holding ``pip install --target DIR --no-deps hermes-agent==0.19.0
  pyyaml``), the same questions through Hermes' ``MemoryManager.prefetch_all`` (its thread and timeout
  included);
- ``sync_turn`` p50/p95 (one SQLite transaction; Hermes runs it on its background worker);
- ``on_session_end`` for a full ring of 12 buffered turns (extraction: classification, embedding, storage).

The memories are generated sentences (see ``benchmarks.scale``); every one is embedded by the real model.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import Progress, print_table
from benchmarks.scale import QUERIES, make_texts

BUDGET_S = 8.0
FILLERS = ["ok", "thanks!", "继续", "好的", "hi", "got it, thanks", "嗯嗯", "continue"]
FACTS = ["My name is Lin Wei.", "I'm allergic to peanuts.", "I was born in Chengdu in 1991."]
FACT_QUERIES = ["What is my name?", "What am I allergic to?", "Where was I born?", "我叫什么名字？"]


def _ms(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000, ordered[-1] * 1000


def _timed(fn: Any, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def run_size(n: int, queries: list[str], embedder: Any, hermes_dir: str | None) -> dict[str, Any]:
    from hermes_memory_agents.hermes_agent import HermesAgentProvider
    from hermes_memory_core import MemoryItem, MemoryProvider

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        cls: Any = HermesAgentProvider
        if hermes_dir:
            from hermes_memory_agents.hermes_plugin import HermesMemoryProvider

            cls = HermesMemoryProvider
        provider = cls({}, core_factory=lambda cfg: MemoryProvider(cfg, embedder=embedder))
        provider.initialize("bench", hermes_home=str(home), platform="cli", agent_context="primary",
                            agent_identity="default")
        mem = provider.memory
        texts = make_texts(n)
        progress = Progress(f"N={n}: storing", n)
        for start in range(0, n, 256):
            chunk = texts[start : start + 256]
            mem.add_many([MemoryItem(t, user_id="default", memory_type="long_term") for t in chunk])
            progress.update(start + len(chunk))
        for i, fact in enumerate(FACTS):
            provider.on_turn_start(i, fact)
            provider.handle_tool_call("hermes_memory_remember", {"content": fact, "tier": "permanent"})
        mem.flush()

        for q in queries[:3]:  # warm-up: model session, caches
            provider.prefetch(q)
        asked = [_timed(provider.prefetch, q) for q in queries]
        fillers = [_timed(provider.prefetch, q) for q in FILLERS * 3]
        raw = [_timed(embedder.embed_query, q) for q in queries]
        hermes: list[float] = []
        if hermes_dir:
            from agent.memory_manager import MemoryManager

            manager = MemoryManager()
            manager.add_provider(provider)
            hermes = [_timed(manager.prefetch_all, q) for q in queries]
        syncs = [
            _timed(provider.sync_turn, f"Step {i}: I moved the report job to Airflow, run {i}", f"Done with step {i}.",
                   session_id="bench")
            for i in range(12)
        ]
        end = _timed(provider.on_session_end, [])
        provider.shutdown()
    return {"asked": _ms(asked), "fillers": _ms(fillers), "raw": _ms(raw), "hermes": _ms(hermes) if hermes else None,
            "sync": _ms(syncs), "end": end * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hermes_agent", description=__doc__.split("\n")[0])
    parser.add_argument("--n", default="200,2000", help="store sizes (comma-separated)")
    parser.add_argument("--queries", type=int, default=40, help="questions timed per size")
    parser.add_argument("--hermes-agent", default=None, help="folder with hermes-agent 0.19 installed (--target)")
    parser.add_argument("--embedding-model", default="multilingual-e5-small")
    args = parser.parse_args(argv)
    if args.hermes_agent:
        sys.path.insert(0, args.hermes_agent)
    from hermes_memory_core.embedding import load_embedder

    embedder = load_embedder(args.embedding_model)
    pool = QUERIES + FACT_QUERIES
    queries = [pool[i % len(pool)] + ("" if i < len(pool) else f" ({i})") for i in range(args.queries)]
    rows = []
    for n in (int(x) for x in args.n.split(",")):
        r = run_size(n, queries, embedder, args.hermes_agent)
        a50, a95, amax = r["asked"]
        rows.append([
            n, f"{a50:.1f}", f"{a95:.1f}", f"{amax:.1f}", f"{r['fillers'][1]:.2f}",
            f"{r['raw'][0]:.1f}/{r['raw'][1]:.1f}",
            "-" if r["hermes"] is None else f"{r['hermes'][1]:.1f}",
            f"{a95 / (BUDGET_S * 1000):.2%}", f"{r['sync'][0]:.1f}/{r['sync'][1]:.1f}", f"{r['end']:.0f}",
        ])
    print_table(["N", "prefetch p50 ms", "p95 ms", "max ms", "fillers p95 ms", "embed_query p50/p95 ms",
                 "via MemoryManager p95 ms", "p95 / 8 s budget", "sync_turn p50/p95 ms", "session end (12 turns) ms"],
                rows)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
