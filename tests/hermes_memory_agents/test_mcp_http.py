"""the MCP HTTP endpoint's guard, driven at the ASGI level — the token (401 without
it), strict Host and Origin parsing, malformed JSON-RPC bodies (4xx, never 500), the session cap."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

from hermes_memory_agents.mcp_http import HttpGuard, jsonrpc_problem, load_or_create_token

PORT = 8765
TOKEN = "t" * 20 + "-secret-token"
GOOD = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
INIT = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'


class _Backend:
    """Stands in for the MCP app: issues a session id to a POST without one, records what reached it."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, bytes]] = []
        self.count = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        message = await receive() if scope["method"] == "POST" else {"body": b""}
        self.seen.append((scope["method"], message.get("body", b"")))
        headers = [(b"content-type", b"application/json")]
        given = dict(scope["headers"]).get(b"mcp-session-id")
        status = 200
        if scope["method"] == "POST" and given is None:
            self.count += 1
            headers.append((b"mcp-session-id", f"s{self.count}".encode()))
        elif given is not None and not given.startswith(b"s"):
            status = 404
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})


def _client(guard: HttpGuard) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=guard), base_url=f"http://127.0.0.1:{PORT}")


def _headers(**extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", **extra}


async def test_no_token_is_401_and_reaches_nothing() -> None:
    backend = _Backend()
    async with _client(HttpGuard(backend, token=TOKEN, port=PORT)) as c:
        for headers in ({}, {"Authorization": "Bearer wrong-token-0000000000"}, {"Authorization": TOKEN},
                        {"Authorization": f"Basic {TOKEN}"}):
            r = await c.post("/mcp", content=GOOD, headers={"Content-Type": "application/json", **headers})
            assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
        assert backend.seen == []
        ok = await c.post("/mcp", content=GOOD, headers=_headers())
        assert ok.status_code == 200 and backend.seen == [("POST", GOOD)]


@pytest.mark.parametrize("host", [
    f"localhost:{PORT}@evil.com", f"127.0.0.1:{PORT}.evil.com", "evil.com", f"127.0.0.1:{PORT + 1}", "127.0.0.1",
    f"localhost:{PORT} evil", f"127.0.0.1.nip.io:{PORT}", f"[::1]:{PORT}x", f"LOCALHOST:{PORT}/x", "",
])
async def test_strict_host(host: str) -> None:
    backend = _Backend()
    async with _client(HttpGuard(backend, token=TOKEN, port=PORT)) as c:
        r = await c.post("/mcp", content=GOOD, headers=_headers(Host=host))
        assert r.status_code == 403 and backend.seen == []


@pytest.mark.parametrize("host", [f"127.0.0.1:{PORT}", f"localhost:{PORT}", f"[::1]:{PORT}", f"LocalHost:{PORT}"])
async def test_local_hosts_pass(host: str) -> None:
    async with _client(HttpGuard(_Backend(), token=TOKEN, port=PORT)) as c:
        assert (await c.post("/mcp", content=GOOD, headers=_headers(Host=host))).status_code == 200


@pytest.mark.parametrize("origin", ["http://evil.com", f"http://localhost:{PORT}@evil.com", f"https://localhost:{PORT}",
                                    "null", f"http://127.0.0.1:{PORT}.evil.com"])
async def test_foreign_origin(origin: str) -> None:
    async with _client(HttpGuard(_Backend(), token=TOKEN, port=PORT)) as c:
        assert (await c.post("/mcp", content=GOOD, headers=_headers(Origin=origin))).status_code == 403
        ok = await c.post("/mcp", content=GOOD, headers=_headers(Origin=f"http://localhost:{PORT}"))
        assert ok.status_code == 200


MALFORMED = [
    b"", b"{", b"not json", b"\xff\xfe", b"[]", b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', b"null", b"42",
    b'"text"', b'{"id":1,"method":"ping"}', b'{"jsonrpc":"1.0","id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1}', b'{"jsonrpc":"2.0","id":1,"method":42}', b'{"jsonrpc":"2.0","id":1,"method":""}',
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}',
    b'{"jsonrpc":"2.0","id":1,"result":{},"error":{}}', b'{"jsonrpc":"2.0","id":1,"error":"boom"}',
    b"[" * 100_000 + b"]" * 100_000,
]


