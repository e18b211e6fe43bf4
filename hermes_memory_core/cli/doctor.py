"""``hermes-memory doctor``: is this store usable, and if not, what to do.

Checks, in order, and stops at the first that leaves nothing further to check: the configuration loads; the folder
holds a store (nothing is created); who may read the folder and the key file; the store opens (not held by another
process, the key opens the permanent tier); whether it can be written (a store whose folder cannot be written opens
read-only by itself: a warning); SQLite's integrity check; sizes; the background work's warnings
(sessions whose model answers were unusable, users past ``warn_user_memories``, interrupted erasures). Each finding
says what to do. Read-only: it repairs nothing (``reconcile`` does).
"""

from __future__ import annotations

import argparse
import json
import re
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hermes_memory_core.cli.common import config_from, emit, operator_caller

__all__ = ["Finding", "cmd_config", "cmd_doctor", "diagnose"]


@dataclass
class Finding:
    """One check: ``status`` is ``ok``, ``warn`` or ``fail``; ``fix`` says what to do (empty when ok)."""

    check: str
    status: str
    detail: str
    fix: str = ""


def _mode_finding(check: str, path: Path, want: int) -> Finding:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        return Finding(check, "warn", f"{path} is open to other users (mode {mode:o})", f"chmod {want:o} {path}")
    return Finding(check, "ok", f"{path} is private (mode {mode:o})")


def diagnose(args: argparse.Namespace) -> list[Finding]:
    """Run the checks for the store ``args`` name; see the module docstring."""
    from hermes_memory_core.engine import METADATA_FILE
    from hermes_memory_core.errors import HermesMemoryError
    from hermes_memory_core.provider import MemoryProvider

    found: list[Finding] = []
    try:
        cfg = config_from(args)
    except HermesMemoryError as exc:
        return [Finding("configuration", "fail", str(exc), "fix the file or environment variable it names")]
    found.append(Finding("configuration", "ok", f"{args.config or 'defaults and HERMES_MEMORY_* variables'}"))
    folder = Path(cfg.data_dir)
    embedded = cfg.metadata_url is None
    if embedded and not (folder / METADATA_FILE).is_file():
        found.append(Finding("store", "fail", f"no Hermes Memory store in {folder} (nothing was created)",
                             "name the store's folder with --data-dir or HERMES_MEMORY_DATA_DIR; `hermes-memory "
                             "remember` or `add` creates a new one"))
        return found
    if embedded:
        found.append(_mode_finding("folder permissions", folder, 0o700))
    key_file = Path(cfg.encryption_key_file) if cfg.encryption_key_file else folder / "hermes.key"
    if cfg.encryption_key is None and key_file.is_file():
        found.append(_mode_finding("key file permissions", key_file, 0o600))
        if key_file.parent == folder:
            found.append(Finding("key file", "warn", f"the key lives beside the data ({key_file}): whoever copies "
                                 "the folder can read the permanent tier", "keep production keys elsewhere: "
                                 "encryption_key_file, --key-file or HERMES_MEMORY_ENCRYPTION_KEY"))
    try:
        mem = MemoryProvider(cfg, caller=operator_caller())
    except HermesMemoryError as exc:
        name = type(exc).__name__
        fix = {"StoreLockedError": "stop that process (or close its other provider), or share the memory through "
               "server mode (docs/configuration.md)",
               "EncryptionKeyError": "give the key the permanent tier was sealed with: --key-file, "
               "HERMES_MEMORY_ENCRYPTION_KEY or encryption_key_file"}.get(name, "see docs/troubleshooting.md")
        found.append(Finding("open", "fail", f"{name}: {exc}", fix))
        return found
    with mem:
        found.append(Finding("open", "ok", f"{mem.location} opens; the key opens the permanent tier"))
        found.append(_writable_finding(mem.engine, folder, asked=bool(cfg.read_only)))
        integrity = mem.engine.upkeep.integrity_check()
        found.append(Finding("integrity", "ok" if integrity == "ok" else "fail", f"integrity check: {integrity}",
                             "" if integrity == "ok" else "restore the latest export bundle (hermes-memory restore)"))
        stats = mem.stats().as_dict()
        found.append(Finding("sizes", "ok", f"{stats['total_active']} memories of {len(stats['by_user'])} users "
                             f"({stats['by_type']}), {stats['versions']} versions, "
                             f"{stats['disk_bytes'] / 1024:.0f} KiB on disk"))
        pending = mem.engine.eraser.pending()
        if pending:
            found.append(Finding("background", "warn", f"{len(pending)} interrupted erasure(s)",
                                 "run hermes-memory reconcile to finish them"))
        found += [Finding("background", "warn", w, "see docs/troubleshooting.md") for w in stats["warnings"]]
        if not pending and not stats["warnings"]:
            found.append(Finding("background", "ok", "no warnings from the background work"))
    return found


def _writable_finding(engine: Any, folder: Path, *, asked: bool) -> Finding:
    """Whether writes work: a store opened read-only because its folder cannot be written is a warning (every
    write fails with ``ReadOnlyStoreError``); one opened read-only on request is as asked."""
    if not engine.read_only:
        return Finding("writable", "ok", "the store can be written")
    if asked:
        return Finding("writable", "ok", "read-only, as asked (read_only / --read-only): searches, recall and "
                       "exports work; writes are refused")
    return Finding("writable", "warn", f"the store is read-only: {engine.read_only_reason} ({folder}); searches, "
                   "recall and exports work, every write fails with ReadOnlyStoreError",
                   f"give this account write access to {folder} (or mount it read-write); or copy the store "
                   "elsewhere with `hermes-memory export` and `restore`")


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print the findings; exit status 1 when a check failed."""
    findings = diagnose(args)
    ok = all(f.status != "fail" for f in findings)
    data: dict[str, Any] = {"ok": ok, "checks": [asdict(f) for f in findings]}
    emit(args, data, lambda: "\n".join(
        f"{f.status.upper():<4}  {f.check}: {f.detail}" + (f"\n      → {f.fix}" if f.fix else "") for f in findings))
    return 0 if ok else 1


def cmd_config(args: argparse.Namespace) -> int:
    """Print the configuration a command would use (code defaults, ``--config``, ``HERMES_MEMORY_*`` and the
    command's options merged), each field with its meaning; secrets are masked. Opens nothing."""
    from pydantic import SecretStr

    cfg = config_from(args)
    values: dict[str, Any] = cfg.model_dump(mode="json")
    meaning = cfg.describe()
    for name, value in values.items():
        if isinstance(getattr(cfg, name), SecretStr | bytes) and value is not None:
            values[name] = "**********"
        elif isinstance(value, str) and "://" in value and "@" in value:  # a password in a server URL
            values[name] = re.sub(r"://([^:/@]*):[^@]*@", r"://\1:****@", value)
    emit(args, values, lambda: "\n".join(f"{name} = {json.dumps(value, ensure_ascii=False)}"
                                          + (f"    # {meaning[name]}" if meaning.get(name) else "")
                                          for name, value in values.items()))
    return 0
