"""Export a store to a self-contained bundle and restore it anywhere (seed 000 §2.4, §4.4).

A bundle is a folder::

    manifest.json      format, format_version, vector_dim, collection, embedding_model, counts, files{sha256, bytes}
    metadata.sqlite    a consistent copy made with SQLite's online backup API
    vectors.npy        float32 matrix, one row per point
    points.jsonl       {"id": ..., "payload": {...}} per line, in the order of vectors.npy

It depends on no engine's snapshot format (qdrant-client's local mode has none), so a bundle made from the
embedded engine restores into a Qdrant server and back. It holds no absolute path. ``export`` writes into a
temporary sibling folder and renames it into place only when complete, and ``restore`` verifies every byte
against the manifest before it writes anything, so a half-written bundle is never accepted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.embedding import Embedder, load_embedder
from hermes_memory_core.engine import METADATA_FILE, VECTORS_DIR, MemoryEngine, build_metadata_store
from hermes_memory_core.errors import BundleError, HermesMemoryError
from hermes_memory_core.storage.sqlite.migrations import KEYWORD_SHARDS, fts_table
from hermes_memory_core.storage.vectors import VectorPoint, VectorStore
from hermes_memory_core.version import __version__

__all__ = ["BUNDLE_FILES", "FORMAT", "FORMAT_VERSION", "export_bundle", "restore_bundle", "verify_bundle"]

FORMAT = "hermes-memory-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
BUNDLE_FILES = ("metadata.sqlite", "vectors.npy", "points.jsonl")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_USER_TABLES = ("memory_entries", "memory_access_log", "sessions", "session_messages", "session_summaries",
                "promotion_queue")


def _keep_only_user(path: Path, user_id: str) -> None:
    """Strip every other user's data from a bundle's SQLite copy, then VACUUM so no deleted byte remains."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA secure_delete=ON")
        conn.execute("BEGIN")
        for table in _USER_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE user_id != ?", (user_id,))
        for shard in range(KEYWORD_SHARDS):
            conn.execute(
                f"DELETE FROM {fts_table(shard)} WHERE rowid NOT IN (SELECT doc FROM memory_keyword_docs)"
            )
        conn.execute("COMMIT")
        conn.execute("VACUUM")
    finally:
        conn.close()


