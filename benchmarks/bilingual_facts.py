"""Cross-language recall on the bilingual fact set (``benchmarks/data/bilingual_facts.json``), one run.

Usage (the command line is a contract)::

    python -m benchmarks.bilingual_facts --json OUT.json
    python -m benchmarks.bilingual_facts --llm scripted --json OUT.json
    python -m benchmarks.bilingual_facts --latency

One user's 108 facts (54 Chinese, 54 English; ``--first-80``: the first 80, the set's version 1) and 40
distractors are stored through the public API (``add_many``, long-term memories, no session), then every fact is
asked once in the other language ("cross") and once in its own ("same") with ``search``; a question is answered
when its fact comes first (top-1) or within the first five hits (R@5). Two subsets of the cross questions are
also reported: the hard pairs (a generic question whose fact has look-alikes) and the 24 facts asked with a
question that shares no dictionary word with them. The 44 unrelated questions go through ``recall``: the share
that recalls nothing is the relevance floor's score, and ``recall`` is also asked every related question, to
count how often the floor would hide the right fact. Embeddings are cached in ``--cache-dir``.

With ``--llm scripted`` the provider gets a :class:`ScriptedTranslator` (answers in ``--llm-latency-ms``, 50 ms
by default) built from the set's own hand-written pairs: a perfect translator, so the figures are an upper bound
that a real model's quality decides. It gives every memory its other-language key terms at write time (in the
background; the run waits for them) and translates each question at search time. Every question is asked a
second time to time the repeated question (with a model: the translation's cache). For timings without the
embedding cache, pass ``--cache-dir ''``.

``--latency`` times what the model adds to a search instead, every part in one run: three stores hold the same
memories (written through the embedding cache), one without a model, one with the scripted model, one with the
model and only the English memories (a one-language user). Every question is asked on the first two in turn,
the first time and again, its embeddings taken from the embedding cache (warmed beforehand: the times are
the search machinery's) or, with ``--live-queries``, embedded by the real model every time. The
table gives each path's p50 / p95 and the per-question difference to the same ask without a model (p50 of the
paired differences), beside the raw parts timed in the same run: the model's answer alone and the embedding of
a question alone. The one-language store is asked every English question: the model calls it causes are
counted (there should be none).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import CachedEmbedder, print_table

__all__ = ["DATA", "evaluate", "main"]

#: The fact set shipped with the repository (CC0).
DATA = Path(__file__).parent / "data" / "bilingual_facts.json"


class _LiveQueries:
    """An embedder that writes through the cache and embeds every query with the real model (timed searches)."""

    def __init__(self, cached: CachedEmbedder) -> None:
        self.cached = cached
        self.model_id, self.dim = cached.model_id, cached.dim

    def embed_documents(self, texts: Any) -> Any:
        return self.cached.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        return self.cached.inner.embed_query(text)


class ScriptedTranslator:
    """A stand-in for the host's model, built from the fact set's own pairs: it translates a question into its
    counterpart in the other language (a fact's cross and same questions, an unrelated question's
    ``translation``) and answers a memory's key terms with the pieces of its ``translation``; anything else gets
    an empty answer. Each answer takes ``latency`` seconds, as a model's would.

    Args:
        data: The fact set.
        latency: Seconds per answer.
    """

    def __init__(self, data: dict[str, Any], latency: float = 0.05) -> None:
        self.latency = latency
        self.calls = 0
        self.answer_s: list[float] = []  # how long each answer took (the model's own time)
        self.questions: dict[str, str] = {}
        for fact in data["facts"]:
            qs = fact["questions"]
            for q in qs:
                pair = next((o for o in qs if o["lang"] != q["lang"]), None)
                if pair is not None:
                    self.questions[q["text"]] = pair["text"]
        for u in data["unrelated"]:
            if u.get("translation"):
                self.questions[u["text"]] = u["translation"]
        self.memories = {m["text"]: m["translation"] for m in [*data["facts"], *data["distractors"]]
                         if m.get("translation")}

    def complete(self, prompt: str) -> str:
        self.calls += 1
        t0 = time.perf_counter()
        time.sleep(self.latency)
        self.answer_s.append(time.perf_counter() - t0)
        if "\n\nQuestion: " in prompt:
            return self.questions.get(prompt.rsplit("\n\nQuestion: ", 1)[1], "")
        if "\n\nNote: " in prompt:
            translation = self.memories.get(prompt.rsplit("\n\nNote: ", 1)[1])
            if translation:
                pieces = [p.strip() for p in re.split(r"[,，。；;]|\.(?:\s|$)", translation)]
                return json.dumps([p for p in pieces if p], ensure_ascii=False)
        return ""

    async def acomplete(self, prompt: str) -> str:
        return self.complete(prompt)


def evaluate(
    data_path: str | Path = DATA, cache_dir: str | None = ".bench_cache", top_k: int = 5, llm: str = "none",
    latency: float = 0.05, first_80: bool = False,
) -> dict[str, Any]:
    """Store the fact set in a fresh temporary store and ask every question; returns the numbers.

    Args:
        llm: ``none`` (offline) or ``scripted`` (a :class:`ScriptedTranslator` answering in ``latency`` seconds;
            every question is asked twice either way, to time the repeated question).
        first_80: Only the set's first 80 facts (version 1, before the hard pairs and the facts that share no
            dictionary word with their question were added), for comparison with earlier figures.
    """
    from hermes_memory_core import MemoryConfig, MemoryProvider
    from hermes_memory_core.embedding import load_embedder

    data = json.loads(Path(data_path).read_text(encoding="utf-8"))
    if first_80:
        data["facts"] = [f for f in data["facts"] if "group" not in f]
    user = data["user_id"]
    memories = [*data["facts"], *data["distractors"]]
    model = ScriptedTranslator(data, latency) if llm == "scripted" else None
    with tempfile.TemporaryDirectory(prefix="hermes-facts-") as tmp:
        cfg = MemoryConfig(data_dir=Path(tmp) / "store")
        embedder = CachedEmbedder(load_embedder(cfg.embedding_model, cfg.embedding_threads), cache_dir)
        with MemoryProvider(cfg, embedder=embedder, llm=model) as mem:
            t_write = time.perf_counter()
            ids = mem.add_many([{"content": m["text"], "user_id": user, "memory_type": "long_term"} for m in memories])
            write_s = time.perf_counter() - t_write
            mem.flush()  # the write-time key terms are made in the background
            write_calls = model.calls if model is not None else 0
            key = {mid: m["id"] for mid, m in zip(ids, memories, strict=True)}
            rows: list[dict[str, Any]] = []
            latencies: list[float] = []
            repeated: list[float] = []
            for fact in data["facts"]:
                for q in fact["questions"]:
                    t0 = time.perf_counter()
                    hits = [key[h.id] for h in mem.search(q["text"], user_id=user, top_k=top_k)]
                    latencies.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()  # asked again: with a model, the translation comes from the cache
                    mem.search(q["text"], user_id=user, top_k=top_k)
                    repeated.append(time.perf_counter() - t0)
                    recalled = [key[h.id] for h in mem.recall(q["text"], user_id=user, top_k=top_k)]
                    rows.append({
                        "fact": fact["id"], "group": fact.get("group", ""), "kind": q["kind"], "question_lang": q["lang"], "question": q["text"],
                        "top1": bool(hits) and hits[0] == fact["id"], "r5": fact["id"] in hits[:5],
                        "recall_keeps": fact["id"] in recalled, "first": hits[0] if hits else None,
                    })
            unrelated = [
                {"id": u["id"], "kind": u["kind"], "question": u["text"],
                 "recalled": [key[h.id] for h in mem.recall(u["text"], user_id=user, top_k=top_k)]}
                for u in data["unrelated"]
            ]
        embedder.save()

    def share(subset: list[dict[str, Any]], field: str) -> float:
        return statistics.fmean(1.0 if r[field] else 0.0 for r in subset) if subset else 0.0

    groups = {
        "cross (zh question → en fact)": [r for r in rows if r["kind"] == "cross" and r["question_lang"] == "zh"],
        "cross (en question → zh fact)": [r for r in rows if r["kind"] == "cross" and r["question_lang"] == "en"],
        "cross": [r for r in rows if r["kind"] == "cross"],
        "cross, hard pairs": [r for r in rows if r["kind"] == "cross" and r["group"] == "hard"],
        "cross, no shared dictionary word": [r for r in rows if r["kind"] == "cross" and r["group"] == "disjoint"],
        "same": [r for r in rows if r["kind"] == "same"],
    }
    summary = {
        name: {"questions": len(sub), "top1": share(sub, "top1"), "r5": share(sub, "r5"),
               "recall_keeps_fact": share(sub, "recall_keeps")}
        for name, sub in groups.items()
        if sub
    }
    floor = {
        kind: statistics.fmean(0.0 if u["recalled"] else 1.0 for u in unrelated if u["kind"] == kind)
        for kind in ("off_topic", "unstored")
    }
    floor["all"] = statistics.fmean(0.0 if u["recalled"] else 1.0 for u in unrelated)
    return {
        "summary": summary,
        "unrelated_recall_nothing": floor,
        "search_p50_ms": 1000 * statistics.median(latencies),
        "repeated_search_p50_ms": 1000 * statistics.median(repeated),
        "llm": llm,
        "model_latency_ms": 1000 * latency if model is not None else None,
        "add_many_s": write_s,
        "model_calls_per_memory": write_calls / len(memories) if model is not None else 0.0,
        "rows": rows,
        "unrelated": unrelated,
        "embedding_model": embedder.model_id,
    }


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_latency(data_path: str | Path = DATA, cache_dir: str | None = ".bench_cache",
                    latency: float = 0.05, live: bool = False) -> dict[str, Any]:
    """Time what the scripted model adds to ``search`` (see the module docstring, ``--latency``).

    Args:
        live: Embed every question (and translation, dictionary gloss) with the real model while timing; else
            they come from the embedding cache, warmed beforehand, so the times are the search machinery's.
    """
    from hermes_memory_core import MemoryConfig, MemoryProvider
    from hermes_memory_core.embedding import load_embedder

    data = json.loads(Path(data_path).read_text(encoding="utf-8"))
    user = data["user_id"]
    memories = [*data["facts"], *data["distractors"]]
    questions = [q["text"] for f in data["facts"] for q in f["questions"]]
    english = [q["text"] for f in data["facts"] for q in f["questions"] if q["lang"] == "en"]
    times: dict[str, list[float]] = {k: [] for k in ("offline", "offline again", "model", "model again",
                                                     "embedding", "one-language")}
    with tempfile.TemporaryDirectory(prefix="hermes-latency-") as tmp:
        cfg = MemoryConfig(data_dir=Path(tmp) / "off")
        cached = CachedEmbedder(load_embedder(cfg.embedding_model, cfg.embedding_threads), cache_dir)
        embedder: Any = _LiveQueries(cached) if live else cached
        model, alone = ScriptedTranslator(data, latency), ScriptedTranslator(data, latency)
        stores = {
            "off": MemoryProvider(cfg, embedder=embedder),
            "model": MemoryProvider(MemoryConfig(data_dir=Path(tmp) / "model"), embedder=embedder, llm=model),
            "alone": MemoryProvider(MemoryConfig(data_dir=Path(tmp) / "alone"), embedder=embedder, llm=alone),
        }
        if not live:  # every embedding the timed searches need, computed now (two stores that are not timed)
            for llm in (None, ScriptedTranslator(data, 0.0)):
                with MemoryProvider(MemoryConfig(data_dir=Path(tmp) / f"warm-{llm is None}"), embedder=cached,
                                    llm=llm) as warm:
                    warm.add_many([{"content": m["text"], "user_id": user, "memory_type": "long_term"}
                                   for m in memories])
                    warm.flush()
                    for q in questions:
                        warm.search(q, user_id=user)
        try:
            for name, mem in stores.items():
                kept = [m for m in memories if name != "alone" or m["lang"] == "en"]
                mem.add_many([{"content": m["text"], "user_id": user, "memory_type": "long_term"} for m in kept])
                mem.flush()  # key terms written; the timed part asks no write-time question
            for mem in stores.values():  # warm every path once (profile, caches of the engine)
                mem.search("warm up", user_id=user)
            model.answer_s.clear()
            calls_before = alone.calls
            for q in questions:
                for label, mem in (("offline", stores["off"]), ("model", stores["model"]),
                                   ("offline again", stores["off"]), ("model again", stores["model"])):
                    t0 = time.perf_counter()
                    mem.search(q, user_id=user)
                    times[label].append(time.perf_counter() - t0)
            for q in english:
                t0 = time.perf_counter()
                stores["alone"].search(q, user_id=user)
                times["one-language"].append(time.perf_counter() - t0)
            alone_calls = alone.calls - calls_before
            for q in questions:  # apart from the searches (the embedding runtime's threads stay busy a moment after)
                t0 = time.perf_counter()
                cached.inner.embed_query(q)  # the real model, whichever way the searches get their embeddings
                times["embedding"].append(time.perf_counter() - t0)
        finally:
            for mem in stores.values():
                mem.close()
        cached.save()

    def added(label: str, base: str) -> float:
        return 1000 * statistics.median(a - b for a, b in zip(times[label], times[base], strict=True))

    return {
        "questions": len(questions),
        "p50_ms": {k: _p(v, 0.5) for k, v in times.items()},
        "p95_ms": {k: _p(v, 0.95) for k, v in times.items()},
        "model_answer_p50_ms": _p(model.answer_s, 0.5),
        "added_first_ms": added("model", "offline"),
        "added_repeated_ms": added("model again", "offline again"),
        "one_language_model_calls": alone_calls,
        "model_latency_ms": 1000 * latency,
        "live_query_embeddings": live,
        "embedding_model": cached.model_id,
    }


def _print_latency(result: dict[str, Any]) -> None:
    p50, p95 = result["p50_ms"], result["p95_ms"]
    rows = [
        ["search, no model", p50["offline"], p95["offline"], "—"],
        ["search with the model, first time", p50["model"], p95["model"], f"{result['added_first_ms']:+.2f}"],
        ["search, no model, again", p50["offline again"], p95["offline again"], "—"],
        ["search with the model, again", p50["model again"], p95["model again"], f"{result['added_repeated_ms']:+.2f}"],
        ["(part) the model's answer alone", result["model_answer_p50_ms"], None, "—"],
        ["(part) embedding one question alone", p50["embedding"], p95["embedding"], "—"],
        ["one-language user with the model (English questions)", p50["one-language"], p95["one-language"], "—"],
    ]
    print_table(["path", "p50 ms", "p95 ms", "added vs no model, p50 of per-question differences (ms)"],
                [[r[0], f"{r[1]:.2f}", "" if r[2] is None else f"{r[2]:.2f}", r[3]] for r in rows])
    how = "embedded live" if result["live_query_embeddings"] else "from the embedding cache"
    print(f"\n{result['questions']} questions (their embeddings {how}), model {result['embedding_model']}, "
          f"scripted model answering in "
          f"{result['model_latency_ms']:.0f} ms; model calls for the one-language user's searches: "
          f"{result['one_language_model_calls']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bilingual_facts", description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA), help="a file in the fact set's format")
    parser.add_argument("--json", default=None, help="write the numbers (and every question's result) here")
    parser.add_argument("--cache-dir", default=".bench_cache", help="embedding cache ('' to disable)")
    parser.add_argument("--llm", choices=["none", "scripted"], default="none",
                        help="no model (offline), or a scripted translator built from the fact set's own pairs")
    parser.add_argument("--llm-latency-ms", type=float, default=50.0, help="how long the scripted model takes")
    parser.add_argument("--first-80", action="store_true", help="only the first 80 facts (the set's version 1)")
    parser.add_argument("--latency", action="store_true",
                        help="time what the model adds to a search (see the module docstring) instead")
    parser.add_argument("--live-queries", action="store_true",
                        help="with --latency: embed every question while timing (else from the warmed cache)")
    args = parser.parse_args(argv)
    if args.latency:
        timed = measure_latency(args.data, args.cache_dir or None, args.llm_latency_ms / 1000, args.live_queries)
        _print_latency(timed)
        if args.json:
            Path(args.json).write_text(json.dumps(timed, indent=2), encoding="utf-8")
        return 0
    result = evaluate(args.data, args.cache_dir or None, llm=args.llm, latency=args.llm_latency_ms / 1000,
                      first_80=args.first_80)
    print_table(
        ["questions", "n", "top-1", "R@5", "recall() keeps the fact"],
        [[name, v["questions"], v["top1"], v["r5"], v["recall_keeps_fact"]] for name, v in result["summary"].items()],
    )
    floor = result["unrelated_recall_nothing"]
    print(
        f"\nunrelated questions for which recall() returns nothing: {floor['all']:.3f} "
        f"(off-topic {floor['off_topic']:.3f}, about the user but never stored {floor['unstored']:.3f}); "
        f"model {result['embedding_model']}; search p50 {result['search_p50_ms']:.1f} ms, the same question again "
        f"{result['repeated_search_p50_ms']:.2f} ms"
    )
    if result["llm"] != "none":
        print(
            f"with the {result['llm']} model ({result['model_latency_ms']:.0f} ms an answer): add_many "
            f"{result['add_many_s']:.2f} s (key terms in the background); model calls per memory written "
            f"{result['model_calls_per_memory']:.2f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(result, ensure_ascii=False, indent=2), encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
