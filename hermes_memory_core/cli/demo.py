"""``hermes-memory demo``: the main job, end to end, on a short bilingual conversation."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_memory_core.cli.common import config_from, hit_dict, operator_caller

__all__ = ["cmd_demo"]


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


#: Asked after the language preference changed: the current version must answer it.
_AFTER_UPDATE = "Which programming language does the user use now?"
#: A chat session the demo's user has, and what they ask about it in the next one.
_DEMO_CHAT = [
    ("For the cache penetration problem my plan is a bloom filter in front of Redis.",
     "Good idea; also cache empty results with a short TTL."),
    ("Let's roll it out with blue-green deployment next week.", "Noted: blue-green, next week."),
]
_CHAT_QUESTION = "What was the cache plan we discussed last time?"


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
    cfg = config_from(args, data_dir=str(base)).model_copy(update=embedded)
    with provider_cls(cfg, caller=operator_caller()) as mem:
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
                                  "hits": [hit_dict(h) for h in hits]})
            say(f"   {'✓' if right else '✗ WRONG'} Q: {question}")
            say(f"      → {hits[0].content if hits else '(nothing)'}")
        say("\n3. Versions — a changed preference adds a version, nothing is overwritten; every answer is checked:")
        mem.update(ids[0], "用户主用 Go，不再用 Java", version_note="user switched to Go")
        for ver in mem.history(ids[0]):
            out["versions"].append({"version": ver.version, "content": ver.content, "note": ver.note})
            say(f"   v{ver.version}: {ver.content}  {('(' + ver.note + ')') if ver.note else ''}")
        now_hits = mem.search(_AFTER_UPDATE, user_id="demo-user", top_k=1)
        right = bool(now_hits) and now_hits[0].id == ids[0] and "Go" in now_hits[0].content
        wrong += not right
        out["recall"].append({"question": _AFTER_UPDATE, "expected": "用户主用 Go，不再用 Java", "right": right,
                              "hits": [hit_dict(h) for h in now_hits]})
        say(f"   {'✓' if right else '✗ WRONG'} Q: {_AFTER_UPDATE} → {now_hits[0].content if now_hits else '(nothing)'}")
        say("\n   Talk today, ask tomorrow — a chat session ends; a new one recalls what was said in it:")
        chat = mem.session("demo-user", "monday")
        for user_text, reply in _DEMO_CHAT:
            chat.add_messages([("user", user_text), ("assistant", reply)])
        chat.close()
        mem.flush()
        said = mem.recall(_CHAT_QUESTION, user_id="demo-user", top_k=3)
        right = any(h.is_conversation and "bloom filter" in h.content for h in said)
        wrong += not right
        out["recall"].append({"question": _CHAT_QUESTION, "expected": _DEMO_CHAT[0][0], "right": right,
                              "hits": [hit_dict(h) for h in said]})
        say(f"   {'✓' if right else '✗ WRONG'} Q (new session): {_CHAT_QUESTION}")
        for h in said[:2]:
            say(f"      → [{h.role} said] {h.content}")
        with tempfile.TemporaryDirectory(prefix="hermes-memory-demo-bundle-") as tmp:
            bundle = Path(tmp) / "bundle"
            manifest = mem.export(bundle)
            say(f"\n4. Export — bundle with {manifest['counts']} and sha256 of every file")
            cfg = config_from(args, data_dir=str(Path(tmp) / "restored")).model_copy(update=embedded)
            if mem.key_file is not None and cfg.encryption_key_file is None:
                # the bundle holds no key: the restored store reads the permanent tier with the original's key file
                cfg = cfg.model_copy(update={"encryption_key_file": mem.key_file})
            with provider_cls.restore(bundle, cfg, caller=operator_caller()) as other:
                say("5. Restore into another folder — same questions, same answers:")
                for question, answer in [(_AFTER_UPDATE, 0), *_DEMO_QUESTIONS[1:3]]:
                    a = [h.id for h in mem.search(question, user_id="demo-user", top_k=2)]
                    b = other.search(question, user_id="demo-user", top_k=2)
                    same = a == [h.id for h in b]
                    right = bool(b) and b[0].id == ids[answer]
                    wrong += not (same and right)
                    out["restored_recall"].append({"question": question, "same": same, "right": right,
                                                   "top": b[0].content if b else None})
                    mark = "✓ same" if same and right else ("✗ WRONG" if same else "✗ DIFFERENT")
                    say(f"   {mark}: {question} → {b[0].content if b else '-'}")
        stats = mem.stats().as_dict()
        out["stats"] = stats
        say(f"\n6. Stats: {stats['by_type']}, {stats['versions']} versions, {stats['disk_bytes'] // 1024} KiB on disk")
    out["wrong"] = wrong
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    elif wrong:
        print(f"\n{wrong} answer(s) of the demo were wrong", file=sys.stderr)
    return 0 if wrong == 0 else 1
