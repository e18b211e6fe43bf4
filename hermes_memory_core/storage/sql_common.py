"""What the SQLite and PostgreSQL metadata stores share: the schema's rows and every query that both dialects
accept.

Statements are written once with ``?`` placeholders; a dialect's connection adapts them (PostgreSQL's turns ``?``
into ``%s`` and drops SQLite's ``+column`` planner hints). What differs — connections, transactions, migrations,
the keyword index, backups — lives in :mod:`~hermes_memory_core.storage.sqlite_store` and
:mod:`~hermes_memory_core.storage.postgres_store`. Every value reaches the database as a bound parameter; the only
names formatted into SQL are our own table and column names.
"""

from __future__ import annotations

import contextlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hermes_memory_core.errors import ConsistencyError, EncryptionKeyError, NotFoundError
from hermes_memory_core.retrieval.tokenizer import tokenize
from hermes_memory_core.types import MemoryRecord, MemoryType, MemoryVersion

__all__ = ["COLUMNS", "DEFAULT_CONTEXT_WEIGHT", "SQLMetadataStore"]

#: Weight of a memory's conversational context in the keyword leg (tuned on LoCoMo conversations 0-4).
DEFAULT_CONTEXT_WEIGHT = 0.2
#: Memories of one neighbouring moment that lend their words to a memory's context.
CONTEXT_PER_MOMENT = 4

COLUMNS = (
    "id, user_id, session_id, content, memory_type, importance_score, access_count, created_at, updated_at, "
    "expires_at, version, metadata"
)
_COLUMNS = COLUMNS


