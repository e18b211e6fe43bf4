"""An MCP client that disconnects normally costs one log line, not the MCP library's traceback."""

from __future__ import annotations

import logging
import socket
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from hermes_memory_agents.mcp_server import DisconnectFilter
from tests.hermes_memory_agents.test_mcp import SERVER, _env


def _record(exc: BaseException | None, msg: str = "Error in standalone SSE writer") -> logging.LogRecord:
    info = None
    if exc is not None:
        try:
            raise exc
        except BaseException as raised:  # noqa: BLE001 - building exc_info as logging.exception does
            info = (type(raised), raised, raised.__traceback__)
    return logging.LogRecord("mcp.server.streamable_http", logging.ERROR, __file__, 1, msg, None, info)


def test_the_filter_makes_a_disconnect_one_line_and_leaves_the_rest() -> None:
    quiet = DisconnectFilter(window_seconds=60)
    first = _record(anyio.ClosedResourceError())
    assert quiet.filter(first) is True
    text = logging.Formatter("%(levelname)s %(message)s").format(first)
    assert text == "WARNING MCP client disconnected (ClosedResourceError); still serving"
    assert quiet.filter(_record(anyio.BrokenResourceError())) is False  # the same disconnect's second record
    other = _record(ValueError("a real bug"))
    assert quiet.filter(other) is True and other.exc_info is not None and other.levelno == logging.ERROR
    assert quiet.filter(_record(None, "no exception")) is True
    group = _record(BaseExceptionGroup("g", [anyio.EndOfStream(), anyio.ClosedResourceError()]))
    assert DisconnectFilter().filter(group) is True and group.exc_info is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
async def test_a_client_that_disconnects_logs_one_line(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    port = _free_port()
    proc = subprocess.Popen([*SERVER, "--data-dir", str(tmp_path / "d"), "--user", "me", "--transport",
                             "streamable-http", "--port", str(port)], env=_env(), stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await anyio.sleep(0.3)
        token = (tmp_path / "d" / "hermes.mcp-token").read_text().strip()  # the server authenticates its clients
        async with streamablehttp_client(f"http://127.0.0.1:{port}/mcp",
                                         headers={"Authorization": f"Bearer {token}"}) as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            assert (await session.call_tool("hermes_memory_search", {"query": "x"})).isError is False
        await anyio.sleep(2)  # the server notices the client went away
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=60)
    lines = [line for line in err.splitlines() if "serving MCP" not in line]
    assert "Traceback" not in err and len(lines) <= 1, err
    assert all("MCP client disconnected" in line for line in lines), err
