"""The console's JSON API, independent of any web server: ``ConsoleAPI.handle(method, path, query, body)`` returns
``(status, payload)``. The HTTP layer (:mod:`hermes_memory_console.server`) checks the token first.

Routes (every one about one user names it with ``user``; nothing of another user is ever returned)::

    GET  /api/info                              the store, read-only or not, the users
    GET  /api/memories?user=U                   U's memories by kind
    GET  /api/search?user=U&q=TEXT              hybrid search (keywords and vectors)
    GET  /api/memory?user=U&id=ID               one memory, whole, with its history
    GET  /api/recall?user=U&q=TEXT[&top_k=N]    the recall inspector
    GET  /api/health[?user=U]                   counts, growth by day, checks, warnings
    POST /api/update   {user, id, content, note}    a new version (write)
    POST /api/delete   {user, id, reason}           a soft delete (write)
    POST /api/preview  {user, ids}                  what a bulk action would touch, before it does
    POST /api/bulk-delete {user, ids, reason}       delete several (write)
    POST /api/export   {user, ids}                  the chosen memories and their histories as JSON
    POST /api/forget-user {user, confirm}           erase the user for good; ``confirm`` must repeat the id (write)

Every write goes through :class:`~hermes_memory_core.MemoryProvider` (guarded, redacted, versioned, permission-
checked); on a read-only console a write is refused (403) before it reaches the store. Errors: a
:class:`~hermes_memory_core.HermesMemoryError` is ``{"error": "Type: one line"}`` with 404 (not found), 403
(read-only, permission) or 400 (anything else).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from hermes_memory_console import views
from hermes_memory_core import (
    HermesMemoryError,
    InvalidInputError,
    MemoryProvider,
    NotFoundError,
    PermissionDeniedError,
    ReadOnlyStoreError,
    __version__,
)

__all__ = ["WRITE_ROUTES", "ConsoleAPI"]

#: Routes that change the store (refused by a read-only console).
WRITE_ROUTES = frozenset({"/api/update", "/api/delete", "/api/bulk-delete", "/api/forget-user"})
#: Most memories one bulk action takes.
BULK_LIMIT = 1000

Handler = Callable[[dict[str, Any]], Any]


class ConsoleAPI:
    """The handlers, over one open provider.

    Args:
        mem: The store (the console acts as its operator: pass a provider opened with ``Caller.admin``, or permanent
            facts are not shown).
        read_only: Refuse every write route, whatever the provider allows.
    """

    def __init__(self, mem: MemoryProvider, *, read_only: bool = False) -> None:
        self.mem = mem
        self.read_only = read_only or bool(mem.config.read_only)
        self._get: dict[str, Handler] = {
            "/api/info": self._info, "/api/memories": self._memories, "/api/search": self._search,
            "/api/memory": self._memory, "/api/recall": self._recall, "/api/health": self._health,
        }
        self._post: dict[str, Handler] = {
            "/api/update": self._update, "/api/delete": self._delete, "/api/preview": self._preview,
            "/api/bulk-delete": self._bulk_delete, "/api/export": self._export, "/api/forget-user": self._forget,
        }

    def handle(self, method: str, path: str, params: Mapping[str, Any]) -> tuple[int, Any]:
        """Answer one request: ``params`` are the query's (GET) or the JSON body's (POST) fields."""
        routes = self._get if method == "GET" else self._post if method == "POST" else {}
        handler = routes.get(path)
        if handler is None:
            known = path in self._get or path in self._post
            return (405 if known else 404), {"error": f"{'method not allowed' if known else 'no such route'}: "
                                                      f"{method} {path}"}
        if path in WRITE_ROUTES and self.read_only:
            return 403, {"error": "ReadOnlyStoreError: the console is read-only; nothing was changed"}
        try:
            return 200, handler(dict(params))
        except NotFoundError as exc:
            return 404, {"error": f"{type(exc).__name__}: {exc}"}
        except (ReadOnlyStoreError, PermissionDeniedError) as exc:
            return 403, {"error": f"{type(exc).__name__}: {exc}"}
        except HermesMemoryError as exc:
            return 400, {"error": f"{type(exc).__name__}: {exc}"}

    # ------------------------------------------------------------------ reads
    def _info(self, _p: dict[str, Any]) -> dict[str, Any]:
        return {"version": __version__, "location": self.mem.location, "read_only": self.read_only,
                "users": views.users(self.mem)}

    def _memories(self, p: dict[str, Any]) -> dict[str, Any]:
        return views.memories_by_kind(self.mem, _text(p, "user"))

    def _search(self, p: dict[str, Any]) -> dict[str, Any]:
        user, query = _text(p, "user"), _text(p, "q")
        return {"user_id": user, "query": query, "hits": views.search_rows(self.mem, user, query)}

    def _memory(self, p: dict[str, Any]) -> dict[str, Any]:
        return views.memory_detail(self.mem, _text(p, "user"), _text(p, "id"))

    def _recall(self, p: dict[str, Any]) -> dict[str, Any]:
        return views.recall_inspection(self.mem, _text(p, "user"), _text(p, "q"), _int(p, "top_k", 5, 1, 50))

    def _health(self, p: dict[str, Any]) -> dict[str, Any]:
        return views.health(self.mem, str(p["user"]) if p.get("user") else None)

    # ------------------------------------------------------------------ writes (and the bulk preview/export)
    def _update(self, p: dict[str, Any]) -> dict[str, Any]:
        user, mid = _text(p, "user"), _text(p, "id")
        version = self.mem.update(mid, _text(p, "content"), version_note=_note(p, "note", "edited in the console"),
                                  user_id=user)
        return {"id": mid, "version": version, **views.memory_detail(self.mem, user, mid)}

    def _delete(self, p: dict[str, Any]) -> dict[str, Any]:
        mid = _text(p, "id")
        self.mem.delete(mid, reason=_note(p, "reason", "deleted in the console"), user_id=_text(p, "user"))
        return {"deleted": [mid]}

    def _chosen(self, p: dict[str, Any]) -> tuple[str, list[Any]]:
        user, ids = _text(p, "user"), p.get("ids")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise InvalidInputError("ids must be a non-empty list of memory ids")
        if len(ids) > BULK_LIMIT:
            raise InvalidInputError(f"at most {BULK_LIMIT} memories at once, got {len(ids)}")
        return user, [self.mem.get(mid, user_id=user) for mid in dict.fromkeys(ids)]

    def _preview(self, p: dict[str, Any]) -> dict[str, Any]:
        user, records = self._chosen(p)
        return {"user_id": user, "count": len(records), "memories": [views.memory_row(r) for r in records]}

    def _bulk_delete(self, p: dict[str, Any]) -> dict[str, Any]:
        user, records = self._chosen(p)  # every id is checked (exists, is the user's) before the first delete
        reason = _note(p, "reason", "deleted in the console (bulk)")
        for rec in records:
            self.mem.delete(rec.id, reason=reason, user_id=user)
        return {"deleted": [r.id for r in records]}

    def _export(self, p: dict[str, Any]) -> dict[str, Any]:
        user, records = self._chosen(p)
        return {"format": "hermes-memory-console-export/1", "exported_at": int(time.time()), "user_id": user,
                "memories": [{**r.to_dict(), "history": views.memory_detail(self.mem, user, r.id)["history"]}
                             for r in records]}

    def _forget(self, p: dict[str, Any]) -> dict[str, Any]:
        user = _text(p, "user")
        if p.get("confirm") != user:
            raise InvalidInputError("type the user id to confirm: the confirmation does not match the user id")
        return {"report": self.mem.purge_user(user).as_dict()}


def _text(p: Mapping[str, Any], name: str) -> str:
    value = p.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{name} is required (non-empty text)")
    return value


def _note(p: Mapping[str, Any], name: str, default: str) -> str:
    value = p.get(name)
    return value.strip() if isinstance(value, str) and value.strip() else default


def _int(p: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    raw = p.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a whole number, got {raw!r}") from None
    if not low <= value <= high:
        raise InvalidInputError(f"{name} must be between {low} and {high}, got {value}")
    return value
