"""A small bounded LRU mapping, thread-safe: the one cache type of the per-process caches that keep what a pure
function of a text (or of a row's version) gave, so it is not computed again on every read.

A value is computed outside the lock (:meth:`BoundedLRU.get_or_compute`): two threads that miss on one key may both
compute it, and both get a correct value; neither waits for the other's computation.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["BoundedLRU"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_MISSING = object()


class BoundedLRU(Generic[K, V]):
    """At most ``capacity`` entries; the least recently used one leaves first.

    Args:
        capacity: Entries kept (at least 1).

    Raises:
        ValueError: ``capacity`` is below 1.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"a BoundedLRU keeps at least one entry, not {capacity}")
        self.capacity = capacity
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value kept for ``key`` (now the most recently used), else ``default``."""
        with self._lock:
            value = self._entries.get(key, _MISSING)
            if value is _MISSING:
                self.misses += 1
                return default
            self._entries.move_to_end(key)
            self.hits += 1
            return value  # type: ignore[return-value]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key`` as the most recently used entry (the least recently used leaves when full)."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``compute()`` kept and returned (computed outside the lock)."""
        with self._lock:
            value = self._entries.get(key, _MISSING)
            if value is not _MISSING:
                self._entries.move_to_end(key)
                self.hits += 1
                return value  # type: ignore[return-value]
            self.misses += 1
        computed = compute()
        self.put(key, computed)
        return computed

    def clear(self) -> None:
        """Forget every entry (and the hit and miss counts)."""
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries
