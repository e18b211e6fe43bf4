"""What a store holds, byte for byte, so a test can say "exactly as it was" (files of an embedded store, rows of a
server store) — and every stored byte as one blob, so a test can say "no byte of X"."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from hermes_memory_core import MemoryConfig, MemoryProvider


def file_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (an embedded store's data directory, or a bundle)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def all_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def server_rows(config: MemoryConfig) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of a PostgreSQL store's schema, sorted."""
    import psycopg

    assert config.metadata_url is not None
    with psycopg.connect(config.metadata_url.get_secret_value(), autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY 1",
            (config.metadata_schema,),
        ).fetchall()]
        return {
            t: sorted((tuple(r) for r in conn.execute(f'SELECT * FROM "{config.metadata_schema}"."{t}"').fetchall()),
                      key=repr)
            for t in tables
        }


def snapshot(config: MemoryConfig) -> object:
    """The state a failed restore must leave untouched: files (embedded) or rows (server). The lock file is left
    out: it names whoever held the directory last (a restore that got the lock and then failed included)."""
    if config.metadata_url is not None:
        return server_rows(config)
    return {k: v for k, v in file_hashes(Path(config.data_dir)).items() if k != "hermes.lock"}


def stored_text(mem: MemoryProvider) -> bytes:
    """Every byte the store keeps: its data directory's files, or its server rows, plus the vector payloads."""
    cfg = mem.config
    blob = repr(server_rows(cfg)).encode() if cfg.metadata_url is not None else b""
    if Path(cfg.data_dir).exists():
        blob += all_bytes(Path(cfg.data_dir))
    payloads = [p.payload for batch in mem.engine.vectors.iter_points(with_vectors=False) for p in batch]
    return blob + repr(payloads).encode()
