"""The metadata-store protocol every backend implements: one protocol per role, the store composed of them, and
the typed rows they return.

A store holds memory rows (one per UUID: content, tier, owner, session, importance, times, version, metadata,
tags), their append-only versions, an access log, key/value meta, session buffers (see
:mod:`~hermes_memory_core.storage.sessions`) and a BM25 keyword index. It knows rows, not policy: what content looks
like at rest (encrypted or not) and which tokens index a memory are decided by the :class:`RowCodec` the engine
hands it; which memories lend each other conversational context is a property of each row (``dialogue``), set by
the writer.

The protocol is split by the roles a store plays (:data:`ROLES`: :class:`Connection`, :class:`MemoryRecords`,
:class:`VersionHistory`, :class:`KeywordIndex`, :class:`AccessLog`, :class:`LifecycleRows`, :class:`ErasureRows`,
:class:`Administration`), each with its own contract and its own group of contract tests
(``tests/hermes_memory_core/storage/test_metadata_contract.py``, on SQLite and PostgreSQL). A
:class:`MetadataStore` is the :class:`Connection` itself and holds one object per other role, over one database
(``store.records.get(...)``, ``store.history.versions(...)``): no object answers for more than one role's methods.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

from hermes_memory_core.storage.filters import MemoryFilter
from hermes_memory_core.types import AccessAction, ErasureKind, MemoryRecord, MemoryType, MemoryVersion

__all__ = [
    "DEFAULT_CONTEXT_WEIGHT",
    "ROLES",
    "ROLE_ATTRIBUTES",
    "AccessLog",
    "AccessRecord",
    "Administration",
    "Connection",
    "Erasure",
    "ErasureRows",
    "KeywordFilter",
    "KeywordIndex",
    "KeywordStats",
    "LifecycleRow",
    "LifecycleRows",
    "MemoryRecords",
    "MetadataStore",
    "NewMemory",
    "RankRow",
    "RowCodec",
    "VersionHistory",
]

#: Weight of a memory's conversational context in the keyword leg (tuned on LoCoMo conversations 0-4).
DEFAULT_CONTEXT_WEIGHT = 0.2


@runtime_checkable
class RowCodec(Protocol):
    """The engine's policy as the rows see it: how content is kept at rest and which tokens index it.

    A store calls it on every write and read of content, metadata, tags, notes and session rows, and whenever it
    (re)indexes a memory from its row, so the store itself never decides what is encrypted or how text is tokenized.
    """

    def seal(self, memory_id: str, memory_type: str, text: str) -> str:
        """The form of ``text`` kept at rest for a memory of this tier (ciphertext, or the text itself)."""

    def open(self, memory_id: str, stored: str) -> str:
        """The text of content kept at rest (the inverse of :meth:`seal`)."""

    def index_tokens(self, memory_type: str, text: str) -> list[str]:
        """Tokens that index a memory's own keyword field (keyed hashes where the content is sealed; a Chinese
        memory's English dictionary terms included)."""

    def context_tokens(self, text: str) -> list[str]:
        """Tokens a dialogue memory lends its neighbours' context field."""

    def seal_field(self, memory_id: str, memory_type: str, field: str, text: str) -> str:
        """The form at rest of a memory's other text fields (``note``, ``reason``, ``log``)."""

    def open_field(self, memory_id: str, field: str, stored: str) -> str:
        """The text of a field kept at rest (the inverse of :meth:`seal_field`)."""

    def pack_metadata(self, memory_id: str, memory_type: str, metadata: Mapping[str, Any], tags: Sequence[str]) -> str:
        """The metadata column of a memory (its metadata, and where the policy says so its tags)."""

    def unpack_metadata(self, memory_id: str, stored: str | None) -> tuple[dict[str, Any], tuple[str, ...] | None]:
        """``(metadata, tags)`` of a metadata column; tags None: they are the plain tag rows."""

    def tag_keys(self, memory_type: str, tags: Sequence[str]) -> list[str]:
        """The values a memory's tag rows (and vector payload) hold for its tags."""

    def lookup_value(self, memory_type: str, key: str, value: str) -> str:
        """What the metadata column holds, in the clear, for a lookup key's value."""

    def seal_session(self, user_id: str, session_id: str | None, text: str) -> str:
        """The form at rest of a session row's text (message, message data, summary, queued promotion)."""

    def open_session(self, user_id: str, session_id: str | None, stored: str) -> str:
        """The text of a session row (the inverse of :meth:`seal_session`)."""

    def session_key(self, user_id: str, session_id: str | None) -> str | None:
        """What rows and vector payloads hold for a user's session id (an id sealed under that user, its own lookup
        key, or the id); SQL parameters and filters on a session use it."""

    def session_of(self, stored: str | None) -> str | None:
        """The session id a row holds (the inverse of :meth:`session_key`)."""


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory row to insert: the record (with plain content) and whether it is a turn of a dialogue.

    Attributes:
        record: The memory, version 1.
        dialogue: A turn of a conversation: it lends its words to the keyword context of the turns written just
            before and after it in its session, and takes theirs.
        lang: The language of its content (``zh``/``en``), or None when unknown.
    """

    record: MemoryRecord
    dialogue: bool = False
    lang: str | None = None


class RankRow(NamedTuple):
    """The light columns ranking needs of one active memory (full records are built for returned hits only).

    ``version``, ``memory_type`` and ``access_count`` bring a cached copy of the record up to date, or show it is
    stale. A named tuple, not a dataclass: a search builds one per candidate straight from a SQL row (its columns
    in this order), ~5× cheaper; so ``dialogue`` is read for its truth (SQLite gives 0/1, PostgreSQL a bool).
    """

    session_id: str | None
    created_at: int
    updated_at: int
    importance: float
    version: int
    memory_type: MemoryType
    access_count: int
    dialogue: bool = False
    lang: str | None = None


@dataclass(frozen=True, slots=True)
class LifecycleRow:
    """What forgetting needs of one active memory."""

    id: str
    user_id: str
    session_id: str | None
    memory_type: MemoryType
    importance: float
    updated_at: int
    last_accessed_at: int | None
    expires_at: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "memory_type", MemoryType(self.memory_type))  # a tier as read from a row


@dataclass(frozen=True, slots=True)
class AccessRecord:
    """One buffered access: a search hit, a permanent read, a denied attempt."""

    memory_id: str
    user_id: str
    at: int
    action: AccessAction
    detail: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "action", AccessAction(self.action))


#: The filter of a read of rows, applied in SQL: the one filter type of every read (its ``user_id`` is the user
#: the read names).
KeywordFilter = MemoryFilter


@dataclass(frozen=True, slots=True)
class KeywordStats:
    """What BM25 weighs, as the keyword leg sees it for one user: their keyword shard's document count and mean
    document length (every field's tokens, FTS5's way), and how many of its documents hold each term."""

    docs: int
    avg_length: float
    df: dict[str, int]


@dataclass(frozen=True, slots=True)
class Erasure:
    """A durable intent to erase: ``kind`` :attr:`ErasureKind.USER` (every row of ``user_id``) or
    :attr:`ErasureKind.MEMORY` (one memory); a kind given as its string value is read as the enum.

    Recorded before anything is erased and cleared only when nothing of the target is left, so an erasure a killed
    process left half done is found and finished.
    """

    kind: ErasureKind
    user_id: str
    memory_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ErasureKind(self.kind))


class Connection(Protocol):
    """The store as a database: connect, migrate, transactions, checks and key/value meta.

    Contract: :meth:`open` applies pending migrations exactly once however many processes open the store;
    every write method of every role is one transaction (:meth:`atomic`; nested calls are savepoints, an inner
    failure rolls back only itself), and a write that raises changed nothing; a reader sees committed data only and
    never waits for a writer. Every value reaches the database as a bound parameter; the only names formatted into
    SQL are our own.
    """

    def open(self) -> None:
        """Connect and apply pending migrations."""

    def close(self) -> None:
        """Release every connection. Idempotent."""

    def atomic(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction; nested calls become savepoints. Yields a connection with ``execute``."""

    def reader(self) -> Any:
        """A connection for reads that sees committed data (``execute(sql, params)`` → rows)."""

    def applied_migrations(self) -> list[str]:
        """Names of the schema migrations recorded in the database, in order."""

    def integrity_check(self) -> str:
        """``"ok"`` or a description of what is inconsistent."""

    def is_empty(self) -> bool:
        """True when the store holds no memory, session or identity row."""

    def get_meta(self, key: str) -> str | None:
        """A value of the store's key/value meta."""

    def set_meta(self, key: str, value: str) -> None:
        """Set a meta value (upsert)."""


