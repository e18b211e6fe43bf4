"""Writing a bundle: rows rebuilt into a fresh file, the vectors of the memories it carries, a checked manifest.

The bundle is written into a temporary sibling folder and renamed into place only when complete, so a half-written
bundle never sits at the target; the store records that folder first, so one a killed export left is removed by the
next export, open or ``purge_user`` (:mod:`~hermes_memory_core.portability.leftovers`). Anything the filesystem refuses (a target that is a symlink, under a file, not
writable, a full disk) is a :class:`~hermes_memory_core.errors.BundleError` naming the path and the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hermes_memory_core.engine.faces import WithParts, WithUpkeep
from hermes_memory_core.errors import BundleError, StorageFullError
from hermes_memory_core.portability.bundle import (
    BUNDLE_FILES,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    manifest_digest,
    sha256_file,
    sign_manifest,
)
from hermes_memory_core.portability.leftovers import PARTIAL_MARK, forget_partial, note_partial, remove_partial_exports
from hermes_memory_core.portability.rows import Selection, copy_rows, fresh_file
from hermes_memory_core.storage.sqlite import migrations
from hermes_memory_core.storage.swap import new_scratch
from hermes_memory_core.version import __version__

__all__ = ["export_bundle"]


class ExportStore(WithParts, WithUpkeep, Protocol):
    """What an export uses of the engine: its state, the metadata backup and the vector points."""


def _check_target(target: Path) -> None:
    if target.is_symlink():
        raise BundleError(f"export target {target} is a symbolic link; name a new folder")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BundleError(f"export target {target} exists and is not an empty folder")
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise BundleError(f"export target {target} lies under {parent}, which is not a folder")
            break


def export_bundle(engine: ExportStore, target: Path, user_id: str | None = None) -> dict[str, Any]:
    """Write the bundle of ``engine``'s store to ``target`` (which must not exist or be an empty folder).

    With ``user_id`` the bundle holds that user's rows only (a per-user data export: no byte of anyone else's).
    Soft-deleted memories are left out. With ``bundle_signing_key`` configured the manifest is signed.

    Raises:
        BundleError: The target is unusable or writing failed (nothing is left at the target).
        StorageFullError: The disk of the target (or of the store's scratch copy) is full.
    """
    target = Path(target)
    _check_target(target)
    remove_partial_exports(engine)  # what earlier, killed exports left
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}{PARTIAL_MARK}", dir=target.parent))
    except OSError as exc:
        raise BundleError(f"cannot write a bundle to {target}: {exc.strerror or exc}") from exc
    try:
        note_partial(engine, staging)  # before a row is written there: a kill leaves a folder the store knows
    except BaseException:
        staging.rmdir()
        raise
    # the whole store's copy stays beside the store (removed at the next open should this process die)
    local = engine.parts.config.metadata_url is None and engine.parts.data_dir.is_dir() and not engine.parts.read_only
    scratch = new_scratch(engine.parts.data_dir, "export") if local else Path(tempfile.mkdtemp(prefix=".hermes-export-"))
    try:
        manifest = _write(engine, staging, scratch, user_id)
        for name in (*BUNDLE_FILES, MANIFEST):
            with (staging / name).open("rb") as fh:
                os.fsync(fh.fileno())
        if target.exists():
            target.rmdir()
        staging.rename(target)
        return manifest
    except (OSError, sqlite3.OperationalError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        full = _disk_full(exc, target.parent if isinstance(exc, OSError) else f"{target.parent} or {engine.parts.data_dir}")
        if full is not None:
            raise full from exc
        if not isinstance(exc, OSError):
            raise
        raise BundleError(f"cannot write a bundle to {target}: {exc.strerror or exc}") from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        with contextlib.suppress(Exception):  # a record left behind is dropped by the next clean-up
            forget_partial(engine, staging)


def _disk_full(exc: BaseException, folder: object) -> StorageFullError | None:
    """The typed error of a full disk (ENOSPC, EDQUOT, SQLite's "database or disk is full"), else None; also when
    the full disk caused ``exc`` (a rollback SQLite had already done itself fails after it)."""
    seen: BaseException | None = exc
    for _ in range(8):  # a short chain: the error, the rollback's after it
        if seen is None:
            break
        if isinstance(seen, sqlite3.OperationalError) and "disk is full" in str(seen):
            return StorageFullError(f"the disk holding {folder} is full ({seen}); free some space and export again "
                                    "(nothing was left at the target)")
        if (full := StorageFullError.from_os_error(seen, folder)) is not None:
            return full
        seen = seen.__cause__ or seen.__context__
    return None


def _write(engine: ExportStore, staging: Path, scratch: Path, user_id: str | None) -> dict[str, Any]:
    copy = scratch / "store.sqlite"
    engine.upkeep.backup_metadata_to(copy)
    with contextlib.closing(sqlite3.connect(f"file:{copy}?mode=ro", uri=True)) as src:
        names = migrations.applied(src)
        deleted = src.execute(
            "SELECT count(*) FROM memory_entries WHERE is_active = 0" + ("" if user_id is None else " AND user_id = ?"),
            () if user_id is None else (user_id,),
        ).fetchone()[0]
    with contextlib.closing(fresh_file(staging / "metadata.sqlite", names)) as dst:
        copy_rows(dst, copy, Selection(user_id))
        dst.execute(
            "INSERT INTO memory_meta (key, value) VALUES ('keyword_index_rebuild', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        )
        carried = {r[0] for r in dst.execute("SELECT id FROM memory_entries")}
        stats = _counts(dst)
    count = _write_vectors(engine, staging, carried)
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "hermes_memory_version": __version__,
        "exported_at": int(time.time()),
        "vector_dim": engine.parts.config.vector_dim,
        "collection": engine.parts.config.collection,
        "embedding_model": engine.parts.embedder.model_id,
        "user_id": user_id,
        "counts": {**stats, "points": count, "deleted_left_out": int(deleted)},
        "files": {
            name: {"sha256": sha256_file(staging / name), "bytes": (staging / name).stat().st_size}
            for name in BUNDLE_FILES
        },
    }
    secret = engine.parts.config.bundle_signing_key
    if secret is not None:
        manifest["signature"] = sign_manifest(manifest, secret.get_secret_value())
    manifest["manifest_sha256"] = manifest_digest(manifest)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    return manifest


def _write_vectors(engine: ExportStore, staging: Path, carried: set[str]) -> int:
    """The vectors of the memories the bundle carries (and no other point), in one matrix."""
    count = 0
    dim = engine.parts.config.vector_dim
    with (staging / "points.jsonl").open("w", encoding="utf-8") as points_fh, (staging / "vectors.raw").open(
        "wb"
    ) as raw_fh:
        for batch in engine.upkeep.iter_vector_points(batch_size=2000, with_vectors=True):
            for p in batch:
                if p.id not in carried:
                    continue
                points_fh.write(json.dumps({"id": p.id, "payload": p.payload}, ensure_ascii=False) + "\n")
                raw_fh.write(np.asarray(p.vector, dtype=np.float32).reshape(dim).tobytes())
                count += 1
    raw = np.fromfile(staging / "vectors.raw", dtype=np.float32).reshape(count, dim)
    np.save(staging / "vectors.npy", raw, allow_pickle=False)
    (staging / "vectors.raw").unlink()
    return count


def _counts(conn: sqlite3.Connection) -> dict[str, int]:
    active, deleted = conn.execute(
        "SELECT coalesce(sum(is_active = 1), 0), coalesce(sum(is_active = 0), 0) FROM memory_entries"
    ).fetchone()
    versions = conn.execute("SELECT count(*) FROM memory_versions").fetchone()[0]
    return {"memories_active": int(active), "memories_deleted": int(deleted), "versions": int(versions)}
