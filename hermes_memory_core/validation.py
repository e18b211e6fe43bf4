"""Checks on every public argument. Each failure is a typed :class:`InvalidInputError` raised before any write."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from hermes_memory_core.errors import (
    ContentTooLongError,
    EmptyContentError,
    InvalidIdError,
    InvalidInputError,
    UnknownMemoryTypeError,
)
from hermes_memory_core.types import MemoryItem, MemoryType

__all__ = [
    "check_content",
    "check_flag",
    "check_id",
    "check_importance",
    "check_int_range",
    "check_items",
    "check_memory_type",
    "check_memory_types",
    "check_metadata",
    "check_score",
    "check_session_id",
    "check_tags",
    "check_text",
    "check_time_range",
    "check_timestamp",
    "check_top_k",
    "check_user_id",
]

_MAX_ID_CHARS = 256


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


def check_user_id(value: Any) -> str:
    """A non-blank user id of at most 256 characters; every read and write is scoped by it."""
    if value is None:
        raise InvalidInputError("user_id is required")
    text = check_text(value, "user_id")
    if not text.strip():
        raise InvalidInputError("user_id is empty")
    if len(text) > _MAX_ID_CHARS:
        raise InvalidInputError(f"user_id is longer than {_MAX_ID_CHARS} characters")
    return text


def check_session_id(value: Any) -> str | None:
    """An optional session id with the same rules as a user id."""
    if value is None:
        return None
    text = check_text(value, "session_id")
    if not text.strip():
        raise InvalidInputError("session_id is empty (pass None for no session)")
    if len(text) > _MAX_ID_CHARS:
        raise InvalidInputError(f"session_id is longer than {_MAX_ID_CHARS} characters")
    return text


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
    if isinstance(values, str):
        raise InvalidInputError("tags must be a list of strings, not one string")
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


def check_metadata(value: Any, max_bytes: int) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputError(f"metadata must be a dict, got {type(value).__name__}")
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
        encoded.encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}") from exc
    if len(encoded.encode("utf-8")) > max_bytes:
        raise InvalidInputError(f"metadata is larger than max_metadata_bytes={max_bytes}")
    return json.loads(encoded)


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


def check_top_k(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        raise InvalidInputError(f"top_k must be an int in [1, 1000], got {value!r}")
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
