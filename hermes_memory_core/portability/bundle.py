"""The bundle format, and checking a bundle completely before anything is written.

A bundle is a folder::

    manifest.json      format, format_version, vector_dim, collection, embedding_model, user_id, counts,
                       files{sha256, bytes}, signature (optional), manifest_sha256
    metadata.sqlite    the store's rows, rebuilt into a fresh file (never a copy of a store's file)
    vectors.npy        float32 matrix, one row per point
    points.jsonl       {"id": ..., "payload": {...}} per line, in the order of vectors.npy

Checksums say a bundle is whole; anyone can recompute them. A **signature** says who made it: with
``bundle_signing_key`` set, export adds an HMAC-SHA256 of the manifest (which holds every file's sha256) under that
secret, and restore refuses any bundle that does not carry a valid one — before it reads a row. The SQLite file
must hold exactly the schema its recorded migrations create (no trigger, view or unknown object), pass
``integrity_check`` and ``foreign_key_check``.

**What is checked is what is used.** :func:`private_copy` copies the manifest and the three files, each read
once through one descriptor (opened without following links, a regular file), into a folder only this process's
account can open (0700, files 0600); restore verifies and then reads *that* copy, so someone who may write to the
bundle folder cannot swap a file between the check and the copy.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any

import numpy as np

from hermes_memory_core.errors import BundleError
from hermes_memory_core.storage.sqlite.schema import schema_problems

__all__ = [
    "BUNDLE_FILES",
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST",
    "manifest_digest",
    "private_copy",
    "read_points",
    "sha256_file",
    "sign_manifest",
    "verify_bundle",
]

FORMAT = "hermes-memory-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
BUNDLE_FILES = ("metadata.sqlite", "vectors.npy", "points.jsonl")
_SIGNATURE_ALG = "hmac-sha256"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _copy_one(source: Path, target: Path) -> None:
    """Copy one regular file through a single descriptor, never following a link; the copy is 0600."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(source, flags)
    except OSError as exc:
        raise BundleError(f"bundle file {source.name} is missing (or not a regular file): {exc.strerror}") from exc
    with os.fdopen(fd, "rb") as src:
        if not stat.S_ISREG(os.fstat(src.fileno()).st_mode):
            raise BundleError(f"bundle file {source.name} is missing (or not a regular file)")
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(out, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)


def private_copy(bundle: Path, into: Path) -> Path:
    """Copy a bundle's manifest and files into ``into`` (created 0700, must not exist); return ``into``.

    Contract: each file is read exactly once, through one descriptor opened with ``O_NOFOLLOW``; the copy is
    private to this account, so :func:`verify_bundle` on the copy checks the very bytes a restore then reads.

    Raises:
        BundleError: ``bundle`` is not a folder, or one of its files is missing, a link or not a regular file.
    """
    bundle, into = Path(bundle), Path(into)
    if bundle.is_symlink() or not bundle.is_dir():
        raise BundleError(f"{bundle} is not a Hermes Memory bundle (no {MANIFEST})")
    into.mkdir(mode=0o700)
    os.chmod(into, 0o700)
    for name in (MANIFEST, *BUNDLE_FILES):
        if name == MANIFEST and not (bundle / name).exists():
            raise BundleError(f"{bundle} is not a Hermes Memory bundle (no {MANIFEST})")
        _copy_one(bundle / name, into / name)
    return into


def _canonical(manifest: dict[str, Any], *leave_out: str) -> bytes:
    body = {k: v for k, v in manifest.items() if k not in leave_out}
    return json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")


def manifest_digest(manifest: dict[str, Any]) -> str:
    """SHA-256 of the manifest's canonical JSON without its own digest: any changed value is detected."""
    return hashlib.sha256(_canonical(manifest, "manifest_sha256")).hexdigest()


def _signing_key(secret: str) -> bytes:
    return hashlib.sha256(b"hermes-memory/bundle-signing\x00" + secret.encode("utf-8")).digest()