class MemoryRecords(Protocol):
    """Memory rows: write them, move them between tiers, read them back scoped to their owner.

    Contract: one row per UUID; an insert writes version 1, tags, keyword entries and an ``add`` log row in one
    transaction; reads are scoped: search-side reads take the owner's ``user_id`` and never return another user's
    row, inactive (deleted) rows are returned only by methods that say so, and ``now`` hides rows expired by then;
    a soft-deleted row keeps its history and leaves the keyword index.
    """

    def insert(self, rows: Sequence[NewMemory], note: str = "") -> None:
        """Insert new memories with version 1, tags, keyword entries and an ``add`` log row, in one transaction."""

    def soft_delete(self, memory_id: str, reason: str, now: int) -> str:
        """Mark a memory inactive and take it out of the keyword index. Returns its user id."""

    def purge(self, ids: Sequence[str]) -> None:
        """Physically remove rows (compensation of a write whose vector half failed)."""

    def set_tier(self, memory_id: str, memory_type: str, expires_at: int | None, note: str, now: int) -> None:
        """Move an active memory to another tier, logged."""

    def note_repeat(self, memory_id: str, now: int, detail: str = "") -> None:
        """Count one repetition of an active memory (a statement remembered again): ``access_count`` + 1,
        ``updated_at`` and ``last_accessed_at`` moved to ``now``, an access-log row ``repeat``."""

    def get(self, memory_id: str, include_inactive: bool = False) -> MemoryRecord | None:
        """One memory by id (active only unless asked)."""

    def get_many(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, MemoryRecord]:
        """Active, unexpired rows of one user among ``ids`` (others are silently left out)."""

    def rank_rows(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, RankRow]:
        """The ranking columns of active, unexpired rows of one user among ``ids``."""

    def list_records(self, user_id: str, flt: KeywordFilter, limit: int = 100, offset: int = 0) -> list[MemoryRecord]:
        """One user's active memories matching the filter, oldest first (``created_at``, then id)."""

    def find_by_metadata(self, user_id: str, key: str, value: str, memory_types: Sequence[str]) -> str | None:
        """Id of the user's most recently updated active memory of these tiers with ``metadata[key] == value``,
        ``value`` as the codec keeps it (:meth:`RowCodec.lookup_value`: a keyed hash for sealed tiers)."""

    def find_by_metadata_values(self, user_id: str, key: str, values: Sequence[str],
                                memory_types: Sequence[str]) -> dict[str, str]:
        """:meth:`find_by_metadata` for several values in one query: ``{value: id}`` for the values found."""

    def iter_active(self, batch_size: int = 1000) -> Iterator[list[MemoryRecord]]:
        """Every active memory, in batches ordered by id."""

    def has_language(self, user_id: str, lang: str) -> bool:
        """Whether the user has an active memory in this language."""

    def missing_languages(self, limit: int = 1000) -> list[tuple[str, str]]:
        """``(id, plain content)`` of up to ``limit`` memories whose language is not recorded yet."""

    def set_languages(self, langs: Sequence[tuple[str, str]]) -> None:
        """Record ``(id, lang)`` pairs."""


