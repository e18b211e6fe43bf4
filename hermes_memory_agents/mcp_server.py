"""Hermes Memory as an MCP server: the three memory tools over stdio or streamable HTTP on 127.0.0.1.

``hermes-memory mcp --data-dir DIR --user USER`` serves one user's memory to an MCP client (a desktop app, a
coding agent). The tools, their JSON schemas and their results are those of :mod:`hermes_memory_agents.tools`;
a bad argument or a refused operation is a tool error (``isError: true`` with ``{"error": ...}`` as its text)
and the server keeps serving. Needs the ``mcp`` extra: ``pip install "hermes-memory-layer[mcp]"``.

The server's caller comes from its options: by default it reads the permanent tier and does not write it (as
the Hermes Agent provider); ``--write-permanent`` lets ``tier="permanent"`` store first-person facts (the
injection guard still applies), ``--no-read-permanent`` hides permanent facts. Short-term memories belong to the
server's session (``--session``, default one per run) and expire after the store's ``short_term_ttl_seconds``.

Over HTTP the server authenticates every request: clients send ``Authorization: Bearer <token>``, where the token
is the content of ``<data_dir>/hermes.mcp-token`` (generated ``0600`` on first run; ``--token-file`` names
another file). See :mod:`hermes_memory_agents.mcp_http` for the Host, body and session checks.

Example (the same thing ``hermes-memory mcp`` does)::

    with MemoryProvider(MemoryConfig(data_dir="./hermes_data")) as mem:
        tools = MemoryTools(mem, ToolScope(user_id="me", caller=Caller("mcp", read_permanent=True),
                                           session_id="mcp-1"))
        anyio.run(serve_stdio, build_server(tools))
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import signal
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from hermes_memory_agents.mcp_http import DEFAULT_MAX_SESSIONS, TOKEN_FILE, HttpGuard, load_or_create_token, token_path
from hermes_memory_agents.tools import FORGET, SEARCH, MemoryTools

__all__ = [
    "INSTRUCTIONS",
    "SERVER_NAME",
    "TOKEN_FILE",
    "BadMessageFilter",
    "DisconnectFilter",
    "bad_message_summary",
    "build_server",
    "load_or_create_token",
    "mcp_missing",
    "quiet_bad_messages",
    "serve_stdio",
    "serve_streamable_http",
    "token_path",
]

#: The MCP library's loggers that report a client going away as an error with a traceback.
MCP_LOGGERS = ("mcp.server.streamable_http", "mcp.server.streamable_http_manager")
#: What a client going away raises inside the MCP library (anyio's stream errors; by name, so nothing is imported).
DISCONNECTS = {"ClosedResourceError", "BrokenResourceError", "EndOfStream", "ClientDisconnect",
               "ConnectionResetError", "BrokenPipeError"}


class DisconnectFilter(logging.Filter):
    """Turns the MCP library's traceback for a client that went away into one info line, once per disconnect
    (the library logs several records for one), shown only where the logger's level admits INFO (``--log-level
    info``): a client that exits is normal, not a warning. Every other record passes unchanged."""

    def __init__(self, window_seconds: float = 1.0) -> None:
        super().__init__()
        self.window = window_seconds
        self._last = float("-inf")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not _is_disconnect(exc):
            return True
        now = time.monotonic()
        if now - self._last < self.window:
            return False
        self._last = now
        record.msg, record.args = "MCP client disconnected (%s); still serving", (type(exc).__name__,)
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.levelno, record.levelname = logging.INFO, "INFO"
        return logging.getLogger(record.name).isEnabledFor(logging.INFO)


#: Where the MCP library reports a message it could not use: its server's logger (a line that is no JSON-RPC) and
#: the root logger (``logging.warning`` in ``mcp.shared.session``: a request or notification that fits no method).
NOISY_LOGGERS = ("mcp.server.lowlevel.server", "")
#: The logger the one-line reports of bad messages go to (the ``hermes-memory`` commands show it).
log = logging.getLogger(__name__)
_BAD_MESSAGE = re.compile(r"(?s)^(Received exception from stream|Failed to validate (?:request|notification)): (.*)$")


class BadMessageFilter(logging.Filter):
    """Makes the MCP library's report of a malformed message from a client one line: ``MCP client sent ...: <what
    was wrong>; still serving`` (the library dumps every pydantic error of every method it tried, about 80 lines
    with the offending input, to stderr through the root logger). The one line names what was wrong, never the
    message's content (it may hold what a user said). The library's root-logger reports are re-logged on this
    module's logger (formatted as every ``hermes-memory`` line) and dropped where they were; its notice that an
    unknown tool goes unvalidated drops to DEBUG (the tool call is answered with a tool error naming the tools).
    Every other record passes unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if text.startswith("Tool '") and text.endswith("not listed, no validation will be performed"):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        found = _BAD_MESSAGE.match(text)
        if found is None:
            return True
        what = {"Received exception from stream": "a message that is not JSON-RPC",
                "Failed to validate request": "an invalid request",
                "Failed to validate notification": "an invalid notification"}[found.group(1)]
        line = f"MCP client sent {what} ({bad_message_summary(found.group(2))}); answered with an error, still serving"
        if record.name == "root":  # logged on the root logger: say it on ours, in the commands' format
            log.warning("%s", line)
            return False
        record.msg, record.args, record.exc_info, record.exc_text = line, None, None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"  # the client's mistake, not the server's
        return True


