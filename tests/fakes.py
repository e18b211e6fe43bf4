"""Test doubles that are real implementations of the core's protocols, only smaller.

:class:`HashingEmbedder` implements the :class:`~hermes_memory_core.embedding.Embedder` protocol with feature hashing
over the keyword tokenizer's tokens: deterministic, lexical (texts sharing words are close, nothing else is) and
about a thousand times faster than loading and running the real model. Unit tests that check storage, versions,
permissions, sessions or errors use it; tests whose assertions depend on what the model understands (cross-language
or paraphrase recall, retrieval quality, notebooks, other processes opening the same store) use the real model
through the ``real_embedder`` fixture and carry the ``real_model`` marker.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from hermes_memory_core.text.tokenizer import tokenize

__all__ = ["Clock", "HashingEmbedder"]


class HashingEmbedder:
    """Feature-hashed bag of tokens, L2-normalised; ``dim`` matches the default config (384)."""

    model_id = "hermes-tests/hashing-384"

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for token in tokenize(text) or [text.strip().lower() or "<empty>"]:
            digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vec[value % self.dim] += 1.0 if (value >> 63) else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:  # tokens that cancelled out: still a valid unit vector
            vec[0], norm = 1.0, 1.0
        return vec / norm

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


class Clock:
    """A clock a test moves by hand (``clock.now += 7 * 86_400``): pass it as ``MemoryProvider(clock=...)``."""

    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now
