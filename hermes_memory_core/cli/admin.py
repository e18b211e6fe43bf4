"""The store-administration commands of ``hermes-memory``: add, search, list, history, update, delete, export,
restore, reconcile, forget, rotate-key, purge-user, stats."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hermes_memory_core.cli.common import (
    config_from,
    emit,
    fmt_time,
    hit_dict,
    open_existing,
    open_store,
    operator_caller,
    read_content,
    say,
    user_hint,
)

__all__ = ["cmd_add", "cmd_delete", "cmd_export", "cmd_forget", "cmd_history", "cmd_list", "cmd_purge_user",
           "cmd_reconcile", "cmd_restore", "cmd_rotate_key", "cmd_search", "cmd_stats", "cmd_update"]


def cmd_add(args: argparse.Namespace) -> int:
    content = read_content(args)
    with open_store(args) as mem:
        mid = mem.add(
            content,
            user_id=args.user,
            session_id=args.session,
            memory_type=args.type,
            importance=args.importance,
            tags=args.tag or None,
        )
    emit(args, {"id": mid}, lambda: mid)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        hits = mem.search(args.query, user_id=args.user, top_k=args.top_k, memory_types=args.type or None,
                          as_of=args.as_of)
        hint = None if hits else user_hint(mem, args.user)
    if hint:
        say(hint)
    rows = [hit_dict(h) for h in hits]
    emit(
        args,
        rows,
        lambda: "\n".join(f"{r['score']:.3f}  [{r['memory_type']}]  {r['content']}  ({r['id']})" for r in rows)
        or "(no memories found)",
    )
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        versions = mem.history(args.id)
    rows = [{"version": x.version, "content": x.content, "created_at": x.created_at, "note": x.note,
             "current_from": x.current_from, "current_to": x.current_to} for x in versions]
    emit(
        args,
        rows,
        lambda: "\n".join(f"v{r['version']}  {fmt_time(r['created_at'])}  {r['content']}  {r['note']}" for r in rows),
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        manifest = mem.export(args.target, user_id=args.user)
    whose = "" if args.user is None else f" of user {args.user!r}"
    emit(args, manifest, lambda: f"exported {manifest['counts']}{whose} to {args.target}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from hermes_memory_core.provider import MemoryProvider

    with MemoryProvider.restore(args.bundle, config_from(args), overwrite=args.overwrite, caller=operator_caller(),
                                trusted=args.trusted) as mem:
        stats = mem.stats().as_dict()
        where = mem.location
    emit(args, stats, lambda: f"restored {stats['total_active']} memories into {where}")
    return 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    with open_store(args) as mem:
        report = mem.reconcile().as_dict()
    left = report["erasures_left"]
    emit(args, report, lambda: "\n".join(f"{k}: {v}" for k, v in report.items()) + (
        f"\nnot yet complete: {left} erasures wait for a reader of the store's files; run reconcile again once "
        "it is gone" if left else ""))
    return 1 if left else 0


def cmd_forget(args: argparse.Namespace) -> int:
    with open_store(args) as mem:
        report = mem.forget(dry_run=args.dry_run)
        data = {**report.as_dict(), "ids": {"expired_short_term": report.expired_short_term,
                                            "downgraded": report.downgraded,
                                            "expired_long_term": report.expired_long_term}}
    verb = "would" if args.dry_run else "did"
    emit(args, data, lambda: (
        f"forget {verb}: expire {data['expired_short_term']} short-term (closed sessions), downgrade "
        f"{data['downgraded']} and expire {data['expired_long_term']} stale long-term memories; "
        f"{data['protected']} protected by importance; permanent memories are never touched"))
    return 0


def cmd_rotate_key(args: argparse.Namespace) -> int:
    with open_store(args) as mem:
        mem.rotate_key(save_to=args.key_out)
        where = None if mem.key_file is None else str(mem.key_file)
    data = {"rotated": True, "key_file": where, "key_out": args.key_out}
    # the key itself is never printed: it is in a file, written and read back before the re-encryption committed
    emit(args, data, lambda: "re-encrypted the sealed memories; new key in "
          + " and ".join(p for p in (where, args.key_out) if p)
          + ("" if where else " (set HERMES_MEMORY_ENCRYPTION_KEY or encryption_key from it)"))
    return 0


def cmd_purge_user(args: argparse.Namespace) -> int:
    if not args.yes:
        print(f"hermes-memory: purge-user erases every memory, version, session and log row of user {args.user!r} "
              "for good; run it again with --yes to go ahead", file=sys.stderr)
        return 1
    with open_store(args) as mem:
        report = mem.purge_user(args.user).as_dict()
    left = report["left"]
    done = f"erased user {report['user_id']!r}: {report['memories']} memories"
    emit(args, report, lambda: f"{done}; not yet complete: {left}" if left else
         f"{done} and everything else they left, in {report['seconds']} s")
    return 1 if left else 0  # a reader held the files: the rewrite is recorded and `reconcile` finishes it


def cmd_stats(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        stats = mem.stats().as_dict()
        where = mem.location
    emit(args, stats, lambda: _stats_table(stats, where))
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
    with open_existing(args) as mem:
        records = mem.list_memories(user_id=args.user, memory_types=args.type or None, session_id=args.session,
                                    tags=args.tag or None, limit=args.limit + 1, offset=args.offset)
        hint = None if records or args.offset else user_hint(mem, args.user)
    if hint:
        say(hint)
    more = len(records) > args.limit
    records = records[: args.limit]
    rows = [r.to_dict(("id", "memory_type", "content", "created_at", "version", "session_id", "tags", "metadata"))
            for r in records]
    emit(args, rows, lambda: "\n".join(
        f"{r['id']}  {fmt_time(r['created_at'])}  [{r['memory_type']}]  {r['content']}" for r in rows)
        or f"(no memories of user {args.user!r})")
    if more:  # on stderr, so --json output stays one JSON document
        print(f"hermes-memory: listed the first {len(rows)} from offset {args.offset}; there are more "
              f"(--offset {args.offset + len(rows)} for the next page, or a larger --limit)", file=sys.stderr)
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        version = mem.update(args.id, read_content(args), version_note=args.note, user_id=args.user)
    emit(args, {"id": args.id, "version": version}, lambda: f"{args.id}: version {version}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        mem.delete(args.id, reason=args.reason, user_id=args.user, hard=args.hard)
        left = args.hard and any(e.memory_id == args.id for e in mem.engine.eraser.pending())
    if args.hard:
        emit(args, {"id": args.id, "deleted": True, "hard": True, "complete": not left},
             lambda: f"erased {args.id} from every row and index; not yet complete: a reader holds files it must "
             "rewrite (reconcile finishes it)" if left else
             f"erased {args.id}: every version and index entry, from every file of the store")
        return 1 if left else 0
    emit(args, {"id": args.id, "deleted": True, "hard": False},
         lambda: f"deleted {args.id} (its history stays; --hard erases it for good)")
    return 0
