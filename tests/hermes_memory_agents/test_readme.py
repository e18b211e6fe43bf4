"""docs/hermes-agent.md and docs/mcp.md run as written, and the README's MCP line parses."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    install, checkout = blocks(section("Hermes Agent"), "bash")
    found = commands(install, "-m hermes_memory_agents ")
    assert found == [["hermes-agent", "install"]]
    assert main([*found[0], "--hermes-home", str(tmp_path)]) == 0
    assert (tmp_path / "plugins" / "hermes_memory" / "__init__.py").exists()
    (status,) = commands(checkout, "-m hermes_memory_agents ")  # the checkout: installed, found by the entry point
    assert status == ["hermes-agent", "status"] and main([*status, "--hermes-home", str(tmp_path / "other")]) == 0
    assert commands(checkout, "venv/bin/python -m pip ") == [["install", "/path/to/hermes-memory"]]


def test_the_hermes_page_says_which_versions_and_hooks() -> None:
    import tomllib

    page = section("Hermes Agent")
    versions = page[page.index("## Which Hermes versions"):page.index("## Install and activate")]
    entry_points = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    (group,) = [g for g in entry_points if g.startswith("hermes_agent.")]
    assert f"`{group}`" in versions and "`hermes_memory`" in versions and entry_points[group]["hermes_memory"]
    for hook in ("recall_status", "unavailable_reason", "initialize_for_inspection"):
        assert f"`{hook}`" in versions and callable(getattr(HermesAgentProvider, hook))
    assert "| 0.19.0 " in versions and "0.21.x" in versions
    rows = [line.split("|")[1] for line in page.splitlines() if line.startswith("| `") and "hermes_memory_" not in line]
    hooks = [name.strip(" `") for row in rows for name in row.split(",")]
    assert len(hooks) >= 20 and "recall_status" in hooks and "on_pre_compress" in hooks
    for hook in hooks:
        assert callable(getattr(HermesAgentProvider, hook, None)), hook
    assert f"`pre_compress_checkpoint_api_version = {HermesAgentProvider.pre_compress_checkpoint_api_version}`" in page
    fields = {f["key"]: f for f in HermesAgentProvider().get_config_schema()}
    k = fields["prefetch_top_k"]
    assert f"`prefetch_top_k`: `{k['type']}`, {k['minimum']}–{k['maximum']}, step {k['step']}" in page
    assert f"`mirror_builtin_writes`: `{fields['mirror_builtin_writes']['type']}`" in page


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
    start, rotate = blocks(section("MCP"), "bash")
    lines = commands(start, "hermes-memory ")
    assert len(lines) == 2
    for argv in [*lines, *commands(rotate, "hermes-memory ")]:
        args = parser.parse_args(argv)
        assert args.command == "mcp" and args.user == "me" and args.data_dir == "~/.hermes-memory"
    assert parser.parse_args(lines[1]).transport == "streamable-http"
    assert commands(rotate, "rm ") == [["~/.hermes-memory/hermes.mcp-token"]]
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


def test_the_mcp_page_says_where_the_token_is_and_how_to_send_it() -> None:
    from hermes_memory_agents.mcp_http import TOKEN_FILE

    page = section("MCP")
    assert f"`<data-dir>/{TOKEN_FILE}`" in page and "`--token-file PATH`" in page
    assert "`Authorization: Bearer <token>`" in page and "`0600`" in page and "401 Unauthorized" in page
    (client,) = blocks(page, "py")
    assert f'TOKEN_FILE = Path("~/.hermes-memory/{TOKEN_FILE}")' in client and '"Authorization": f"Bearer {token}"' in client


def _client_example(token_file: Path, port: int) -> str:
    """The page's Python client, pointed at a server of the test (its data directory and port)."""
    (client,) = blocks(section("MCP"), "py")
    return (client.replace('"~/.hermes-memory/hermes.mcp-token"', repr(str(token_file)))
            .replace("127.0.0.1:8765", f"127.0.0.1:{port}"))


def _stop(proc: Any) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow  # two servers in other processes, on the real model
def test_the_http_client_example_runs_and_a_rotated_token_refuses_the_old_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    import httpx

    from tests.hermes_memory_agents.test_mcp import _free_port, _start_http

    token_file = tmp_path / "store" / "hermes.mcp-token"
    port = _free_port()
    proc = _start_http(tmp_path, port)
    try:
        code = _client_example(token_file, port)
        exec(compile(code, "docs/mcp.md", "exec"), {"__name__": "mcp_client_example"})  # it calls asyncio.run
        stored, found = (json.loads(line) for line in capsys.readouterr().out.splitlines())
        assert stored["stored"] is True and found["results"][0]["id"] == stored["id"]
        old = token_file.read_text().strip()
    finally:
        _stop(proc)
    (_start, rotate) = blocks(section("MCP"), "bash")
    for argv in commands(rotate, "rm "):  # the page's rotation: the file goes, the next start writes a new token
        Path(argv[0].replace("~/.hermes-memory", str(tmp_path / "store"))).unlink()
    proc = _start_http(tmp_path, port)
    try:
        new = token_file.read_text().strip()
        assert new != old and len(new) >= 16
        url = f"http://127.0.0.1:{port}/mcp"
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        assert httpx.post(url, content=body, headers={**headers, "Authorization": f"Bearer {old}"}).status_code == 401
        assert httpx.post(url, content=body, headers={**headers, "Authorization": f"Bearer {new}"}).status_code == 200
    finally:
        _stop(proc)


def test_the_core_factory_example_runs_and_its_clock_reaches_the_store(
    embedder: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/hermes-agent.md shows ``core_factory``, the only way to give the provider's store a clock or other
    options. Its block runs as written here on the test embedder (tests/test_readme.py runs it on the real model)."""
    import hermes_memory_core

    page = section("Hermes Agent")
    part = page[page.index("## Options the settings do not cover: `core_factory`"):page.index("## Whose memory")]
    (code,) = re.findall(r"```python\n(.*?)```", part, flags=re.S)
    assert "HermesAgentProvider(core_factory=open_store)" in code and "clock=" in code
    real = hermes_memory_core.MemoryProvider

    class OnTheTestEmbedder(real):  # type: ignore[misc, valid-type]
        def __init__(self, config: MemoryConfig, **kwargs: Any) -> None:
            super().__init__(config, embedder=embedder, **kwargs)

    monkeypatch.setattr(hermes_memory_core, "MemoryProvider", OnTheTestEmbedder)
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    monkeypatch.setattr("tempfile.mkdtemp", lambda: str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    scope: dict[str, Any] = {"__name__": "hermes_core_factory_example"}
    exec(compile(code, "docs/hermes-agent.md", "exec"), scope)  # its own assert checks the clock
    assert capsys.readouterr().out.split() == ["long_term", "1767225600"]
    assert scope["provider"].memory is None  # shut down: the store is closed
