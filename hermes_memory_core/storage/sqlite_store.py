"""Metadata store on SQLite in WAL mode: one writer at a time, readers in parallel, thread-safe.

Pragmas follow seed 000 §2.3: ``journal_mode=WAL``, ``synchronous=NORMAL``, ``busy_timeout=5000``,
``foreign_keys=ON``. Writes go through one connection guarded by a lock (``atomic()`` nests with
SAVEPOINTs); each thread reads through its own connection, so searches never wait for a writer.
A committed transaction survives a killed process (WAL + NORMAL loses at most the last commits on power loss).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hermes_memory_core.errors import ConsistencyError, NotFoundError
from hermes_memory_core.storage import migrations
from hermes_memory_core.types import MemoryRecord, MemoryType, MemoryVersion

__all__ = ["SQLiteMetadataStore", "user_key"]

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA secure_delete=ON",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA busy_timeout=5000",
    "PRAGMA foreign_keys=ON",
)
_COLUMNS = (
    "id, user_id, session_id, content, memory_type, importance_score, access_count, created_at, updated_at, "
    "expires_at, version, metadata"
)


def keyword_shard(user_id: str) -> int:
    """The keyword-index shard that holds this user's documents."""
    return int(hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % migrations.KEYWORD_SHARDS


def user_key(user_id: str) -> str:
    """The keyword-index token that scopes a document to its user (safe inside an FTS5 query)."""
    return "u" + hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _fts_query(user: str, tokens: Sequence[str]) -> str:
    terms = " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)
    return f'user_key : "{user}" AND tokens : ({terms})'


class SQLiteMetadataStore:
    """Memory rows, versions, tags, access log, keyword index and key/value meta in one SQLite file.

    Args:
        path: Database file (``":memory:"`` is not supported: readers need a shared file).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._write_lock = threading.RLock()
        self._writer: sqlite3.Connection | None = None
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._depth = 0
        self._closed = False
        #: Encrypts permanent content and hashes its keyword tokens (set by the provider once the key is known).
        self.cipher: Any = None

    # ------------------------------------------------------------------ connections
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=5.0)
        for pragma in _PRAGMAS:
            conn.execute(pragma)
        return conn

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = self._connect()
        with self._write_lock:
            migrations.apply_pending(self._writer)

    def reader(self) -> sqlite3.Connection:
        """This thread's read-only connection (for stores that share this database file)."""
        return self._reader()

    def _reader(self) -> sqlite3.Connection:
        if self._closed:
            raise ConsistencyError("the metadata store is closed")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            conn.execute("PRAGMA query_only=ON")
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def close(self) -> None:
        with self._write_lock:
            self._closed = True
            if self._writer is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._writer.close()
                self._writer = None
        with self._readers_lock:
            for conn in self._readers:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._readers.clear()

    @contextlib.contextmanager
    def atomic(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the single writer connection; nested calls become SAVEPOINTs."""
        with self._write_lock:
            conn = self._writer
            if conn is None:
                raise ConsistencyError("the metadata store is closed")
            if self._depth == 0:
                conn.execute("BEGIN IMMEDIATE")
                commit, rollback = "COMMIT", "ROLLBACK"
            else:
                name = f"sp{self._depth}"
                conn.execute(f"SAVEPOINT {name}")
                commit, rollback = f"RELEASE {name}", f"ROLLBACK TO {name}; RELEASE {name}"
            self._depth += 1
            try:
                yield conn
            except BaseException:
                self._depth -= 1
                for stmt in rollback.split("; "):
                    conn.execute(stmt)
                raise
            else:
                self._depth -= 1
                conn.execute(commit)

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

    def applied_migrations(self) -> list[str]:
        return migrations.applied(self._reader())

    # ------------------------------------------------------------------ writes
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
                from hermes_memory_core.errors import EncryptionKeyError

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
                "INSERT OR IGNORE INTO memory_tags (memory_id, tag) VALUES (?, ?)",
                [(r.id, tag) for r in records for tag in r.tags],
            )
            for r, toks in zip(records, tokens, strict=True):
                self._index_keywords(conn, r.id, r.user_id, self._index_tokens(r.memory_type.value, toks))
            conn.executemany(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, 'add', ?, '')",
                [(r.id, r.user_id, r.updated_at) for r in records],
            )

    def _index_keywords(self, conn: sqlite3.Connection, memory_id: str, user_id: str, toks: Sequence[str]) -> None:
        shard = keyword_shard(user_id)
        row = conn.execute("SELECT doc, shard FROM memory_keyword_docs WHERE memory_id = ?", (memory_id,)).fetchone()
        if row is None:
            doc = conn.execute(
                "INSERT INTO memory_keyword_docs (memory_id, shard) VALUES (?, ?)", (memory_id, shard)
            ).lastrowid
        else:
            doc = row[0]
            conn.execute(f"DELETE FROM {migrations.fts_table(row[1])} WHERE rowid = ?", (doc,))
            conn.execute("UPDATE memory_keyword_docs SET shard = ? WHERE doc = ?", (shard, doc))
        conn.execute(
            f"INSERT INTO {migrations.fts_table(shard)} (rowid, user_key, tokens) VALUES (?, ?, ?)",
            (doc, user_key(user_id), " ".join(toks)),
        )

    def _unindex_keywords(self, conn: sqlite3.Connection, memory_id: str) -> None:
        row = conn.execute("SELECT doc, shard FROM memory_keyword_docs WHERE memory_id = ?", (memory_id,)).fetchone()
        if row is not None:
            conn.execute(f"DELETE FROM {migrations.fts_table(row[1])} WHERE rowid = ?", (row[0],))
            conn.execute("DELETE FROM memory_keyword_docs WHERE doc = ?", (row[0],))

    def purge(self, ids: Sequence[str]) -> None:
        """Physically remove rows (compensation of a write whose vector half failed; never for user deletes)."""
        with self.atomic() as conn:
            for memory_id in ids:
                self._unindex_keywords(conn, memory_id)
                conn.execute("DELETE FROM memory_entries WHERE id = ?", (memory_id,))
                conn.execute("DELETE FROM memory_access_log WHERE memory_id = ?", (memory_id,))

    def add_version(
        self, memory_id: str, content: str, note: str, now: int, tokens: Sequence[str], user_id: str
    ) -> int:
        """Append a version and make it current. Returns the new version number."""
        with self.atomic() as conn:
            row = conn.execute(
                "SELECT version, memory_type FROM memory_entries WHERE id = ? AND is_active = 1", (memory_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(f"no active memory with id {memory_id}")
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
            self._index_keywords(conn, memory_id, user_id, self._index_tokens(row[1], tokens))
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
            from hermes_memory_core.retrieval.tokenizer import tokenize

            plain = self._open_text(memory_id, prev[1])
            self._index_keywords(conn, memory_id, row[0], self._index_tokens(row[1], tokenize(plain)))

    def soft_delete(self, memory_id: str, reason: str, now: int) -> str:
        """Mark a memory inactive and drop it from the keyword index. Returns its user_id."""
        with self.atomic() as conn:
            row = conn.execute(
                "SELECT user_id FROM memory_entries WHERE id = ? AND is_active = 1", (memory_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(f"no active memory with id {memory_id}")
            conn.execute(
                "UPDATE memory_entries SET is_active = 0, deleted_at = ?, delete_reason = ? WHERE id = ?",
                (now, reason, memory_id),
            )
            self._unindex_keywords(conn, memory_id)
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
                "last_accessed_at = max(coalesce(last_accessed_at, 0), ?) WHERE id = ?",
                [(e[2], e[0]) for e in entries],
            )
            conn.executemany(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, ?, ?, ?)",
                [(e[0], e[1], e[3], e[2], e[4]) for e in entries],
            )

    def repair_keyword_index(self, tokenizer: Callable[[str], list[str]]) -> int:
        """Index active memories missing from the keyword index and drop entries of inactive ones."""
        with self.atomic() as conn:
            missing = conn.execute(
                "SELECT e.id, e.user_id, e.content, e.memory_type FROM memory_entries e WHERE e.is_active = 1 "
                "AND NOT EXISTS (SELECT 1 FROM memory_keyword_docs d WHERE d.memory_id = e.id)"
            ).fetchall()
            for memory_id, owner, content, tier in missing:
                plain = self._open_text(memory_id, content)
                self._index_keywords(conn, memory_id, owner, self._index_tokens(tier, tokenizer(plain)))
            stale = conn.execute(
                "SELECT d.memory_id FROM memory_keyword_docs d JOIN memory_entries e ON e.id = d.memory_id "
                "WHERE e.is_active = 0"
            ).fetchall()
            for (memory_id,) in stale:
                self._unindex_keywords(conn, memory_id)
        return len(missing) + len(stale)

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

    def _tags_for(self, conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
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
    ) -> dict[str, tuple[str | None, int, int, float]]:
        """``id → (session_id, created_at, updated_at, importance)`` of active, unexpired rows of one user.

        The light columns ranking needs; full records are built only for the hits that are returned.
        """
        if not ids:
            return {}
        conn = self._reader()
        out: dict[str, tuple[str | None, int, int, float]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            sql = (
                "SELECT id, session_id, created_at, updated_at, importance_score FROM memory_entries "
                f"WHERE id IN ({','.join('?' * len(chunk))}) AND +user_id = ? AND +is_active = 1"
            )
            params: list[Any] = [*chunk, user_id]
            if now is not None:
                sql += " AND (+expires_at IS NULL OR +expires_at > ?)"
                params.append(now)
            for row in conn.execute(sql, params):
                out[row[0]] = (row[1], int(row[2]), int(row[3]), float(row[4]))
        return out

    def find_current_fact(self, user_id: str, fact_key: str) -> str | None:
        """Id of the user's active permanent memory with ``metadata.fact_key == fact_key``, if any."""
        row = self._reader().execute(
            "SELECT id FROM memory_entries WHERE user_id = ? AND memory_type = 'permanent' AND is_active = 1 "
            "AND json_extract(metadata, '$.fact_key') = ? ORDER BY updated_at DESC LIMIT 1",
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
            row = conn.execute("SELECT user_id FROM memory_entries WHERE id = ? AND is_active = 1", (memory_id,)).fetchone()
            if row is None:
                raise NotFoundError(f"no active memory with id {memory_id}")
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
    ) -> list[tuple[str, float]]:
        """BM25 over one user's active memories. Returns ``(id, score)`` with higher scores better.

        Two steps keep it fast at scale: FTS5 ranks its own top documents (no join), then the filters are
        checked by primary key. If filtering leaves too few while more matches exist, one joined query answers.
        """
        if not tokens:
            return []
        terms = list(tokens)
        if self.cipher is not None:
            terms += [self.cipher.token_hash(t) for t in tokens]
        match = _fts_query(user_key(user_id), terms)
        fts = migrations.fts_table(keyword_shard(user_id))
        conn = self._reader()
        fetch = limit * 3
        ranked = conn.execute(
            f"SELECT rowid, -bm25({fts}, 0.0, 1.0) AS score FROM {fts} WHERE {fts} MATCH ? "
            "ORDER BY score DESC LIMIT ?",
            (match, fetch),
        ).fetchall()
        if not ranked:
            return []
        docs = dict(
            conn.execute(
                f"SELECT doc, memory_id FROM memory_keyword_docs WHERE doc IN ({','.join('?' * len(ranked))})",
                [r[0] for r in ranked],
            ).fetchall()
        )
        where, params = self._filters(memory_types, session_id, tags, created_from, created_to, now)
        ids = [docs[r[0]] for r in ranked if r[0] in docs]
        keep = {
            row[0]
            for row in conn.execute(
                f"SELECT e.id FROM memory_entries e WHERE e.id IN ({','.join('?' * len(ids))}) "
                f"AND +e.user_id = ? AND +e.is_active = 1 {where}",
                [*ids, user_id, *params],
            )
        }
        out = [(docs[r[0]], float(r[1])) for r in ranked if docs.get(r[0]) in keep]
        if len(out) >= limit or len(ranked) < fetch:
            return out[:limit]
        sql = (
            f"SELECT e.id, -bm25({fts}, 0.0, 1.0) AS score FROM {fts} "
            f"JOIN memory_keyword_docs d ON d.doc = {fts}.rowid JOIN memory_entries e ON e.id = d.memory_id "
            f"WHERE {fts} MATCH ? AND e.is_active = 1 AND e.user_id = ? {where} ORDER BY score DESC LIMIT ?"
        )
        return [(r[0], float(r[1])) for r in conn.execute(sql, [match, user_id, *params, limit])]

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

    def optimize_keyword_index(self) -> None:
        """Merge the FTS index into one segment (queries on a large index get about twice as fast)."""
        for shard in range(migrations.KEYWORD_SHARDS):
            fts = migrations.fts_table(shard)
            with self.atomic() as conn:
                conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('optimize')")

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

    def integrity_check(self) -> str:
        return str(self._reader().execute("PRAGMA integrity_check").fetchone()[0])

    # ------------------------------------------------------------------ portability
    def backup_to(self, target: Path) -> None:
        """A consistent copy through SQLite's online backup API (never a torn file copy)."""
        with self._write_lock:
            if self._writer is None:
                raise ConsistencyError("the metadata store is closed")
            dest = sqlite3.connect(str(target))
            try:
                self._writer.backup(dest)
                dest.execute("PRAGMA journal_mode=DELETE")
            finally:
                dest.close()
