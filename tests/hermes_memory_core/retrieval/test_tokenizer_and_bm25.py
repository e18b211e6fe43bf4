"""The keyword leg: Chinese-aware tokens, and FTS5's BM25 ranking agrees with rank-bm25's reference scorer."""

from __future__ import annotations

from pathlib import Path

from rank_bm25 import BM25Okapi

from hermes_memory_core.storage.metadata import NewMemory
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.text.tokenizer import tokenize, tokenize_query
from hermes_memory_core.types import MemoryRecord, MemoryType

CORPUS = [
    "我喜欢喝美式咖啡", "用户主用 Python，避免 Java", "The user runs a marathon in Berlin",
    "Caroline went to the LGBTQ support group", "Melanie paints sunsets with her kids",
    "咖啡店在公司楼下", "The user prefers tea over coffee in the evening", "Python 3.12 is the target runtime",
    "我们周末去爬山", "The meeting with the bank is on Friday", "用户的女儿喜欢画画", "Running shoes for the marathon",
]


def test_chinese_bigrams_and_english_stems() -> None:
    assert "咖啡" in tokenize("我喜欢喝美式咖啡")
    assert tokenize_query("咖啡") == ["咖", "啡", "咖啡"]
    assert tokenize("Coffees") == ["coffee"] and "the" not in tokenize("the user")
    assert tokenize("Python3 用户") == ["python3", "用", "户", "用户"]


def _store(tmp_path: Path) -> SQLiteMetadataStore:
    store = SQLiteMetadataStore(tmp_path / "m.sqlite")
    store.open()
    recs = [
        MemoryRecord(f"00000000-0000-4000-8000-{i:012d}", "u", None, text, MemoryType.LONG_TERM, 0.5, 0, 1, 1, None, 1)
        for i, text in enumerate(CORPUS)
    ]
    store.records.insert([NewMemory(r) for r in recs])
    return store


def test_coffee_in_chinese_is_found(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ids = [i for i, _ in store.keywords.keyword_search("u", tokenize_query("咖啡"), 5)]
    assert ids[:2] and {int(i[-12:]) for i in ids[:2]} == {0, 5}
    assert store.keywords.keyword_search("someone-else", tokenize_query("咖啡"), 5) == []
    store.close()


def test_top_hits_agree_with_rank_bm25(tmp_path: Path) -> None:
    store = _store(tmp_path)
    reference = BM25Okapi([tokenize(t) for t in CORPUS])
    for query in ["咖啡", "marathon Berlin", "Python Java", "support group", "画画", "tea coffee evening"]:
        toks = tokenize_query(query)
        ref_scores = reference.get_scores(toks)
        ref_top = max(range(len(CORPUS)), key=lambda i: ref_scores[i])
        ours = store.keywords.keyword_search("u", toks, 3)
        assert int(ours[0][0][-12:]) == ref_top, query
    store.close()
