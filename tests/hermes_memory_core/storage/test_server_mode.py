"""Server mode: PostgreSQL metadata + qdrant-client vectors.

- 4 worker processes write one shared store at once (adds, updates, deletes, one shared chat session) and
  nothing acknowledged is lost. Vectors go to the Qdrant server at ``QDRANT_URL`` when it is set (then they are
  checked too); otherwise each worker keeps its own ``:memory:`` collection and the metadata is checked.
- ``export`` from an embedded store, ``restore`` into a server store and back give identical search results.

Needs ``HERMES_TEST_POSTGRES_URL`` (``eval "$(.ci/postgres.sh start /tmp/hm-pg)"``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider, NotFoundError
from hermes_memory_core.storage.sql.shards import keyword_shard
from hermes_memory_core.text.tokenizer import tokenize_query
from tests.conftest import ADMIN, NEEDS_POSTGRES, POSTGRES_URL, QDRANT_URL, TEST_KEY, fresh_schema, make_config

pytestmark = [NEEDS_POSTGRES, pytest.mark.server]

WORKERS, ROUNDS = 4, 30

WORKER = """
import json, os, random, sys, time
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.storage.sessions import Message
cfg = MemoryConfig.model_validate_json(sys.argv[1])
n, go = int(sys.argv[2]), sys.argv[3]
rnd = random.Random(n)
mem = MemoryProvider(cfg, caller=Caller.admin(f"worker-{n}"))
def ack(*parts):
    print(json.dumps(parts, ensure_ascii=False), flush=True)
ack("READY")
while not os.path.exists(go):
    time.sleep(0.01)
mine = []
for i in range(int(sys.argv[4])):
    user = f"user{i % 3}"
    ids = mem.add_many([{"content": f"worker {n} round {i} item {j} 咖啡 coffee", "user_id": user,
                         "tags": [f"w{n}"]} for j in range(3)])
    mine += [(m, user) for m in ids]
    ack("ADD", ids, user)
    mid, owner = rnd.choice(mine)
    ack("UPDATE", mid, mem.update(mid, f"worker {n} updated {mid} in round {i}", user_id=owner))
    if i % 5 == 4:
        mid, owner = mine.pop(rnd.randrange(len(mine)))
        mem.delete(mid, user_id=owner)
        ack("DELETE", mid)
    # every worker also writes into one shared conversation: its neighbours' keyword context is rewritten by all
    said = mem.add(f"worker {n} says hello in round {i} 共享", user_id="shared", session_id="conversation",
                   created_at=1_700_000_000 + i * 60 + n)
    ack("ADD", [said], "shared")
    mem.engine.sessions.append("shared", "chat", [Message("user", f"w{n} r{i}"), Message("assistant", "ok")], [True, False], int(time.time()))
    ack("TURN")
