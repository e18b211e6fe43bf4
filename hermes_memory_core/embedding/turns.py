"""The store's embedder as a chat turn uses it: the user's question first, and once.

A chat turn embeds its question while the store embeds, in the background, the turns it keeps as conversation
memories. Both share one model (and its lock): a question that arrived while a batch of documents was being
embedded waited for the whole batch (41–47 ms a question instead of 16 with the real model). And a turn asked the
model for its question more than once: a first-person question is matched both as asked and in the third person
(two calls), and recall searches again, with the same question, when the guard withheld some of what it found.

:class:`TurnEmbeddings` stands between the engine and its embedder:

- **questions first**: documents are embedded in chunks of :data:`DOCUMENT_CHUNK`, and a chunk does not start
  while a question waits; a question waits at most for the chunk under way;
- **one call a turn**: the forms of a question are embedded in one call to the model (``embed_queries`` where the
  embedder has it: one batch, the same vectors as one by one), and a question embedded recently is not embedded
  again (a bounded memo of :data:`MEMO_SIZE` questions; a vector depends only on the model and the text).

The vectors are exactly the embedder's: nothing here changes what a search finds, only when and how often the
model runs. ``query_calls`` counts the calls that reached the model for questions (what the chat-scale benchmark
reports per turn).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from hermes_memory_core.embedding.base import Embedder

__all__ = ["DOCUMENT_CHUNK", "MEMO_SIZE", "TurnEmbeddings"]

#: Documents embedded per call to the model while questions may be waiting (a question waits for one chunk at most).
DOCUMENT_CHUNK = 16
#: Questions whose vectors are kept (about 1.5 KiB each at 384 dimensions).
MEMO_SIZE = 256


class TurnEmbeddings:
    """Questions first and once each, documents in chunks between them (see the module docstring).

    Args:
        embedder: The store's embedder; its vectors are returned unchanged.
        memo_size: How many questions' vectors are kept (0: none).
    """

    def __init__(self, embedder: Embedder, memo_size: int = MEMO_SIZE) -> None:
        self.embedder = embedder
        self.memo_size = memo_size
        self.query_calls = 0
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo_lock = threading.Lock()
        self._turn = threading.Condition()
        self._busy = False  # the model is running for one of us
        self._asking = 0  # questions waiting for the model

    @contextmanager
    def _model(self, question: bool) -> Iterator[None]:
        """Hold the model: a question waits for the call under way; a document chunk also for every waiting question."""
        with self._turn:
            if question:
                self._asking += 1
                try:
                    self._turn.wait_for(lambda: not self._busy)
                finally:
                    self._asking -= 1
            else:
                self._turn.wait_for(lambda: not self._busy and not self._asking)
            self._busy = True
        try:
            yield
        finally:
            with self._turn:
                self._busy = False
                self._turn.notify_all()

    def embed_query(self, text: str) -> np.ndarray:
        """One question's vector (the embedder's ``embed_query``), before any document waiting for the model."""
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The vectors of several forms of a question, in order: those not embedded recently in one call to the model
        (the embedder's ``embed_queries`` when it has one, else one ``embed_query`` each under one turn of the
        model)."""
        with self._memo_lock:
            known = {t: self._memo[t] for t in texts if t in self._memo}
            for t in known:
                self._memo.move_to_end(t)
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        if todo:
            with self._model(question=True):
                self.query_calls += 1
                batch = getattr(self.embedder, "embed_queries", None)
                vecs = batch(todo) if batch is not None and len(todo) > 1 else [self.embedder.embed_query(t) for t in todo]
            made = {t: np.asarray(vec, dtype=np.float32) for t, vec in zip(todo, vecs, strict=True)}
            for vec in made.values():
                vec.setflags(write=False)  # shared by every turn that asks the same
            known.update(made)
            if self.memo_size:
                with self._memo_lock:
                    self._memo.update(made)
                    while len(self._memo) > self.memo_size:
                        self._memo.popitem(last=False)
        return [known[t] for t in texts]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """The embedder's ``embed_documents`` for ``texts``, in chunks a waiting question may come between."""
        if len(texts) <= DOCUMENT_CHUNK:
            with self._model(question=False):
                return self.embedder.embed_documents(texts)
        parts = []
        for start in range(0, len(texts), DOCUMENT_CHUNK):
            with self._model(question=False):
                parts.append(np.asarray(self.embedder.embed_documents(texts[start:start + DOCUMENT_CHUNK])))
        return np.concatenate(parts)
