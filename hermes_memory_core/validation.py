"""Checks on every public argument. Each failure is a typed :class:`InvalidInputError` raised before any write."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import json
import math
import os
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from hermes_memory_core.errors import (
    ContentTooLongError,
    EmptyContentError,
    InvalidIdError,
    InvalidInputError,
    UnknownMemoryTypeError,
)
from hermes_memory_core.types import MemoryItem, MemoryType

__all__ = [
    "MAX_JSON_DEPTH",
    "RESERVED_METADATA_KEY",
    "RESERVED_USER_ID_PREFIXES",
    "check_caller",
    "check_content",
    "check_flag",
    "check_id",
    "check_importance",
    "check_int_range",
    "check_items",
    "check_json",
    "check_key_bytes",
    "check_memory_type",
    "check_memory_types",
    "check_metadata",
    "check_path",
    "check_score",
    "check_session_id",
    "check_tags",
    "check_text",
    "check_time_range",
    "check_timestamp",
    "check_top_k",
    "check_user_id",
    "is_reserved_user_id",
    "reserved_user_ids",
    "typed_arguments",
]

_MAX_ID_CHARS = 256
T = TypeVar("T")


def check_text(value: Any, what: str) -> str:
    """A str that SQLite and the embedders can store: no NUL, no unpaired surrogates."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a str, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInputError(f"{what} contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{what} is not valid Unicode text (unpaired surrogate at {exc.start})") from exc
    return value


def check_content(value: Any, max_chars: int) -> str:
    """Memory content: non-blank text within the configured length (kept exactly as given)."""
    text = check_text(value, "content")
    if not text.strip():
        raise EmptyContentError("content is empty or only whitespace")
    if len(text) > max_chars:
        raise ContentTooLongError(f"content has {len(text)} characters; the limit (max_content_chars) is {max_chars}")
    return text


def _check_id(value: Any, what: str, empty: str) -> str:
    """Non-blank text of at most :data:`_MAX_ID_CHARS` characters (``empty``: the message for a blank one)."""
    text = check_text(value, what)
    if not text.strip():
        raise InvalidInputError(empty)
    if len(text) > _MAX_ID_CHARS:
        raise InvalidInputError(f"{what} is longer than {_MAX_ID_CHARS} characters")
    return text


#: User ids that name no person: the LangGraph store keeps application-wide items and its namespace registry under
#: ``langgraph.store`` and ``langgraph.store.namespaces``. Every id equal to one of these prefixes or under one of
#: them (``langgraph.store…``, compared after NFKC and case folding, surrounding spaces ignored) is reserved.
RESERVED_USER_ID_PREFIXES = ("langgraph.store",)
_RESERVED_OK: contextvars.ContextVar[bool] = contextvars.ContextVar("hermes_reserved_user_ids", default=False)


def is_reserved_user_id(value: str) -> bool:
    """Whether ``value`` is a reserved user id (see :data:`RESERVED_USER_ID_PREFIXES`)."""
    folded = unicodedata.normalize("NFKC", value).casefold().strip()
    folded = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    return folded.startswith(RESERVED_USER_ID_PREFIXES)


@contextlib.contextmanager
def reserved_user_ids() -> Iterator[None]:
    """Within this block (this thread or task, and the worker threads it starts with ``asyncio.to_thread``) the
    reserved user ids are accepted: what the LangGraph store itself runs. Nothing else enters it."""
    token = _RESERVED_OK.set(True)
    try:
        yield
    finally:
        _RESERVED_OK.reset(token)


def check_user_id(value: Any) -> str:
    """A non-blank user id of at most 256 characters; every read and write is scoped by it. A reserved id
    (:func:`is_reserved_user_id`) is refused outside :func:`reserved_user_ids`: whoever passed one would read
    the application-wide store data or every namespace."""
    if value is None:
        raise InvalidInputError("user_id is required")
    text = _check_id(value, "user_id", "user_id is empty")
    if not _RESERVED_OK.get() and is_reserved_user_id(text):
        raise InvalidInputError(f"user_id {text[:40]!r} is reserved for the LangGraph store's own data")
    return text


def check_session_id(value: Any) -> str | None:
    """An optional session id with the same rules as a user id."""
    if value is None:
        return None
    return _check_id(value, "session_id", "session_id is empty (pass None for no session)")


