"""What stands in front of the MCP server's streamable HTTP endpoint: authentication, strict Host and Origin
parsing, JSON-RPC body checks and a session cap.

Host and Origin checks stop browsers; a client run by *another account on the same machine* is stopped by the
token. Every HTTP request goes through :class:`HttpGuard`, in this order:

1. **Host**: exactly one ``Host`` header, exactly ``127.0.0.1:<port>``, ``localhost:<port>`` or ``[::1]:<port>``
   with the server's own port — nothing before or after it (``localhost:8000@evil.com``,
   ``127.0.0.1:8000.evil.com`` are refused) → else 403. An ``Origin``, when sent, must be ``http://`` + one of
   those hosts → else 403.
2. **Token**: ``Authorization: Bearer <token>`` with the server's token (compared in constant time) → else 401
   with ``WWW-Authenticate: Bearer``. The token is generated on first use (:func:`load_or_create_token`: 32
   random bytes, URL-safe) into a file created ``0600`` — by default ``hermes.mcp-token`` in the data directory,
   whose folder is ``0700``, or for a read-only store outside it (:func:`token_path`) — and read from there on
   later runs.
3. **Body** (POST): at most :data:`MAX_BODY_BYTES` (→ 413); UTF-8 JSON (→ 400, JSON-RPC "Parse error"); one
   JSON-RPC 2.0 object — a request or notification (``method`` a string, ``params`` an object or array, ``id`` a
   string or an integer) or a response (``id`` with ``result`` or ``error``) → else 400 ("Invalid Request").
   Batches are refused (400).
4. **Sessions**: at most ``max_sessions`` are open. A POST that would open one more (no ``mcp-session-id``)
   first closes the session that has been idle longest (the guard sends the app a ``DELETE`` for it; its client
   gets 404 next time and opens a new one, as MCP clients do), so no one holding the token can fill the cap and
   lock the others out: a flood of new sessions only closes idle ones, and every client can always open a session.
   A session counts from the response that issued its id until the client deletes it, the server answers 404 for
   it, it is closed to make room, or it has been idle ``idle_seconds``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "MAX_BODY_BYTES",
    "TOKEN_FILE",
    "HttpGuard",
    "jsonrpc_problem",
    "load_or_create_token",
    "token_path",
]

TOKEN_FILE = "hermes.mcp-token"
MAX_BODY_BYTES = 4 << 20
DEFAULT_MAX_SESSIONS = 32

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def token_path(data_dir: Path, read_only: bool) -> Path:
    """Where the HTTP server's token lives by default: ``hermes.mcp-token`` in the data directory — unless the store
    is read-only (``read_only``, or a folder this process cannot write) and holds no token yet: then outside it, in
    the user's runtime folder (``$XDG_RUNTIME_DIR``, else ``~/.cache``) under ``hermes-memory/``, named after the
    store's folder, so a read-only store gets no byte written."""
    data_dir = Path(data_dir)
    inside = data_dir / TOKEN_FILE
    if inside.exists() or not (read_only or not os.access(data_dir, os.W_OK)):
        return inside
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or Path.home() / ".cache") / "hermes-memory"
    digest = hashlib.sha256(str(data_dir.resolve()).encode("utf-8")).hexdigest()[:16]
    return base / f"mcp-token-{digest}"


def load_or_create_token(path: Path) -> str:
    """The token in ``path``, or a new one written there (``0600``, created exclusively, never through a link).

    Raises:
        OSError: The file cannot be read or created; ValueError: it holds fewer than 16 characters.
    """
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        token = secrets.token_urlsafe(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:  # another server created it meanwhile: use theirs
            return load_or_create_token(path)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(token + "\n")
        os.chmod(path, 0o600)
        return token
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "r", encoding="utf-8") as fh:
        token = fh.read().strip()
    if len(token) < 16:
        raise ValueError(f"the MCP token in {path} is shorter than 16 characters")
    if os.stat(path).st_mode & 0o077:
        os.chmod(path, 0o600)
    return token


_LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _host_ok(value: str, port: int) -> bool:
    m = re.fullmatch(r"(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})", value.strip().lower())
    return m is not None and int(m.group(2)) == port


def _origin_ok(value: str, port: int) -> bool:
    return value.startswith("http://") and _host_ok(value[len("http://") :], port)


def jsonrpc_problem(body: bytes) -> tuple[int, str] | None:
    """Why ``body`` is not one acceptable JSON-RPC 2.0 message, as (JSON-RPC error code, reason); None if it is."""
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return -32700, f"Parse error: the body is not UTF-8 JSON ({type(exc).__name__})"
    if isinstance(message, list):
        return -32600, "Invalid Request: batches are not supported"
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return -32600, "Invalid Request: expected one JSON-RPC 2.0 object"
    has_id = "id" in message
    ident = message.get("id")
    if has_id and (isinstance(ident, bool) or not isinstance(ident, str | int)):
        return -32600, "Invalid Request: id must be a string or an integer"
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return -32600, "Invalid Request: method must be a non-empty string"
        if "params" in message and not isinstance(message["params"], dict | list):
            return -32600, "Invalid Request: params must be an object or an array"
        return None
    if has_id and (("result" in message) != ("error" in message)):
        if "error" in message and not isinstance(message["error"], dict):
            return -32600, "Invalid Request: error must be an object"
        return None
    return -32600, "Invalid Request: neither a request, a notification nor a response"