def sign_manifest(manifest: dict[str, Any], secret: str) -> dict[str, str]:
    """The signature of a manifest (everything but its signature and digest) under an operator secret."""
    key = _signing_key(secret)
    return {
        "alg": _SIGNATURE_ALG,
        "key_id": hashlib.sha256(b"hermes-memory/bundle-key-id\x00" + key).hexdigest()[:16],
        "mac": hmac.new(key, _canonical(manifest, "manifest_sha256", "signature"), hashlib.sha256).hexdigest(),
    }


def _check_signature(manifest: dict[str, Any], secret: str, where: Path) -> None:
    found = manifest.get("signature")
    if not isinstance(found, dict):
        raise BundleError(f"{where} is not signed; this store accepts only bundles signed with its bundle_signing_key")
    wanted = sign_manifest(manifest, secret)
    if found.get("alg") != _SIGNATURE_ALG or not hmac.compare_digest(str(found.get("mac", "")), wanted["mac"]):
        raise BundleError(
            f"{where} carries no valid signature under this store's bundle_signing_key (signed with key "
            f"{found.get('key_id')!r}, expected {wanted['key_id']!r}; or altered after signing)"
        )


def verify_bundle(
    bundle: Path,
    vector_dim: int | None = None,
    embedding_model: str | None = None,
    signing_key: str | None = None,
) -> dict[str, Any]:
    """Check a bundle completely without writing anything; return its manifest.

    Args:
        bundle: The bundle folder.
        vector_dim: The dimension it must hold.
        embedding_model: The model it must have been embedded with.
        signing_key: When given, the bundle must be signed with it (checked first).

    Raises:
        BundleError: Anything missing, altered, unsigned, unsafe or incompatible, with what and why.
    """
    bundle = Path(bundle)
    manifest_path = bundle / MANIFEST
    if not bundle.is_dir() or not manifest_path.is_file():
        raise BundleError(f"{bundle} is not a Hermes Memory bundle (no {MANIFEST})")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        raise BundleError(f"{manifest_path} is not valid JSON: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"{manifest_path} is not a {FORMAT} manifest")
    if signing_key is not None:
        _check_signature(manifest, signing_key, bundle)
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
        if sha256_file(path) != entry.get("sha256"):
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
    if manifest.get("manifest_sha256") != manifest_digest(manifest):
        raise BundleError(f"{manifest_path} does not match its own sha256 (altered or corrupted manifest)")
    try:
        vectors = np.load(bundle / "vectors.npy", allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError) as exc:
        raise BundleError(f"vectors.npy is unreadable: {exc}") from exc
    points = read_points(bundle / "points.jsonl")
    if vectors.ndim != 2 or vectors.shape != (len(points), dim):
        raise BundleError(f"vectors.npy has shape {vectors.shape}, expected ({len(points)}, {dim})")
    counts = manifest.get("counts") or {}
    if counts.get("points") != len(points):
        raise BundleError(f"manifest counts {counts.get('points')} points, bundle holds {len(points)}")
    _check_sqlite(bundle / "metadata.sqlite")
    return manifest


def read_points(path: Path) -> list[dict[str, Any]]:
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
    """The bundle's SQLite file is readable, intact, consistent and holds exactly our schema."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        try:
            ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
            problems = schema_problems(conn) if ok == "ok" else []
            orphans = conn.execute("PRAGMA foreign_key_check").fetchmany(3) if ok == "ok" and not problems else []
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise BundleError(f"metadata.sqlite is not a readable SQLite database: {exc}") from exc
    if ok != "ok":
        raise BundleError(f"metadata.sqlite failed integrity_check: {ok}")
    if problems:
        raise BundleError(
            "metadata.sqlite does not hold the Hermes Memory schema its migrations create ("
            + "; ".join(problems[:5]) + "); a bundle may hold rows only, never triggers, views or other objects"
        )
    if orphans:
        raise BundleError(f"metadata.sqlite holds rows whose parent row is missing (foreign_key_check: {orphans})")
