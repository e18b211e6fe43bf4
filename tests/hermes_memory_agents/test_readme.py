"""docs/hermes-agent.md and docs/mcp.md run as written, and the README's MCP line parses."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from hermes_memory_agents.cli import common_parent, main, register
from hermes_memory_agents.hermes_agent import HermesAgentProvider, ProviderSettings, read_settings
from hermes_memory_agents.tools import TOOL_SCHEMAS
from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.version import DISTRIBUTION
from tests.conftest import TEST_KEY

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"Hermes Agent": ROOT / "docs" / "hermes-agent.md", "MCP": ROOT / "docs" / "mcp.md", "README": ROOT / "README.md"}


def section(title: str) -> str:
    """The whole page of a surface (``"README"``: the README's tour)."""
    text = PAGES[title].read_text(encoding="utf-8")
    return text[text.index("\n## A tour\n"):text.index("\n## Status\n")] if title == "README" else text


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def commands(block: str, marker: str) -> list[list[str]]:
    """The arguments after ``marker`` on each command line of a bash block (comments dropped)."""
    out = []
    for line in block.splitlines():
        if marker in line:
            words = shlex.split(line.split(marker, 1)[1], comments=True)
            out.append(words)
    return out


def test_the_hermes_config_yaml_is_what_the_provider_reads(
    tmp_path: Path, core_factory: Callable[[MemoryConfig], MemoryProvider], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HERMES_MEMORY_DATA_DIR", raising=False)
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    (text,) = blocks(section("Hermes Agent"), "yaml")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(text)
    assert yaml.safe_load(text)["memory"]["provider"] == "hermes_memory"
    assert read_settings(home) == ProviderSettings(data_dir="$HERMES_HOME/hermes_memory", prefetch_top_k=5,
                                                   mirror_builtin_writes=True)
    provider = HermesAgentProvider(core_factory=core_factory)
    provider.initialize("s1", hermes_home=str(home))
    try:
        assert provider.disabled_reason is None
        assert Path(provider.memory.config.data_dir) == home / "hermes_memory"  # type: ignore[union-attr]
    finally:
        provider.shutdown()


def test_the_hermes_install_commands_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (bash,) = blocks(section("Hermes Agent"), "bash")
    found = commands(bash, "-m hermes_memory_agents ")
    assert found == [["hermes-agent", "install"]]
    assert main([*found[0], "--hermes-home", str(tmp_path)]) == 0
    assert (tmp_path / "plugins" / "hermes_memory" / "__init__.py").exists()


def test_the_tool_table_lists_every_argument() -> None:
    rows = {line.split("|")[1].strip(" `"): line for line in section("Hermes Agent").splitlines()
            if line.startswith("| `hermes_memory_")}
    assert sorted(rows) == sorted(s["name"] for s in TOOL_SCHEMAS)
    for schema in TOOL_SCHEMAS:
        for arg in schema["parameters"]["properties"]:
            assert f"`{arg}`" in rows[schema["name"]], (schema["name"], arg)


def test_the_mcp_command_lines_parse() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True), common_parent())
    (bash,) = blocks(section("MCP"), "bash")
    lines = commands(bash, "hermes-memory ")
    assert len(lines) == 2
    for argv in lines:
        args = parser.parse_args(argv)
        assert args.command == "mcp" and args.user == "me"
    assert parser.parse_args(lines[1]).transport == "streamable-http"
    (tour,) = commands(next(b for b in blocks(section("README"), "bash") if "mcp" in b), "hermes-memory ")
    assert parser.parse_args(tour).command == "mcp"


def _entry_points_installed() -> bool:
    try:
        groups = {ep.group for ep in importlib.metadata.distribution(DISTRIBUTION).entry_points}
    except importlib.metadata.PackageNotFoundError:
        return False
    return "hermes_memory.cli" in groups and shutil.which("hermes-memory") is not None


@pytest.mark.slow  # starts the server in another process, on the real model
async def test_the_mcp_client_configuration_starts_the_server(tmp_path: Path) -> None:
    (text,) = blocks(section("MCP"), "json")
    server = json.loads(text)["mcpServers"]["hermes-memory"]
    assert server["command"] == "hermes-memory"
    args = list(server["args"])
    args[args.index("--data-dir") + 1] = str(tmp_path / "store")
    # the console script carries our sub-commands once `pip install -e .` registered the entry points
    command = [server["command"]] if _entry_points_installed() else [sys.executable, "-m", "hermes_memory_agents"]
    repo = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": os.pathsep.join(
        p for p in (repo, os.environ.get("PYTHONPATH")) if p)}
    params = StdioServerParameters(command=command[0], args=[*command[1:], *args], env=env, cwd=str(tmp_path))
    with (tmp_path / "server.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            assert [t.name for t in tools] == [s["name"] for s in TOOL_SCHEMAS]
            result = await session.call_tool("hermes_memory_search", {"query": "anything"})
            assert result.isError is False and json.loads(result.content[0].text) == {"results": [], "count": 0}