class HttpGuard:
    """ASGI middleware around the MCP endpoint (see the module docstring).

    Args:
        app: The ASGI app it protects.
        token: The bearer token clients must send.
        port: The port the server listens on (the only one a Host header may name).
        max_sessions: Most sessions open at once.
        idle_seconds: A session idle this long no longer counts.
        clock: Monotonic seconds (tests pass their own).
    """

    def __init__(self, app: Any, *, token: str, port: int, max_sessions: int = DEFAULT_MAX_SESSIONS,
                 idle_seconds: float = 1800.0, clock: Callable[[], float] = time.monotonic) -> None:
        if len(token) < 16:
            raise ValueError("the MCP HTTP token must have at least 16 characters")
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self.app = app
        self._token = token.encode("utf-8")
        self.port = port
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._sessions: dict[str, float] = {}

    @property
    def open_sessions(self) -> int:
        """Sessions that count against the cap now."""
        self._expire()
        return len(self._sessions)

    def _expire(self) -> None:
        cutoff = self._clock() - self.idle_seconds
        for sid in [s for s, seen in self._sessions.items() if seen < cutoff]:
            del self._sessions[sid]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[str, list[str]] = {}
        for name, value in scope.get("headers") or ():
            headers.setdefault(name.decode("latin-1").lower(), []).append(value.decode("latin-1"))
        hosts = headers.get("host", [])
        if len(hosts) != 1 or not _host_ok(hosts[0], self.port):
            await _reply(send, 403, "Forbidden: the Host header must name this local server")
            return
        origins = headers.get("origin", [])
        if len(origins) > 1 or (origins and not _origin_ok(origins[0], self.port)):
            await _reply(send, 403, "Forbidden: the Origin is not this local server")
            return
        auth = headers.get("authorization", [])
        given = auth[0].encode("utf-8", "replace") if len(auth) == 1 else b""
        if not (given[:7].lower() == b"bearer " and hmac.compare_digest(given[7:].strip(), self._token)):
            await _reply(send, 401, "Unauthorized: send Authorization: Bearer <token> (the server's token file)",
                         [(b"www-authenticate", b'Bearer realm="hermes-memory"')])
            return
        session: str | None = headers["mcp-session-id"][0] if headers.get("mcp-session-id") else None
        method = scope.get("method", "GET")
        if method == "POST":
            body = await _read_body(receive)
            if body is None:
                await _reply(send, 413, f"Payload Too Large: at most {MAX_BODY_BYTES} bytes")
                return
            problem = jsonrpc_problem(body)
            if problem is not None:
                await _reply(send, 400, problem[1], code=problem[0])
                return
            if session is None and self.open_sessions >= self.max_sessions:
                await self._close_idlest(scope)
            receive = _replay(body, receive)
        await self.app(scope, receive, self._tracking(send, session, method))

    async def _close_idlest(self, scope: Scope) -> None:
        """Close the session idle longest: forget it here and send the app a ``DELETE`` for it (its answer is
        dropped; an app that fails it still loses the session from the count)."""
        sid = min(self._sessions, key=lambda s: self._sessions[s])
        del self._sessions[sid]
        headers = [(k, v) for k, v in scope.get("headers") or () if k.lower() not in (b"mcp-session-id",
                                                                                        b"content-length")]
        closing = {**scope, "method": "DELETE", "headers": [*headers, (b"mcp-session-id", sid.encode("latin-1"))]}

        async def nothing() -> MutableMapping[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def dropped(_message: MutableMapping[str, Any]) -> None:
            return None

        with contextlib.suppress(Exception):  # the session is out of the count either way
            await self.app(closing, nothing, dropped)

    def _tracking(self, send: Send, session: str | None, method: str) -> Send:
        async def tracked(message: MutableMapping[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                status = int(message.get("status", 0))
                issued = next((v.decode("latin-1") for k, v in message.get("headers") or ()
                               if k.lower() == b"mcp-session-id"), None)
                if session is not None and (status == 404 or (method == "DELETE" and status < 300)):
                    self._sessions.pop(session, None)
                elif session is not None and session in self._sessions:
                    self._sessions[session] = self._clock()
                elif issued and status < 300:
                    self._sessions[issued] = self._clock()
            await send(message)

        return tracked


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            break
        chunk = message.get("body", b"") or b""
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body already read, then whatever the client sends next (its disconnect)."""
    sent = False

    async def replay() -> MutableMapping[str, Any]:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _reply(send: Send, status: int, reason: str, extra: list[tuple[bytes, bytes]] | None = None,
                 code: int = -32600) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": reason}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