class VersionHistory(Protocol):
    """The append-only versions of a memory and the store as it stood at a past moment.

    Contract: versions are numbered from 1 and never rewritten; :meth:`revert_version` undoes only the last
    :meth:`add_version` (compensation); :meth:`records_as_of` answers from the versions current then.
    """

    def add_version(
        self,
        memory_id: str,
        content: str,
        note: str,
        now: int,
        user_id: str,
        metadata: Mapping[str, Any] | None = None,
        tags: Sequence[str] | None = None,
        lang: str | None = None,
    ) -> int:
        """Append a version, make it current, re-index it; replace metadata, tags and language when given.
        Returns the new version number; :class:`~hermes_memory_core.errors.NotFoundError` if the memory is not
        active."""

    def revert_version(self, memory_id: str, version: int) -> None:
        """Undo :meth:`add_version` (compensation when the vector half of an update failed)."""

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every version of a memory, oldest first."""

    def records_as_of(self, user_id: str, as_of: int, flt: KeywordFilter) -> list[MemoryRecord]:
        """The user's memories that existed at ``as_of`` and have changed since — updated (a later version became
        current) or deleted (soft) — as they were then: content, version and ``updated_at`` of the version current
        at ``as_of``. Filters apply to the rows as they are now; ``flt.now`` hides memories expired by then."""


class KeywordIndex(Protocol):
    """The BM25 keyword index over each user's active memories, and its upkeep.

    Contract: FTS5's BM25 (k1 = 1.2, b = 0.75) over the user's keyword shard, a memory's own tokens weighing 1.0
    and its conversational context ``context_weight``; scores rounded to 9 decimals, ties broken by memory id, so
    equal stores answer in the same order on every backend; the index follows every write (the tokens are the
    codec's: :meth:`RowCodec.index_tokens`, :meth:`RowCodec.context_tokens`), and upkeep never changes results.
    """

    def keyword_search(
        self,
        user_id: str,
        terms: Sequence[str],
        limit: int,
        flt: KeywordFilter | None = None,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
    ) -> list[tuple[str, float]]:
        """BM25 over one user's active memories: ``(id, score)``, best first, at most ``limit``."""

    def keyword_stats(self, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """BM25 statistics of the user's keyword shard for ``terms`` (document frequency over the fields
        :meth:`keyword_search` matches with this ``context_weight``)."""

    def repair_keyword_index(self) -> int:
        """Index active memories missing from the keyword index and drop entries of inactive ones."""

    def optimize_keyword_index(self) -> None:
        """Compact the keyword index (a maintenance step; results do not change)."""

    def set_xlang_terms(self, memory_id: str, version: int, terms: str) -> bool:
        """Store a memory's other-language key terms for ``version`` and re-index it (False: gone or newer)."""

    def xlang_terms(self, memory_id: str) -> str | None:
        """A memory's stored other-language key terms (opened), or None."""

    def lacking_xlang_terms(
        self, memory_types: Sequence[str], ids: Sequence[str] | None = None, limit: int = 1000
    ) -> list[tuple[MemoryRecord, str | None]]:
        """Active memories of these tiers without other-language key terms, with their language."""


class AccessLog(Protocol):
    """Who read, wrote, searched or was denied what, and the access counts searches add.

    Contract: rows are appended in order and never changed; searches count on the memory (``access_count``,
    ``last_accessed_at``), every entry is logged.
    """

    def log(self, memory_id: str, user_id: str, action: str, at: int, detail: str = "") -> None:
        """One access-log row."""

    def record_access(self, entries: Sequence[AccessRecord]) -> None:
        """Apply buffered accesses: count search hits and log every entry."""

    def access_log(self, memory_id: str) -> list[tuple[str, int, str]]:
        """``(action, at, detail)`` of one memory, in order."""


class LifecycleRows(Protocol):
    """What forgetting and the repair of both halves read: tiers, times, versions, expiry, counts.

    Contract: read-only views of the active rows; every answer reflects the committed state.
    """

    def lifecycle_rows(self, memory_types: Sequence[str]) -> list[LifecycleRow]:
        """Active memories of these tiers, with what forgetting weighs."""

    def active_versions(self) -> dict[str, int]:
        """id → current version of every active memory."""

    def expired_ids(self, now: int) -> list[str]:
        """Active memories whose ``expires_at`` has passed."""

    def counts(self) -> dict[str, Any]:
        """``by_type``, ``by_user``, ``versions`` and ``deleted`` counts."""


class ErasureRows(Protocol):
    """Complete erasure: durable intents, the rows of a user or a memory, and the rewrite of their bytes.

    Contract: an intent is recorded before anything is erased and cleared only after; every step is idempotent,
    so an erasure a killed process left is finished by running it again; after :meth:`erase_residue` and
    :meth:`checkpoint` no file of the store keeps a deleted word.
    """

    def record_erasure(self, erasure: Erasure) -> None:
        """Durably record an erasure before it starts (idempotent)."""

    def pending_erasures(self) -> list[Erasure]:
        """Erasures recorded and not finished."""

    def clear_erasure(self, erasure: Erasure) -> None:
        """Forget a finished erasure."""

    def erase_user_rows(self, user_id: str) -> list[str]:
        """Delete every row of one user in one transaction — memories (active or not), versions, tags, keyword
        entries, access log, sessions with their messages and summaries, promotion queue. Returns the memory ids."""

    def erase_residue(self, user_ids: Sequence[str]) -> None:
        """Rewrite what still holds deleted bytes of these users' rows (SQLite: merge their keyword shards and
        checkpoint the WAL; PostgreSQL: ``VACUUM FULL``), so no file keeps a deleted word. Called without the
        engine's write lock; PostgreSQL waits a bounded time for transactions older than the delete.

        Raises:
            StoreBusyError: Such transactions still saw the deleted rows after the wait.
        """

    def checkpoint(self) -> None:
        """Make the last deletes final in the files (SQLite: WAL checkpoint and truncate; PostgreSQL: vacuum the
        small bookkeeping table), waiting a bounded time for readers.

        Raises:
            StoreBusyError: A reader (SQLite) or an older transaction (PostgreSQL) still held them then.
        """


class Administration(Protocol):
    """Whole-store work: re-seal under another policy or key, and a consistent copy for bundles.

    Contract: :meth:`recode` changes what is at rest, never what is found; :meth:`backup_to` writes a SQLite store
    with the same answers.
    """

    def recode(self, memory_types: Sequence[str], codec: RowCodec) -> int:
        """Re-seal the content (rows and versions) of these tiers under ``codec`` and re-index them, in the open
        transaction or a new one. :attr:`codec` is left as it was (set it after the commit). Returns how many
        memories changed."""

    def backup_to(self, target: Path) -> None:
        """Write a consistent SQLite copy of the whole store to ``target`` (the bundle format)."""


class MetadataStore(Connection, Protocol):
    """What the engine needs from a metadata backend: the :class:`Connection` itself, and one object per other role
    of :data:`ROLES`, all over one database (each role's docstring states its contract)."""

    #: Where the store lives, for messages and store keys (a file path, or a URL without its password).
    location: str
    #: The engine's policy for content at rest and keyword tokens (set before the first read or write).
    codec: RowCodec

    @property
    def records(self) -> MemoryRecords:
        """Memory rows: write, move between tiers, read back scoped to their owner."""

    @property
    def history(self) -> VersionHistory:
        """A memory's versions and the store as it stood at a past moment."""

    @property
    def keywords(self) -> KeywordIndex:
        """The BM25 keyword index and its upkeep."""

    @property
    def access(self) -> AccessLog:
        """The access log and the access counts searches add."""

    @property
    def lifecycle(self) -> LifecycleRows:
        """What forgetting and the repair of both halves read."""

    @property
    def erasure(self) -> ErasureRows:
        """Complete erasure: intents, a user's rows, the rewrite of their bytes."""

    @property
    def admin(self) -> Administration:
        """Whole-store work: re-sealing and bundle copies."""


#: The roles a metadata store plays, each a protocol with its own contract (and contract tests on both backends);
#: the store is the first, and holds each other one as the attribute :data:`ROLE_ATTRIBUTES` names.
ROLES: tuple[type, ...] = (Connection, MemoryRecords, VersionHistory, KeywordIndex, AccessLog, LifecycleRows,
                           ErasureRows, Administration)

#: The attribute of a :class:`MetadataStore` that holds each role but :class:`Connection` (the store itself).
ROLE_ATTRIBUTES: dict[type, str] = {MemoryRecords: "records", VersionHistory: "history", KeywordIndex: "keywords",
                                    AccessLog: "access", LifecycleRows: "lifecycle", ErasureRows: "erasure",
                                    Administration: "admin"}
