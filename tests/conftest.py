"""Shared fixtures. Every test runs offline (HF_HUB_OFFLINE=1 is forced here)."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from hermes_memory_core import MemoryConfig, MemoryProvider  # noqa: E402
from hermes_memory_core.embedding import Embedder, load_embedder  # noqa: E402


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real default (bilingual) embedder, loaded once per test session."""
    return load_embedder("multilingual-e5-small")


@pytest.fixture
def config(tmp_path: Path) -> MemoryConfig:
    return MemoryConfig(data_dir=tmp_path / "store")


@pytest.fixture
def mem(config: MemoryConfig, embedder: Embedder) -> Iterator[MemoryProvider]:
    provider = MemoryProvider(config, embedder=embedder)
    try:
        yield provider
    finally:
        provider.close()
