"""Shared fixtures. Every test runs offline (HF_HUB_OFFLINE=1 is forced here)."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from hermes_memory_core import Caller, MemoryConfig, MemoryProvider  # noqa: E402
from hermes_memory_core.embedding import Embedder, load_embedder  # noqa: E402

#: The encryption key of test stores (32 bytes, base64), so bundles restore into other test directories.
TEST_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
#: Tests act as the application's operator: full permanent-tier permissions (denial is tested on its own).
ADMIN = Caller.admin("tests")


def make_config(path: Path, **overrides: object) -> MemoryConfig:
    """A test store config with the shared test key."""
    return MemoryConfig(data_dir=path, encryption_key=TEST_KEY, **overrides)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real default (bilingual) embedder, loaded once per test session."""
    return load_embedder("multilingual-e5-small")


@pytest.fixture
def config(tmp_path: Path) -> MemoryConfig:
    return make_config(tmp_path / "store")


@pytest.fixture
def mem(config: MemoryConfig, embedder: Embedder) -> Iterator[MemoryProvider]:
    provider = MemoryProvider(config, embedder=embedder, caller=ADMIN)
    try:
        yield provider
    finally:
        provider.close()
