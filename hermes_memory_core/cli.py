"""The ``hermes-memory`` command line: the demo (the main job) and store administration.

Every command takes ``--data-dir`` (default ``./hermes_data``), ``--config FILE`` (TOML), ``--key-file FILE`` (the
encryption key of the permanent tier, when it is not the store's own ``hermes.key``) and ``--json``. Commands that
only read (``search``, ``list``, ``history``, ``stats``, ``export``) and those that change an existing memory
(``update``, ``delete``) refuse a folder that holds no store and create nothing there. Errors are one line on
stderr (exit status 2); a closed pipe (``hermes-memory demo | head -1``) ends the command quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["build_parser", "main"]


def _config(args: argparse.Namespace, data_dir: str | None = None) -> Any:
    from hermes_memory_core.config import MemoryConfig

    overrides: dict[str, Any] = {}
    if data_dir or args.data_dir:
        overrides["data_dir"] = data_dir or args.data_dir
    if getattr(args, "embedding_model", None):
        overrides["embedding_model"] = args.embedding_model
    if getattr(args, "key_file", None):
        overrides["encryption_key_file"] = args.key_file
    return MemoryConfig.load(args.config, **overrides)


#: The CLI is the operator's tool: it acts with every permanent-tier permission, logged under this name.
def _operator() -> Any:
    from hermes_memory_core.trust.permissions import Caller

    return Caller.admin("hermes-memory-cli")


def _open(args: argparse.Namespace) -> Any:
    from hermes_memory_core.provider import MemoryProvider

    return MemoryProvider(_usable_folder(_config(args)), caller=_operator())


def _usable_folder(cfg: Any) -> Any:
    """``cfg``, after checking that its embedded store's folder is not a file (or under one)."""
    from hermes_memory_core.errors import ConfigError

    if cfg.metadata_url is None or cfg.vector_backend == "edge":
        folder = Path(cfg.data_dir)
        for path in (folder, *folder.parents):
            if path.exists():
                if not path.is_dir():
                    raise ConfigError(f"the data directory {folder} cannot be used: {path} is a file, not a folder")
                break
    return cfg


def _open_existing(args: argparse.Namespace) -> Any:
    """Open the configured store for a command that needs one to exist: a folder with no store is reported and left
    as it was (nothing is created). Server stores are opened as they are."""
    from hermes_memory_core.engine import METADATA_FILE
    from hermes_memory_core.errors import ConfigError
    from hermes_memory_core.provider import MemoryProvider

    cfg = _usable_folder(_config(args))
    if cfg.metadata_url is None and not (Path(cfg.data_dir) / METADATA_FILE).is_file():
        raise ConfigError(
            f"no Hermes Memory store in {cfg.data_dir} (nothing was created there); name the store's folder with "
            "--data-dir, data_dir in --config or HERMES_MEMORY_DATA_DIR"
        )
    return MemoryProvider(cfg, caller=_operator())


class OutputError(OSError):
    """The command did its work but its output could not be written (a full disk, a closed pipe)."""


def _emit(args: argparse.Namespace, data: Any, text: Callable[[], str]) -> None:
    try:
        if args.json:
            print(json.dumps(data, ensure_ascii=False, indent=2, default=str), flush=True)
        else:
            print(text(), flush=True)
    except OSError as exc:
        raise OutputError(exc.errno, exc.strerror) from exc


def _fmt_time(ts: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ts))


def _hit_dict(h: Any) -> dict[str, Any]:
    return {
        "id": h.id,
        "content": h.content,
        "memory_type": h.memory_type.value,
        "score": round(h.score, 4),
        "created_at": h.created_at,
        "tags": list(h.tags),
        "metadata": h.metadata,
    }


