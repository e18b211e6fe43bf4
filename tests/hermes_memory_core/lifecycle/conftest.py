"""Fixtures of the lifecycle tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from tests.conftest import BACKENDS, make_config


@pytest.fixture(params=BACKENDS)
def plain(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    """A provider opened the way a new user opens one: no caller."""
    provider = MemoryProvider(make_config(tmp_path / "store", request.param), embedder=embedder)
    try:
        yield provider
    finally:
        provider.close()
