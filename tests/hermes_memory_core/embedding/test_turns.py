"""A chat turn's question reaches the model first and once (:mod:`hermes_memory_core.embedding.turns`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder, TurnEmbeddings
from hermes_memory_core.embedding.turns import DOCUMENT_CHUNK
from tests.conftest import ADMIN


class Counting:
    """Wraps an embedder and records every call that reaches it, in order."""

    def __init__(self, inner: Embedder, batch: bool = True, doc_delay: float = 0.0) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.calls: list[tuple[str, int]] = []
        self.doc_delay = doc_delay
        if batch:
            self.embed_queries = self._embed_queries

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(("documents", len(texts)))
        time.sleep(self.doc_delay)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.calls.append(("query", 1))
        return self.inner.embed_query(text)

    def _embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.calls.append(("queries", len(texts)))
        return [self.inner.embed_query(t) for t in texts]


def test_the_forms_of_a_question_are_one_call_and_a_question_asked_again_none(embedder: Embedder) -> None:
    model = Counting(embedder)
    turns = TurnEmbeddings(model)  # type: ignore[arg-type]
    third, first = turns.embed_queries(["Where does the user live?", "Where do I live?"])
    assert model.calls == [("queries", 2)] and turns.query_calls == 1
    assert np.array_equal(third, embedder.embed_query("Where does the user live?"))
    assert np.array_equal(first, embedder.embed_query("Where do I live?"))
    again = turns.embed_query("Where do I live?")
    assert model.calls == [("queries", 2)] and np.array_equal(again, first)
    plain = Counting(embedder, batch=False)  # an embedder without embed_queries: one embed_query each
    TurnEmbeddings(plain).embed_queries(["a b", "c d"])  # type: ignore[arg-type]
    assert plain.calls == [("query", 1), ("query", 1)]


def test_the_memo_is_bounded_and_its_vectors_cannot_be_changed(embedder: Embedder) -> None:
    model = Counting(embedder)
    turns = TurnEmbeddings(model, memo_size=2)  # type: ignore[arg-type]
    for text in ("one", "two", "three", "one"):
        vec = turns.embed_query(text)
    assert model.calls == [("query", 1)] * 4  # "one" had left the memo
    assert not vec.flags.writeable


def test_a_question_does_not_wait_for_a_whole_batch_of_documents(embedder: Embedder) -> None:
    model = Counting(embedder)
    turns = TurnEmbeddings(model)  # type: ignore[arg-type]
    inside = threading.Event()
    real = model.embed_documents

    def first_chunk_waits_for_the_question(texts: Sequence[str]) -> np.ndarray:
        if not inside.is_set():
            inside.set()  # the model is busy with this chunk
            while not turns._asking:  # until the question waits for the model
                time.sleep(0.001)
        return real(texts)

    model.embed_documents = first_chunk_waits_for_the_question  # type: ignore[method-assign]
    texts = [f"line {i}" for i in range(DOCUMENT_CHUNK * 6)]
    done: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: done.setdefault("docs", turns.embed_documents(texts)))
    worker.start()
    assert inside.wait(10)
    turns.embed_query("What did I say about Chengdu?")
    worker.join()
    assert [kind for kind, _ in model.calls][:2] == ["documents", "query"]  # right after the chunk under way
    assert np.array_equal(done["docs"], embedder.embed_documents(texts))


def test_a_first_person_search_reaches_the_model_once(tmp_path: Any, embedder: Embedder) -> None:
    from tests.conftest import make_config

    model = Counting(embedder)
    with MemoryProvider(make_config(tmp_path / "s"), embedder=model, caller=ADMIN) as mem:  # type: ignore[arg-type]
        mem.add("The user moved to Chengdu in May", user_id="u")
        before = len(model.calls)
        assert mem.search("Where do I live now?", user_id="u")
        assert model.calls[before:] == [("queries", 2)]
        mem.search("Where do I live now?", user_id="u")
        assert model.calls[before:] == [("queries", 2)]
