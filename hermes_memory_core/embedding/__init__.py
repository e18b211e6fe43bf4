"""Embedders: the protocol, the bilingual default (multilingual-e5-small) and sentence-transformers; how a chat turn
uses the store's one (:class:`TurnEmbeddings`: its question first, and once)."""

from __future__ import annotations

from pathlib import Path

from hermes_memory_core.embedding.base import Embedder
from hermes_memory_core.embedding.turns import TurnEmbeddings
from hermes_memory_core.errors import ConfigError

__all__ = ["DEFAULT_MODEL", "Embedder", "TurnEmbeddings", "load_embedder"]

DEFAULT_MODEL = "multilingual-e5-small"
_E5_NAMES = {"multilingual-e5-small", "intfloat/multilingual-e5-small", "e5-small"}
_MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "minilm"}


def load_embedder(model: str, threads: int | None = 1, batch_size: int = 64) -> Embedder:
    """Build the embedder a config names.

    Args:
        model: ``"multilingual-e5-small"``, ``"all-MiniLM-L6-v2"`` or a local sentence-transformers folder.
        threads: CPU threads the model may use.
        batch_size: Documents per batch.

    Raises:
        ConfigError: The name is unknown and is not a model folder.
    """
    key = model.strip().lower()
    if key in _E5_NAMES:
        from hermes_memory_core.embedding.e5 import E5Embedder

        return E5Embedder(threads=threads)
    from hermes_memory_core.embedding.sentence_transformers import (
        MINILM_ID,
        SentenceTransformerEmbedder,
        packaged_minilm_path,
    )

    if key in _MINILM_NAMES:
        return SentenceTransformerEmbedder(
            packaged_minilm_path(), model_id=f"sentence-transformers/{MINILM_ID}", threads=threads, batch_size=batch_size
        )
    path = Path(model).expanduser()
    if path.is_dir():
        return SentenceTransformerEmbedder(path, threads=threads, batch_size=batch_size)
    raise ConfigError(
        f"unknown embedding_model {model!r}: use 'multilingual-e5-small', 'all-MiniLM-L6-v2' or the path of a "
        "local sentence-transformers model folder (nothing is downloaded at run time)"
    )