def check_memory_type(value: Any) -> MemoryType:
    """One of the three tiers, as the enum or its string value."""
    if isinstance(value, MemoryType):
        return value
    try:
        return MemoryType(value)
    except (ValueError, TypeError):
        raise UnknownMemoryTypeError(
            f"unknown memory_type {value!r}; expected one of {[t.value for t in MemoryType]}"
        ) from None


def check_memory_types(values: Iterable[Any] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, (str, MemoryType)):
        values = [values]
    if not isinstance(values, Iterable) or isinstance(values, bytes | Mapping):
        raise InvalidInputError(f"memory_types must be a list of tiers, got {type(values).__name__}")
    out = tuple(dict.fromkeys(check_memory_type(v).value for v in values))
    if not out:
        raise InvalidInputError("memory_types is empty (pass None for all tiers)")
    return out


def check_id(value: Any) -> str:
    """A memory id: the canonical lower-case UUID string."""
    if isinstance(value, uuid.UUID):
        return str(value)
    if not isinstance(value, str):
        raise InvalidIdError(f"memory id must be a UUID string, got {type(value).__name__}")
    try:
        parsed = uuid.UUID(value)
    except (ValueError, AttributeError):
        raise InvalidIdError(f"malformed memory id {value[:80]!r}: expected a UUID") from None
    return str(parsed)


