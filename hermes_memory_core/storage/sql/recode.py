"""Re-sealing the rows of a memory under another :class:`~hermes_memory_core.storage.metadata.RowCodec`.

A key rotation, a change of ``encrypt_at_rest`` and a restore re-seal every trace a memory leaves in the rows:
its content and versions, the versions' notes, its metadata and tags, its session id, its delete reason, its
other-language key terms and the details of its ``update`` / ``delete`` log rows. The old codec opens what it finds (sealed or plain); the new one seals what its
policy says. The keyword index is the caller's to rebuild (it depends on the new codec's tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_memory_core.storage.metadata import RowCodec

__all__ = ["recode_rows"]


def recode_rows(conn: Any, memory_types: Sequence[str], old: RowCodec, new: RowCodec) -> list[str]:
    """Re-seal the memories of these tiers from ``old`` to ``new`` inside the open transaction; returns their ids."""
    if not memory_types:
        return []
    marks = ",".join("?" * len(memory_types))
    rows = conn.execute(
        f"SELECT id, memory_type, content, metadata, delete_reason, xlang_terms, session_id, user_id FROM memory_entries "
        f"WHERE memory_type IN ({marks})",
        list(memory_types),
    ).fetchall()
    for memory_id, tier, content, metadata, reason, xlang, session, user in rows:
        meta, tags = old.unpack_metadata(memory_id, metadata)
        if tags is None:
            tags = tuple(r[0] for r in conn.execute("SELECT tag FROM memory_tags WHERE memory_id = ?", (memory_id,)))
        conn.execute(
            "UPDATE memory_entries SET content = ?, metadata = ?, delete_reason = ?, xlang_terms = ?, session_id = ? "
            "WHERE id = ?",
            (
                new.seal(memory_id, tier, old.open(memory_id, content)),
                new.pack_metadata(memory_id, tier, meta, tags),
                None if reason is None else new.seal_field(memory_id, tier, "reason", old.open_field(memory_id, "reason", reason)),
                None if xlang is None else new.seal_field(memory_id, tier, "xlang", old.open_field(memory_id, "xlang", xlang)),
                new.session_key(user, old.session_of(session)),
                memory_id,
            ),
        )
        conn.execute("DELETE FROM memory_tags WHERE memory_id = ?", (memory_id,))
        conn.executemany(
            "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(memory_id, tag) for tag in new.tag_keys(tier, tags)],
        )
        for version, vcontent, note in conn.execute(
            "SELECT version, content, note FROM memory_versions WHERE memory_id = ?", (memory_id,)
        ).fetchall():
            conn.execute(
                "UPDATE memory_versions SET content = ?, note = ? WHERE memory_id = ? AND version = ?",
                (
                    new.seal(memory_id, tier, old.open(memory_id, vcontent)),
                    new.seal_field(memory_id, tier, "note", old.open_field(memory_id, "note", note)),
                    memory_id,
                    version,
                ),
            )
        for log_id, detail in conn.execute(
            "SELECT id, detail FROM memory_access_log WHERE memory_id = ? AND action IN ('update', 'delete')",
            (memory_id,),
        ).fetchall():
            conn.execute(
                "UPDATE memory_access_log SET detail = ? WHERE id = ?",
                (new.seal_field(memory_id, tier, "log", old.open_field(memory_id, "log", detail)), log_id),
            )
    return [str(r[0]) for r in rows]
