"""The read-only wrapper of a metadata store refuses every write of every role it holds, before a statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core.errors import ReadOnlyStoreError
from hermes_memory_core.storage.metadata import ROLE_ATTRIBUTES, ROLES, Connection, NewMemory
from hermes_memory_core.storage.read_only import WRITE_METHODS, ReadOnlyMetadata
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.types import MemoryRecord, MemoryType

#: The methods of the roles that only read (every other one is in WRITE_METHODS or a dropped read trace).
READS = frozenset({
    "open", "close", "reader", "applied_migrations", "integrity_check", "is_empty", "get_meta",
    "get", "get_many", "rank_rows", "list_records", "find_by_metadata", "find_by_metadata_values", "iter_active",
    "has_language", "missing_languages", "versions", "records_as_of", "keyword_search", "keyword_stats",
    "xlang_terms", "lacking_xlang_terms", "access_log", "lifecycle_rows", "active_versions", "expired_ids", "counts",
    "pending_erasures", "backup_to",
})
TRACES = frozenset({"log", "record_access", "note_repeat"})
MID = "00000000-0000-4000-8000-000000000001"


def _methods(role: type) -> set[str]:
    return {n for n, v in vars(role).items() if callable(v) and not n.startswith("_")}


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    inner = SQLiteMetadataStore(tmp_path / "m.sqlite")
    inner.open()
    rec = MemoryRecord(MID, "u1", None, "The user prefers tea", MemoryType.LONG_TERM, 0.5, 0, 1_000, 1_000, None, 1,
                       (), {})
    inner.records.insert([NewMemory(rec)])
    yield inner
    inner.close()


def test_every_method_of_every_role_is_a_read_a_write_or_a_trace() -> None:
    """A method added to a role is classified here, so a new write cannot pass a read-only store unseen."""
    every = set().union(*(_methods(role) for role in ROLES))
    assert every == READS | (WRITE_METHODS & every) | TRACES
    assert not READS & WRITE_METHODS and not READS & TRACES


def test_each_role_refuses_its_writes_and_answers_its_reads(store: SQLiteMetadataStore) -> None:
    ro = ReadOnlyMetadata(store, "a test")
    digest = store.reader().execute("SELECT count(*), sum(access_count) FROM memory_entries").fetchone()
    log = store.access.access_log(MID)
    for role in ROLES:
        held = ro if role is Connection else getattr(ro, ROLE_ATTRIBUTES[role])
        for method in _methods(role) & WRITE_METHODS:
            with pytest.raises(ReadOnlyStoreError, match=r"open read-only \(a test\)"):
                getattr(held, method)
    ro.access.log(MID, "u1", "permanent_read", 2_000)  # a read's traces are dropped, not refused
    ro.access.record_access([])
    ro.records.note_repeat(MID, 2_000)
    assert ro.records.get(MID) is not None and ro.history.versions(MID)[0].version == 1
    assert ro.keywords.keyword_search("u1", ["tea"], 5)[0][0] == MID
    assert store.reader().execute("SELECT count(*), sum(access_count) FROM memory_entries").fetchone() == digest
    assert store.access.access_log(MID) == log
