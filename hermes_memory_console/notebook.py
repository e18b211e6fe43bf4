"""Jupyter views of a store: any list of memories, search or recall hits, or versions as one table
(:func:`table`), and a store's growth by day and tier as a plot (:func:`growth_plot`).

A single :class:`~hermes_memory_core.MemoryRecord`, :class:`~hermes_memory_core.MemoryHit`,
:class:`~hermes_memory_core.MemoryVersion` or :class:`~hermes_memory_core.StoreStats` renders as a table by itself
(their ``_repr_html_``); a Python list does not, hence :func:`table`. Every value is HTML-escaped.
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable
from typing import Any

from hermes_memory_console import views
from hermes_memory_core import InvalidInputError, MemoryHit, MemoryProvider, MemoryRecord, MemoryType, MemoryVersion

__all__ = ["Table", "growth_plot", "table"]

_RECORD = ("content", "memory_type", "importance", "version", "created_at", "updated_at", "session_id", "tags", "id")
_TIMES = ("created_at", "updated_at", "current_from", "current_to")


class Table:
    """Rows that Jupyter shows as an HTML table (``rows``: dicts with the same keys; ``len()`` is their number)."""

    def __init__(self, rows: list[dict[str, Any]], caption: str = "") -> None:
        self.rows = rows
        self.caption = caption

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"Table({len(self.rows)} rows{': ' + self.caption if self.caption else ''})"

    def _repr_html_(self) -> str:
        cap = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        if not self.rows:
            return f"<table>{cap}<tbody><tr><td>(none)</td></tr></tbody></table>"
        head = "".join(f"<th>{html.escape(k)}</th>" for k in self.rows[0])
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_show(k, v))}</td>" for k, v in row.items()) + "</tr>"
                       for row in self.rows)
        return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _show(key: str, value: Any) -> str:
    if isinstance(value, int) and key in _TIMES:
        return time.strftime("%Y-%m-%d %H:%M", time.gmtime(value))
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return "" if value is None else str(value)


def table(items: Iterable[MemoryRecord | MemoryHit | MemoryVersion], caption: str = "") -> Table:
    """Memories (``list_memories``), hits (``search``, ``recall``) or versions (``history``) as one table: a hit's
    row starts with its scores, a version's with its number and why it was written.

    Raises:
        InvalidInputError: An item of another type.
    """
    rows: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, MemoryHit):
            rows.append(item.to_dict(("score", "confidence", "dense_score", "keyword_score", *_RECORD), score_digits=4))
        elif isinstance(item, MemoryRecord):
            rows.append(item.to_dict(_RECORD))
        elif isinstance(item, MemoryVersion):
            rows.append({"version": item.version, "content": item.content, "note": item.note,
                         "current_from": item.current_from, "current_to": item.current_to})
        else:
            raise InvalidInputError(f"table() shows memories, hits or versions, got {type(item).__name__}")
    return Table(rows, caption)


def growth_plot(mem: MemoryProvider, user_id: str | None = None, ax: Any = None) -> Any:
    """Memories by day of creation and tier (``user_id``'s, else the whole store's) as stacked bars on ``ax`` (a new
    figure when None); returns the matplotlib ``Axes``. Needs matplotlib."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidInputError("growth_plot needs matplotlib: pip install matplotlib") from None
    days = views.health(mem, user_id)["days"]
    if ax is None:
        _fig, ax = plt.subplots(figsize=(8, 3))
    bottom = [0] * len(days)
    labels = [d["day"] for d in days]
    for tier in MemoryType:
        counts = [d[tier.value] for d in days]
        ax.bar(labels, counts, bottom=bottom, label=tier.value)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    ax.set_ylabel("memories created")
    ax.set_title(f"Memories by day and tier ({'user ' + user_id if user_id else 'whole store'})")
    ax.legend()
    return ax
