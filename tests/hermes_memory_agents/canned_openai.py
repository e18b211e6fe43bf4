"""A canned OpenAI-compatible chat server on 127.0.0.1: replies come from a list, in order (no model at all).

It answers ``POST .../chat/completions`` in both forms Hermes Agent may ask for (JSON, or server-sent events when
``"stream": true``), records every request, and answers anything else with 404.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["CannedChatServer"]


class CannedChatServer:
    """Serve canned assistant replies.

    Args:
        replies: Each ``{"content": str}`` or ``{"tool_calls": [(name, arguments), ...]}``; after the last one
            every request gets ``"(no more canned replies)"``.
    """

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self._calls = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: dict[str, Any]) -> tuple[dict[str, Any], str]:
        self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else {"content": "(no more canned replies)"}
        self._calls += 1
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
        calls = reply.get("tool_calls") or []
        if calls:
            message["tool_calls"] = [
                {"id": f"call_{self._calls}_{i}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args) in enumerate(calls)
            ]
        return message, "tool_calls" if calls else "stop"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._send(404, b"")

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(size) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send(404, b"")
                    return
                message, finish = outer._next(request)
                usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                head = {"id": "canned", "created": 0, "model": request.get("model", "canned")}
                if not request.get("stream"):
                    body = {**head, "object": "chat.completion", "usage": usage,
                            "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
                    self._send(200, json.dumps(body).encode())
                    return
                delta = {k: v for k, v in message.items() if v is not None}
                if "tool_calls" in delta:
                    delta["tool_calls"] = [{**call, "index": i} for i, call in enumerate(delta["tool_calls"])]
                chunks = [
                    {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
                ]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks:
                    event = {**head, "object": "chat.completion.chunk", **chunk}
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        return Handler
