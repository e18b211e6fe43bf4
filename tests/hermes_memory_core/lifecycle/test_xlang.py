"""Other-language key terms written with each long-term/permanent memory: in the background, indexed,
kept through re-sealing, optimize() and export/restore, renewed by a new version, sealed for the permanent tier,
erased with the memory; a model that fails or hangs costs the writer nothing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.text.tokenizer import tokenize_query
from tests.conftest import ADMIN, BACKENDS, make_config
from tests.hermes_memory_core.retrieval.test_translation import ScriptedModel

NEIGHBOUR = "The user's neighbour is called Priya."
BLOOD = "The user's blood type is AB negative."
TEA = "用户每天喝绿茶。"
TERMS = {
    NEIGHBOUR: ["邻居", "普丽娅"],  # a transliteration no dictionary knows: found only through the terms
    BLOOD: ["血型", "阿贝血"],
    TEA: ["green tea"],
    "The user's neighbour is called Anna.": ["邻居", "安娜"],
}


def _found(mem: MemoryProvider, word: str) -> list[str]:
    """Ids the keyword leg finds for ``word`` (the user's memories, best first)."""
    engine = mem.engine
    return [mid for mid, score in engine.metadata.keywords.keyword_search("u", engine.codec.query_terms(tokenize_query(word)), 5)
            if score > engine.config.ranking.keyword_min_score]


def _raw_terms(mem: MemoryProvider, memory_id: str) -> list[object]:
    rows = mem.engine.metadata.reader().execute(
        "SELECT xlang_terms FROM memory_entries WHERE id = ?", (memory_id,)
    ).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize("backend", BACKENDS)
def test_terms_are_indexed_and_survive_reseal_optimize_and_restore(
    tmp_path: Path, embedder: Embedder, backend: str
) -> None:
    model = ScriptedModel(terms=TERMS)
    with MemoryProvider(make_config(tmp_path / "a", backend), embedder=embedder, caller=ADMIN, llm=model) as mem:
        neighbour = mem.add(NEIGHBOUR, user_id="u")
        blood = mem.add(BLOOD, user_id="u", memory_type="permanent")
        tea = mem.add(TEA, user_id="u")
        mem.flush()  # the background sweep has run
        assert mem.engine.metadata.keywords.xlang_terms(neighbour) == "邻居\n普丽娅"
        assert mem.engine.metadata.keywords.xlang_terms(tea) == "green tea"
        assert _found(mem, "普丽娅") == [neighbour]
        assert _found(mem, "阿贝血") == [blood]  # the permanent memory's terms, matched through keyed hashes
        assert mem.engine.codec.is_sealed(str(_raw_terms(mem, blood)[0]))
        assert _raw_terms(mem, neighbour) == ["邻居\n普丽娅"]  # long-term rows are not sealed (default policy)
        assert mem.search("普丽娅是谁？", user_id="u")[0].id == neighbour
        mem.export(tmp_path / "bundle")
        mem.rotate_key(save_to=tmp_path / "new.key")  # re-seals every row and re-indexes it under the new key
        mem.optimize()
        assert _found(mem, "普丽娅") == [neighbour] and _found(mem, "阿贝血") == [blood]
        assert mem.engine.metadata.keywords.xlang_terms(blood) == "血型\n阿贝血"
        calls = len(model.prompts)
    for i, target in enumerate(["embedded", backend]):  # into SQLite, and into the backend under test
        with MemoryProvider.restore(tmp_path / "bundle", make_config(tmp_path / f"b{i}", target),
                                    embedder=embedder, caller=ADMIN, llm=model) as back:
            back.flush()
            assert _found(back, "普丽娅") == [neighbour] and _found(back, "阿贝血") == [blood]
            assert back.engine.metadata.keywords.xlang_terms(blood) == "血型\n阿贝血"
    assert len(model.prompts) == calls  # restored terms are not asked for again


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_version_gets_new_terms_and_an_erased_memory_keeps_none(
    tmp_path: Path, embedder: Embedder, backend: str
) -> None:
    model = ScriptedModel(terms=TERMS)
    with MemoryProvider(make_config(tmp_path / "a", backend), embedder=embedder, caller=ADMIN, llm=model) as mem:
        mid, *_ = mem.add_many([{"content": t, "user_id": "u"} for t in (NEIGHBOUR, TEA, BLOOD)])
        mem.flush()
        assert _found(mem, "普丽娅") == [mid]
        mem.update(mid, "The user's neighbour is called Anna.", user_id="u")
        mem.flush()
        assert mem.engine.metadata.keywords.xlang_terms(mid) == "邻居\n安娜"
        assert _found(mem, "普丽娅") == [] and _found(mem, "安娜") == [mid]
        mem.delete(mid, user_id="u", hard=True)
        assert _raw_terms(mem, mid) == []
        assert _found(mem, "安娜") == []


def test_each_memory_costs_at_most_one_call_and_short_term_none(tmp_path: Path, embedder: Embedder) -> None:
    model = ScriptedModel(terms=TERMS)
    with MemoryProvider(make_config(tmp_path / "a"), embedder=embedder, caller=ADMIN, llm=model) as mem:
        mem.add_many([{"content": t, "user_id": "u"} for t in (NEIGHBOUR, TEA)])
        mem.add("用户今天有点累。", user_id="u", memory_type="short_term", session_id="s")
        mem.flush()
        mem.add(BLOOD, user_id="u")
        mem.flush()
    asked = [p for p in model.prompts if "\n\nNote: " in p]
    assert sorted(p.rsplit("\n\nNote: ", 1)[1] for p in asked) == sorted([NEIGHBOUR, TEA, BLOOD])


@pytest.mark.parametrize("style", ["fail", "hang", "junk"])
def test_a_bad_model_never_delays_a_write_and_stores_nothing(tmp_path: Path, embedder: Embedder, style: str) -> None:
    model = ScriptedModel(terms=TERMS, style=style)
    cfg = make_config(tmp_path / "a", llm_timeout_seconds=0.3)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN, llm=model) as mem:
        t0 = time.perf_counter()
        ids = mem.add_many([{"content": t, "user_id": "u"} for t in (NEIGHBOUR, TEA, BLOOD)])
        assert time.perf_counter() - t0 < 0.3 or style != "hang"  # the write returned before the model answered
        mem.flush()
        assert [mem.engine.metadata.keywords.xlang_terms(i) for i in ids] == [None, None, None]
        mem.add("The user likes jazz.", user_id="u")
        mem.flush()
        model.release.set()
    asked = [p.rsplit("\n\nNote: ", 1)[1] for p in model.prompts if "\n\nNote: " in p]
    assert len(asked) == len(set(asked))  # never the same memory twice
    if style == "junk":  # it answered: every memory is asked once, and nothing is stored
        assert sorted(asked) == sorted([NEIGHBOUR, TEA, BLOOD, "The user likes jazz."])
    elif style == "fail":  # a sweep stops at its first failure: one call per sweep (at open, after each write)
        assert 2 <= len(asked) <= 3
    else:  # while a call hangs past its timeout the store's model pool refuses new calls: the model is asked once
        assert len(asked) == 1


