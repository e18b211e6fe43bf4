"""A hot cache of each user's most-used memories (docs/design.md#how-search-finds-and-ranks).

Search returns the same few memories of a user again and again (their name, their job, the project they talk
about). The cache keeps the full records of each user's ``capacity`` most-returned memories, so a search builds
those hits without reading, parsing and (for permanent memories) decrypting their rows again.

Correctness does not depend on this process seeing every write. Every search already reads each candidate's
light columns (:meth:`~hermes_memory_core.storage.metadata.MemoryRecords.rank_rows`, which filters out
deleted, expired and other users' rows); a cached record is used only when its ``version`` and tier equal the
row's current ones (and it takes the row's current access count), so a change made by another process (server
mode) is never served stale. Updates, deletes and tier changes in this process also drop the entry at once.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from hermes_memory_core.storage.metadata import RankRow
from hermes_memory_core.types import MemoryRecord

__all__ = ["RECENT_PER_HOT", "HotCache", "VersionVectors"]

#: Records a search read last kept per most-returned record of the capacity (100 → 2,000 records, a few MiB).
RECENT_PER_HOT = 20


class HotCache:
    """Per user, the records of the memories search returned most often.

    Args:
        capacity: Records kept per user (0 turns the cache off).
        tracked: Use counts kept per user, as a multiple of ``capacity`` (the least used are forgotten first).
    """

    def __init__(self, capacity: int = 100, tracked: int = 10) -> None:
        self.capacity = capacity
        self._max_tracked = max(capacity * tracked, capacity)
        self._records: dict[str, dict[str, MemoryRecord]] = {}
        self._uses: dict[str, Counter[str]] = {}
        self._floor: dict[str, int] = {}  # per user, a lower bound of the coldest cached record's use count
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        # besides the most-returned: the records a search read last (recall reads the same candidates turn after
        # turn to judge them), least recently read out first
        self.recent_capacity = capacity * RECENT_PER_HOT
        self._recent: OrderedDict[str, MemoryRecord] = OrderedDict()

    def lookup(self, user_id: str, ids: Sequence[str], current: Mapping[str, RankRow]) -> dict[str, MemoryRecord]:
        """Cached records among ``ids`` that are still current.

        Args:
            user_id: Whose memories.
            ids: The memories wanted.
            current: ``id → ranking columns`` as just read from the store; a cached record is returned only if
                its version and tier match, and it carries the store's current access count.
        """
        out: dict[str, MemoryRecord] = {}
        with self._lock:
            cached = self._records.get(user_id, {})
            for mid in ids:
                rec = cached.get(mid)
                row = current.get(mid)
                if rec is not None and row is not None and rec.version == row.version and rec.memory_type.value == row.memory_type:
                    count = row.access_count
                    out[mid] = rec if rec.access_count == count else dataclasses.replace(rec, access_count=count)
                elif rec is not None:
                    del cached[mid]  # changed elsewhere: never serve it again
                elif (seen := self._recent.get(mid)) is not None:
                    if row is not None and seen.user_id == user_id and seen.version == row.version \
                            and seen.updated_at == row.updated_at and seen.memory_type.value == row.memory_type:
                        count = row.access_count
                        out[mid] = seen if seen.access_count == count else dataclasses.replace(seen, access_count=count)
                        self._recent.move_to_end(mid)
                    else:
                        del self._recent[mid]
            self.hits += len(out)
            self.misses += len(ids) - len(out)
        return out

    def record_use(self, user_id: str, records: Iterable[MemoryRecord]) -> None:
        """Count one use of each returned record and keep it if it is now among the user's most used."""
        if self.capacity <= 0:
            return
        with self._lock:
            cached = self._records.setdefault(user_id, {})
            uses = self._uses.setdefault(user_id, Counter())
            for rec in records:
                uses[rec.id] += 1
                if rec.id in cached or len(cached) < self.capacity:
                    cached[rec.id] = rec
                    continue
                # the coldest cached record's count only grows, so a known floor rejects most newcomers without a scan
                if uses[rec.id] <= self._floor.get(user_id, 0):
                    continue
                coldest = min(cached, key=uses.__getitem__)
                self._floor[user_id] = uses[coldest]
                if uses[rec.id] > uses[coldest]:
                    del cached[coldest]
                    cached[rec.id] = rec
                    self._floor[user_id] = 0  # unknown again: the next contender rescans
            if len(uses) > self._max_tracked:
                keep = dict(uses.most_common(self._max_tracked // 2))
                for mid in cached:
                    keep.setdefault(mid, uses[mid])
                self._uses[user_id] = Counter(keep)

    def remember(self, records: Iterable[MemoryRecord]) -> None:
        """Keep records a search just read (served again only while their row's version, time and tier match)."""
        if self.recent_capacity <= 0:
            return
        with self._lock:
            for rec in records:
                self._recent[rec.id] = rec
                self._recent.move_to_end(rec.id)
            while len(self._recent) > self.recent_capacity:
                self._recent.popitem(last=False)

    def invalidate(self, memory_id: str) -> None:
        """Drop one memory (after an update, delete or tier change)."""
        with self._lock:
            for cached in self._records.values():
                cached.pop(memory_id, None)
            self._recent.pop(memory_id, None)

    def drop_user(self, user_id: str) -> None:
        """Forget everything of one user (after their erasure)."""
        with self._lock:
            self._records.pop(user_id, None)
            self._uses.pop(user_id, None)
            for mid in [mid for mid, rec in self._recent.items() if rec.user_id == user_id]:
                del self._recent[mid]

    def clear(self) -> None:
        """Drop everything (after a key rotation or a restore)."""
        with self._lock:
            self._records.clear()
            self._uses.clear()
            self._floor.clear()
            self._recent.clear()

    def size(self, user_id: str | None = None) -> int:
        """Records held for one user, or for all."""
        with self._lock:
            if user_id is not None:
                return len(self._records.get(user_id, {}))
            return sum(len(c) for c in self._records.values())


class VersionVectors:
    """Embeddings of past versions for as-of searches, least recently used out first.

    A version's text never changes, so its vector never goes stale; erasure drops a user's or a memory's entries.

    Args:
        capacity: Vectors kept (0 turns the cache off).
    """

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._vectors: OrderedDict[tuple[str, str, int], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, int]) -> np.ndarray | None:
        """The vector of ``(user_id, memory_id, version)``, if kept."""
        with self._lock:
            vec = self._vectors.get(key)
            if vec is not None:
                self._vectors.move_to_end(key)
            return vec

    def put(self, key: tuple[str, str, int], vector: np.ndarray) -> None:
        if self.capacity <= 0:
            return
        with self._lock:
            self._vectors[key] = vector
            self._vectors.move_to_end(key)
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)

    def drop(self, user_id: str, memory_id: str | None = None) -> None:
        """Forget one user's vectors, or one memory's."""
        with self._lock:
            for key in [k for k in self._vectors if k[0] == user_id and memory_id in (None, k[1])]:
                del self._vectors[key]

    def __len__(self) -> int:
        return len(self._vectors)
