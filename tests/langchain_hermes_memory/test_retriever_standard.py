"""langchain-tests' standard retriever suite, unmodified, against HermesRetriever on a real store."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from hermes_memory_core import MemoryConfig, MemoryProvider
from langchain_hermes_memory import HermesRetriever

_STATE: dict[str, Any] = {}


@pytest.fixture(scope="module", autouse=True)
def _store(embedder) -> Iterator[None]:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        mem = MemoryProvider(MemoryConfig(data_dir=Path(tmp) / "s"), embedder=embedder)
        mem.add_many([{"content": text, "user_id": "u1"} for text in (
            "用户主用 Python，避免 Java", "The user drinks americano every morning", "The user lives in Berlin",
            "The user is training for a marathon", "我对花生过敏", "The user prefers concise answers")])
        _STATE["mem"] = mem
        yield
        mem.close()


class TestHermesRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[HermesRetriever]:
        return HermesRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": _STATE["mem"], "user_id": "u1"}

    @property
    def retriever_query_example(self) -> str:
        return "What does the user like?"
