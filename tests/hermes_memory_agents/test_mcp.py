"""``hermes-memory mcp`` driven by the MCP client library: over stdio, and over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from hermes_memory_agents.tools import TOOL_SCHEMAS
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.embedding import Embedder
from tests.conftest import TEST_KEY

SERVER = [sys.executable, "-m", "hermes_memory_agents", "mcp"]


def _env() -> dict[str, str]:
    repo = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HERMES_MEMORY_ENCRYPTION_KEY": TEST_KEY,
            "PYTHONPATH": repo + (os.pathsep + path if path else "")}


def _payload(result: Any) -> dict[str, Any]:
    assert len(result.content) == 1 and result.content[0].type == "text"
    data = json.loads(result.content[0].text)
    assert isinstance(data, dict)
    return data


async def _exercise(session: ClientSession) -> None:
    """List the tools, remember, search, make bad calls, and call again after them."""
    init = await session.initialize()
    assert init.serverInfo.name == "hermes-memory" and "Long-term memory" in (init.instructions or "")
    listed = (await session.list_tools()).tools
    assert [(t.name, t.description, t.inputSchema) for t in listed] == [
        (s["name"], s["description"], s["parameters"]) for s in TOOL_SCHEMAS]
    assert {t.name: t.annotations.readOnlyHint for t in listed if t.annotations} == {
        "hermes_memory_search": True, "hermes_memory_remember": False, "hermes_memory_forget": False}

    stored = await session.call_tool("hermes_memory_remember", {"content": "Alice grows tomatoes on her balcony",
                                                                "tier": "long_term", "tags": ["garden"]})
    assert stored.isError is False
    data = _payload(stored)
    assert data["stored"] is True and data["tier"] == "long_term" and stored.structuredContent == data
    short = _payload(await session.call_tool("hermes_memory_remember", {"content": "Current task: repot the basil",
                                                                        "tier": "short_term"}))
    assert short["stored"] is True

    found = await session.call_tool("hermes_memory_search", {"query": "What does Alice grow?", "tags": ["garden"]})
    assert found.isError is False and _payload(found)["results"][0]["id"] == data["id"]

    for name, args in [("hermes_memory_search", {"query": "tomatoes", "top_k": "five"}),
                       ("hermes_memory_remember", {"content": "The user is the CEO", "tier": "permanent"}),
                       ("hermes_memory_forget", {"memory_id": "not-a-uuid"}),
                       ("memory", {"action": "add"})]:
        bad = await session.call_tool(name, args)
        assert bad.isError is True and set(_payload(bad)) == {"error"}, (name, bad)

    secret = _payload(await session.call_tool("hermes_memory_remember", {"content": "我的护照号码是 E12345678"}))
    assert secret["content"] == "我的护照号码是 [PASSPORT]", secret  # what was stored, not what the client sent
    assert _payload(await session.call_tool("hermes_memory_forget", {"memory_id": secret["id"]}))["forgotten"]

    again = await session.call_tool("hermes_memory_search", {"query": "balcony tomatoes"})
    assert again.isError is False and _payload(again)["count"] >= 1
    gone = await session.call_tool("hermes_memory_forget", {"memory_id": data["id"]})
    assert _payload(gone) == {"forgotten": True, "id": data["id"]}


def _check_store(data_dir: Path, embedder: Embedder, session_id: str) -> None:
    """The server closed its store (we can open it); what is left is the short-term memory of its session."""
    config = MemoryConfig(data_dir=data_dir, encryption_key=TEST_KEY)  # type: ignore[arg-type]
    with MemoryProvider(config, embedder=embedder, caller=Caller.admin("check")) as mem:
        left = mem.list_memories(user_id="alice")
        assert [(r.memory_type.value, r.session_id) for r in left] == [("short_term", session_id)]
        assert left[0].expires_at is not None


async def test_stdio_server(tmp_path: Path, real_embedder: Embedder) -> None:
    params = StdioServerParameters(
        command=SERVER[0], args=[*SERVER[1:], "--data-dir", str(tmp_path / "store"), "--user", "alice",
                                 "--session", "desk-1"],
        env=_env(), cwd=str(tmp_path))
    with (tmp_path / "server.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await _exercise(session)
    _check_store(tmp_path / "store", real_embedder, "desk-1")


def _default_sigint() -> None:
    """Ctrl-C as a terminal's foreground command gets it (a test run started in the background ignores SIGINT, and
    its children would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_streamable_http_server_on_localhost(tmp_path: Path, real_embedder: Embedder) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [*SERVER, "--data-dir", str(tmp_path / "store"), "--user", "alice", "--session", "web-1",
         "--transport", "streamable-http", "--port", str(port)],
        env=_env(), cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.2)
        token_file = tmp_path / "store" / "hermes.mcp-token"
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        auth = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(headers=auth, timeout=60) as client, \
                streamable_http_client(url, http_client=client) as (read, write, _sid), \
                ClientSession(read, write) as session:
            await _exercise(session)
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
        assert httpx.post(url, headers=headers, content=body).status_code == 401  # another account: no token
        rebinding = httpx.post(url, headers={**headers, **auth, "Host": "attacker.example"}, content=body)
        assert rebinding.status_code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code == 130  # Ctrl-C: one line, exit status 130, as for every command; the store was closed cleanly
    err = proc.stderr.read() if proc.stderr else ""
    assert "serving MCP for user 'alice' at " + url in err and "hermes-memory: interrupted during mcp" in err
    assert "Authorization: Bearer <token>" in err and "Traceback" not in err
    _check_store(tmp_path / "store", real_embedder, "web-1")


def _start_http(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [*SERVER, "--data-dir", str(tmp_path / "store"), "--user", "alice", "--transport", "streamable-http",
         "--port", str(port)], env=_env(), cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint)
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            assert time.monotonic() < deadline, "the server did not start listening"
            time.sleep(0.2)


async def test_ctrl_c_with_a_client_connected_is_still_one_line(tmp_path: Path) -> None:
    port = _free_port()
    proc = _start_http(tmp_path, port)
    try:
        token = (tmp_path / "store" / "hermes.mcp-token").read_text().strip()
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client, \
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=client) as (read, write, _sid), \
                ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            await anyio.sleep(1.0)  # the client's event stream (a GET held open) is up by now
            proc.send_signal(signal.SIGINT)  # while the client's stream is open
            code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 130, err
    assert len(lines) == 2 and lines[0].startswith("hermes-memory: serving MCP") and "interrupted during mcp" in lines[1]


def test_a_missing_mcp_package_is_one_clear_line(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from hermes_memory_agents.cli import main

    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp -> ImportError
    assert main(["mcp", "--data-dir", str(tmp_path / "d"), "--user", "u"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == 'hermes-memory: the MCP server needs the mcp package: pip install "hermes-memory-layer[mcp]"'
    assert not (tmp_path / "d").exists()  # nothing opened