mem.close()
ack("DONE")
"""


def _server_config(tmp: Path, schema: str, collection: str) -> MemoryConfig:
    return make_config(
        tmp, "server", metadata_schema=schema, collection=collection, qdrant_url=QDRANT_URL or ":memory:",
        ring_size=1000, summarize_turns=4,
    )


@pytest.mark.slow
def test_four_processes_write_one_store_and_lose_nothing(tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    schema, collection = fresh_schema(), f"mp_{uuid.uuid4().hex[:10]}"
    cfg = _server_config(tmp_path / "d", schema, collection)
    with MemoryProvider(cfg, embedder=real_embedder, caller=ADMIN):
        pass  # create the schema once, so the workers race on writes rather than on DDL
    payload = cfg.model_dump_json(context={"reveal": True})
    payload = json.dumps({**json.loads(payload), "metadata_url": POSTGRES_URL, "encryption_key": TEST_KEY})
    go = tmp_path / "go"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": os.getcwd()}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, payload, str(n), str(go), str(ROUNDS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        for n in range(WORKERS)
    ]
    for p in procs:  # every worker is open before any writes
        line = p.stdout.readline()  # type: ignore[union-attr]
        assert json.loads(line) == ["READY"], p.stderr.read()  # type: ignore[union-attr]
    go.touch()
    started = time.monotonic()
    logs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
        logs.append([json.loads(line) for line in out.splitlines()])
    elapsed = time.monotonic() - started

    added: dict[str, str] = {}
    deleted: set[str] = set()
    versions: dict[str, int] = {}
    for log in logs:
        assert log[-1] == ["DONE"]
        for entry in log:
            if entry[0] == "ADD":
                added.update(dict.fromkeys(entry[1], entry[2]))
            elif entry[0] == "UPDATE":
                versions[entry[1]] = max(versions.get(entry[1], 1), entry[2])
            elif entry[0] == "DELETE":
                deleted.add(entry[1])
    assert len(added) == WORKERS * ROUNDS * 4

    with MemoryProvider(cfg, embedder=real_embedder, caller=ADMIN) as mem:
        # the conversation the workers left open is ended in the background at open (its turns archived as
        # conversation memories, new keyword documents): settle that first, or the index changes between the
        # live search and the rebuild below (it did under load)
        mem.flush()
        for mid, user in added.items():
            rec = mem.engine.metadata.records.get(mid, include_inactive=True)
            assert rec is not None and rec.user_id == user, mid
            if mid in deleted:
                with pytest.raises(NotFoundError):
                    mem.get(mid, user_id=user)
            else:
                assert rec.version == versions.get(mid, 1)
                assert [v.version for v in mem.history(mid, user_id=user)] == list(range(1, rec.version + 1))
        # beside what the workers added: each turn of the conversation they left open, its user line kept as a
        # conversation memory when it was ended at this open ("ok" is a filler, never kept)
        assert mem.stats().total_active == len(added) - len(deleted) + WORKERS * ROUNDS
        turns = mem.engine.sessions.turns("shared", "chat")
        assert len(turns) == WORKERS * ROUNDS and all(len(t) == 2 for t in turns)  # no turn number handed out twice
        assert mem.engine.metadata.integrity_check() == "ok"
        # the shared conversation's keyword index equals a rebuild from its rows (context written by 4 processes)
        words = tokenize_query("hello 共享")
        live = mem.engine.metadata.keywords.keyword_search("shared", words, 1000)
        assert len(live) == WORKERS * ROUNDS
        with mem.engine.metadata.atomic() as conn:
            conn.execute("DELETE FROM memory_keyword_docs")
        mem.engine.metadata.keywords.repair_keyword_index()
        assert mem.engine.metadata.keywords.keyword_search("shared", words, 1000) == live
        if QDRANT_URL:
            points = {p.id for batch in mem.engine.vectors.iter_points(with_vectors=False) for p in batch}
            assert points == set(added) - deleted
            assert mem.reconcile().as_dict()["metadata_orphans_reindexed"] == 0
        hits = mem.search("咖啡 coffee", user_id="user1", top_k=5, tags=["w2"])
        assert all(h.record.user_id == "user1" and "w2" in h.record.tags for h in hits)
    print(f"\n4 processes x {ROUNDS} rounds: {len(added)} adds, {sum(versions.values()) - len(versions)} updates, "
          f"{len(deleted)} deletes, {WORKERS * ROUNDS} turns in {elapsed:.1f}s")


QUERIES = ["咖啡", "What does the user drink?", "marathon in Berlin", "用户的生日", "Which language?", "jazz", "猫"]
MEMORIES = [
    ("我喜欢喝美式咖啡", "long_term", ()), ("The user runs a marathon in Berlin every year", "long_term", ("sport",)),
    ("用户的生日是 1990-05-01", "permanent", ()), ("用户主用 Python，避免 Java", "long_term", ("work",)),
    ("Likes jazz on Friday evenings", "long_term", ()), ("家里有一只猫叫咪咪", "long_term", ()),
    ("Prefers tea after 6pm", "short_term", ()), ("Allergic to peanuts", "permanent", ()),
    ("The user's daughter paints", "long_term", ()), ("会议改到周五下午", "short_term", ()),
]


def _answers(mem: MemoryProvider, users: list[str]) -> list[list[tuple[str, float]]]:
    return [
        [(h.record.id, h.score) for h in mem.search(q, user_id=u, top_k=5, now=2_000_000_000)]
        for u in users
        for q in QUERIES
    ]


def _same(got: list[list[tuple[str, float]]], want: list[list[tuple[str, float]]]) -> None:
    """Same memories in the same order; scores equal up to the engines' rounding: the embedded store keeps 16-bit
    vectors, a server 32-bit ones (cosines differ by up to ~6e-5 on this set)."""
    assert [[i for i, _ in hits] for hits in got] == [[i for i, _ in hits] for hits in want]
    assert [s for hits in got for _, s in hits] == pytest.approx([s for hits in want for _, s in hits], abs=2e-4)


def test_export_embedded_restore_server_and_back_answer_the_same(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    # two users in different keyword shards (users sharing a shard share BM25 statistics in both backends)
    users = ["alice", "bob"]
    assert keyword_shard(users[0]) != keyword_shard(users[1])
    embedded = make_config(tmp_path / "embedded")
    with MemoryProvider(embedded, embedder=embedder, caller=ADMIN) as mem:
        for k, user in enumerate(users):
            ids = mem.add_many(
                [{"content": t, "user_id": user, "memory_type": tier, "tags": list(tags), "created_at": 1_700_000_000
                  + 86_400 * (i + k)} for i, (t, tier, tags) in enumerate(MEMORIES)]
            )
            mem.update(ids[0], "我喜欢喝拿铁咖啡，不加糖", user_id=user)
            mem.delete(ids[5], user_id=user)
        before = _answers(mem, users)
        mem.export(tmp_path / "bundle-1")

    server = _server_config(tmp_path / "server", fresh_schema(), f"rt_{uuid.uuid4().hex[:10]}")
    with MemoryProvider.restore(tmp_path / "bundle-1", server, embedder=embedder, caller=ADMIN) as mem:
        _same(_answers(mem, users), before)
        assert mem.stats().total_active == 2 * (len(MEMORIES) - 1)
        assert [v.content for v in mem.history(mem.search("拿铁", user_id="bob", top_k=1)[0].record.id,
                                                user_id="bob")][-1] == "我喜欢喝拿铁咖啡，不加糖"
        mem.export(tmp_path / "bundle-2")

    back = make_config(tmp_path / "back")
    with MemoryProvider.restore(tmp_path / "bundle-2", back, embedder=embedder, caller=ADMIN) as mem:
        _same(_answers(mem, users), before)


def test_cli_exports_embedded_and_restores_into_a_server_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hermes_memory_core.cli import main

    schema, collection = fresh_schema(), f"cli_{uuid.uuid4().hex[:10]}"
    toml = tmp_path / "server.toml"
    toml.write_text(
        "[hermes_memory]\n"
        f'metadata_url = "{POSTGRES_URL}"\nmetadata_schema = "{schema}"\nvector_backend = "qdrant"\n'
        f'qdrant_url = "{QDRANT_URL or ":memory:"}"\ncollection = "{collection}"\nencryption_key = "{TEST_KEY}"\n',
        encoding="utf-8",
    )
    embedded = ["--data-dir", str(tmp_path / "e"), "--json"]
    (tmp_path / "e.toml").write_text(f'encryption_key = "{TEST_KEY}"\n', encoding="utf-8")
    for text in ["我喜欢喝美式咖啡", "The user runs marathons", "Allergic to peanuts"]:
        assert main(["add", text, "--user", "u", "--config", str(tmp_path / "e.toml"), *embedded]) == 0
    assert main(["stats", "--config", str(tmp_path / "e.toml"), *embedded]) == 0
    capsys.readouterr()
    assert main(["export", str(tmp_path / "b"), "--config", str(tmp_path / "e.toml"), *embedded]) == 0
    capsys.readouterr()
    assert main(["restore", str(tmp_path / "b"), "--config", str(toml), "--data-dir", str(tmp_path / "s"), "--json"]) == 0
    restored = json.loads(capsys.readouterr().out)
    assert restored["total_active"] == 3 and restored["by_user"] == {"u": 3} and restored["vector_points"] == 3
    # a second restore into the now non-empty server store is refused without --overwrite
    assert main(["restore", str(tmp_path / "b"), "--config", str(toml), "--data-dir", str(tmp_path / "s")]) != 0
    if QDRANT_URL:  # the restored vectors outlive the command only on a real server
        for query in ["咖啡", "marathon"]:
            assert main(["search", query, "--user", "u", "--config", str(tmp_path / "e.toml"), *embedded]) == 0
            want = [h["id"] for h in json.loads(capsys.readouterr().out)]
            assert main(["search", query, "--user", "u", "--config", str(toml), "--data-dir", str(tmp_path / "s"),
                         "--json"]) == 0
            assert [h["id"] for h in json.loads(capsys.readouterr().out)] == want


def test_hot_cache_never_serves_what_another_process_changed(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    schema = fresh_schema()
    a_cfg = _server_config(tmp_path / "a", schema, f"hc_{uuid.uuid4().hex[:10]}")
    with MemoryProvider(a_cfg, embedder=embedder, caller=ADMIN) as a:
        mid = a.add("我喜欢喝美式咖啡", user_id="u")
        a.search("咖啡", user_id="u")
        assert a.hot_cache.size("u") == 1
        # a second worker (its own process in production; its own connections and cache here) updates it
        with MemoryProvider(_server_config(tmp_path / "b", schema, f"hc_{uuid.uuid4().hex[:10]}"),
                            embedder=embedder, caller=ADMIN) as b:
            b.update(mid, "我喜欢喝拿铁咖啡", user_id="u")
        assert a.search("咖啡", user_id="u")[0].record.content == "我喜欢喝拿铁咖啡"
        assert a.search("咖啡", user_id="u")[0].record.version == 2