class SQLMetadataStore(ABC):
    """Memory rows, versions, tags, access log, keyword index and key/value meta (the metadata protocol).

    Subclasses provide connections (:meth:`atomic` for writes, :meth:`reader` for reads), migrations, the keyword
    index and backups.
    """

    #: SQL name of the two-argument maximum (``max`` in SQLite, ``greatest`` in PostgreSQL).
    GREATEST = "max"
    #: Appended to a SELECT that reads a row the transaction will then change (row lock where the dialect has one).
    FOR_UPDATE = ""

    #: Where the store lives, for messages and store keys (a file path, or a URL without its password).
    location: str = ""

    def __init__(self) -> None:
        #: Encrypts permanent content and hashes its keyword tokens (set by the provider once the key is known).
        self.cipher: Any = None

    # ------------------------------------------------------------------ dialect
    @abstractmethod
    def open(self) -> None:
        """Connect and apply pending migrations."""

    @abstractmethod
    def close(self) -> None:
        """Release every connection. Idempotent."""

    @abstractmethod
    def atomic(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction; nested calls become savepoints. Yields a connection with ``execute``."""

    @abstractmethod
    def reader(self) -> Any:
        """A connection for reads that sees committed data (``execute(sql, params)`` → rows)."""

    def _reader(self) -> Any:
        return self.reader()

    @abstractmethod
    def applied_migrations(self) -> list[str]:
        """Names of the schema migrations recorded in the database, in order."""

    @abstractmethod
    def json_text(self, column: str, key: str) -> str:
        """SQL expression for the text of top-level ``key`` of a JSON column (both are our own constants)."""

    @abstractmethod
    def _index_keywords(
        self, conn: Any, memory_id: str, user_id: str, toks: Sequence[str], context: Sequence[str] = ()
    ) -> None:
        """(Re)index one memory's keyword tokens (and its neighbours' tokens as context) in the open transaction."""

    def _index_new_keywords(self, conn: Any, docs: Sequence[tuple[str, str, Sequence[str], Sequence[str]]]) -> None:
        """Index ``(memory_id, user_id, tokens, context)`` of memories not in the index yet (batch form)."""
        for memory_id, user_id, toks, context in docs:
            self._index_keywords(conn, memory_id, user_id, toks, context)

    def _lock_active(self, conn: Any, memory_id: str, columns: str) -> tuple[Any, ...]:
        """``columns`` (our own names) of an active memory, its row locked for this transaction where the dialect
        locks rows; :class:`NotFoundError` if there is none."""
        row = conn.execute(
            f"SELECT {columns} FROM memory_entries WHERE id = ? AND is_active = 1" + self.FOR_UPDATE, (memory_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no active memory with id {memory_id}")
        return tuple(row)

    def _lock_session(self, conn: Any, user_id: str, session_id: str) -> None:  # noqa: B027 - optional hook
        """Serialise context refreshes of one session until the transaction ends (a no-op with one writer)."""

    @abstractmethod
    def _unindex_keywords(self, conn: Any, memory_id: str) -> None:
        """Drop one memory from the keyword index inside the open transaction."""

    @abstractmethod
    def keyword_search(
        self,
        user_id: str,
        tokens: Sequence[str],
        limit: int,
        *,
        memory_types: Sequence[str] | None = None,
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        created_from: int | None = None,
        created_to: int | None = None,
        now: int | None = None,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
    ) -> list[tuple[str, float]]:
        """BM25 over one user's active memories: ``(id, score)``, best first, at most ``limit``.

        A memory's own tokens count fully, its neighbours' (the context field) ``context_weight`` times.
        """

    @abstractmethod
    def optimize_keyword_index(self) -> None:
        """Compact the keyword index (a maintenance step; results do not change)."""

    @abstractmethod
    def integrity_check(self) -> str:
        """``"ok"`` or a description of what is inconsistent."""

    @abstractmethod
    def backup_to(self, target: Path) -> None:
        """Write a consistent SQLite copy of the whole store to ``target`` (the bundle format)."""

    def is_empty(self) -> bool:
        """True when the store holds no memory, session or meta row."""
        conn = self._reader()
        if conn.execute("SELECT 1 FROM memory_meta WHERE key != 'keyword_index_rebuild' LIMIT 1").fetchone():
            return False  # a store identity (model, dimension, key check) was recorded
        return all(
            conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is None
            for table in ("memory_entries", "sessions", "promotion_queue")
        )

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> str | None:
        row = self._reader().execute("SELECT value FROM memory_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.atomic() as conn:
            conn.execute(
                "INSERT INTO memory_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # ------------------------------------------------------------------ encryption helpers
    def _seal(self, memory_id: str, memory_type: str, content: str) -> str:
        if memory_type != MemoryType.PERMANENT.value:
            return content
        if self.cipher is None:
            raise ConsistencyError("permanent memories need the encryption key; it is not loaded")
        return str(self.cipher.encrypt(content, memory_id))

    def _open_text(self, memory_id: str, stored: str) -> str:
        if stored.startswith("enc:v1:"):
            if self.cipher is None:
                raise EncryptionKeyError("this store's permanent memories are encrypted and no key is loaded")
            return str(self.cipher.decrypt(stored, memory_id))
        return stored

    def _index_tokens(self, memory_type: str, toks: Sequence[str]) -> list[str]:
        if memory_type == MemoryType.PERMANENT.value and self.cipher is not None:
            return [self.cipher.token_hash(t) for t in toks]
        return list(toks)

    def insert(self, records: Sequence[MemoryRecord], tokens: Sequence[Sequence[str]], note: str = "") -> None:
        """Insert new memories with version 1, tags and keyword-index rows, all in one transaction."""
        sealed = {r.id: self._seal(r.id, r.memory_type.value, r.content) for r in records}
        with self.atomic() as conn:
            conn.executemany(
                "INSERT INTO memory_entries (id, user_id, session_id, content, memory_type, embedding_id, "
                "importance_score, access_count, created_at, updated_at, expires_at, is_active, version, metadata) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 1, 1, ?)",
                [
                    (
                        r.id,
                        r.user_id,
                        r.session_id,
                        sealed[r.id],
                        r.memory_type.value,
                        r.id,
                        r.importance,
                        r.created_at,
                        r.updated_at,
                        r.expires_at,
                        json.dumps(r.metadata, ensure_ascii=False),
                    )
                    for r in records
                ],
            )
            conn.executemany(
                "INSERT INTO memory_versions (memory_id, version, content, created_at, note) VALUES (?, 1, ?, ?, ?)",
                [(r.id, sealed[r.id], r.created_at, note) for r in records],
            )
            conn.executemany(
                "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [(r.id, tag) for r in records for tag in r.tags],
            )
            self._index_inserted(conn, records, tokens)
            conn.executemany(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, 'add', ?, '')",
                [(r.id, r.user_id, r.updated_at) for r in records],
            )

    def purge(self, ids: Sequence[str]) -> None:
        """Physically remove rows (compensation of a write whose vector half failed; never for user deletes)."""
        with self.atomic() as conn:
            for memory_id in ids:
                place = self._place(conn, memory_id)
                self._unindex_keywords(conn, memory_id)
                conn.execute("DELETE FROM memory_entries WHERE id = ?", (memory_id,))
                conn.execute("DELETE FROM memory_access_log WHERE memory_id = ?", (memory_id,))
                if place is not None:  # its neighbours no longer see its words
                    self._refresh_context(conn, place[0], place[1], place[2], place[2])

    def add_version(
        self,
        memory_id: str,
        content: str,
        note: str,
        now: int,
        tokens: Sequence[str],
        user_id: str,
        metadata: Mapping[str, Any] | None = None,
        tags: Sequence[str] | None = None,
    ) -> int:
        """Append a version and make it current; replace the memory's metadata and tags when given (they are
        not versioned). Returns the new version number."""
        with self.atomic() as conn:
            row = self._lock_active(conn, memory_id, "version, memory_type")
            version = int(row[0]) + 1
            stored = self._seal(memory_id, row[1], content)
            conn.execute(
                "INSERT INTO memory_versions (memory_id, version, content, created_at, note) VALUES (?, ?, ?, ?, ?)",
                (memory_id, version, stored, now, note),
            )
            conn.execute(
                "UPDATE memory_entries SET content = ?, version = ?, updated_at = ? WHERE id = ?",
                (stored, version, now, memory_id),
            )
            if metadata is not None:
                conn.execute(
                    "UPDATE memory_entries SET metadata = ? WHERE id = ?",
                    (json.dumps(dict(metadata), ensure_ascii=False), memory_id),
                )
            if tags is not None:
                conn.execute("DELETE FROM memory_tags WHERE memory_id = ?", (memory_id,))
                conn.executemany(
                    "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    [(memory_id, tag) for tag in tags],
                )
            self._reindex(conn, memory_id, tokens)
            conn.execute(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, 'update', ?, ?)",
                (memory_id, user_id, now, note),
            )
            return version

    def revert_version(self, memory_id: str, version: int) -> None:
        """Undo :meth:`add_version` (compensation when the vector half of an update failed)."""
        with self.atomic() as conn:
            conn.execute("DELETE FROM memory_versions WHERE memory_id = ? AND version = ?", (memory_id, version))
            prev = conn.execute(
                "SELECT version, content, created_at FROM memory_versions WHERE memory_id = ? "
                "ORDER BY version DESC LIMIT 1",
                (memory_id,),
            ).fetchone()
            row = conn.execute("SELECT user_id, memory_type FROM memory_entries WHERE id = ?", (memory_id,)).fetchone()
            if prev is None or row is None:
                return
            conn.execute(
                "UPDATE memory_entries SET content = ?, version = ?, updated_at = ? WHERE id = ?",
                (prev[1], prev[0], prev[2], memory_id),
            )
            self._reindex(conn, memory_id)

    def soft_delete(self, memory_id: str, reason: str, now: int) -> str:
        """Mark a memory inactive and drop it from the keyword index. Returns its user_id."""
        with self.atomic() as conn:
            row = self._lock_active(conn, memory_id, "user_id")
            conn.execute(
                "UPDATE memory_entries SET is_active = 0, deleted_at = ?, delete_reason = ? WHERE id = ?",
                (now, reason, memory_id),
            )
            self._reindex(conn, memory_id)  # leaves the index; its neighbours no longer see its words
            conn.execute(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, 'delete', ?, ?)",
                (memory_id, row[0], now, reason),
            )
            return str(row[0])

    def log(self, memory_id: str, user_id: str, action: str, at: int, detail: str = "") -> None:
        """One access-log row (permanent reads and denied attempts)."""
        with self.atomic() as conn:
            conn.execute(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, ?, ?, ?)",
                (memory_id, user_id, action, at, detail),
            )

    def rotate_cipher(self, new_cipher: Any, tokenizer: Callable[[str], list[str]]) -> int:
        """Re-encrypt every permanent content and version with ``new_cipher`` and re-hash their keyword tokens,
        in one transaction. Returns how many memories were re-encrypted."""
        old = self.cipher
        with self.atomic() as conn:
            rows = conn.execute(
                "SELECT id, user_id, content, is_active FROM memory_entries WHERE memory_type = 'permanent'"
            ).fetchall()
            for memory_id, owner, content, active in rows:
                plain = old.decrypt(content, memory_id) if old is not None else content
                conn.execute(
                    "UPDATE memory_entries SET content = ? WHERE id = ?", (new_cipher.encrypt(plain, memory_id), memory_id)
                )
                for version, vcontent in conn.execute(
                    "SELECT version, content FROM memory_versions WHERE memory_id = ?", (memory_id,)
                ).fetchall():
                    vplain = old.decrypt(vcontent, memory_id) if old is not None else vcontent
                    conn.execute(
                        "UPDATE memory_versions SET content = ? WHERE memory_id = ? AND version = ?",
                        (new_cipher.encrypt(vplain, memory_id), memory_id, version),
                    )
                if active:
                    self._index_keywords(conn, memory_id, owner, [new_cipher.token_hash(t) for t in tokenizer(plain)])
            conn.execute(
                "INSERT INTO memory_meta (key, value) VALUES ('key_check', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (new_cipher.check_value(),),
            )
        self.cipher = new_cipher
        return len(rows)

    def record_access(self, entries: Sequence[tuple[str, str, int, str, str]]) -> None:
        """Apply buffered search accesses: ``(memory_id, user_id, at, action, detail)`` rows."""
        if not entries:
            return
        with self.atomic() as conn:
            conn.executemany(
                "UPDATE memory_entries SET access_count = access_count + 1, "
                f"last_accessed_at = {self.GREATEST}(coalesce(last_accessed_at, 0), ?) WHERE id = ?",
                [(e[2], e[0]) for e in sorted(entries)],  # one row-lock order for every writer (no deadlock)
            )
            conn.executemany(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, ?, ?, ?)",
                [(e[0], e[1], e[3], e[2], e[4]) for e in entries],
            )

    def repair_keyword_index(self, tokenizer: Callable[[str], list[str]] = tokenize) -> int:
        """Index active memories missing from the keyword index (with their conversational context) and drop
        entries of inactive ones. Returns how many memories it fixed."""
        with self.atomic() as conn:
            missing = conn.execute(
                "SELECT e.id, e.user_id, e.session_id, e.memory_type, e.created_at, e.content FROM memory_entries e "
                "WHERE e.is_active = 1 AND NOT EXISTS (SELECT 1 FROM memory_keyword_docs d WHERE d.memory_id = e.id)"
            ).fetchall()
            stale = conn.execute(
                "SELECT e.id, e.user_id, e.session_id, e.memory_type, e.created_at FROM memory_keyword_docs d "
                "JOIN memory_entries e ON e.id = d.memory_id WHERE e.is_active = 0"
            ).fetchall()
            for memory_id, *_rest in stale:
                self._unindex_keywords(conn, memory_id)
            spans: dict[tuple[str, str], list[int]] = {}
            for memory_id, owner, session, tier, created, content in missing:
                if session is None or tier == MemoryType.PERMANENT.value:
                    plain = self._open_text(memory_id, content)
                    self._index_keywords(conn, memory_id, owner, self._index_tokens(tier, tokenizer(plain)))
                else:
                    spans.setdefault((owner, session), []).append(int(created))
            for _memory_id, owner, session, tier, created in stale:
                if session is not None and tier != MemoryType.PERMANENT.value:
                    spans.setdefault((owner, session), []).append(int(created))
            for (owner, session), times in sorted(spans.items()):
                self._refresh_context(conn, owner, session, min(times), max(times))
        return len(missing) + len(stale)

    # ------------------------------------------------------------------ conversational context of the keyword index
    # Each memory of a session is indexed with its own tokens and, in a second field, the tokens of its neighbours
    # in the conversation (the active memories of the same session written just before and just after it): an
    # answer ("Yes, every Sunday!") is found by the words of the question it answers. The keyword leg weighs that field by
    # ``keyword_context_weight``. Permanent memories neither get nor give context (their words stay sealed), and
    # a deleted memory's words leave its neighbours' entries at once.
    def _index_inserted(
        self, conn: Any, records: Sequence[MemoryRecord], tokens: Sequence[Sequence[str]]
    ) -> None:
        own: dict[str, Sequence[str]] = {}
        spans: dict[tuple[str, str], list[int]] = {}
        alone: list[tuple[str, str, Sequence[str], Sequence[str]]] = []
        for r, toks in zip(records, tokens, strict=True):
            if r.session_id is None or r.memory_type is MemoryType.PERMANENT:
                alone.append((r.id, r.user_id, self._index_tokens(r.memory_type.value, toks), ()))
            else:
                own[r.id] = toks
                spans.setdefault((r.user_id, r.session_id), []).append(r.created_at)
        if alone:
            self._index_new_keywords(conn, alone)
        for (owner, session), times in sorted(spans.items()):  # one lock order for every writer
            self._refresh_context(conn, owner, session, min(times), max(times), own, new=own.keys())

    def _place(self, conn: Any, memory_id: str) -> tuple[str, str, int] | None:
        """``(user_id, session_id, created_at)`` of a memory that takes part in conversational context."""
        row = conn.execute(
            "SELECT user_id, session_id, created_at, memory_type FROM memory_entries WHERE id = ?", (memory_id,)
        ).fetchone()
        if row is None or row[1] is None or row[3] == MemoryType.PERMANENT.value:
            return None
        return str(row[0]), str(row[1]), int(row[2])

    def _reindex(self, conn: Any, memory_id: str, tokens: Sequence[str] | None = None) -> None:
        """Bring one memory's keyword entry, and its neighbours' context, in line with its current row."""
        row = conn.execute(
            "SELECT user_id, session_id, memory_type, created_at, content, is_active FROM memory_entries WHERE id = ?",
            (memory_id,),
        ).fetchone()
        if row is None:
            return
        owner, session, tier, created, content, active = row
        if not active:
            self._unindex_keywords(conn, memory_id)
        elif session is None or tier == MemoryType.PERMANENT.value:
            toks = tokens if tokens is not None else tokenize(self._open_text(memory_id, content))
            self._index_keywords(conn, memory_id, owner, self._index_tokens(tier, toks))
            return
        if session is not None and tier != MemoryType.PERMANENT.value:
            own = {memory_id: tokens} if tokens is not None and active else None
            self._refresh_context(conn, owner, session, int(created), int(created), own)

    def _refresh_context(
        self,
        conn: Any,
        user_id: str,
        session_id: str,
        lo: int,
        hi: int,
        own: Mapping[str, Sequence[str]] | None = None,
        new: Iterable[str] = (),
    ) -> None:
        """(Re)index the session's memories created in ``[lo, hi]`` and at the moment just before and after, each
        with its neighbours' tokens as context.

        A session is a sequence of moments (distinct ``created_at``); a memory's context is the memories of the
        moment before and the moment after its own (at most :data:`CONTEXT_PER_MOMENT` of each, by id), so
        memories written in the same second — a batch of statements, not a dialogue — never see each other.

        Args:
            own: Known tokens of some memories (just written); others are tokenized from their rows.
            new: Memories inserted in this transaction, not in the keyword index yet.
        """
        self._lock_session(conn, user_id, session_id)
        where = (
            "FROM memory_entries WHERE user_id = ? AND session_id = ? AND is_active = 1 "
            "AND memory_type != 'permanent' AND "
        )
        key = (user_id, session_id)
        below = [r[0] for r in conn.execute(
            f"SELECT DISTINCT created_at {where}created_at < ? ORDER BY created_at DESC LIMIT 2", (*key, lo)
        )]
        above = [r[0] for r in conn.execute(
            f"SELECT DISTINCT created_at {where}created_at > ? ORDER BY created_at LIMIT 2", (*key, hi)
        )]
        first, last = (below[-1] if below else lo), (above[-1] if above else hi)
        rows = conn.execute(
            f"SELECT id, content, created_at {where}created_at >= ? AND created_at <= ? ORDER BY created_at, id",
            (*key, first, last),
        ).fetchall()
        moments: list[list[tuple[str, str]]] = []
        times: list[int] = []
        for mid, text, created in rows:
            if not times or times[-1] != created:
                moments.append([])
                times.append(created)
            moments[-1].append((mid, text))
        own = own or {}
        fresh_ids = set(new)
        toks = {
            mid: list(own[mid]) if mid in own else tokenize(self._open_text(mid, text))
            for moment in moments
            for mid, text in moment
        }
        redo_from = below[0] if below else lo
        redo_to = above[0] if above else hi
        fresh: list[tuple[str, str, Sequence[str], Sequence[str]]] = []
        for k, moment in enumerate(moments):
            if not redo_from <= times[k] <= redo_to:
                continue
            context: list[str] = []
            for near in (k - 1, k + 1):
                if 0 <= near < len(moments):
                    for mid, _text in moments[near][:CONTEXT_PER_MOMENT]:
                        context.extend(toks[mid])
            for mid, _text in moment:
                if mid in fresh_ids:
                    fresh.append((mid, user_id, toks[mid], context))
                else:
                    self._index_keywords(conn, mid, user_id, toks[mid], context)
        if fresh:
            self._index_new_keywords(conn, fresh)

    # ------------------------------------------------------------------ reads
    def _record(self, row: Sequence[Any], tags: Iterable[str] = ()) -> MemoryRecord:
        return MemoryRecord(
            id=row[0],
            user_id=row[1],
            session_id=row[2],
            content=self._open_text(row[0], row[3]),
            memory_type=MemoryType(row[4]),
            importance=float(row[5]),
            access_count=int(row[6]),
            created_at=int(row[7]),
            updated_at=int(row[8]),
            expires_at=None if row[9] is None else int(row[9]),
            version=int(row[10]),
            tags=tuple(sorted(tags)),
            metadata=json.loads(row[11]) if row[11] else {},
        )

    def _tags_for(self, conn: Any, ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for mid, tag in conn.execute(
                f"SELECT memory_id, tag FROM memory_tags WHERE memory_id IN ({marks})", chunk
            ):
                out.setdefault(mid, []).append(tag)
        return out

    def get(self, memory_id: str, include_inactive: bool = False) -> MemoryRecord | None:
        conn = self._reader()
        sql = f"SELECT {_COLUMNS} FROM memory_entries WHERE id = ?"
        if not include_inactive:
            sql += " AND is_active = 1"
        row = conn.execute(sql, (memory_id,)).fetchone()
        if row is None:
            return None
        return self._record(row, self._tags_for(conn, [memory_id]).get(memory_id, ()))

    def get_many(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, MemoryRecord]:
        """Active, unexpired rows of one user among ``ids`` (others are silently left out)."""
        if not ids:
            return {}
        conn = self._reader()
        out: dict[str, MemoryRecord] = {}
        rows: list[Any] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            # unary + keeps the planner on the primary key (the user index would scan all of the user's rows)
            sql = (
                f"SELECT {_COLUMNS} FROM memory_entries WHERE id IN ({marks}) AND +user_id = ? AND +is_active = 1"
            )
            params: list[Any] = [*chunk, user_id]
            if now is not None:
                sql += " AND (+expires_at IS NULL OR +expires_at > ?)"
                params.append(now)
            rows.extend(conn.execute(sql, params).fetchall())
        tags = self._tags_for(conn, [r[0] for r in rows])
        for row in rows:
            out[row[0]] = self._record(row, tags.get(row[0], ()))
        return out

    def rank_fields(
        self, ids: Sequence[str], user_id: str, now: int | None = None
    ) -> dict[str, tuple[str | None, int, int, float, int, str, int]]:
        """``id → (session_id, created_at, updated_at, importance, version, memory_type, access_count)`` of
        active, unexpired rows of one user.

        The light columns ranking needs; full records are built only for the hits that are returned.
        """
        if not ids:
            return {}
        conn = self._reader()
        out: dict[str, tuple[str | None, int, int, float, int, str, int]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            sql = (
                "SELECT id, session_id, created_at, updated_at, importance_score, version, memory_type, access_count "
                "FROM memory_entries "
                f"WHERE id IN ({','.join('?' * len(chunk))}) AND +user_id = ? AND +is_active = 1"
            )
            params: list[Any] = [*chunk, user_id]
            if now is not None:
                sql += " AND (+expires_at IS NULL OR +expires_at > ?)"
                params.append(now)
            for row in conn.execute(sql, params):
                out[row[0]] = (row[1], int(row[2]), int(row[3]), float(row[4]), int(row[5]), row[6], int(row[7]))
        return out

    def find_current_fact(self, user_id: str, fact_key: str) -> str | None:
        """Id of the user's active permanent memory with ``metadata.fact_key == fact_key``, if any."""
        row = self._reader().execute(
            "SELECT id FROM memory_entries WHERE user_id = ? AND memory_type = 'permanent' AND is_active = 1 "
            f"AND {self.json_text('metadata', 'fact_key')} = ? ORDER BY updated_at DESC LIMIT 1",
            (user_id, fact_key),
        ).fetchone()
        return None if row is None else str(row[0])

    def lifecycle_rows(self) -> list[tuple[str, str, str | None, str, float, int, int | None]]:
        """``(id, user_id, session_id, memory_type, importance, updated_at, last_accessed_at)`` of active
        short-term and long-term memories (forgetting never looks at permanent ones)."""
        rows = self._reader().execute(
            "SELECT id, user_id, session_id, memory_type, importance_score, updated_at, last_accessed_at "
            "FROM memory_entries WHERE is_active = 1 AND memory_type IN ('short_term', 'long_term')"
        )
        return [(r[0], r[1], r[2], r[3], float(r[4]), int(r[5]), None if r[6] is None else int(r[6])) for r in rows]

    def set_tier(self, memory_id: str, memory_type: str, expires_at: int | None, note: str, now: int) -> None:
        """Move an active memory to another tier (a downgrade by forgetting), logged."""
        with self.atomic() as conn:
            row = self._lock_active(conn, memory_id, "user_id")
            conn.execute(
                "UPDATE memory_entries SET memory_type = ?, expires_at = ? WHERE id = ?",
                (memory_type, expires_at, memory_id),
            )
            conn.execute(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, 'downgrade', ?, ?)",
                (memory_id, row[0], now, note),
            )

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        rows = self._reader().execute(
            "SELECT memory_id, version, content, created_at, note FROM memory_versions "
            "WHERE memory_id = ? ORDER BY version",
            (memory_id,),
        )
        return [MemoryVersion(r[0], int(r[1]), self._open_text(r[0], r[2]), int(r[3]), r[4]) for r in rows]

    @staticmethod
    def _filters(
        memory_types: Sequence[str] | None,
        session_id: str | None,
        tags: Sequence[str] | None,
        created_from: int | None,
        created_to: int | None,
        now: int | None,
    ) -> tuple[str, list[Any]]:
        sql: list[str] = []
        params: list[Any] = []
        if memory_types:
            sql.append(f"AND +e.memory_type IN ({','.join('?' * len(memory_types))})")
            params.extend(memory_types)
        if session_id is not None:
            sql.append("AND +e.session_id = ?")
            params.append(session_id)
        if tags:
            sql.append(
                "AND EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = e.id "
                f"AND t.tag IN ({','.join('?' * len(tags))}))"
            )
            params.extend(tags)
        if created_from is not None:
            sql.append("AND +e.created_at >= ?")
            params.append(created_from)
        if created_to is not None:
            sql.append("AND +e.created_at <= ?")
            params.append(created_to)
        if now is not None:
            sql.append("AND (+e.expires_at IS NULL OR +e.expires_at > ?)")
            params.append(now)
        return " ".join(sql), params

    def list_records(
        self,
        user_id: str,
        *,
        memory_types: Sequence[str] | None = None,
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        created_from: int | None = None,
        created_to: int | None = None,
        now: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        """One user's active, unexpired memories matching the filters, oldest first (``created_at``, then id)."""
        where, params = self._filters(memory_types, session_id, tags, created_from, created_to, now)
        conn = self._reader()
        rows = conn.execute(
            f"SELECT {', '.join('e.' + c.strip() for c in _COLUMNS.split(','))} FROM memory_entries e "
            f"WHERE e.user_id = ? AND e.is_active = 1 {where} ORDER BY e.created_at, e.id LIMIT ? OFFSET ?",
            [user_id, *params, limit, offset],
        ).fetchall()
        tag_map = self._tags_for(conn, [r[0] for r in rows])
        return [self._record(r, tag_map.get(r[0], ())) for r in rows]

    def iter_active(self, batch_size: int = 1000) -> Iterator[list[MemoryRecord]]:
        """Every active memory, in batches ordered by id."""
        last = ""
        conn = self._reader()
        while True:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM memory_entries WHERE is_active = 1 AND id > ? ORDER BY id LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            tags = self._tags_for(conn, [r[0] for r in rows])
            yield [self._record(r, tags.get(r[0], ())) for r in rows]
            last = rows[-1][0]

    def active_versions(self) -> dict[str, int]:
        """id → current version of every active memory."""
        return {r[0]: int(r[1]) for r in self._reader().execute("SELECT id, version FROM memory_entries WHERE is_active = 1")}

    def expired_ids(self, now: int) -> list[str]:
        return [
            r[0]
            for r in self._reader().execute(
                "SELECT id FROM memory_entries WHERE is_active = 1 AND expires_at IS NOT NULL AND expires_at <= ?",
                (now,),
            )
        ]

    def counts(self) -> dict[str, Any]:
        conn = self._reader()
        by_type = dict(
            conn.execute("SELECT memory_type, count(*) FROM memory_entries WHERE is_active = 1 GROUP BY memory_type")
        )
        by_user = dict(conn.execute("SELECT user_id, count(*) FROM memory_entries WHERE is_active = 1 GROUP BY user_id"))
        versions = conn.execute("SELECT count(*) FROM memory_versions").fetchone()[0]
        deleted = conn.execute("SELECT count(*) FROM memory_entries WHERE is_active = 0").fetchone()[0]
        return {"by_type": by_type, "by_user": by_user, "versions": int(versions), "deleted": int(deleted)}

    def access_log(self, memory_id: str) -> list[tuple[str, int, str]]:
        return [
            (r[0], int(r[1]), r[2])
            for r in self._reader().execute(
                "SELECT action, at, detail FROM memory_access_log WHERE memory_id = ? ORDER BY id", (memory_id,)
            )
        ]

