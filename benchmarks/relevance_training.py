"""Train the offline relevance model on data the project generates itself, and write its weights.

Usage (the command line is a contract)::

    python -m benchmarks.relevance_training [--out PATH] [--check] [--rows-json OUT.json]

The shipped weights (``hermes_memory_core/text/data/relevance-model.npz``, read by
:mod:`hermes_memory_core.retrieval.relevance_model`) are this script's output: it regenerates them deterministically
(the same rows, a seeded, exact Newton fit; ``--check`` compares a fresh fit with the shipped file instead of writing
it). No LoCoMo text is read. The labelled (question, recalled line) pairs are built from in-repo material only:

* the fact set (``benchmarks/data/bilingual_facts.json``, CC0): its 108 facts and 40 look-alike distractors stored as
  long-term memories, asked the questions of the **odd-numbered** facts only (``zh01``, ``zh03``, …, ``en53``: the
  even-numbered ones stay for judging), each in four shapes: its own question, in the first person, the hand-written
  paraphrase of ``benchmarks/data/query_shapes.json`` and the other language's question;
* the same facts said as lines of a conversation (first person, imported as dialogue turns) between the ordinary
  chat lines of ``benchmarks/data/ordinary_talk.txt``, asked the odd-numbered facts' questions in the first person
  and across languages;
* small stores as a new user's: six facts each (three in each language), asked the odd-numbered facts' questions
  in the first person and across languages;
* questions about things never said (:data:`NEVER_SAID`, written here in both languages; none is one of the fact
  set's ``unrelated`` questions or of the long-use benchmark's), in the third and the first person, and requests
  that are not about the user, asked of both stores.

Each question is recalled with the default configuration and the offline model off (``recall_top_k`` lines); every
line recall returns is a row (:func:`~hermes_memory_core.retrieval.relevance_model.line_features`), labelled 1 when
it is the fact the question was written for (or its conversation line), else 0. The model is an L2-regularised
logistic regression over the standardised features.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import log

__all__ = ["L2", "NEVER_SAID", "SEED", "build_rows", "fit", "main"]

DATA = Path(__file__).parent / "data"
#: Seeds the order of the training rows (the fit itself is exact and does not depend on it beyond rounding).
SEED = 42
#: The L2 penalty on the standardised weights (not the bias).
L2 = 1.0
#: Lines recalled per question (the chat surfaces' default).
RECALL_TOP_K = 5

#: Questions about the user that neither store answers, (English, Chinese), third person. Written for this script;
#: none is a question of the fact set's ``unrelated`` list or of :data:`benchmarks.long_use.NEVER_SAID`.
NEVER_SAID = (
    ("What is the user's favourite opera?", "用户最喜欢哪部歌剧？"),
    ("Which yoga studio does the user go to?", "用户去哪家瑜伽馆？"),
    ("What is the user's phone number?", "用户的手机号码是多少？"),
    ("Where did the user go to primary school?", "用户小学是在哪里上的？"),
    ("How tall is the user?", "用户有多高？"),
    ("Which football team does the user support?", "用户支持哪支足球队？"),
    ("Which video game does the user play most?", "用户最常玩哪款电子游戏？"),
    ("Does the user speak Portuguese?", "用户会说葡萄牙语吗？"),
    ("What is the user's email address?", "用户的邮箱地址是什么？"),
    ("Where was the user born?", "用户是在哪里出生的？"),
    ("How much rent does the user pay?", "用户每个月交多少房租？"),
    ("Which season does the user like best?", "用户最喜欢哪个季节？"),
    ("Does the user have any tattoos?", "用户有纹身吗？"),
    ("Which airline does the user usually fly with?", "用户一般坐哪家航空公司的飞机？"),
    ("What is the name of the user's cousin?", "用户的表哥叫什么名字？"),
    ("What brand is the user's bicycle?", "用户的自行车是什么牌子的？"),
    ("Which board game does the user enjoy?", "用户喜欢玩什么桌游？"),
    ("What did the user study at university?", "用户大学学的是什么专业？"),
    ("Has the user ever been skydiving?", "用户玩过跳伞吗？"),
    ("What is the user's favourite flower?", "用户最喜欢什么花？"),
    ("Which newspaper does the user read?", "用户平时看哪份报纸？"),
    ("What is the user's favourite museum?", "用户最喜欢哪个博物馆？"),
    ("Does the user collect stamps?", "用户集邮吗？"),
    ("What is the user's favourite ice cream flavour?", "用户最喜欢什么口味的冰淇淋？"),
)
#: Requests that are not about the user (English, Chinese).
OFF_TOPIC = (
    ("How do I make pancakes?", "怎么做煎饼？"),
    ("What is the tallest mountain in Africa?", "非洲最高的山是哪座？"),
    ("Recommend a good science fiction novel.", "推荐一本好看的科幻小说。"),
    ("How far away is the moon?", "月亮离地球有多远？"),
    ("What does the word serendipity mean?", "“机缘巧合”是什么意思？"),
    ("Who painted the Mona Lisa?", "《蒙娜丽莎》是谁画的？"),
)


def _odd(fact_id: str) -> bool:
    return int(fact_id[2:]) % 2 == 1


def _talk_lines() -> list[str]:
    lines = (DATA / "ordinary_talk.txt").read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def _questions(facts: list[dict[str, Any]], paraphrases: dict[str, str], talk: bool) -> list[tuple[str, str | None]]:
    """(question, the id of the memory that answers it, or None)."""
    from benchmarks.query_shapes import first_person

    out: list[tuple[str, str | None]] = []
    for fact in facts:
        if not _odd(fact["id"]):
            continue
        same = next(q["text"] for q in fact["questions"] if q["kind"] == "same")
        cross = next(q["text"] for q in fact["questions"] if q["kind"] == "cross")
        shapes = [first_person(same), first_person(cross)] if talk else [
            same, first_person(same), paraphrases[fact["id"]], cross]
        out += [(q, fact["id"]) for q in shapes]
    for en, zh in NEVER_SAID:
        out += [(q, None) for q in (en, zh, first_person(en), first_person(zh))]
    out += [(q, None) for pair in OFF_TOPIC for q in pair]
    return out


def build_rows(cache_dir: str | None = None) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """The labelled rows: features ``(n, len(FEATURES))``, labels ``(n,)`` and, per row, what it was."""
    from benchmarks._common import CachedEmbedder
    from hermes_memory_core import MemoryConfig, MemoryProvider
    from hermes_memory_core.embedding import load_embedder
    from hermes_memory_core.retrieval.relevance_model import line_features
    from hermes_memory_core.text.perspective import to_first_person
    from hermes_memory_core.text.questions import asking_part

    data = json.loads((DATA / "bilingual_facts.json").read_text(encoding="utf-8"))
    paraphrases = json.loads((DATA / "query_shapes.json").read_text(encoding="utf-8"))["paraphrases"]
    memories = [*data["facts"], *data["distractors"]]
    talk = _talk_lines()
    rows: list[np.ndarray] = []
    labels: list[int] = []
    meta: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="hermes-relevance-") as tmp:
        cfg = MemoryConfig(data_dir=Path(tmp) / "store", recall_relevance_threshold=None)
        embedder = CachedEmbedder(load_embedder(cfg.embedding_model, cfg.embedding_threads), cache_dir)
        with MemoryProvider(cfg, embedder=embedder) as mem:
            facts_user, talk_user = "facts", "talk"
            ids = mem.add_many([{"content": m["text"], "user_id": facts_user, "memory_type": "long_term"}
                                for m in memories])
            key = {mid: m["id"] for mid, m in zip(ids, memories, strict=True)}
            # the same memories said in a conversation, one ordinary chat line between every two
            said = [(to_first_person(m["text"]), m["id"]) for m in memories]
            turns: list[tuple[str, str | None]] = []
            for i, (text, mid) in enumerate(said):
                turns += [(text, mid), (talk[i % len(talk)], None)]
            items = [{"content": text, "user_id": talk_user, "session_id": f"talk_{i // 20}"} for i, (text, _)
                     in enumerate(turns)]
            talk_ids = mem.add_many(items, dialogue=True, trusted=True)
            key.update({mid: src for mid, (_, src) in zip(talk_ids, turns, strict=True) if src is not None})
            # small stores, as a new user's: six facts each (three of each language), no distractors
            zh = [f for f in data["facts"] if f["lang"] == "zh"]
            en = [f for f in data["facts"] if f["lang"] == "en"]
            small: list[tuple[str, list[tuple[str, str | None]]]] = []
            for n in range(0, min(len(zh), len(en)), 3):
                group = zh[n:n + 3] + en[n:n + 3]
                user = f"small{n // 3}"
                small_ids = mem.add_many([{"content": f["text"], "user_id": user, "memory_type": "long_term"}
                                          for f in group])
                key.update({mid: f["id"] for mid, f in zip(small_ids, group, strict=True)})
                never = [q for q, answer in _questions([], paraphrases, talk=False) if answer is None]
                asks = [(q, a) for q, a in _questions(group, paraphrases, talk=True)
                        if a is not None] + [(q, None) for q in never[n % 12::12]]
                small.append((user, asks))
            mem.flush()
            for user, asks in ((facts_user, _questions(data["facts"], paraphrases, talk=False)),
                               (talk_user, _questions(data["facts"], paraphrases, talk=True)), *small):
                for question, answer in asks:
                    hits = mem.recall(question, user_id=user, top_k=RECALL_TOP_K)
                    if not hits:
                        continue
                    rows.append(line_features(asking_part(question) or question, hits))
                    for h in hits:
                        labels.append(int(answer is not None and key.get(h.id) == answer))
                        meta.append({"store": user, "question": question, "answer": answer, "line": h.content})
                log(f"relevance training: {user} asked {len(asks)} questions")
    x = np.vstack(rows)
    y = np.asarray(labels, dtype=np.float64)
    order = np.random.default_rng(SEED).permutation(len(y))
    return x[order], y[order], [meta[i] for i in order]


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, iterations: int = 50) -> Any:
    """An L2-regularised logistic regression of ``y`` on standardised ``x`` (Newton's method to convergence)."""
    from hermes_memory_core.retrieval.relevance_model import RelevanceModel

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return RelevanceModel(mean, scale, w[:-1].copy(), float(w[-1]))


def main(argv: list[str] | None = None) -> int:
    from hermes_memory_core.retrieval.relevance_model import FEATURES, MODEL_PATH, RelevanceModel

    parser = argparse.ArgumentParser(prog="python -m benchmarks.relevance_training", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(MODEL_PATH), help="where the weights go (default: the shipped file)")
    parser.add_argument("--check", action="store_true", help="compare a fresh fit with --out instead of writing it")
    parser.add_argument("--cache-dir", default="", help="embedding cache ('' for none: the vectors of a fresh run)")
    parser.add_argument("--rows-json", help="also write the labelled rows here")
    args = parser.parse_args(argv)
    x, y, meta = build_rows(args.cache_dir or None)
    model = fit(x, y)
    p = model.predict(x)
    log(f"relevance training: {len(y)} rows, {int(y.sum())} answering; training log-loss "
        f"{float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))):.4f}")
    for name, weight in zip(FEATURES, model.weights, strict=True):
        log(f"  {name:>15} {weight:+.3f}")
    if args.rows_json:
        Path(args.rows_json).write_text(json.dumps([{**m, "label": int(lab), "p": float(pr)}
                                                    for m, lab, pr in zip(meta, y, p, strict=True)],
                                                   ensure_ascii=False, indent=1))
    if args.check:
        shipped = RelevanceModel.load(args.out)
        same = all(np.allclose(a, b, rtol=1e-6, atol=1e-6) for a, b in (
            (shipped.mean, model.mean), (shipped.scale, model.scale), (shipped.weights, model.weights),
            ([shipped.bias], [model.bias])))
        print("the shipped weights are reproduced" if same else "the shipped weights differ from a fresh fit")
        return 0 if same else 1
    model.save(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
