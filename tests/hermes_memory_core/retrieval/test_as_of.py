"""``search(..., as_of=t)``: the memories that existed at ``t``, each with its version current then, in both legs;
``history()`` says when each version was current. On both metadata backends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hermes_memory_core import Caller, InvalidInputError, MemoryProvider, NotFoundError
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.retrieval.as_of import bm25
from hermes_memory_core.storage.metadata import KeywordFilter
from hermes_memory_core.text.tokenizer import tokenize, tokenize_query
from tests.conftest import ADMIN, BACKENDS, make_config

T0 = 1_700_000_000


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    clock = [float(T0)]
    provider = MemoryProvider(make_config(tmp_path / "s", request.param), embedder=embedder, caller=ADMIN,
                              clock=lambda: clock[0])
    provider.clock = clock  # type: ignore[attr-defined]
    yield provider
    provider.close()


def _at(store: MemoryProvider, t: int) -> None:
    store.clock[0] = float(t)  # type: ignore[attr-defined]


def _history_story(store: MemoryProvider) -> dict[str, str]:
    """T0: tea, Berlin, bicycle; T0+100: tea -> coffee; T0+200: bicycle deleted; T0+300: a new memory."""
    ids = {
        "drink": store.add("The user drinks green tea every morning", user_id="u"),
        "city": store.add("The user lives in Berlin", user_id="u"),
        "bike": store.add("The user owns a red bicycle", user_id="u"),
    }
    _at(store, T0 + 100)
    store.update(ids["drink"], "The user drinks black coffee every morning", version_note="switched")
    _at(store, T0 + 200)
    store.delete(ids["bike"], reason="sold it")
    _at(store, T0 + 300)
    ids["dog"] = store.add("The user adopted a dog named Rex", user_id="u")
    _at(store, T0 + 400)
    return ids


def test_history_says_when_each_version_was_current(store: MemoryProvider) -> None:
    ids = _history_story(store)
    drink = store.history(ids["drink"])
    assert [(v.version, v.current_from, v.current_to) for v in drink] == [(1, T0, T0 + 100), (2, T0 + 100, None)]
    assert drink[0].created_at == T0 and drink[1].note == "switched"
    assert [(v.current_from, v.current_to) for v in store.history(ids["bike"])] == [(T0, T0 + 200)]


def test_as_of_answers_with_the_version_current_then(store: MemoryProvider) -> None:
    ids = _history_story(store)
    q = "what does the user drink in the morning"
    then = store.search(q, user_id="u", as_of=T0 + 50, top_k=1)[0]
    assert then.id == ids["drink"] and then.content == "The user drinks green tea every morning"
    assert then.record.version == 1 and then.updated_at == T0
    later = store.search(q, user_id="u", as_of=T0 + 150, top_k=1)[0]
    assert later.content == "The user drinks black coffee every morning" and later.record.version == 2
    assert store.search(q, user_id="u", top_k=1)[0].content == "The user drinks black coffee every morning"


def test_as_of_sees_what_existed_then_and_only_that(store: MemoryProvider) -> None:
    ids = _history_story(store)
    found = {h.id for h in store.search("user", user_id="u", as_of=T0 + 250, top_k=10)}
    assert found == {ids["drink"], ids["city"]}  # the bicycle was gone at T0+200, the dog came at T0+300
    found = {h.id for h in store.search("user", user_id="u", as_of=T0 + 150, top_k=10)}
    assert found == {ids["drink"], ids["city"], ids["bike"]}  # deleted later still existed then
    assert store.search("bicycle", user_id="u", as_of=T0 + 150, top_k=1)[0].id == ids["bike"]
    assert store.search("user", user_id="u", as_of=T0 - 1) == []
    assert ids["dog"] in {h.id for h in store.search("dog", user_id="u", as_of=T0 + 300)}
    assert ids["bike"] not in {h.id for h in store.search("bicycle", user_id="u")}  # now: deleted
    store.delete(ids["bike"], hard=True)
    assert ids["bike"] not in {h.id for h in store.search("bicycle", user_id="u", as_of=T0 + 150)}
    with pytest.raises(NotFoundError):
        store.history(ids["bike"])


def test_both_legs_score_the_text_current_then(store: MemoryProvider, embedder: Embedder) -> None:
    ids = _history_story(store)
    # the keyword leg: "green" is only in version 1
    then = [h for h in store.search("green", user_id="u", as_of=T0 + 50, top_k=5) if h.id == ids["drink"]]
    assert then and then[0].keyword_score is not None and then[0].keyword_score > 0
    now = [h for h in store.search("green", user_id="u", top_k=5) if h.id == ids["drink"]]
    assert not now or now[0].keyword_score is None
    # the vector leg: the cosine of version 1's embedding, not the current one's
    query = "green tea"
    hit = next(h for h in store.search(query, user_id="u", as_of=T0 + 50, top_k=5) if h.id == ids["drink"])
    v1 = embedder.embed_documents(["The user drinks green tea every morning"])[0]
    q = embedder.embed_query(query)
    assert hit.dense_score == pytest.approx(float(np.dot(v1, q) / (np.linalg.norm(v1) * np.linalg.norm(q))), abs=1e-5)


def test_rescored_bm25_equals_the_keyword_legs_own(store: MemoryProvider) -> None:
    """The as-of path scores past text with the index's statistics; on an indexed memory that gives the keyword
    leg's score exactly (memories without a session have no context field)."""
    for i in range(30):
        store.add(f"note {i}: the user collects {'stamps' if i % 3 else 'coins'} and {'maps' if i % 5 else 'tea'}",
                  user_id="u")
    mid = store.add("The user collects antique maps and rare stamps", user_id="u")
    meta = store.engine.metadata
    terms = tokenize_query("antique stamps maps tea")
    w = store.config.ranking.keyword_context_weight
    leg = dict(meta.keywords.keyword_search("u", terms, 50, KeywordFilter("u"), context_weight=w))
    stats = meta.keywords.keyword_stats("u", terms, w)
    assert bm25(tokenize("The user collects antique maps and rare stamps"), terms, stats) == pytest.approx(
        leg[mid], abs=1e-6)


