"""The three memory tools agents get, shared by the Hermes Agent provider and the MCP server.

- ``hermes_memory_search`` (``query``, ``top_k``, ``tiers``, ``tags``): hybrid search of the user's memories.
- ``hermes_memory_remember`` (``content``, ``tier``, ``importance``, ``tags``): store something, classified
  (``tier="auto"``) or in a given tier.
- ``hermes_memory_forget`` (``memory_id``): delete one of the user's own memories.

:data:`TOOL_SCHEMAS` holds their JSON schemas in the OpenAI function format (``name``, ``description``,
``parameters``); the MCP server publishes the same ``parameters`` as each tool's ``inputSchema``.
:class:`MemoryTools` runs them for one user and returns every result **and every error as a JSON string**: a
bad argument or a refused operation is ``{"error": "<one line>"}``, never an exception, and changes nothing
stored. Exceptions other than :class:`~hermes_memory_core.HermesMemoryError` are bugs and propagate (both hosts
turn them into tool errors and keep serving).

Who may write the permanent tier (docs/design.md#who-writes-the-permanent-tier): a tool call is the model's text, not the user's, so
``tier="permanent"`` is accepted only when the content is the user's own words (``ToolScope.user_words`` says so:
the Hermes Agent provider checks the conversation) or when the scope's caller holds ``write_permanent`` (the MCP
server's ``--write-permanent``). A scope without ``user_words`` (the MCP server, which never sees the conversation)
writes no permanent fact without ``write_permanent``: ``tier="permanent"`` is an error naming the flag, and a
first-person fact under ``tier="auto"`` is stored long-term with the caller's refusal as its ``reason``. The core's
injection guard still runs on every write.

Example::

    tools = MemoryTools(mem, ToolScope(user_id="u1", caller=Caller("my-agent", read_permanent=True),
                                       session_id="s1"))
    tools.call("hermes_memory_remember", {"content": "The user prefers tea", "tier": "long_term"})
    tools.call("hermes_memory_search", {"query": "What does the user drink?"})   # '{"results": [...], ...}'
"""

from __future__ import annotations

import asyncio
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hermes_memory_agents.provenance import own_statement
from hermes_memory_core import (
    Caller,
    HermesMemoryError,
    MemoryHit,
    MemoryProvider,
    MemoryType,
    search_answers,
    shown_hit,
)

__all__ = [
    "FORGET",
    "REMEMBER",
    "SEARCH",
    "TIERS",
    "TOOL_NAMES",
    "TOOL_SCHEMAS",
    "MemoryTools",
    "ToolScope",
    "normalize_words",
    "user_words_in",
]

SEARCH = "hermes_memory_search"
REMEMBER = "hermes_memory_remember"
FORGET = "hermes_memory_forget"
TOOL_NAMES = (SEARCH, REMEMBER, FORGET)
#: The stored tiers, as tools name them.
TIERS = tuple(t.value for t in MemoryType)
#: Most hits one search returns.
MAX_TOP_K = 20
#: Shortest text (after normalisation) that counts as "the user's own words" for a permanent write.
MIN_USER_WORDS_CHARS = 6

_TAGS = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": 128},
    "uniqueItems": True,
}

TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    {
        "name": SEARCH,
        "description": (
            "Search the user's long-term memory (facts, preferences, earlier conversations) in any language. "
            "Relevant memories are already recalled before each turn; call this to look deeper or for something "
            "specific. Returns the best matches first, each with its id, tier and content."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "description": "What to look for, in plain words."},
                "top_k": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TOP_K,
                    "default": 5,
                    "description": "How many memories to return.",
                },
                "tiers": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(TIERS)},
                    "uniqueItems": True,
                    "description": "Only these tiers: short_term (this and recent sessions), long_term (the "
                    "user's profile and habits), permanent (hard facts). Default: all you may read.",
                },
                "tags": {**_TAGS, "description": "Only memories carrying at least one of these tags."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {
        "name": REMEMBER,
        "description": (
            "Store something worth remembering about the user beyond this conversation. Use tier 'auto' to let "
            "the memory decide; 'long_term' for preferences, habits and profile; 'short_term' for the current "
            "task; 'permanent' only for a hard fact in the user's own words (quote what the user said). "
            "Instructions to the assistant and unverified status claims are refused."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "content": {"type": "string", "minLength": 1, "description": "The memory, one statement."},
                "tier": {
                    "type": "string",
                    "enum": ["auto", *TIERS],
                    "default": "auto",
                    "description": "Where to store it (auto: classified).",
                },
                "importance": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "0..1; important memories are kept longer and ranked higher.",
                },
                "tags": {**_TAGS, "description": "Labels to filter by later."},
            },
            "required": ["content"],
            "additionalProperties": False,
        },
    },
    {
        "name": FORGET,
        "description": (
            "Delete one of the user's memories by its id (from hermes_memory_search). Use it when the user asks "
            "you to forget something or a memory is wrong. Permanent facts are not deleted this way: they are "
            "corrected when the user states the new fact."
        ),
        "parameters": {
            "type": "object",
            "properties": {"memory_id": {"type": "string", "minLength": 1, "description": "The memory's id."}},
            "required": ["memory_id"],
            "additionalProperties": False,
        },
    },
)
_SCHEMA_BY_NAME = {s["name"]: s for s in TOOL_SCHEMAS}