def check_importance(value: Any, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(f"importance must be a number in [0, 1], got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInputError(f"importance must be in [0, 1], got {value}")
    return float(value)


def check_tags(values: Iterable[Any] | None, max_tags: int) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise InvalidInputError(f"tags must be a list of strings, got {type(values).__name__}")
    out: list[str] = []
    for tag in values:
        text = check_text(tag, "tag").strip()
        if not text or len(text) > 128:
            raise InvalidInputError(f"tag {tag!r} must be 1-128 characters")
        out.append(text)
    unique = tuple(dict.fromkeys(out))
    if len(unique) > max_tags:
        raise InvalidInputError(f"{len(unique)} tags given; the limit (max_tags) is {max_tags}")
    return unique


#: The metadata key a sealed memory's envelope uses (``trust.at_rest.ENVELOPE``); applications may not set it.
RESERVED_METADATA_KEY = "__hermes_sealed__"
#: Deepest nesting of lists and objects accepted in metadata and message data (JSON parsers and encoders recurse).
MAX_JSON_DEPTH = 64


def _check_tree(value: Any, what: str) -> None:
    """Walk containers without recursion: deeper than :data:`MAX_JSON_DEPTH` (or a cycle), or a NUL in any key or
    string (PostgreSQL's JSON rejects it), is an error."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if "\x00" in node:
                raise InvalidInputError(f"{what} contains a NUL character")
        elif isinstance(node, dict | list | tuple):
            if depth > MAX_JSON_DEPTH:
                raise InvalidInputError(f"{what} is nested deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(node, dict):
                stack.extend((key, depth) for key in node if isinstance(key, str))
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))


def check_json(value: Any, what: str, max_bytes: int) -> dict[str, Any]:
    """A JSON object (metadata, message data): a dict of JSON values, at most ``max_bytes`` encoded and
    :data:`MAX_JSON_DEPTH` deep, with text SQLite and UTF-8 can hold. Returns a plain copy."""
    if not isinstance(value, dict):
        raise InvalidInputError(f"{what} must be a dict, got {type(value).__name__}")
    _check_tree(value, what)
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
        size = len(encoded.encode("utf-8"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInputError(f"{what} must be JSON-serialisable: {exc}") from exc
    if size > max_bytes:
        raise InvalidInputError(f"{what} takes {size} bytes of JSON; the limit is {max_bytes}")
    out: dict[str, Any] = json.loads(encoded)
    return out


def check_metadata(value: Any, max_bytes: int) -> dict[str, Any]:
    """Memory metadata: None or a JSON object within ``max_metadata_bytes`` (see :func:`check_json`)."""
    if value is None:
        return {}
    if isinstance(value, dict) and RESERVED_METADATA_KEY in value:
        raise InvalidInputError(f"metadata key {RESERVED_METADATA_KEY!r} is reserved (sealed metadata lives there)")
    try:
        return check_json(value, "metadata", max_bytes)
    except InvalidInputError as exc:
        raise InvalidInputError(str(exc).replace(f"the limit is {max_bytes}", f"max_metadata_bytes={max_bytes}")) from None


def check_timestamp(value: Any, what: str) -> int | None:
    """Unix seconds (int or float) or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(f"{what} must be Unix seconds, got {value!r}")
    if not 0 <= value < 2**40:
        raise InvalidInputError(f"{what} is out of range: {value}")
    return int(value)


def check_flag(value: Any, what: str) -> bool:
    """A yes/no argument: ``True`` or ``False`` only (a string such as ``"no"`` would read as true)."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{what} must be True or False, got {type(value).__name__}")
    return value


#: The most hits one search may return.
MAX_TOP_K = 1000


def check_top_k(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOP_K:
        raise InvalidInputError(f"top_k must be an int in [1, {MAX_TOP_K}], got {value!r}")
    return value


def check_int_range(value: Any, what: str, low: int, high: int) -> int:
    """An integer argument in ``low..high`` (booleans are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(f"{what} must be an integer in {low}..{high}, got {value!r}")
    return value


def check_time_range(value: Any) -> tuple[int | None, int | None]:
    """A ``(start, end)`` pair of Unix seconds (either may be None), start not after end; None → ``(None, None)``."""
    if value is None:
        return None, None
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise InvalidInputError("time_range must be a (start, end) pair of Unix seconds")
    start = check_timestamp(value[0], "time_range start")
    end = check_timestamp(value[1], "time_range end")
    if start is not None and end is not None and start > end:
        raise InvalidInputError(f"time_range start {start} is after end {end}")
    return start, end


def check_items(items: Any) -> list[MemoryItem]:
    """The memories of an ``add_many`` call: an iterable of :class:`MemoryItem` objects or mappings of its fields."""
    if items is None or isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise InvalidInputError(f"add_many takes an iterable of memory items, got {type(items).__name__}")
    out: list[MemoryItem] = []
    for item in items:
        if isinstance(item, MemoryItem):
            out.append(item)
        elif isinstance(item, Mapping):
            try:
                out.append(MemoryItem(**dict(item)))
            except TypeError as exc:
                raise InvalidInputError(f"bad memory item {sorted(map(str, item))}: {exc}") from exc
        else:
            raise InvalidInputError(f"add_many takes MemoryItem objects or mappings, got {type(item).__name__}")
    return out


def check_score(value: Any, what: str) -> float:
    """A finite real number (a score threshold)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInputError(f"{what} must be a finite number, got {value!r}")
    return float(value)
def check_path(value: Any, what: str) -> str | os.PathLike[str]:
    """A filesystem path argument: a str or ``os.PathLike`` of text, non-blank, without NUL."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        raise InvalidInputError(f"{what} must be a non-empty path (str or os.PathLike), got {value!r:.80}")
    try:
        os.fsencode(value)
    except UnicodeError:
        raise InvalidInputError(f"{what} {value!r:.80} cannot be a file name on this system") from None
    return value


def typed_arguments(cls: type[T]) -> type[T]:
    """Class decorator: a public method called with arguments its signature does not accept (an unknown keyword, a
    missing or surplus argument) raises a one-line :class:`InvalidInputError` — as any other bad input does —
    instead of Python's bare ``TypeError``. Nothing runs in that case; other errors pass through unchanged."""
    for name, attr in list(vars(cls).items()):
        if name.startswith("_"):
            continue
        if isinstance(attr, classmethod):
            setattr(cls, name, classmethod(_checked(attr.__func__)))
        elif inspect.isfunction(attr):
            setattr(cls, name, _checked(attr))
    return cls


def _bad_call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> InvalidInputError | None:
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        return InvalidInputError(f"{fn.__name__}(): {exc}")
    return None


def _checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def checked_async(*args: Any, **kwargs: Any) -> Any:
            bad = _bad_call(fn, args, kwargs)
            if bad is not None:
                raise bad
            return await fn(*args, **kwargs)

        return checked_async

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError:
            bad = _bad_call(fn, args, kwargs)  # binding failed before the body ran: nothing happened
            if bad is not None:
                raise bad from None
            raise

    return checked


def check_caller(value: T) -> T:
    """A :class:`~hermes_memory_core.trust.permissions.Caller` (checked by shape: the base layer imports no trust)."""
    if not all(hasattr(value, a) for a in ("name", "read_permanent", "write_permanent")) or isinstance(value, type):
        raise InvalidInputError(f"caller must be a Caller, got {type(value).__name__}")
    return value


def check_key_bytes(value: Any) -> bytes:
    """A raw 32-byte encryption key."""
    if not isinstance(value, bytes) or len(value) != 32:
        raise InvalidInputError("a new encryption key must be 32 raw bytes (or None for a random one)")
    return value