def bad_message_summary(error: str) -> str:
    """One line of a pydantic validation error's text: its first line, and for a single error what it says without
    the input it quotes (``1 validation error for JSONRPCMessage: Invalid JSON: expected value at line 1 column
    1``); a message without pydantic's layout is its first line."""
    lines = [line.strip() for line in error.strip().splitlines() if line.strip()]
    if not lines:
        return "no details"
    head = lines[0][:200]
    if head.startswith("1 validation error") and len(lines) > 1:
        detail = next((ln for ln in lines[1:] if not ln.startswith("For further information")), "")
        detail = detail.split(" [type=", 1)[0][:200]
        return f"{head}: {detail}" if detail else head
    return head


@contextlib.contextmanager
def quiet_bad_messages() -> Iterator[None]:
    """Within this block the MCP library's reports of malformed client messages are one line each
    (:class:`BadMessageFilter`); the filter leaves with the block (the loggers are the process's)."""
    quiet = BadMessageFilter()
    loggers = [logging.getLogger(name or None) for name in NOISY_LOGGERS]
    for logger in loggers:
        logger.addFilter(quiet)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(quiet)


def _is_disconnect(exc: BaseException) -> bool:
    """A disconnect, itself or as the cause of what was raised (exception groups: every member is one)."""
    seen = 0
    while exc is not None and seen < 8:
        members = getattr(exc, "exceptions", None)
        if members:
            return all(_is_disconnect(m) for m in members)
        if type(exc).__name__ in DISCONNECTS:
            return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return False


SERVER_NAME = "hermes-memory"
#: What the server tells clients about itself (MCP ``instructions``).
INSTRUCTIONS = (
    "Long-term memory of one user: the current session, a long-term profile (preferences, habits) and permanent "
    "facts, searchable in Chinese and English. Search before answering questions about the user; remember what "
    "the user asks you to keep; forget by id what the user wants gone. Results and errors are JSON."
)


def mcp_missing() -> str | None:
    """None when the ``mcp`` package is importable, else a one-line message saying how to install it."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        return 'the MCP server needs the mcp package: pip install "hermes-memory-layer[mcp]"'
    return None


def build_server(tools: MemoryTools) -> Any:
    """An ``mcp.server.lowlevel.Server`` publishing the three tools of ``tools``.

    The arguments are checked by :class:`~hermes_memory_agents.tools.MemoryTools` (the same checks and messages
    as in Hermes Agent), not by the MCP library. Each call runs in a worker thread.
    """
    from mcp import types
    from mcp.server.lowlevel import Server

    from hermes_memory_core import __version__

    server: Any = Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)
    hints = {
        SEARCH: types.ToolAnnotations(title="Search memory", readOnlyHint=True, openWorldHint=False),
        FORGET: types.ToolAnnotations(title="Forget a memory", readOnlyHint=False, destructiveHint=True,
                                      idempotentHint=True, openWorldHint=False),
    }

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [
            types.Tool(name=s["name"], description=s["description"], inputSchema=s["parameters"],
                       annotations=hints.get(s["name"]) or types.ToolAnnotations(
                           title="Remember", readOnlyHint=False, destructiveHint=False, openWorldHint=False))
            for s in tools.schemas()
        ]

    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        text = await tools.acall(name, arguments)
        data = json.loads(text)
        failed = isinstance(data, dict) and "error" in data
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structuredContent=None if failed else data,
            isError=failed,
        )

    return server


async def serve_stdio(server: Any) -> None:
    """Serve MCP over this process's stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    with quiet_bad_messages():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


async def serve_streamable_http(
    server: Any, port: int, host: str = "127.0.0.1", *, token: str, max_sessions: int = DEFAULT_MAX_SESSIONS,
) -> None:
    """Serve MCP's streamable HTTP transport at ``http://<host>:<port>/mcp`` until cancelled.

    Every request passes :class:`~hermes_memory_agents.mcp_http.HttpGuard` first: ``Authorization: Bearer
    <token>`` (401 without it), a Host of exactly this local server and port and a local Origin (403), one
    well-formed JSON-RPC 2.0 message per POST (400/413), at most ``max_sessions`` open sessions (503). The MCP
    library's own DNS-rebinding protection runs behind it.
    """
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    manager = StreamableHTTPSessionManager(app=server, security_settings=security)

    class _Endpoint:
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    app = Starlette(routes=[Route("/mcp", endpoint=_Endpoint())], lifespan=lifespan)
    quiet = DisconnectFilter()
    for name in MCP_LOGGERS:
        logging.getLogger(name).addFilter(quiet)
    guarded = HttpGuard(app, token=token, port=port, max_sessions=max_sessions)

    class _Server(uvicorn.Server):
        interrupted = False

        def handle_exit(self, sig: int, frame: Any) -> None:
            self.interrupted = self.interrupted or sig == signal.SIGINT
            super().handle_exit(sig, frame)

    running = _Server(uvicorn.Config(guarded, host=host, port=port, log_level="warning"))

    def _cut_at_exit(record: logging.LogRecord) -> bool:
        """After Ctrl-C a client's open stream is cut on purpose: uvicorn's error line for it is not news."""
        return not (running.interrupted and record.getMessage().startswith("ASGI callable returned without completing"))

    uvicorn_errors = logging.getLogger("uvicorn.error")
    uvicorn_errors.addFilter(_cut_at_exit)
    try:
        with quiet_bad_messages():
            await running.serve()
    finally:  # the logger is global: a later server in this process gets no filter of this one
        uvicorn_errors.removeFilter(_cut_at_exit)
    if running.interrupted:
        # uvicorn shuts down gracefully on Ctrl-C and then raises the signal again, which reaches the command only
        # when the event loop has not finished first: say it here, every time (one line, exit status 130)
        raise KeyboardInterrupt
