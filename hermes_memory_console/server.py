"""The console's web server: Python's own threaded HTTP server on 127.0.0.1, the page and its vendored script and
style from the package (nothing from outside, no Node), and a one-time token.

Security contract:

* It binds 127.0.0.1 only, and answers only requests whose ``Host`` is ``127.0.0.1:<port>`` or
  ``localhost:<port>`` (a page of another site that rebinds a name to 127.0.0.1 gets 403).
* A new random token is made for each run and printed in the console's address (``/?token=...``). The first page
  load with it sets a ``SameSite=Strict``, ``HttpOnly`` cookie for the page's own files; the API wants the token in
  the ``X-Hermes-Token`` header (the page holds it; another site's page cannot send it). No token: 401; a wrong
  one: 403.
* The page loads nothing from elsewhere (``Content-Security-Policy: default-src 'self'``).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from hermes_memory_console.api import ConsoleAPI
from hermes_memory_core import InvalidInputError, MemoryProvider

__all__ = ["HOST", "ConsoleServer"]

log = logging.getLogger("hermes_memory.console")

#: The only address the console listens on.
HOST = "127.0.0.1"
_COOKIE = "hermes_console"
_STATIC = {"/": ("index.html", "text/html; charset=utf-8"), "/app.js": ("app.js", "text/javascript; charset=utf-8"),
           "/app.css": ("app.css", "text/css; charset=utf-8")}
_MAX_BODY = 1 << 20
#: Nothing but this address: no inline script, no other origin. 'unsafe-eval' stays allowed for the browser
#: automation people drive the page with (playwright's ``wait_for_function`` evaluates a string in the page); the
#: page's own script never evaluates text.
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                               "script-src 'self' 'unsafe-eval'; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


class ConsoleServer:
    """The console for one open store, served from a background thread.

    Args:
        mem: The store (opened by the caller, who also closes it; the console acts as its operator only if ``mem``
            was opened with ``Caller.admin``).
        port: Port on 127.0.0.1 (0: any free one).
        read_only: Offer no control that writes and refuse every write (always so for a read-only store).
        token: The token (default: a new random one).

    Example::

        with MemoryProvider(cfg, caller=Caller.admin("console")) as mem, ConsoleServer(mem) as console:
            print(console.url)

    Raises:
        InvalidInputError: The port cannot be used (taken, or not allowed).
    """

    def __init__(self, mem: MemoryProvider, *, port: int = 0, read_only: bool = False, token: str | None = None
                 ) -> None:
        self.api = ConsoleAPI(mem, read_only=read_only)
        self.token = token or secrets.token_urlsafe(24)
        try:
            self._httpd = _PooledServer((HOST, port), _handler_for(self))
        except (OSError, OverflowError) as exc:  # taken, not allowed, or not a port number (0-65535)
            why = getattr(exc, "strerror", None) or exc
            raise InvalidInputError(f"cannot serve the console on {HOST}:{port}: {why}") from None
        self.port: int = self._httpd.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The console's address, token included (give it to nobody else)."""
        return f"http://{HOST}:{self.port}/?token={self.token}"

    @property
    def read_only(self) -> bool:
        return self.api.read_only

    def start(self) -> ConsoleServer:
        """Serve from a daemon thread (returns at once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, name="hermes-console", daemon=True)
            self._thread.start()
        return self

    def wait(self) -> None:
        """Block until the console stops (Ctrl-C raises ``KeyboardInterrupt`` here)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(0.5)

    def close(self) -> None:
        """Stop serving and free the port (the store stays open: it is the caller's)."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ConsoleServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(self, given: str | None) -> int:
        """200 for the right token, 401 for none, 403 for a wrong one (compared in constant time)."""
        if not given:
            return 401
        return 200 if hmac.compare_digest(given.encode(), self.token.encode()) else 403

    def page(self, name: str) -> bytes:
        """One of the packaged files; the page carries the token and whether the console is read-only."""
        data = resources.files("hermes_memory_console").joinpath("static", name).read_bytes()
        if name == "index.html":
            data = data.replace(b"{{TOKEN}}", self.token.encode()).replace(
                b"{{READ_ONLY}}", b"true" if self.read_only else b"false")
        return data


class _PooledServer(HTTPServer):
    """An HTTP server that answers on a fixed pool of threads: the store keeps one reader connection per thread that
    reads it, so a thread per request would leave a connection behind for every request."""

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], workers: int = 6) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hermes-console")
        super().__init__(address, handler)  # (a port that cannot be bound closes the server, and the pool, here)

    def process_request(self, request: Any, client_address: Any) -> None:
        self._pool.submit(self._answer, request, client_address)

    def _answer(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            log.debug("console request from %s failed", client_address, exc_info=True)
        finally:
            self.shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)


def _handler_for(console: ConsoleServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "hermes-console"
        sys_version = ""
        protocol_version = "HTTP/1.0"  # one request per connection: an idle keep-alive never holds a worker

        def log_message(self, format: str, *args: Any) -> None:
            return  # the token is in the first request's address: never log addresses

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _serve(self, method: str) -> None:
            url = urlsplit(self.path)
            if self.headers.get("Host", "") not in (f"{HOST}:{console.port}", f"localhost:{console.port}"):
                self._send(403, {"error": "the console answers only at its own address (127.0.0.1)"})
                return
            query = dict(parse_qsl(url.query, keep_blank_values=True))
            if url.path.startswith("/api/"):
                status = console.check(self.headers.get("X-Hermes-Token"))
                if status != 200:
                    self._refuse(status)
                    return
                params: dict[str, Any] = query
                if method == "POST":
                    try:
                        params = self._body()
                    except ValueError as exc:
                        self._send(400, {"error": f"InvalidInputError: {exc}"})
                        return
                code, payload = console.api.handle(method, url.path, params)
                self._send(code, payload)
                return
            if url.path not in _STATIC or method != "GET":
                self._send(404, {"error": f"no such page: {url.path}"})
                return
            status = console.check(query.get("token") or _cookie(self.headers.get("Cookie", "")))
            if status != 200:
                self._refuse(status)
                return
            name, kind = _STATIC[url.path]
            extra = {"Set-Cookie": f"{_COOKIE}={console.token}; Path=/; HttpOnly; SameSite=Strict"} \
                if "token" in query else {}
            self._raw(200, console.page(name), kind, extra)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            if length > _MAX_BODY:
                raise ValueError(f"the request is larger than {_MAX_BODY} bytes")
            try:
                data = json.loads(self.rfile.read(length) or b"{}")
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ValueError(f"the body is not JSON ({exc})") from None
            if not isinstance(data, dict):
                raise ValueError("the body must be a JSON object")
            return data

        def _refuse(self, status: int) -> None:
            why = "no token: open the address the console printed" if status == 401 else "wrong token"
            self._send(status, {"error": why})

        def _send(self, status: int, payload: Any) -> None:
            self._raw(status, json.dumps(payload, ensure_ascii=False).encode(), "application/json; charset=utf-8")

        def _raw(self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
            with contextlib.suppress(OSError):  # the browser went away
                self.send_response(status, HTTPStatus(status).phrase)
                for name, value in {**_HEADERS, **(extra or {}), "Content-Type": kind,
                                    "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

    return Handler


def _cookie(header: str) -> str | None:
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == _COOKIE:
            return value
    return None
