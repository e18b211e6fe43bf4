"""What :class:`~langchain_hermes_memory.HermesStore` does with an item's value: check it, filter on it, and
extract the text Hermes indexes.

Filters follow LangGraph's ``InMemoryStore``: each top-level key of ``filter`` must hold for the item's value;
a plain value means equality (a nested dict compares key by key, a list element by element); a dict of operators
(``{"$gte": 3, "$lt": 9}``) applies every operator. ``$eq``/``$ne`` compare any JSON values (a missing field is
``None``); ``$gt``/``$gte``/``$lt``/``$lte`` compare numbers with numbers and strings with strings, and any other
pair (a missing field, a string against a number) does not match — where ``InMemoryStore`` raises.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langgraph.store.base import get_text_at_path

from hermes_memory_core import InjectionRejectedError, InvalidInputError, check_memory_write

__all__ = [
    "OPERATORS",
    "check_filter",
    "check_index",
    "check_value",
    "guard_value",
    "index_texts",
    "matches",
    "redact_value",
    "string_leaves",
]

OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})


def check_value(value: object) -> dict[str, Any]:
    """A copy of a put's value: a mapping with string keys whose content is JSON (no NaN or infinity).

    Raises:
        InvalidInputError: Anything else.
    """
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"a store value must be a mapping, got {type(value).__name__}")
    if not all(isinstance(k, str) for k in value):
        raise InvalidInputError("a store value's keys must be strings")
    try:
        copied: dict[str, Any] = json.loads(json.dumps(dict(value), ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"a store value must be JSON-serialisable: {exc}") from exc
    return copied


def check_index(index: object) -> None:
    """``None`` (the store's fields), ``False`` (not indexed) or a list of field paths."""
    if index is None or index is False:
        return
    if isinstance(index, str) or not isinstance(index, Sequence) or not all(isinstance(p, str) and p for p in index):
        raise InvalidInputError(f"index must be None, False or a list of field paths, got {index!r}")


def check_filter(flt: object) -> None:
    """A LangGraph filter: a dict of field → value or field → {operator: value} (operators above)."""
    if flt is None:
        return
    if not isinstance(flt, Mapping):
        raise InvalidInputError(f"filter must be a dict, got {type(flt).__name__}")

    def walk(cond: object) -> None:
        if isinstance(cond, Mapping):
            ops = [k for k in cond if isinstance(k, str) and k.startswith("$")]
            unknown = sorted(set(ops) - OPERATORS)
            if unknown:
                raise InvalidInputError(f"unsupported filter operator(s) {unknown}; supported: {sorted(OPERATORS)}")
            for v in cond.values():
                walk(v)
        elif isinstance(cond, (list, tuple)):
            for v in cond:
                walk(v)

    for cond in flt.values():
        walk(cond)


def matches(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes ``flt`` (checked by :func:`check_filter`)."""
    if not flt:
        return True
    return all(_compare(value.get(key), cond) for key, cond in flt.items())


def _compare(item: Any, cond: Any) -> bool:
    if isinstance(cond, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in cond):
            return all(_apply(item, op, arg) for op, arg in cond.items())
        return isinstance(item, Mapping) and all(_compare(item.get(k), v) for k, v in cond.items())
    if isinstance(cond, (list, tuple)):
        return (
            isinstance(item, (list, tuple))
            and len(item) == len(cond)
            and all(_compare(i, c) for i, c in zip(item, cond, strict=True))
        )
    return bool(item == cond)


def _number(x: Any) -> float | None:
    if isinstance(x, (int, float)) and math.isfinite(float(x)):
        return float(x)
    return None


def _apply(item: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(item == arg)
    if op == "$ne":
        return bool(item != arg)
    a, b = _number(item), _number(arg)
    if a is None or b is None:
        if not (isinstance(item, str) and isinstance(arg, str)):
            return False
        a_s, b_s = item, arg
        return {"$gt": a_s > b_s, "$gte": a_s >= b_s, "$lt": a_s < b_s, "$lte": a_s <= b_s}[op]
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def string_leaves(value: Any) -> list[str]:
    """Every non-blank string inside a JSON value, in document order (dict keys are not included)."""
    out: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if x.strip():
                out.append(x)
        elif isinstance(x, Mapping):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    walk(value)
    return out


def index_texts(value: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    """The texts of ``value`` at ``fields`` (LangGraph path syntax: ``"a.b"``, ``"items[*].text"``, ...).

    ``"$"`` means the whole value: its strings, or its JSON when it holds none.
    """
    texts: list[str] = []
    for path in fields:
        if path == "$":
            texts.extend(string_leaves(value) or [json.dumps(value, ensure_ascii=False, sort_keys=True)])
        else:
            texts.extend(t for t in get_text_at_path(value, path) if t.strip())
    return texts


def redact_value(value: Any, redact: Callable[[str], tuple[str, dict[str, int]]], found: dict[str, int]) -> Any:
    """``value`` with every string, every number and every dict key passed through ``redact`` (which returns the
    redacted text and the kinds it found); the kinds are added to ``found``.

    A number that holds PII ("13812345678" stored as an int) becomes its placeholder string; booleans stay; two
    keys that redact to the same text keep both values (the second gets `` #2``).
    """

    def text(s: str) -> str:
        out, kinds = redact(s)
        for kind, n in kinds.items():
            found[kind] = found.get(kind, 0) + n
        return out if out.strip() else s

    if isinstance(value, str):
        return text(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        shown = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        redacted = text(shown)
        return value if redacted == shown else redacted
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = text(k) if isinstance(k, str) else k
            n = 2
            while key in out:
                key, n = f"{text(k)} #{n}", n + 1
            out[key] = redact_value(v, redact, found)
        return out
    if isinstance(value, list | tuple):
        return [redact_value(v, redact, found) for v in value]
    return value


def guard_value(value: Mapping[str, Any], where: str) -> None:
    """Refuse a value whose strings or keys carry what the injection guard flags (all of them are read, not just
    the indexed fields: a tool or LangMem hands the whole value to a model).

    Raises:
        InjectionRejectedError: One line naming ``where`` and the guard's reason; nothing has been written.
    """
    keys: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, Mapping):
            for k, v in x.items():
                keys.append(str(k))
                walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)

    walk(value)
    for text in (*string_leaves(value), " ".join(keys)):
        verdict = check_memory_write(text, "user")
        if not verdict.allow_long_term:
            raise InjectionRejectedError(f"{where} refused by the {verdict.reason.removeprefix('injection guard: ')}"
                                         " guard; nothing was stored")