@pytest.mark.parametrize("body", MALFORMED, ids=range(len(MALFORMED)))
async def test_malformed_bodies_are_400(body: bytes) -> None:
    backend = _Backend()
    async with _client(HttpGuard(backend, token=TOKEN, port=PORT)) as c:
        r = await c.post("/mcp", content=body, headers=_headers())
        assert r.status_code == 400 and r.json()["error"]["code"] in (-32700, -32600) and backend.seen == []
    assert jsonrpc_problem(body) is not None


def test_wellformed_messages() -> None:
    for body in (GOOD, INIT, b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                 b'{"jsonrpc":"2.0","id":"a","result":{}}', b'{"jsonrpc":"2.0","id":2,"error":{"code":1}}'):
        assert jsonrpc_problem(body) is None, body


async def test_too_large_body_is_413(monkeypatch: pytest.MonkeyPatch) -> None:
    import hermes_memory_agents.mcp_http as mod

    monkeypatch.setattr(mod, "MAX_BODY_BYTES", 1000)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"p": "a" * 2000}}).encode()
    async with _client(HttpGuard(_Backend(), token=TOKEN, port=PORT)) as c:
        assert (await c.post("/mcp", content=body, headers=_headers())).status_code == 413


async def test_session_cap() -> None:
    clock = [0.0]
    backend = _Backend()
    guard = HttpGuard(backend, token=TOKEN, port=PORT, max_sessions=3, idle_seconds=60, clock=lambda: clock[0])
    async with _client(guard) as c:
        ids = []
        for _ in range(3):
            clock[0] += 1
            ids.append((await c.post("/mcp", content=INIT, headers=_headers())).headers["mcp-session-id"])
        clock[0] += 1
        assert (await c.post("/mcp", content=GOOD, headers=_headers(**{"mcp-session-id": ids[0]}))).status_code == 200
        assert (await c.delete("/mcp", headers=_headers(**{"mcp-session-id": ids[1]}))).status_code == 200
        assert guard.open_sessions == 2
        assert (await c.post("/mcp", content=INIT, headers=_headers())).status_code == 200
        clock[0] = 120.0  # all idle past the timeout
        assert guard.open_sessions == 0


async def test_one_token_holder_cannot_lock_the_others_out() -> None:
    """A flood of new sessions at the cap closes the idlest ones (the app is told), never refuses a newcomer."""
    clock = [0.0]
    backend = _Backend()
    guard = HttpGuard(backend, token=TOKEN, port=PORT, max_sessions=4, idle_seconds=1800, clock=lambda: clock[0])
    async with _client(guard) as c:
        clock[0] += 1
        mine = (await c.post("/mcp", content=INIT, headers=_headers())).headers["mcp-session-id"]
        for _ in range(40):  # someone else with the token opens session after session
            clock[0] += 1
            flood = await c.post("/mcp", content=INIT, headers=_headers())
            assert flood.status_code == 200
            assert guard.open_sessions <= 4
            if _ % 3 == 0:  # the first client stays active: it keeps its session
                assert (await c.post("/mcp", content=GOOD,
                                     headers=_headers(**{"mcp-session-id": mine}))).status_code == 200
        closed = [m for m, _b in backend.seen if m == "DELETE"]
        assert len(closed) >= 36  # each session closed to make room was closed in the app too
        clock[0] += 1
        assert (await c.post("/mcp", content=INIT, headers=_headers())).status_code == 200  # a newcomer gets in


def test_token_file_is_generated_private_and_reused(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        token = load_or_create_token(tmp_path / "d" / "hermes.mcp-token")
    finally:
        os.umask(old)
    path = tmp_path / "d" / "hermes.mcp-token"
    assert len(token) >= 40 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_token(path) == token
    os.chmod(path, 0o644)
    assert load_or_create_token(path) == token and stat.S_IMODE(path.stat().st_mode) == 0o600
    with pytest.raises(ValueError, match="16"):
        HttpGuard(_Backend(), token="short", port=PORT)


def test_a_read_only_store_gets_no_token_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_memory_agents.mcp_http import TOKEN_FILE, token_path

    store = tmp_path / "store"
    store.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    outside = token_path(store, read_only=True)
    assert store not in outside.parents
    load_or_create_token(outside)
    assert sorted(p.name for p in store.iterdir()) == []  # no byte written into the read-only store
    assert token_path(store, read_only=False) == store / TOKEN_FILE
    (store / TOKEN_FILE).write_text("x" * 40 + "\n")
    assert token_path(store, read_only=True) == store / TOKEN_FILE  # an existing token is read where it is