@dataclass(slots=True)
class ToolScope:
    """Whose memory the tools act on, and how.

    Attributes:
        user_id: The one user every call reads and writes (never another).
        caller: The identity for permanent-tier access: ``read_permanent`` lets search return permanent facts;
            ``write_permanent`` lets ``tier="permanent"`` store any first-person content.
        session_id: The current session (short-term memories need one); None disables the short-term tier.
        read_only: When set, writes are refused with this reason (e.g. a subagent's or cron job's context).
        user_words: Says whether a text is the user's own words (the Hermes Agent provider checks the
            conversation); such content may go to the permanent tier although the caller may not write it.
    """

    user_id: str
    caller: Caller
    session_id: str | None = None
    read_only: str | None = None
    user_words: Callable[[str], bool] | None = None


class _BadArguments(Exception):
    """Arguments that do not fit a tool's schema (reported as a tool error)."""


def _error(message: str) -> str:
    return json.dumps({"error": message}, ensure_ascii=False)


def _result(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False)


def normalize_words(text: str) -> str:
    """Text as compared for "the user's own words": NFKC, case-folded, one space between words, no quotes or
    closing punctuation around it."""
    norm = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return norm.strip(" \"'`“”‘’「」『』").rstrip(".。!！;；,，").strip()


def _given(**kwargs: Any) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


def _hit(h: MemoryHit) -> dict[str, Any]:
    """A search result as the tools answer it: the core's serialisation, the tier under ``tier``; a memory the
    read-time guard withholds shows :data:`WITHHELD_NOTE` as its content and ``"withheld": true`` (its id stays, so
    it can be forgotten)."""
    fields = shown_hit(h, ("id", "content", "memory_type", "score", "created_at", "updated_at", "tags"))
    return {("tier" if k == "memory_type" else k): v for k, v in fields.items()}


def _check(name: str, args: Any) -> dict[str, Any]:
    """The arguments as a dict, after the checks JSON schema would make (types, enums, ranges, unknown keys)."""
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise _BadArguments(f"{name} takes a JSON object of arguments, got {type(args).__name__}")
    params = _SCHEMA_BY_NAME[name]["parameters"]
    props: dict[str, Any] = params["properties"]
    unknown = sorted(set(args) - set(props))
    if unknown:
        raise _BadArguments(f"{name}: unknown argument(s) {', '.join(unknown)}; it takes {', '.join(props)}")
    missing = [k for k in params["required"] if args.get(k) is None]
    if missing:
        raise _BadArguments(f"{name}: missing required argument(s) {', '.join(missing)}")
    out: dict[str, Any] = {}
    for key, value in args.items():
        if value is None:
            continue
        out[key] = _check_value(f"{name}: {key}", value, props[key])
    return out