# ---------------------------------------------------------------------- commands
def cmd_add(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        mid = mem.add(
            args.content,
            user_id=args.user,
            session_id=args.session,
            memory_type=args.type,
            importance=args.importance,
            tags=args.tag or None,
        )
    _emit(args, {"id": mid}, lambda: mid)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        hits = mem.search(args.query, user_id=args.user, top_k=args.top_k, memory_types=args.type or None,
                          as_of=args.as_of)
    rows = [_hit_dict(h) for h in hits]
    _emit(
        args,
        rows,
        lambda: "\n".join(f"{r['score']:.3f}  [{r['memory_type']}]  {r['content']}  ({r['id']})" for r in rows)
        or "(no memories found)",
    )
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        versions = mem.history(args.id)
    rows = [{"version": x.version, "content": x.content, "created_at": x.created_at, "note": x.note,
             "current_from": x.current_from, "current_to": x.current_to} for x in versions]
    _emit(
        args,
        rows,
        lambda: "\n".join(f"v{r['version']}  {_fmt_time(r['created_at'])}  {r['content']}  {r['note']}" for r in rows),
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        manifest = mem.export(args.target)
    _emit(args, manifest, lambda: f"exported {manifest['counts']} to {args.target}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from hermes_memory_core.provider import MemoryProvider

    with MemoryProvider.restore(args.bundle, _config(args), overwrite=args.overwrite, caller=_operator(),
                                trusted=args.trusted) as mem:
        stats = mem.stats().as_dict()
        where = mem.location
    _emit(args, stats, lambda: f"restored {stats['total_active']} memories into {where}")
    return 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        report = mem.reconcile().as_dict()
    _emit(args, report, lambda: "\n".join(f"{k}: {v}" for k, v in report.items()))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        report = mem.forget(dry_run=args.dry_run)
        data = {**report.as_dict(), "ids": {"expired_short_term": report.expired_short_term,
                                            "downgraded": report.downgraded,
                                            "expired_long_term": report.expired_long_term}}
    verb = "would" if args.dry_run else "did"
    _emit(args, data, lambda: (
        f"forget {verb}: expire {data['expired_short_term']} short-term (closed sessions), downgrade "
        f"{data['downgraded']} and expire {data['expired_long_term']} stale long-term memories; "
        f"{data['protected']} protected by importance; permanent memories are never touched"))
    return 0


def cmd_rotate_key(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        mem.rotate_key(save_to=args.key_out)
        where = None if mem.key_file is None else str(mem.key_file)
    data = {"rotated": True, "key_file": where, "key_out": args.key_out}
    # the key itself is never printed: it is in a file, written and read back before the re-encryption committed
    _emit(args, data, lambda: "re-encrypted the sealed memories; new key in "
          + " and ".join(p for p in (where, args.key_out) if p)
          + ("" if where else " (set HERMES_MEMORY_ENCRYPTION_KEY or encryption_key from it)"))
    return 0


def cmd_purge_user(args: argparse.Namespace) -> int:
    if not args.yes:
        print(f"hermes-memory: purge-user erases every memory, version, session and log row of user {args.user!r} "
              "for good; run it again with --yes to go ahead", file=sys.stderr)
        return 1
    with _open(args) as mem:
        report = mem.purge_user(args.user).as_dict()
    _emit(args, report, lambda: f"erased user {report['user_id']!r}: {report['memories']} memories and everything "
          f"else they left, in {report['seconds']} s")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        stats = mem.stats().as_dict()
        where = mem.location
    _emit(args, stats, lambda: _stats_table(stats, where))
    return 0


def _stats_table(stats: dict[str, Any], where: str) -> str:
    """``stats`` for a person: tiers, users (most memories first), versions, disk, warnings."""
    tiers = stats["by_type"]
    rows = [("tier", "memories"), *((t, str(n)) for t, n in tiers.items()), ("all tiers", str(stats["total_active"]))]
    users = sorted(stats["by_user"].items(), key=lambda kv: (-kv[1], kv[0]))
    rows += [("", ""), ("user", "memories"), *((u, str(n)) for u, n in users[:20])]
    if len(users) > 20:
        rows.append((f"... {len(users) - 20} more users", ""))
    width = max(len(a) for a, _b in rows)
    lines = [f"store: {where}", ""] + [f"  {a:<{width}}  {b:>8}".rstrip() for a, b in rows]
    totals = (f"versions {stats['versions']}, deleted {stats['deleted']}, vector points {stats['vector_points']}, "
              f"{stats['disk_bytes'] / 1024:.0f} KiB on disk")
    lines += ["", totals]
    lines += [f"warning: {w}" for w in stats["warnings"]]
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        records = mem.list_memories(user_id=args.user, memory_types=args.type or None, session_id=args.session,
                                    tags=args.tag or None, limit=args.limit, offset=args.offset)
    rows = [{"id": r.id, "memory_type": r.memory_type.value, "content": r.content, "created_at": r.created_at,
             "version": r.version, "session_id": r.session_id, "tags": list(r.tags), "metadata": r.metadata}
            for r in records]
    _emit(args, rows, lambda: "\n".join(
        f"{r['id']}  {_fmt_time(r['created_at'])}  [{r['memory_type']}]  {r['content']}" for r in rows)
        or f"(no memories of user {args.user!r})")
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        version = mem.update(args.id, args.content, version_note=args.note, user_id=args.user)
    _emit(args, {"id": args.id, "version": version}, lambda: f"{args.id}: version {version}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        mem.delete(args.id, reason=args.reason, user_id=args.user)
    _emit(args, {"id": args.id, "deleted": True}, lambda: f"deleted {args.id} (its history stays)")
    return 0


#: What the demo's user said, as stored: (tier, text, importance, tags). Chinese and English on purpose.
_DEMO_MEMORIES = [
    ("long_term", "用户主用 Python，避免 Java", 0.7, ["lang"]),
    ("long_term", "The user prefers concise answers with code examples", 0.6, ["style"]),
    ("long_term", "用户喜欢喝美式咖啡", 0.5, ["food"]),
    ("long_term", "The user is training for a marathon in Berlin this autumn", 0.6, ["hobby"]),
    ("permanent", "The user's name is Lin Wei and they work as a data engineer", 0.9, ["identity"]),
    ("short_term", "Current task: migrate the ETL job from cron to Airflow", 0.4, ["task"]),
]
#: Questions and the memory (index above) that answers each; half asked in the other language than the memory.
_DEMO_QUESTIONS = [
    ("Which language does the user avoid?", 0),
    ("What does the user like to drink?", 2),
    ("用户要去柏林做什么？", 3),
    ("用户叫什么名字？", 4),
    ("当前的任务是什么？", 5),
    ("How does the user like answers?", 1),
]


def _demo_folder(args: argparse.Namespace) -> tuple[Path, Any]:
    """The demo's store folder: ``--data-dir`` if given (new or empty: the demo never touches existing data),
    else a temporary folder removed afterwards."""
    from hermes_memory_core.errors import InvalidInputError

    if args.data_dir is None:
        scratch = tempfile.TemporaryDirectory(prefix="hermes-memory-demo-")
        return Path(scratch.name) / "store", scratch
    base = Path(args.data_dir)
    if base.exists() and (not base.is_dir() or any(base.iterdir())):
        raise InvalidInputError(
            f"the demo writes into a new or empty folder and {base} is not one; pass another --data-dir, or none "
            "to use a temporary folder"
        )
    return base, None


def cmd_demo(args: argparse.Namespace) -> int:
    from hermes_memory_core.provider import MemoryProvider

    base, scratch = _demo_folder(args)
    try:
        return _run_demo(args, base, MemoryProvider)
    finally:
        if scratch is not None:
            scratch.cleanup()


def _run_demo(args: argparse.Namespace, base: Path, provider_cls: Any) -> int:
    out: dict[str, Any] = {"data_dir": str(base), "stored": [], "recall": [], "versions": [], "restored_recall": []}
    say: Callable[[str], None] = (lambda _s: None) if args.json else print
    say(f"Hermes Memory demo — store in {base} (embedded: SQLite WAL + Qdrant Edge, no server, no API key)\n")
    wrong = 0
    # always the embedded defaults: a server configured in --config or the environment is never written to
    embedded = {"metadata_url": None, "vector_backend": "edge", "qdrant_url": None}
    with provider_cls(_config(args, data_dir=str(base)).model_copy(update=embedded), caller=_operator()) as mem:
        say(f"embedding model: {mem.embedder.model_id} ({mem.embedder.dim} dims)\n")
        say("1. A short bilingual conversation leaves memories in all three tiers:")
        ids = []
        for tier, text, importance, tags in _DEMO_MEMORIES:
            ids.append(mem.add(text, user_id="demo-user", session_id="s1", memory_type=tier, importance=importance,
                               tags=tags))
            out["stored"].append({"id": ids[-1], "tier": tier, "content": text})
            say(f"   [{tier:<10}] {text}")
        say("\n2. Recall — questions in either language find the memory that answers them, in the other language too:")
        for question, answer in _DEMO_QUESTIONS:
            hits = mem.search(question, user_id="demo-user", top_k=2)
            right = bool(hits) and hits[0].id == ids[answer]
            wrong += not right
            out["recall"].append({"question": question, "expected": _DEMO_MEMORIES[answer][1], "right": right,
                                  "hits": [_hit_dict(h) for h in hits]})
            say(f"   {'✓' if right else '✗ WRONG'} Q: {question}")
            say(f"      → {hits[0].content if hits else '(nothing)'}")
        say("\n3. Versions — a changed preference adds a version, nothing is overwritten:")
        mem.update(ids[0], "用户主用 Go，不再用 Java", version_note="user switched to Go")
        for ver in mem.history(ids[0]):
            out["versions"].append({"version": ver.version, "content": ver.content, "note": ver.note})
            say(f"   v{ver.version}: {ver.content}  {('(' + ver.note + ')') if ver.note else ''}")
        now_hits = mem.search("Which language does the user avoid?", user_id="demo-user", top_k=1)
        say(f"   recalled now: {now_hits[0].content}")
        with tempfile.TemporaryDirectory(prefix="hermes-memory-demo-bundle-") as tmp:
            bundle = Path(tmp) / "bundle"
            manifest = mem.export(bundle)
            say(f"\n4. Export — bundle with {manifest['counts']} and sha256 of every file")
            cfg = _config(args, data_dir=str(Path(tmp) / "restored")).model_copy(update=embedded)
            if mem.key_file is not None and cfg.encryption_key_file is None:
                # the bundle holds no key: the restored store reads the permanent tier with the original's key file
                cfg = cfg.model_copy(update={"encryption_key_file": mem.key_file})
            with provider_cls.restore(bundle, cfg, caller=_operator()) as other:
                say("5. Restore into another folder — same questions, same answers:")
                for question, _answer in _DEMO_QUESTIONS[:3]:
                    a = [h.id for h in mem.search(question, user_id="demo-user", top_k=2)]
                    b = other.search(question, user_id="demo-user", top_k=2)
                    same = a == [h.id for h in b]
                    wrong += not same
                    out["restored_recall"].append({"question": question, "same": same,
                                                   "top": b[0].content if b else None})
                    say(f"   {'✓ same' if same else '✗ DIFFERENT'}: {question} → {b[0].content if b else '-'}")
        stats = mem.stats().as_dict()
        out["stats"] = stats
        say(f"\n6. Stats: {stats['by_type']}, {stats['versions']} versions, {stats['disk_bytes'] // 1024} KiB on disk")
    out["wrong"] = wrong
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    elif wrong:
        print(f"\n{wrong} answer(s) of the demo were wrong", file=sys.stderr)
    return 0 if wrong == 0 else 1


# ---------------------------------------------------------------------- parser
def _version_line() -> str:
    from hermes_memory_core.version import DISTRIBUTION, __version__

    return f"hermes-memory {__version__} (Python distribution {DISTRIBUTION})"


_TIERS = ["short_term", "long_term", "permanent"]


def _add_record_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """``list``, ``update`` and ``delete``: one user's memories, one memory's new version, a soft delete."""
    p = sub.add_parser("list", parents=[common], help="one user's memories, oldest first",
                       description="List one user's active memories, oldest first, with optional filters (no "
                       "ranking; use search to rank by a question).")
    p.add_argument("--user", required=True, help="user id")
    p.add_argument("--type", action="append", choices=_TIERS, help="tier filter (repeatable)")
    p.add_argument("--session", default=None, help="only this session's memories")
    p.add_argument("--tag", action="append", help="only memories with this tag (repeatable: any of them)")
    p.add_argument("--limit", type=int, default=100, help="at most this many (default 100)")
    p.add_argument("--offset", type=int, default=0, help="skip this many first")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("update", parents=[common], help="a new version of a memory",
                       description="Store a new version of a memory (earlier versions stay in history); prints "
                       "the version number.")
    p.add_argument("id", help="memory id")
    p.add_argument("content", help="the memory's new text")
    p.add_argument("--note", default="", help="why it changed (kept with the version)")
    p.add_argument("--user", default=None, help="refuse unless the memory belongs to this user")
    p.set_defaults(func=cmd_update)

    p = sub.add_parser("delete", parents=[common], help="soft-delete a memory",
                       description="Soft-delete a memory: it is never returned again and leaves the indexes; its "
                       "history stays.")
    p.add_argument("id", help="memory id")
    p.add_argument("--reason", default="", help="why (kept in its history)")
    p.add_argument("--user", default=None, help="refuse unless the memory belongs to this user")
    p.set_defaults(func=cmd_delete)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", default=None,
                        help="directory of the embedded store (default: data_dir of --config, else "
                        "$HERMES_MEMORY_DATA_DIR, else ./hermes_data)")
    common.add_argument("--config", default=None, help="TOML config file ([hermes_memory] table)")
    common.add_argument("--embedding-model", default=None, help="override the configured embedding model")
    common.add_argument("--key-file", default=None,
                        help="file holding the store's encryption key (default: <data dir>/hermes.key; or set "
                        "HERMES_MEMORY_ENCRYPTION_KEY); restore copies it into a target that has none")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")

    parser = argparse.ArgumentParser(prog="hermes-memory", description="Tiered long-term memory for LLM agents.")
    parser.add_argument("--version", action="version", version=_version_line())
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", parents=[common], help="run the bilingual end-to-end demo (the main job)",
                       description="Store a short bilingual conversation in all three tiers, recall it in both "
                       "languages (checking every answer), version, export and restore it, and print what happens. "
                       "It runs in a temporary folder unless --data-dir names a new or empty one; it never touches "
                       "an existing store. Exit status 1 if an answer was wrong.")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("add", parents=[common], help="store one memory", description="Store one memory; prints its id.")
    p.add_argument("content", help="text to remember")
    p.add_argument("--user", required=True, help="owner user id")
    p.add_argument("--session", default=None, help="session id")
    p.add_argument("--type", default="long_term", choices=["short_term", "long_term", "permanent"], help="tier")
    p.add_argument("--importance", type=float, default=None, help="0..1")
    p.add_argument("--tag", action="append", help="a tag (repeatable)")
    p.set_defaults(func=cmd_add)

    p = sub.add_parser("search", parents=[common], help="hybrid search of one user's memories",
                       description="Hybrid (BM25 + vector) search of one user's memories.")
    p.add_argument("query", help="question or text")
    p.add_argument("--user", required=True, help="user id")
    p.add_argument("--top-k", type=int, default=5, help="number of hits (default 5)")
    p.add_argument("--type", action="append", choices=["short_term", "long_term", "permanent"], help="tier filter")
    p.add_argument("--as-of", type=int, default=None, metavar="UNIX_TIME",
                   help="answer as the store stood then (the versions current at that time)")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("history", parents=[common], help="every version of a memory",
                       description="Print every version of a memory, oldest first.")
    p.add_argument("id", help="memory id")
    p.set_defaults(func=cmd_history)

    _add_record_commands(sub, common)

    p = sub.add_parser("export", parents=[common], help="write a portable bundle",
                       description="Export the whole store to a self-contained bundle folder.")
    p.add_argument("target", help="new folder for the bundle")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("restore", parents=[common], help="rebuild a store from a bundle",
                       description="Verify a bundle and restore it into --data-dir.")
    p.add_argument("bundle", help="bundle folder")
    p.add_argument("--overwrite", action="store_true", help="replace a non-empty target store")
    p.add_argument("--trusted", action="store_true",
                   help="skip the injection guard on the bundle's memories (a vetted backup of your own store)")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser("reconcile", parents=[common], help="repair orphans between the stores",
                       description="Find and repair orphans between metadata and vectors; print counts.")
    p.set_defaults(func=cmd_reconcile)

    p = sub.add_parser("forget", parents=[common], help="expire closed sessions and stale, unimportant memories",
                       description="Expire short-term memories of closed sessions; downgrade or expire stale "
                       "low-importance long-term memories. Never touches permanent or important ones.")
    p.add_argument("--dry-run", action="store_true", help="only report what would be done")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("rotate-key", parents=[common], help="re-encrypt sealed memories under a new key",
                       description="Generate a new encryption key and re-encrypt every sealed memory with it in one "
                       "transaction. The new key is written to a file and read back before the commit, never "
                       "printed: the key file is replaced after the commit; with the key in the config or "
                       "environment, --key-out names the new file the key goes to.")
    p.add_argument("--key-out", default=None, help="new file for the new key (required when the key comes from the "
                   "config or HERMES_MEMORY_ENCRYPTION_KEY; created with mode 0600)")
    p.set_defaults(func=cmd_rotate_key)

    p = sub.add_parser("purge-user", parents=[common], help="erase everything of one user, for good",
                       description="Erase every memory (all tiers and versions), session buffer, summary, queue entry, "
                       "access-log row, keyword entry and vector point of one user, and rewrite the store's files so "
                       "none keeps a byte of them. Other users are untouched. Needs --yes.")
    p.add_argument("--user", required=True, help="the user id to erase")
    p.add_argument("--yes", action="store_true", help="confirm: nothing of the user can be recovered afterwards")
    p.set_defaults(func=cmd_purge_user)

    p = sub.add_parser("stats", parents=[common], help="counts per tier and user, bytes on disk",
                       description="Print counts per tier and user, versions and bytes on disk.")
    p.set_defaults(func=cmd_stats)

    # Commands of other packages: each entry point of the group ``hermes_memory.cli`` is a function
    # ``register(subparsers, common_parent_parser)``; the core imports none of them itself.
    from importlib.metadata import entry_points

    for ep in entry_points(group="hermes_memory.cli"):
        try:
            ep.load()(sub, common)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the core commands down
            print(f"hermes-memory: skipped the commands of {ep.name!r} ({type(exc).__name__}: {exc})", file=sys.stderr)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``hermes-memory``. Returns the exit code: 2 for a Hermes Memory error or a path that cannot
    be used (one line on stderr, no traceback), 141 when the reader of its output went away (a closed pipe)."""
    from hermes_memory_core.errors import HermesMemoryError

    with contextlib.suppress(AttributeError, ValueError):  # lines reach a pipe as they are printed, as on a terminal
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except HermesMemoryError as exc:
        _say_error(f"hermes-memory: {type(exc).__name__}: {exc}")
        return 2
    except OutputError as exc:
        if exc.errno == errno.EPIPE:
            return _closed_pipe()
        _say_error(f"hermes-memory: {args.command} completed, but its output could not be written ({exc.strerror})")
        with contextlib.suppress(OSError, ValueError):  # no second failure when Python flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 3
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as exc:  # a path the command was given cannot be used (an export target under a file, ...)
        where = f": {exc.filename}" if exc.filename else ""
        _say_error(f"hermes-memory: {args.command} failed: {exc.strerror or exc}{where}")
        return 2


def _say_error(text: str) -> None:
    """One line on stderr; a stderr that cannot be written costs nothing more."""
    with contextlib.suppress(OSError, ValueError):
        print(" ".join(text.split()), file=sys.stderr)


def _closed_pipe() -> int:
    """The reader of stdout went away (``hermes-memory demo | head -1``): stop quietly, as ``head``'s writers do."""
    with contextlib.suppress(OSError, ValueError):  # no second error when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