def test_sealed_facts_are_found_as_of_with_permission(store: MemoryProvider) -> None:
    mid = store.add("The user's passport number is E1234567", user_id="u", memory_type="permanent")
    _at(store, T0 + 100)
    store.update(mid, "The user's passport number is X7654321")
    then = store.search("passport E1234567", user_id="u", as_of=T0 + 10, top_k=1)
    assert then[0].content == "The user's passport number is E1234567" and then[0].keyword_score
    anon = store.search("passport E1234567", user_id="u", as_of=T0 + 10, caller=Caller("anonymous"))
    assert all(h.id != mid for h in anon)


def test_filters_apply_as_of(store: MemoryProvider) -> None:
    a = store.add("The user plays chess on Sundays", user_id="u", session_id="s1", tags=["hobby"])
    store.add("The user plays chess at the club", user_id="u", session_id="s2")
    _at(store, T0 + 100)
    store.update(a, "The user plays go on Sundays")
    hits = store.search("chess", user_id="u", as_of=T0 + 50, session_id="s1")
    assert [h.id for h in hits] == [a] and hits[0].content == "The user plays chess on Sundays"
    assert [h.id for h in store.search("chess", user_id="u", as_of=T0 + 50, tags=["hobby"])] == [a]
    assert store.search("chess", user_id="other", as_of=T0 + 50) == []


def test_bad_as_of_changes_nothing(store: MemoryProvider) -> None:
    store.add("The user likes tea", user_id="u")
    for bad in ("yesterday", float("nan"), -1, True):
        with pytest.raises(InvalidInputError):
            store.search("tea", user_id="u", as_of=bad)  # type: ignore[arg-type]


def test_without_as_of_the_past_is_never_read(store: MemoryProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add("The user likes tea", user_id="u")

    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("records_as_of on the common path")

    monkeypatch.setattr(store.engine.metadata.history, "records_as_of", boom)
    monkeypatch.setattr(store.engine.metadata.keywords, "keyword_stats", boom)
    assert store.search("tea", user_id="u")[0].content == "The user likes tea"


async def test_async_twin(store: MemoryProvider) -> None:
    ids = _history_story(store)
    hits = await store.asearch("drink", user_id="u", as_of=T0 + 50)
    assert hits[0].id == ids["drink"] and hits[0].record.version == 1


def test_past_vectors_are_embedded_once_and_erased_with_the_user(
    store: MemoryProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    _history_story(store)
    store.search("drink", user_id="u", as_of=T0 + 50)
    assert len(store.engine.past_vectors) == 2  # the tea version and the deleted bicycle
    calls: list[int] = []
    real = store.engine.parts.embed_documents
    monkeypatch.setattr(store.engine.parts, "embed_documents", lambda texts: calls.append(len(texts)) or real(texts))
    assert store.search("bicycle", user_id="u", as_of=T0 + 50)
    assert calls == []
    store.purge_user("u")
    assert len(store.engine.past_vectors) == 0
