"""The embedder protocol: texts in, L2-normalised float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """What the provider needs from an embedding model.

    Attributes:
        model_id: Stable identifier recorded in export manifests (a bundle is only restored with the same).
        dim: Output dimension; checked against ``MemoryConfig.vector_dim`` at open time.
    """

    model_id: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts; returns an array of shape ``(len(texts), dim)``."""

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query; returns shape ``(dim,)``."""