def test_the_switch_turns_write_time_terms_off(tmp_path: Path, embedder: Embedder) -> None:
    model = ScriptedModel(terms=TERMS)
    with MemoryProvider(make_config(tmp_path / "a", llm_translation=False), embedder=embedder, caller=ADMIN,
                        llm=model) as mem:
        mid, *_ = mem.add_many([{"content": t, "user_id": "u"} for t in (NEIGHBOUR, TEA, BLOOD)])
        mem.flush()
        assert mem.engine.metadata.keywords.xlang_terms(mid) is None
        assert _found(mem, "普丽娅") == []  # nothing but the terms carries that word
    assert model.prompts == []


def test_a_restore_refuses_plain_key_terms_of_a_permanent_memory(tmp_path: Path, embedder: Embedder) -> None:
    from hermes_memory_core.portability.rows import sealed_row_problems

    with MemoryProvider(make_config(tmp_path / "a"), embedder=embedder, caller=ADMIN,
                        llm=ScriptedModel(terms=TERMS)) as mem:
        blood = mem.add(BLOOD, user_id="u", memory_type="permanent")
        mem.flush()
        store = mem.engine.metadata
        assert sealed_row_problems(store.reader(), mem.engine.codec) == []
        with store.atomic() as conn:
            conn.execute("UPDATE memory_entries SET xlang_terms = '血型' WHERE id = ?", (blood,))
        assert sealed_row_problems(store.reader(), mem.engine.codec) == [
            f"the key terms of permanent memory {blood} are stored in plain text"
        ]


def test_memories_written_without_a_model_get_terms_when_one_comes(tmp_path: Path, embedder: Embedder) -> None:
    cfg = make_config(tmp_path / "a")
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        mid = mem.add(NEIGHBOUR, user_id="u")
        mem.flush()
        assert mem.engine.metadata.keywords.xlang_terms(mid) is None
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN, llm=ScriptedModel(terms=TERMS)) as mem:
        mem.flush()  # the sweep at open
        assert mem.engine.metadata.keywords.xlang_terms(mid) == "邻居\n普丽娅"