def export_bundle(engine: MemoryEngine, target: Path, user_id: str | None = None) -> dict[str, Any]:
    """Write the bundle of ``engine``'s store to ``target`` (which must not exist or be an empty folder).

    With ``user_id`` the bundle holds that user's memories only (a per-user data export).
    """
    target = Path(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BundleError(f"export target {target} exists and is not an empty folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        engine.metadata.backup_to(staging / "metadata.sqlite")
        if user_id is not None:
            _keep_only_user(staging / "metadata.sqlite", user_id)
        count = 0
        dim = engine.config.vector_dim
        with (staging / "points.jsonl").open("w", encoding="utf-8") as points_fh, (staging / "vectors.raw").open(
            "wb"
        ) as raw_fh:
            for batch in engine.vectors.iter_points(batch_size=2000, with_vectors=True):
                for p in batch:
                    if user_id is not None and p.payload.get("user_id") != user_id:
                        continue
                    points_fh.write(json.dumps({"id": p.id, "payload": p.payload}, ensure_ascii=False) + "\n")
                    raw_fh.write(np.asarray(p.vector, dtype=np.float32).reshape(dim).tobytes())
                    count += 1
        raw = np.fromfile(staging / "vectors.raw", dtype=np.float32).reshape(count, dim)
        np.save(staging / "vectors.npy", raw, allow_pickle=False)
        (staging / "vectors.raw").unlink()
        stats = _counts(staging / "metadata.sqlite")
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "hermes_memory_version": __version__,
            "exported_at": int(time.time()),
            "vector_dim": dim,
            "collection": engine.config.collection,
            "embedding_model": engine.embedder.model_id,
            "user_id": user_id,
            "counts": {**stats, "points": count},
            "files": {
                name: {"sha256": _sha256(staging / name), "bytes": (staging / name).stat().st_size}
                for name in BUNDLE_FILES
            },
        }
        manifest["manifest_sha256"] = _manifest_digest(manifest)
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
        for name in (*BUNDLE_FILES, MANIFEST):
            with (staging / name).open("rb") as fh:
                os.fsync(fh.fileno())
        if target.exists():
            target.rmdir()
        staging.rename(target)
        return manifest
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _manifest_digest(manifest: dict[str, Any]) -> str:
    """SHA-256 of the manifest's canonical JSON without its own digest: any changed value is detected."""
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(str(path))
    try:
        active, deleted = conn.execute(
            "SELECT coalesce(sum(is_active = 1), 0), coalesce(sum(is_active = 0), 0) FROM memory_entries"
        ).fetchone()
        versions = conn.execute("SELECT count(*) FROM memory_versions").fetchone()[0]
    finally:
        conn.close()
    return {"memories_active": int(active), "memories_deleted": int(deleted), "versions": int(versions)}


def verify_bundle(bundle: Path, vector_dim: int | None = None, embedding_model: str | None = None) -> dict[str, Any]:
    """Check a bundle completely without writing anything; return its manifest.

    Raises:
        BundleError: Anything missing, altered, unsafe or incompatible, with what and why.
    """
    bundle = Path(bundle)
    manifest_path = bundle / MANIFEST
    if not bundle.is_dir() or not manifest_path.is_file():
        raise BundleError(f"{bundle} is not a Hermes Memory bundle (no {MANIFEST})")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise BundleError(f"{manifest_path} is not valid JSON: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"{manifest_path} is not a {FORMAT} manifest")
    version = manifest.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise BundleError(f"bundle format_version {version!r} is invalid")
    if version > FORMAT_VERSION:
        raise BundleError(
            f"bundle format_version {version} is newer than this Hermes Memory understands ({FORMAT_VERSION}); "
            "upgrade hermes-memory to restore it"
        )
    files = manifest.get("files")
    if not isinstance(files, dict) or set(files) != set(BUNDLE_FILES):
        raise BundleError(f"bundle manifest must list exactly {list(BUNDLE_FILES)}, got {sorted(files or {})}")
    for name in BUNDLE_FILES:
        entry = files[name]
        path = bundle / name
        if path.is_symlink() or not path.is_file():
            raise BundleError(f"bundle file {name} is missing (or not a regular file)")
        if not isinstance(entry, dict) or path.stat().st_size != entry.get("bytes"):
            raise BundleError(f"bundle file {name} has {path.stat().st_size} bytes, manifest says {entry}")
        if _sha256(path) != entry.get("sha256"):
            raise BundleError(f"bundle file {name} does not match its sha256 in the manifest (corrupted?)")
    dim = manifest.get("vector_dim")
    if not isinstance(dim, int) or dim <= 0:
        raise BundleError(f"bundle vector_dim {dim!r} is invalid")
    if vector_dim is not None and dim != vector_dim:
        raise BundleError(f"bundle holds {dim}-dimensional vectors but the target configuration says vector_dim={vector_dim}")
    if embedding_model is not None and manifest.get("embedding_model") != embedding_model:
        raise BundleError(
            f"bundle was embedded with {manifest.get('embedding_model')!r}; the target uses {embedding_model!r}"
        )
    if manifest.get("manifest_sha256") != _manifest_digest(manifest):
        raise BundleError(f"{manifest_path} does not match its own sha256 (altered or corrupted manifest)")
    try:
        vectors = np.load(bundle / "vectors.npy", allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError) as exc:
        raise BundleError(f"vectors.npy is unreadable: {exc}") from exc
    points = _read_points(bundle / "points.jsonl")
    if vectors.ndim != 2 or vectors.shape != (len(points), dim):
        raise BundleError(f"vectors.npy has shape {vectors.shape}, expected ({len(points)}, {dim})")
    counts = manifest.get("counts") or {}
    if counts.get("points") != len(points):
        raise BundleError(f"manifest counts {counts.get('points')} points, bundle holds {len(points)}")
    _check_sqlite(bundle / "metadata.sqlite")
    return manifest


def _read_points(path: Path) -> list[dict[str, Any]]:
    points: list[dict[str, Any]] = []
    with path.open("r", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                row = json.loads(line)
                if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not isinstance(row.get("payload"), dict):
                    raise ValueError("expected {id, payload}")
            except ValueError as exc:
                raise BundleError(f"points.jsonl line {lineno} is invalid: {exc}") from exc
            points.append(row)
    return points


def _check_sqlite(path: Path) -> None:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        try:
            ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise BundleError(f"metadata.sqlite is not a readable SQLite database: {exc}") from exc
    if ok != "ok":
        raise BundleError(f"metadata.sqlite failed integrity_check: {ok}")
    if not {"memory_entries", "memory_versions", "schema_migrations"} <= names:
        raise BundleError("metadata.sqlite lacks the Hermes Memory tables")


def _target_has_data(data_dir: Path) -> bool:
    return data_dir.exists() and any(p.name != "hermes.lock" for p in data_dir.iterdir())


def restore_bundle(
    bundle: Path,
    config: MemoryConfig,
    overwrite: bool,
    embedder: Embedder | None,
    vector_store: VectorStore | None,
    clock: Callable[[], float],
) -> MemoryEngine:
    """Verify ``bundle`` completely, then rebuild the store it holds under ``config``; returns the open engine.

    Raises:
        BundleError: See :meth:`MemoryProvider.restore`; nothing is written in that case.
    """
    emb = embedder or load_embedder(config.embedding_model, config.embedding_threads, config.embedding_batch_size)
    manifest = verify_bundle(bundle, config.vector_dim, emb.model_id)
    if config.metadata_url is not None:
        return _restore_into_server(bundle, manifest, config, overwrite, emb, vector_store, clock)
    data_dir = Path(config.data_dir)
    if _target_has_data(data_dir):
        if not overwrite:
            raise BundleError(f"restore target {data_dir} is not empty; pass overwrite=True (on the command line: "
                              "hermes-memory restore --overwrite) to replace its store")
        for name in (METADATA_FILE, f"{METADATA_FILE}-wal", f"{METADATA_FILE}-shm"):
            (data_dir / name).unlink(missing_ok=True)
        shutil.rmtree(data_dir / VECTORS_DIR, ignore_errors=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bundle / "metadata.sqlite", data_dir / METADATA_FILE)
    engine: MemoryEngine | None = None
    try:
        engine = MemoryEngine(config, embedder=emb, vector_store=vector_store, clock=clock)
        _load_vectors(engine, bundle, manifest, overwrite)
        return engine
    except BaseException as exc:
        if engine is not None:
            engine.close()
        for name in (METADATA_FILE, f"{METADATA_FILE}-wal", f"{METADATA_FILE}-shm"):
            (data_dir / name).unlink(missing_ok=True)
        shutil.rmtree(data_dir / VECTORS_DIR, ignore_errors=True)
        if isinstance(exc, HermesMemoryError):
            raise
        raise BundleError(f"restore failed and was undone: {exc}") from exc


def _load_vectors(engine: MemoryEngine, bundle: Path, manifest: dict[str, Any], overwrite: bool) -> None:
    if overwrite and engine.vectors.count():
        stale = [p.id for batch in engine.vectors.iter_points(with_vectors=False) for p in batch]
        engine.vectors.delete(stale)
    vectors = np.load(bundle / "vectors.npy", allow_pickle=False, mmap_mode="r")
    points = _read_points(bundle / "points.jsonl")
    for start in range(0, len(points), 1000):
        engine.vectors.upsert(
            [
                VectorPoint(row["id"], np.asarray(vectors[start + i]), row["payload"])
                for i, row in enumerate(points[start : start + 1000])
            ]
        )
    engine.vectors.flush()
    if engine.vectors.count() != manifest["counts"]["points"]:
        raise BundleError("the restored vector index does not hold the bundle's points")


def _restore_into_server(
    bundle: Path,
    manifest: dict[str, Any],
    config: MemoryConfig,
    overwrite: bool,
    emb: Embedder,
    vector_store: VectorStore | None,
    clock: Callable[[], float],
) -> MemoryEngine:
    """Restore into a PostgreSQL metadata store: the bundle's rows are copied in one transaction, the keyword
    index is rebuilt under the store's key, then the vectors are loaded."""
    probe = build_metadata_store(config)
    probe.open()
    try:
        if not probe.is_empty() and not overwrite:
            raise BundleError(
                f"restore target {probe.location} is not empty; pass overwrite=True (on the command line: "
                "hermes-memory restore --overwrite) to replace its store"
            )
        probe.clear()  # type: ignore[attr-defined]
    finally:
        probe.close()
    engine: MemoryEngine | None = None
    try:
        engine = MemoryEngine(config, embedder=emb, vector_store=vector_store, clock=clock)
        engine.metadata.load_bundle(bundle / "metadata.sqlite")  # type: ignore[attr-defined]
        engine.codec.cipher = None
        engine.load_identity()
        engine.metadata.repair_keyword_index()
        engine.metadata.set_meta("keyword_index_rebuild", "0")
        _load_vectors(engine, bundle, manifest, overwrite)
        return engine
    except BaseException as exc:
        if engine is not None:
            with contextlib.suppress(Exception):
                engine.metadata.clear()  # type: ignore[attr-defined]
            engine.close()
        if isinstance(exc, HermesMemoryError):
            raise
        raise BundleError(f"restore failed and was undone: {exc}") from exc

