"""langchain-tests' standard tool suites, unmodified, against manage_memory and search_memory on a real store."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from hermes_memory_core import MemoryConfig, MemoryProvider
from langchain_hermes_memory import create_memory_tools

_TOOLS: dict[str, BaseTool] = {}


@pytest.fixture(scope="module", autouse=True)
def _store(embedder) -> Iterator[None]:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        mem = MemoryProvider(MemoryConfig(data_dir=Path(tmp) / "s"), embedder=embedder)
        mem.add("The user drinks americano every morning", user_id="u1")
        manage, search = create_memory_tools(mem, user_id="u1")
        _TOOLS.update(manage=manage, search=search)
        yield
        mem.close()


class _Manage:
    @property
    def tool_constructor(self) -> BaseTool:
        return _TOOLS["manage"]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"content": "The user prefers window seats on trains", "action": "create"}


class _Search:
    @property
    def tool_constructor(self) -> BaseTool:
        return _TOOLS["search"]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"query": "咖啡", "limit": 3}


class TestManageMemoryUnit(_Manage, ToolsUnitTests):
    pass


class TestManageMemoryIntegration(_Manage, ToolsIntegrationTests):
    pass


class TestSearchMemoryUnit(_Search, ToolsUnitTests):
    pass


class TestSearchMemoryIntegration(_Search, ToolsIntegrationTests):
    pass
