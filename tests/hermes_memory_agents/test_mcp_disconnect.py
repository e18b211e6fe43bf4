"""An MCP client that disconnects normally costs no warning (one INFO line), not the MCP library's traceback."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from hermes_memory_agents.mcp_server import DisconnectFilter, bad_message_summary, quiet_bad_messages
from tests.hermes_memory_agents.test_mcp import SERVER, _env


def _record(exc: BaseException | None, msg: str = "Error in standalone SSE writer") -> logging.LogRecord:
    info = None
    if exc is not None:
        try:
            raise exc
        except BaseException as raised:  # noqa: BLE001 - building exc_info as logging.exception does
            info = (type(raised), raised, raised.__traceback__)
    return logging.LogRecord("mcp.server.streamable_http", logging.ERROR, __file__, 1, msg, None, info)


@pytest.fixture
def level() -> Iterator[Callable[[int], None]]:
    """Sets the MCP library's logger level as ``--log-level`` does (restored after the test)."""
    logger = logging.getLogger("mcp.server.streamable_http")
    before = logger.level
    yield logger.setLevel
    logger.setLevel(before)


def test_the_filter_makes_a_disconnect_one_line_and_leaves_the_rest(level: Callable[[int], None]) -> None:
    level(logging.INFO)  # --log-level info
    quiet = DisconnectFilter(window_seconds=60)
    first = _record(anyio.ClosedResourceError())
    assert quiet.filter(first) is True
    text = logging.Formatter("%(levelname)s %(message)s").format(first)
    assert text == "INFO MCP client disconnected (ClosedResourceError); still serving"  # normal: no warning
    assert quiet.filter(_record(anyio.BrokenResourceError())) is False  # the same disconnect's second record
    other = _record(ValueError("a real bug"))
    assert quiet.filter(other) is True and other.exc_info is not None and other.levelno == logging.ERROR
    assert quiet.filter(_record(None, "no exception")) is True
    group = _record(BaseExceptionGroup("g", [anyio.EndOfStream(), anyio.ClosedResourceError()]))
    assert DisconnectFilter().filter(group) is True and group.exc_info is None


def test_a_disconnect_says_nothing_at_the_default_level(level: Callable[[int], None]) -> None:
    """A client exiting normally logged a WARNING line on every run; it is INFO, hidden at the default WARNING."""
    level(logging.WARNING)
    record = _record(anyio.ClosedResourceError())
    assert DisconnectFilter().filter(record) is False and record.levelno == logging.INFO


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
    assert "Traceback" not in err and lines == [], err  # a normal exit is no warning (INFO, not shown by default)


# ---------------------------------------------------------------------- malformed messages from a client
_PYDANTIC_JSON = ("1 validation error for JSONRPCMessage\n  Invalid JSON: expected ident at line 1 column 2 "
                  "[type=json_invalid, input_value='my passport is E12345678\\n', input_type=str]\n"
                  "    For further information visit https://errors.pydantic.dev/2.14/v/json_invalid")


def test_bad_message_summary_is_one_line_without_the_input() -> None:
    assert bad_message_summary(_PYDANTIC_JSON) == (
        "1 validation error for JSONRPCMessage: Invalid JSON: expected ident at line 1 column 2")
    many = "30 validation errors for ClientRequest\nPingRequest.method\n  Input should be 'ping' [type=literal_error]"
    assert bad_message_summary(many) == "30 validation errors for ClientRequest"
    assert bad_message_summary("Received request before initialization was complete") == (
        "Received request before initialization was complete")


def test_the_library_reports_of_bad_messages_are_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    """What the MCP library logs for a malformed message (its server logger, and ``logging.warning`` on the root
    logger with ~80 lines of pydantic errors) comes out as one line on our logger, naming no content."""
    server_log = logging.getLogger("mcp.server.lowlevel.server")
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    keep = Keep()
    # on each logger itself: an in-process `hermes-memory` command of another test may have stopped propagation
    watched = [server_log, logging.getLogger("hermes_memory_agents.mcp_server"), logging.getLogger()]
    levels = [logger.level for logger in watched]
    for logger in watched:
        logger.addHandler(keep)
        logger.setLevel(logging.WARNING)  # the commands' default --log-level
    try:
        with quiet_bad_messages():
            server_log.error(f"Received exception from stream: {_PYDANTIC_JSON}")
            logging.warning("Failed to validate request: 30 validation errors for ClientRequest\n"
                            "PingRequest.method\n  Input should be 'ping' [type=literal_error, input_value='x']\n"
                            + "more\n" * 80)
            server_log.warning("Tool 'hermes_memory_recall' not listed, no validation will be performed")
            server_log.error("a real error")
        logging.warning("Failed to validate request: outside the server: untouched")
    finally:
        for logger, level in zip(watched, levels, strict=True):
            logger.removeHandler(keep)
            logger.setLevel(level)
    lines = [(r.name, r.levelname, r.getMessage()) for r in {id(r): r for r in seen}.values()]  # once each
    assert lines[:3] == [
        ("mcp.server.lowlevel.server", "WARNING", ("MCP client sent a message that is not JSON-RPC (1 validation "
         "error for JSONRPCMessage: Invalid JSON: expected ident at line 1 column 2); answered with an error, "
         "still serving")),
        ("hermes_memory_agents.mcp_server", "WARNING", ("MCP client sent an invalid request (30 "
         "validation errors for ClientRequest); answered with an error, still serving")),
        ("mcp.server.lowlevel.server", "ERROR", "a real error"),
    ], lines
    assert lines[3][2] == "Failed to validate request: outside the server: untouched" and len(lines) == 4
    assert "E12345678" not in str(lines)
    capsys.readouterr()


@pytest.mark.slow
def test_a_raw_client_sending_garbage_costs_one_line_per_bad_message(tmp_path: Path) -> None:
    """The trial's raw session: a line that is not JSON, a call before initialize, a call with arguments that are
    no object. The server answers each and keeps serving; its stderr is one line per bad message."""
    lines = [
        "this is not json",
        '{"jsonrpc":"2.0","id":0,"method":"tools/list"}',
        ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},'
        '"clientInfo":{"name":"raw","version":"1"}}}'),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hermes_memory_remember","arguments":"oops"}}',
        ('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hermes_memory_search",'
        '"arguments":{"query":"x"}}}'),
    ]
    proc = subprocess.Popen([*SERVER, "--data-dir", str(tmp_path / "d"), "--user", "me"], env=_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.flush()
    answers: dict[Any, Any] = {}
    deadline = time.monotonic() + 120
    while 4 not in answers and time.monotonic() < deadline:
        message = json.loads(proc.stdout.readline() or "null")
        if isinstance(message, dict) and "id" in message:
            answers[message["id"]] = message
    _out, err = proc.communicate(timeout=60)  # closes stdin: the client is gone
    assert answers[4]["result"]["isError"] is False and "error" in answers[3], answers  # still serving
    assert "Traceback" not in err and "pydantic" not in err and "validation error" in err, err
    assert len(err.splitlines()) <= 3, err  # the non-JSON line, the early call, the bad arguments
    assert all(line.startswith("hermes-memory: ") for line in err.splitlines()), err