def _check_value(where: str, value: Any, spec: Mapping[str, Any]) -> Any:
    kind = spec["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise _BadArguments(f"{where} must be a string, got {json.dumps(value, ensure_ascii=False)[:60]}")
        if len(value.strip()) < spec.get("minLength", 0):
            raise _BadArguments(f"{where} is empty")
        if "maxLength" in spec and len(value) > spec["maxLength"]:
            raise _BadArguments(f"{where} is longer than {spec['maxLength']} characters")
        if "enum" in spec and value not in spec["enum"]:
            raise _BadArguments(f"{where} must be one of {', '.join(spec['enum'])}, got {value!r}")
        return value
    if kind in ("integer", "number"):
        ok = isinstance(value, int) if kind == "integer" else isinstance(value, int | float)
        if isinstance(value, bool) or not ok:
            raise _BadArguments(f"{where} must be {'an integer' if kind == 'integer' else 'a number'}, "
                                f"got {json.dumps(value, ensure_ascii=False)[:60]}")
        if not spec.get("minimum", value) <= value <= spec.get("maximum", value):
            raise _BadArguments(f"{where} must be in {spec['minimum']}..{spec['maximum']}, got {value}")
        return value
    if kind == "array":
        if not isinstance(value, list):
            raise _BadArguments(f"{where} must be a list, got {json.dumps(value, ensure_ascii=False)[:60]}")
        items = [_check_value(f"{where}[{i}]", v, spec["items"]) for i, v in enumerate(value)]
        if spec.get("uniqueItems") and len(set(items)) != len(items):
            raise _BadArguments(f"{where} lists an item twice")
        return items
    raise AssertionError(f"schema type {kind!r} is not handled")  # pragma: no cover - schemas are ours


class MemoryTools:
    """Runs the three tools for one user of one store.

    Args:
        memory: The open store (shared; the tools never close it).
        scope: Whose memory and with which permissions. It may be changed between calls (the Hermes Agent
            provider rebinds ``session_id`` when Hermes switches sessions).

    Every method returns a JSON string; see the module docstring for the error contract.
    """

    def __init__(self, memory: MemoryProvider, scope: ToolScope) -> None:
        self.memory = memory
        self.scope = scope

    @staticmethod
    def schemas() -> list[dict[str, Any]]:
        """The tool schemas in the OpenAI function format (fresh copies: callers may change them)."""
        schemas: list[dict[str, Any]] = json.loads(json.dumps(TOOL_SCHEMAS))
        return schemas

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> str:
        """Run the tool ``name`` with its JSON arguments. Returns the result or ``{"error": ...}`` as JSON."""
        handlers: dict[str, Callable[..., str]] = {SEARCH: self._search, REMEMBER: self._remember,
                                                   FORGET: self._forget}
        if name not in handlers:
            return _error(f"unknown tool {name!r}; the memory tools are {', '.join(TOOL_NAMES)}")
        try:
            args = _check(name, arguments)
        except _BadArguments as exc:
            return _error(str(exc))
        return handlers[name](**args)

    async def acall(self, name: str, arguments: Mapping[str, Any] | None) -> str:
        """Async twin of :meth:`call` (runs it in a worker thread)."""
        return await asyncio.to_thread(self.call, name, arguments)

    def search(
        self, query: str, top_k: int = 5, tiers: list[str] | None = None, tags: list[str] | None = None
    ) -> str:
        """``hermes_memory_search``: hybrid search of the user's memories; ``{"results": [...], "count": n}``,
        best first, each result with ``id``, ``content``, ``tier``, ``score``, ``created_at``, ``updated_at``,
        ``tags``.

        Without ``tiers`` every tier the caller may read is searched; asking for ``permanent`` without
        ``read_permanent`` is an error.
        """
        return self.call(SEARCH, _given(query=query, top_k=top_k, tiers=tiers, tags=tags))

    async def asearch(
        self, query: str, top_k: int = 5, tiers: list[str] | None = None, tags: list[str] | None = None
    ) -> str:
        """Async twin of :meth:`search`."""
        return await asyncio.to_thread(self.search, query, top_k, tiers, tags)

    def remember(
        self, content: str, tier: str = "auto", importance: float | None = None, tags: list[str] | None = None
    ) -> str:
        """``hermes_memory_remember``: store content for the user;
        ``{"stored": bool, "id", "tier", "action", "content", "reason"}``.

        ``stored`` is false when the injection guard refused the content (``action: "rejected"``) or short-term
        content had no session (``action: "skipped"``); ``tier`` is where it went, which may be lower than asked
        when the guard allowed no more (``reason`` says why); ``content`` is what was stored (long-term
        content is normalised into one sentence).
        """
        return self.call(REMEMBER, _given(content=content, tier=tier, importance=importance, tags=tags))

    async def aremember(
        self, content: str, tier: str = "auto", importance: float | None = None, tags: list[str] | None = None
    ) -> str:
        """Async twin of :meth:`remember`."""
        return await asyncio.to_thread(self.remember, content, tier, importance, tags)

    def forget(self, memory_id: str) -> str:
        """``hermes_memory_forget``: delete one of the user's memories; ``{"forgotten": true, "id": ...}``.

        Another user's id reads as not found; a permanent fact needs a caller with ``write_permanent``.
        """
        return self.call(FORGET, {"memory_id": memory_id})

    async def aforget(self, memory_id: str) -> str:
        """Async twin of :meth:`forget`."""
        return await asyncio.to_thread(self.forget, memory_id)

    # ------------------------------------------------------------------ the tools, on checked arguments
    def _search(
        self, query: str, top_k: int = 5, tiers: list[str] | None = None, tags: list[str] | None = None
    ) -> str:
        scope = self.scope
        if tiers is not None and not tiers:
            return _error(f"{SEARCH}: tiers is empty; leave it out to search every tier")
        if tiers and MemoryType.PERMANENT.value in tiers and not scope.caller.read_permanent:
            return _error(f"caller {scope.caller.name!r} may not read permanent memories")
        if tiers is None and not scope.caller.read_permanent:
            tiers = [t for t in TIERS if t != MemoryType.PERMANENT.value]
        try:
            # what the user only asked, or a reply that did not know, answers nothing: the answers come first
            hits = search_answers(self.memory, query, user_id=scope.user_id, top_k=top_k, memory_types=tiers,
                                  tags=tags, caller=scope.caller)
        except HermesMemoryError as exc:
            return _error(str(exc))
        return _result({"results": [_hit(h) for h in hits], "count": len(hits)})

    def _remember(
        self, content: str, tier: str = "auto", importance: float | None = None, tags: list[str] | None = None
    ) -> str:
        scope = self.scope
        if scope.read_only:
            return _error(scope.read_only)
        caller = scope.caller
        if not caller.write_permanent and self._user_words(content):
            caller = Caller(f"{caller.name}:user-words", read_permanent=caller.read_permanent, write_permanent=True)
        if tier == MemoryType.PERMANENT.value and not caller.write_permanent:
            if scope.user_words is None:  # no conversation to quote from (the MCP server): quoting cannot help
                return _error(
                    f"tier 'permanent' is not open to caller {caller.name!r}: it cannot tell the user's words from "
                    "the model's, so only its operator grants it (hermes-memory mcp --write-permanent); store it "
                    "as 'long_term'"
                )
            return _error(
                "tier 'permanent' takes only the user's own words from this conversation: quote what the user "
                "said as content, or store it as 'long_term'"
            )
        if tier == MemoryType.SHORT_TERM.value and scope.session_id is None:
            return _error("tier 'short_term' needs a session and this one has none; use 'long_term'")
        try:
            res = self.memory.remember(
                content, user_id=scope.user_id, session_id=scope.session_id, source="user",
                memory_type=None if tier == "auto" else tier, importance=importance, tags=tags, caller=caller,
            )
        except HermesMemoryError as exc:
            return _error(str(exc))
        return _result({
            "stored": res.id is not None,
            "id": res.id,
            "tier": res.memory_type.value,
            "action": res.action,
            "content": res.content,
            "reason": res.reason,
        })

    def _forget(self, memory_id: str) -> str:
        scope = self.scope
        if scope.read_only:
            return _error(scope.read_only)
        mid = memory_id.strip()
        try:
            self.memory.delete(mid, user_id=scope.user_id, reason=f"{FORGET} ({scope.caller.name})",
                               caller=scope.caller)
        except HermesMemoryError as exc:
            return _error(str(exc))
        return _result({"forgotten": True, "id": mid})

    def _user_words(self, content: str) -> bool:
        check = self.scope.user_words
        if check is None:
            return False
        words = normalize_words(content)
        return (len(words) >= MIN_USER_WORDS_CHARS or len(re.findall(r"[\u4e00-\u9fff]", words)) >= 4) and check(content)


def user_words_in(texts: Callable[[], list[str]]) -> Callable[[str], bool]:
    """A ``ToolScope.user_words`` check: is the content a statement the user made about themselves in one of
    ``texts()`` (the user's messages)? Not a quotation of someone else, not negated, not a fragment of a longer
    clause, not part of a pasted document (:func:`hermes_memory_agents.provenance.own_statement`)."""

    def check(content: str) -> bool:
        return own_statement(content, texts()) is not None

    return check

