"""One contract for every metadata backend: SQLite (embedded) and PostgreSQL (server mode).

Each test runs against both (``BACKENDS``); the PostgreSQL run needs ``HERMES_TEST_POSTGRES_URL`` (see
``tests/conftest.py``). The tests are grouped by the role of the protocol they hold to its contract (one class per
role of :data:`~hermes_memory_core.storage.metadata.ROLES`: ``TestConnection``, ``TestMemoryRecords``...).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from rank_bm25 import BM25Okapi

from hermes_memory_core.errors import NotFoundError
from hermes_memory_core.storage.metadata import ROLE_ATTRIBUTES, ROLES, AccessRecord, KeywordFilter, NewMemory, RankRow
from hermes_memory_core.storage.postgres.store import PostgresMetadataStore
from hermes_memory_core.storage.sessions import Message, SessionStore
from hermes_memory_core.storage.sql.base import SQLMetadataStore
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.text.tokenizer import tokenize, tokenize_query
from hermes_memory_core.trust.at_rest import SealingCodec
from hermes_memory_core.trust.encryption import ContentCipher, decode_key
from hermes_memory_core.types import MemoryRecord, MemoryType
from tests.conftest import BACKENDS, NEEDS_POSTGRES, POSTGRES_URL, TEST_KEY, fresh_schema

MIGRATION_NAMES = [
    "m001_initial", "m002_keyword_index", "m003_sessions", "m004_keyword_context", "m005_dialogue_flag",
    "m006_language", "m007_keyword_upkeep", "m008_session_archive", "m009_xlang_terms",
    "m010_no_value_statistics", "m011_lookup_indexes", "m012_subject_indexes",
]
SEALED = ("permanent",)
CORPUS = [
    "我喜欢喝美式咖啡", "用户主用 Python，避免 Java", "The user runs a marathon in Berlin",
    "Caroline went to the LGBTQ support group", "Melanie paints sunsets with her kids",
    "咖啡店在公司楼下", "The user prefers tea over coffee in the evening", "Python 3.12 is the target runtime",
    "我们周末去爬山", "The meeting with the bank is on Friday", "用户的女儿喜欢画画", "Running shoes for the marathon",
]


def _sqlite(tmp: Path, schema: str) -> SQLMetadataStore:
    return SQLiteMetadataStore(tmp / "m.sqlite")


def _postgres(tmp: Path, schema: str) -> SQLMetadataStore:
    assert POSTGRES_URL
    return PostgresMetadataStore(POSTGRES_URL, schema, pool_size=6)


@pytest.fixture(params=BACKENDS)
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    schema = fresh_schema()
    opened: list[SQLMetadataStore] = []
    build = _sqlite if request.param == "embedded" else _postgres

    def make() -> SQLMetadataStore:
        store = build(tmp_path, schema)
        store.open()
        store.codec = SealingCodec(ContentCipher(decode_key(TEST_KEY)), SEALED)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store) -> SQLMetadataStore:  # type: ignore[no-untyped-def]
    return make_store()


def rec(
    i: int,
    text: str,
    user: str = "u1",
    tier: MemoryType = MemoryType.LONG_TERM,
    session: str | None = None,
    created: int = 1_000,
    tags: tuple[str, ...] = (),
    expires: int | None = None,
    metadata: dict[str, object] | None = None,
) -> MemoryRecord:
    return MemoryRecord(
        f"00000000-0000-4000-8000-{i:012d}", user, session, text, tier, 0.5, 0, created, created, expires, 1,
        tuple(sorted(tags)), metadata or {},
    )


def add(store: SQLMetadataStore, *records: MemoryRecord) -> None:
    """Insert as the engine does: memories with a session are dialogue turns, sealed ones never."""
    rows = [NewMemory(r, r.session_id is not None and r.memory_type is not MemoryType.PERMANENT) for r in records]
    store.records.insert(rows, note="test")


def search(
    store: SQLMetadataStore, user: str, toks: list[str], limit: int, context_weight: float = 0.2, **flt: object
) -> list[tuple[str, float]]:
    """The keyword leg as the search side calls it: terms plus their keyed hashes, filters as an object."""
    terms = store.codec.query_terms(toks)  # type: ignore[attr-defined]
    if "memory_types" in flt or "tags" in flt:
        flt = {k: tuple(v) if isinstance(v, list) else v for k, v in flt.items()}  # type: ignore[arg-type]
    return store.keywords.keyword_search(user, terms, limit, KeywordFilter(user, **flt), context_weight)  # type: ignore[arg-type]


def n(memory_id: str) -> int:
    return int(memory_id[-12:])


def _raw_rows(store: SQLMetadataStore) -> str:
    """Every stored value of the memory tables, as text (what someone holding the database file reads)."""
    conn = store.reader()
    parts = []
    for table in ("memory_entries", "memory_versions", "memory_tags", "memory_access_log", "memory_meta"):
        parts += [repr(tuple(row)) for row in conn.execute(f"SELECT * FROM {table}").fetchall()]
    return "\n".join(parts)


class TestConnection:
    """Connection: migrations once, nested transactions, readers beside writers, rows shared with the session buffers."""

    def test_migrations_are_named_recorded_and_applied_once(self, make_store) -> None:  # type: ignore[no-untyped-def]
        first = make_store()
        assert first.applied_migrations() == MIGRATION_NAMES
        assert first.is_empty()
        second = make_store()  # a second opener of the same store applies nothing again
        assert second.applied_migrations() == MIGRATION_NAMES
        assert first.integrity_check() == "ok"

    def test_atomic_nests_as_savepoints(self, store: SQLMetadataStore) -> None:
        def inner_fails() -> None:
            with store.atomic():
                store.set_meta("b", "2")
                raise RuntimeError("inner")

        def outer_fails() -> None:
            with store.atomic():
                store.set_meta("c", "3")
                add(store, rec(1, "rolled back with the outer transaction"))
                raise RuntimeError("outer")

        with store.atomic():
            store.set_meta("a", "1")
            with pytest.raises(RuntimeError, match="inner"):
                inner_fails()
        assert store.get_meta("a") == "1" and store.get_meta("b") is None
        with pytest.raises(RuntimeError, match="outer"):
            outer_fails()
        assert store.get_meta("c") is None and store.records.get(rec(1, "x").id) is None
        assert search(store, "u1", tokenize_query("rolled back"), 5) == []

    def test_threads_write_and_read_at_once(self, store: SQLMetadataStore) -> None:
        errors: list[BaseException] = []

        def write(t: int) -> None:
            try:
                for i in range(40):
                    add(store, rec(t * 1000 + i, f"thread {t} note {i} coffee", user=f"u{t % 2}"))
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        def read() -> None:
            try:
                for _ in range(40):
                    search(store, "u0", tokenize_query("coffee"), 5)
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(t,)) for t in range(4)] + [threading.Thread(target=read) for _ in range(3)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        assert store.lifecycle.counts()["by_user"] == {"u0": 80, "u1": 80}

    def test_sessions_share_the_store(self, store: SQLMetadataStore) -> None:
        sessions = SessionStore(store)
        msgs = [Message("user", "hi"), Message("assistant", "hello"), Message("user", "again")]
        turns = sessions.append("u1", "s", msgs, [True, False, True], 10)
        assert turns == [0, 0, 1]
        assert sessions.turn_count("u1", "s") == 2 and sessions.turn_count("u2", "s") == 0
        assert sessions.commit_compaction("u1", "s", [0], "said hi", ["hi"], 11)
        assert [c.text for c in sessions.chunks("u1", "s")] == ["said hi"]
        assert [q.content for q in sessions.queued()] == ["hi"]
        assert [[m.content for m in t] for t in sessions.turns("u1", "s")] == [["again"]]


class TestMemoryRecords:
    """MemoryRecords: rows round-trip, stay with their owner, leave the index when deleted, move tiers."""

    def test_rows_round_trip(self, store: SQLMetadataStore) -> None:
        r = rec(1, "用户喜欢 jazz 🎷 and 'quotes' \"too\" % ?", session="s1", tags=("music", "b"), metadata={"k": [1, "二"]})
        add(store, r, rec(2, "other user", user="u2"))
        got = store.records.get(r.id)
        assert got == r
        assert store.records.get_many([r.id, rec(2, "").id], "u1") == {r.id: r}
        assert store.records.get_many([r.id], "u2") == {}
        assert store.records.rank_rows([r.id], "u1") == {r.id: RankRow("s1", 1_000, 1_000, 0.5, 1, "long_term", 0, True)}
        assert store.access.access_log(r.id)[0][0] == "add"
        assert not store.is_empty()

    def test_soft_delete_keeps_the_row_and_leaves_the_index(self, store: SQLMetadataStore) -> None:
        r = rec(1, "secret plan")
        add(store, r)
        assert store.records.soft_delete(r.id, "user asked", 3_000) == "u1"
        assert store.records.get(r.id) is None
        assert store.records.get(r.id, include_inactive=True) is not None
        assert search(store, "u1", tokenize_query("secret plan"), 5) == []
        assert [a[0] for a in store.access.access_log(r.id)] == ["add", "delete"]
        with pytest.raises(NotFoundError):
            store.records.soft_delete(r.id, "again", 3_001)
        assert store.lifecycle.counts()["deleted"] == 1

    def test_languages_lists_and_lookups(self, store: SQLMetadataStore) -> None:
        store.records.insert([NewMemory(rec(1, "The user drinks tea", metadata={"fact_key": "drink"}), lang="en"),
                      NewMemory(rec(2, "用户喜欢茶", created=1_100)), NewMemory(rec(3, "Another user's tea", user="u2"), lang="en")])
        assert store.records.has_language("u1", "en") and not store.records.has_language("u1", "zh") and not store.records.has_language("u9", "en")
        assert store.records.missing_languages() == [(rec(2, "").id, "用户喜欢茶")]
        store.records.set_languages([(rec(2, "").id, "zh")])
        assert store.records.missing_languages() == [] and store.records.has_language("u1", "zh")
        assert [n(r.id) for r in store.records.list_records("u1", KeywordFilter("u1"))] == [1, 2]  # oldest first, one user's
        assert [n(r.id) for r in store.records.list_records("u1", KeywordFilter("u1"), limit=1, offset=1)] == [2]
        key = store.codec.lookup_value("long_term", "fact_key", "drink")
        assert store.records.find_by_metadata("u1", "fact_key", key, ("long_term",)) == rec(1, "").id
        assert store.records.find_by_metadata("u2", "fact_key", key, ("long_term",)) is None
        store.records.insert([NewMemory(rec(4, "The user eats rice", metadata={"fact_key": "food"})),
                      NewMemory(rec(5, "The user eats noodles", metadata={"fact_key": "food"}, created=1_200))])
        food = store.codec.lookup_value("long_term", "fact_key", "food")
        both = store.records.find_by_metadata_values("u1", "fact_key", [key, food, "absent"], ("long_term",))
        assert both == {key: rec(1, "").id, food: rec(5, "").id}  # one query; the newest of a value wins
        assert store.records.find_by_metadata_values("u2", "fact_key", [key, food], ("long_term",)) == {}
        assert store.records.find_by_metadata_values("u1", "fact_key", [key], ("permanent",)) == {}
        store.records.soft_delete(rec(1, "").id, "gone", 2_000)
        assert not store.records.has_language("u1", "en") and store.records.find_by_metadata("u1", "fact_key", key, ("long_term",)) is None
        assert [n(r.id) for r in store.records.list_records("u1", KeywordFilter("u1"))] == [4, 2, 5]


class TestVersionHistory:
    """VersionHistory: versions append and revert; the store as it stood at a past moment."""

    def test_versions_append_and_revert(self, store: SQLMetadataStore) -> None:
        r = rec(1, "likes tea")
        add(store, r)
        assert store.history.add_version(r.id, "likes coffee", "changed", 2_000, "u1") == 2
        assert [v.content for v in store.history.versions(r.id)] == ["likes tea", "likes coffee"]
        assert [i for i, _ in search(store, "u1", tokenize_query("coffee"), 5)] == [r.id]
        assert search(store, "u1", tokenize_query("tea"), 5) == []
        store.history.revert_version(r.id, 2)
        assert store.records.get(r.id).content == "likes tea" and store.records.get(r.id).version == 1  # type: ignore[union-attr]
        assert [i for i, _ in search(store, "u1", tokenize_query("tea"), 5)] == [r.id]
        with pytest.raises(NotFoundError):
            store.history.add_version(rec(9, "").id, "x", "", 1, "u1")

    def test_repeats_versions_as_of_and_spans(self, store: SQLMetadataStore) -> None:
        a, b = rec(1, "The user drinks green tea"), rec(2, "The user lives in Berlin", tier=MemoryType.PERMANENT)
        add(store, a, b)
        store.records.note_repeat(a.id, 1_500)
        store.records.note_repeat("00000000-0000-4000-8000-999999999999", 1_500)  # unknown: nothing happens
        got = store.records.get(a.id)
        assert got is not None and got.access_count == 1 and got.updated_at == 1_500 and got.version == 1
        assert store.access.access_log(a.id)[-1] == ("repeat", 1_500, "")
        store.history.add_version(a.id, "The user drinks black coffee", "switched", 2_000, "u1")
        store.history.add_version(b.id, "The user lives in Lisbon", "moved", 2_500, "u1")
        store.records.soft_delete(b.id, "gone", 3_000)
        assert [(v.current_from, v.current_to) for v in store.history.versions(a.id)] == [(1_000, 2_000), (2_000, None)]
        assert [(v.current_from, v.current_to) for v in store.history.versions(b.id)] == [(1_000, 2_500), (2_500, 3_000)]
        then = {r.id: r for r in store.history.records_as_of("u1", 1_800, KeywordFilter("u1"))}
        assert then[a.id].content == "The user drinks green tea" and then[a.id].version == 1
        assert then[b.id].content == "The user lives in Berlin" and then[b.id].updated_at == 1_000  # opened from its seal
        later = {r.id: r for r in store.history.records_as_of("u1", 2_600, KeywordFilter("u1"))}
        assert set(later) == {b.id} and later[b.id].content == "The user lives in Lisbon"  # deleted later: existed
        assert store.history.records_as_of("u1", 3_000, KeywordFilter("u1")) == []  # a is unchanged since; b was gone
        assert store.history.records_as_of("u1", 999, KeywordFilter("u1")) == [] and store.history.records_as_of("u2", 1_800, KeywordFilter("u2")) == []
        assert {r.id for r in store.history.records_as_of("u1", 1_800, KeywordFilter("u1", memory_types=("long_term",)))} == {a.id}


class TestKeywordIndex:
    """KeywordIndex: BM25 over one user's shard, filters, conversational context, statistics and upkeep."""

    def test_keyword_leg_finds_chinese_and_stays_with_its_user(self, store: SQLMetadataStore) -> None:
        add(store, *[rec(i, t) for i, t in enumerate(CORPUS)], rec(100, "我也喜欢咖啡", user="u2"))
        ids = [n(i) for i, _ in search(store, "u1", tokenize_query("咖啡"), 5)]
        assert set(ids[:2]) == {0, 5} and 100 not in ids
        assert [n(i) for i, _ in search(store, "u2", tokenize_query("咖啡"), 5)] == [100]
        assert search(store, "nobody", tokenize_query("咖啡"), 5) == []

    def test_bm25_top_hits_agree_with_rank_bm25(self, store: SQLMetadataStore) -> None:
        add(store, *[rec(i, t) for i, t in enumerate(CORPUS)])
        reference = BM25Okapi([tokenize(t) for t in CORPUS])
        for query in ["咖啡", "marathon Berlin", "Python Java", "support group", "画画", "tea coffee evening"]:
            toks = tokenize_query(query)
            scores = reference.get_scores(toks)
            best = max(range(len(CORPUS)), key=lambda i: scores[i])
            ours = search(store, "u1", toks, 3)
            assert n(ours[0][0]) == best, query
            assert [s for _, s in ours] == sorted((s for _, s in ours), reverse=True)

    def test_keyword_filters(self, store: SQLMetadataStore) -> None:
        add(
            store,
            rec(1, "coffee in the morning", session="a", created=100, tags=("food",)),
            rec(2, "coffee at night", session="b", created=200, tier=MemoryType.SHORT_TERM, expires=500),
            rec(3, "coffee beans from Kenya", session="a", created=300, tags=("food", "shop")),
        )
        q = tokenize_query("coffee")

        def ids(**kw: object) -> set[int]:
            return {n(i) for i, _ in search(store, "u1", q, 10, **kw)}

        assert ids() == {1, 2, 3}
        assert ids(memory_types=["long_term"]) == {1, 3}
        assert ids(session_id="a") == {1, 3}
        assert ids(tags=["shop"]) == {3}
        assert ids(created_from=150, created_to=250) == {2}
        assert ids(now=600) == {1, 3}  # the short-term one expired

    def test_filters_reach_past_the_best_unfiltered_matches(self, store: SQLMetadataStore) -> None:
        strong = [rec(i, "coffee coffee coffee beans", tags=("a",)) for i in range(30)]
        weak = [rec(100 + i, f"coffee and a long sentence about other things number {i}", tags=("b",)) for i in range(5)]
        add(store, *strong, *weak)
        hits = search(store, "u1", tokenize_query("coffee"), 3, tags=["b"])
        assert len(hits) == 3 and all(n(i) >= 100 for i, _ in hits)
        assert [n(i) for i, _ in search(store, "u1", tokenize_query("coffee"), 3)] == [0, 1, 2]  # ties by id

    def test_conversational_context_finds_answers_and_forgets_deleted_words(self, store: SQLMetadataStore) -> None:
        q, a, later = (rec(1, "Do you go running?", session="s", created=100),
                       rec(2, "Yes, every Sunday morning!", session="s", created=130),
                       rec(3, "Nice, me too", session="s", created=160))
        add(store, q, a, later)

        def found(text: str, weight: float = 0.2) -> list[int]:
            return [n(i) for i, _ in search(store, "u1", tokenize_query(text), 10, context_weight=weight)]

        assert found("running")[:1] == [1] and 2 in found("running")  # the answer is found by its question's words
        assert found("running", weight=0.0) == [1]
        assert 3 not in found("running")  # only direct neighbours
        store.history.add_version(q.id, "Do you swim?", "edit", 200, "u1")
        assert 2 in found("swim") and 2 not in found("running")
        store.records.soft_delete(q.id, "forget it", 300)
        assert found("swim") == [] and found("running") == []  # a deleted memory's words leave its neighbours too
        add(store, rec(4, "passport number E1234", session="s", created=145, tier=MemoryType.PERMANENT))
        assert found("passport") == [4] and found("sunday")[:1] == [2]  # sealed words never become context

    def test_a_batch_into_an_existing_session_updates_the_neighbours(self, store: SQLMetadataStore) -> None:
        add(store, rec(1, "Where did you travel last summer?", session="s", created=100))
        add(store, rec(2, "To Kyoto, with my sister", session="s", created=130), rec(3, "Wonderful", session="s", created=160))
        assert 2 in [n(i) for i, _ in search(store, "u1", tokenize_query("travel summer"), 10)]
        assert 1 in [n(i) for i, _ in search(store, "u1", tokenize_query("Kyoto"), 10)]  # old row re-indexed
        store.records.purge([rec(2, "").id])
        assert [n(i) for i, _ in search(store, "u1", tokenize_query("Kyoto"), 10)] == []

    def test_memories_of_one_moment_lend_no_context_to_each_other(self, store: SQLMetadataStore) -> None:
        add(store, rec(1, "The user drinks coffee", session="s", created=100), rec(2, "The user codes in Python", session="s", created=100))
        assert [n(i) for i, _ in search(store, "u1", tokenize_query("coffee"), 10)] == [1]
        add(store, rec(3, "Which editor do you use?", session="s", created=130),
            rec(4, "Neovim, always.", session="s", created=160))
        # a question lends its words forward, to its answer, never back to the lines before it
        assert {n(i) for i, _ in search(store, "u1", tokenize_query("editor"), 10)} == {3, 4}
        add(store, rec(5, "I switched to Helix last week", session="s", created=190))
        assert {n(i) for i, _ in search(store, "u1", tokenize_query("neovim"), 10)} == {3, 4, 5}

    def test_lines_of_a_conversation_written_in_one_second_stand_in_the_order_said(self, store: SQLMetadataStore) -> None:
        """A turn and its reply written together (one ``add_messages`` call) share a second: the conversation's lines
        still lend context in the order they were said (turn, then the user's message before the reply), so the
        answer is found by the question the assistant asked just before it."""
        def line(i: int, text: str, turn: int, role: str) -> MemoryRecord:
            return rec(i, text, tier=MemoryType.SHORT_TERM, session="s", created=500,
                       metadata={"kind": "conversation", "role": role, "turn": turn})

        add(store, line(1, "I finally took up something new.", 1, "user"),
            line(2, "Which hobby did you take up?", 1, "assistant"),
            line(3, "Pottery, every Sunday at the community studio.", 2, "user"),
            line(4, "That sounds lovely.", 2, "assistant"))
        assert [n(i) for i, _ in search(store, "u1", tokenize_query("hobby"), 10)] == [2, 3]
        assert 4 in [n(i) for i, _ in search(store, "u1", tokenize_query("studio"), 10)]  # the reply after it
        assert 1 not in [n(i) for i, _ in search(store, "u1", tokenize_query("hobby"), 10)]  # a question lends forward

    def test_keyword_stats_reproduce_the_keyword_leg(self, store: SQLMetadataStore) -> None:
        from hermes_memory_core.retrieval.as_of import bm25

        add(store, *[rec(i, text) for i, text in enumerate(CORPUS)])
        terms = tokenize_query("marathon coffee Python 咖啡")
        for weight in (0.0, 0.2):
            stats = store.keywords.keyword_stats("u1", terms, weight)
            assert stats.docs == len(CORPUS) and stats.df["marathon"] == 2
            for mid, score in store.keywords.keyword_search("u1", terms, 20, KeywordFilter("u1"), weight):
                doc = store.codec.index_tokens("long_term", CORPUS[n(mid)])  # what indexes it (dictionary terms too)
                assert bm25(doc, terms, stats) == pytest.approx(score, abs=1e-6)

    def test_words_in_half_of_a_large_shard_leave_the_keyword_leg(self, store: SQLMetadataStore) -> None:
        """A word in most memories (a speaker's name) has BM25's floor weight: both backends leave it out of a large
        shard's query, so what it alone matches is no candidate, and everything else scores as before."""
        from hermes_memory_core.retrieval.as_of import bm25
        from hermes_memory_core.storage.sql.shards import PRUNE_MIN_ROWS

        texts = [f"Caroline talked about chapter {i}" + (" and her violin" if i % 80 == 0 else "")
                 for i in range(PRUNE_MIN_ROWS + 40)]
        add(store, *[rec(i, t) for i, t in enumerate(texts)])
        name, violin = tokenize_query("Caroline"), tokenize_query("violin")
        found = search(store, "u1", [*name, *violin], 50, context_weight=0.0)
        assert sorted(n(m) for m, _ in found) == [0, 80, 160]
        stats = store.keywords.keyword_stats("u1", [*name, *violin], 0.0)
        for mid, score in found:  # the name's share of a full BM25 score is FTS5's 1e-6 floor
            assert bm25(store.codec.index_tokens("long_term", texts[n(mid)]), [*name, *violin], stats) == pytest.approx(
                score, abs=1e-5)
        assert len(search(store, "u1", name, 5, context_weight=0.0)) == 5  # asked alone, the commonest word still answers
        # the shard grows: "violin" is now in more than half of it too, and only the rarer word stays
        add(store, *[rec(1_000 + i, f"Caroline had a violin lesson {i}") for i in range(PRUNE_MIN_ROWS + 100)],
            rec(5_000, "Caroline keeps her violin next to the piano"))
        assert [n(m) for m, _ in search(store, "u1", [*name, *violin, *tokenize_query("piano")], 50, 0.0)] == [5_000]

    def test_a_long_query_asks_for_its_rarest_terms(self, store: SQLMetadataStore) -> None:
        """A whole chat message has more terms than the keyword leg asks for in a large shard: both backends rank on
        its MAX_QUERY_TERMS rarest terms the shard holds (words it does not hold take no place), so a word in a
        few percent of the memories adds no candidates; a smaller shard and a search of the lasting tiers alone keep
        every term."""
        from hermes_memory_core.storage.sql.shards import CAP_MIN_ROWS, MAX_QUERY_TERMS

        rare = "violin piano cello flute harp drum oboe tuba".split()
        assert len(rare) == MAX_QUERY_TERMS
        texts = [f"Caroline talked about chapter {i}" + (" in her garden" if 100 <= i < 160 else "")
                 + (f" and the {rare[i - 1]}" if 1 <= i <= len(rare) else "") for i in range(CAP_MIN_ROWS - 1)]
        add(store, *[rec(i, t) for i, t in enumerate(texts)])
        message = tokenize_query("garden zither " + " ".join(rare) + " theremin kazoo")
        assert len(search(store, "u1", message, 80, context_weight=0.0)) == 68  # a smaller shard: every term
        add(store, rec(CAP_MIN_ROWS, "Caroline talked about nothing"))
        found = search(store, "u1", message, 50, context_weight=0.0)
        assert sorted(n(m) for m, _ in found) == list(range(1, len(rare) + 1))  # no garden line is a candidate
        assert len(search(store, "u1", tokenize_query("garden"), 50, context_weight=0.0)) == 50  # asked alone, it is
        lasting = search(store, "u1", message, 80, context_weight=0.0, memory_types=["long_term"])
        assert sorted(n(m) for m, _ in lasting) == [*range(1, len(rare) + 1), *range(100, 160)]

    def test_rewrites_that_keep_the_shard_size_still_change_which_words_count(self, store: SQLMetadataStore) -> None:
        """Which words are too common to count is decided on fresh counts once enough rows were rewritten, even when
        the shard's size never changed (the embedded store caches the counts)."""
        from hermes_memory_core.storage.sql.shards import PRUNE_MIN_ROWS

        size = PRUNE_MIN_ROWS + 40
        add(store, *[rec(i, f"Caroline practised the cello part {i}") for i in range(size)], rec(size, "a viola concert"))
        cello, viola = tokenize_query("cello"), tokenize_query("viola")
        assert [n(m) for m, _ in search(store, "u1", [*cello, *viola], 50, context_weight=0.0)] == [size]
        for i in range(3, size):  # the cello leaves all but three memories; the shard keeps its size
            store.history.add_version(rec(i, "").id, f"Caroline practised the flute part {i}", "switched", 2_000, "u1")
        found = sorted(n(m) for m, _ in search(store, "u1", [*cello, *viola], 50, context_weight=0.0))
        assert found == [0, 1, 2, size]

    def test_a_small_shard_keeps_every_word(self, store: SQLMetadataStore) -> None:
        add(store, rec(1, "Caroline plays the violin"), rec(2, "Caroline paints"))
        assert sorted(n(m) for m, _ in search(store, "u1", tokenize_query("Caroline violin"), 5)) == [1, 2]

    def test_other_language_terms_and_upkeep(self, store: SQLMetadataStore) -> None:
        add(store, *[rec(i, t) for i, t in enumerate(CORPUS)])
        tiers = ("long_term",)
        assert len(store.keywords.lacking_xlang_terms(tiers)) == len(CORPUS) and store.keywords.lacking_xlang_terms(("permanent",)) == []
        r = rec(6, "")
        assert search(store, "u1", tokenize_query("hiking"), 5) == []
        assert store.keywords.set_xlang_terms(r.id, 1, "hiking weekend")
        assert not store.keywords.set_xlang_terms(r.id, 2, "no such version")
        assert store.keywords.xlang_terms(r.id) == "hiking weekend" and store.keywords.xlang_terms(rec(7, "").id) is None
        assert r.id not in {m.id for m, _lang in store.keywords.lacking_xlang_terms(tiers)}
        assert [n(i) for i, _ in search(store, "u1", tokenize_query("hiking"), 5)] == [6]
        before = {q: search(store, "u1", tokenize_query(q), 10) for q in ("咖啡", "marathon", "hiking")}
        assert store.keywords.repair_keyword_index() == 0  # nothing to repair
        store.keywords.optimize_keyword_index()
        assert {q: search(store, "u1", tokenize_query(q), 10) for q in before} == before


class TestAccessLog:
    """AccessLog: accesses counted and logged in order."""

    def test_access_records_and_log(self, store: SQLMetadataStore) -> None:
        r = rec(1, "visited")
        add(store, r)
        store.access.record_access([AccessRecord(r.id, "u1", 5_000, "search"), AccessRecord(r.id, "u1", 4_000, "search")])
        store.access.log(r.id, "u1", "permanent_read", 6_000, "admin")
        assert store.records.get(r.id).access_count == 2  # type: ignore[union-attr]
        assert [a[0] for a in store.access.access_log(r.id)] == ["add", "search", "search", "permanent_read"]


class TestLifecycleRows:
    """LifecycleRows: what forgetting and repair read of the active rows."""

    def test_tiers_lifecycle_rows_expiry_and_counts(self, store: SQLMetadataStore) -> None:
        add(store, rec(1, "a", expires=50), rec(2, "b", user="u2"), rec(3, "c", tier=MemoryType.PERMANENT))
        assert sorted(n(r.id) for r in store.lifecycle.lifecycle_rows(("short_term", "long_term"))) == [1, 2]
        assert [n(i) for i in store.lifecycle.expired_ids(60)] == [1]
        store.records.set_tier(rec(2, "").id, "short_term", 999, "downgrade", 70)
        assert store.records.get(rec(2, "").id).memory_type is MemoryType.SHORT_TERM  # type: ignore[union-attr]
        counts = store.lifecycle.counts()
        assert counts["by_user"] == {"u1": 2, "u2": 1} and counts["versions"] == 3
        assert store.lifecycle.active_versions() == {rec(i, "").id: 1 for i in (1, 2, 3)}
        assert [n(r.id) for batch in store.records.iter_active(batch_size=2) for r in batch] == [1, 2, 3]


class TestErasureRows:
    """ErasureRows: durable intents and rows erased completely, idempotently."""

    def test_erasure_rows_and_intents(self, store: SQLMetadataStore) -> None:
        from hermes_memory_core.storage.metadata import Erasure

        add(store, rec(1, "gone words", session="s"), rec(2, "more gone words", user="u1", tier=MemoryType.PERMANENT),
            rec(3, "kept words", user="u2", session="s"))
        SessionStore(store).append("u1", "s", [Message("user", "gone chat")], [True], 1_000)
        SessionStore(store).append("u2", "s", [Message("user", "kept chat")], [True], 1_000)
        store.access.log(rec(1, "").id, "u1", "search", 1_000)
        erasure = Erasure("user", "u1")
        store.erasure.record_erasure(erasure)
        store.erasure.record_erasure(erasure)  # idempotent
        assert store.erasure.pending_erasures() == [erasure]
        assert sorted(n(m) for m in store.erasure.erase_user_rows("u1")) == [1, 2]
        assert store.erasure.erase_user_rows("u1") == []
        store.erasure.erase_residue(["u1"])
        store.erasure.clear_erasure(erasure)
        store.erasure.checkpoint()
        assert store.erasure.pending_erasures() == [] and store.integrity_check() == "ok"
        assert store.lifecycle.counts()["by_user"] == {"u2": 1} and store.access.access_log(rec(1, "").id) == []
        assert search(store, "u1", ["gone"], 5) == [] and [n(m) for m, _ in search(store, "u2", ["kept"], 5)] == [3]
        assert SessionStore(store).turns("u1", "s") == [] and len(SessionStore(store).turns("u2", "s")) == 1


class TestAdministration:
    """Administration: re-sealing under another policy or key, and the bundle copy."""

    def test_permanent_content_is_sealed_and_still_searchable(self, store: SQLMetadataStore) -> None:
        r = rec(1, "passport number is E1234", tier=MemoryType.PERMANENT, tags=("travel-docs",),
                metadata={"fact_key": "passport", "reason": "a document of the user's"})
        add(store, r)
        store.history.add_version(r.id, "passport number is E9999", "renewed passport", 2_000, "u1")
        raw = store.reader().execute("SELECT content FROM memory_entries WHERE id = ?", (r.id,)).fetchone()[0]
        assert raw.startswith("enc:v1:") and "E1234" not in raw
        rows = _raw_rows(store)
        for secret in ("E1234", "E9999", "passport", "travel-docs", "renewed", "document"):
            assert secret not in rows, secret  # content, versions, notes, metadata, tags, log details
        got = store.records.get(r.id)
        assert got is not None and got.content == "passport number is E9999"
        assert got.tags == ("travel-docs",) and got.metadata == r.metadata
        assert [v.note for v in store.history.versions(r.id)] == ["test", "renewed passport"]
        assert [i for i, _ in search(store, "u1", tokenize_query("passport"), 5)] == [r.id]
        assert [i for i, _ in search(store, "u1", tokenize_query("passport"), 5,
                                     tags=store.codec.filter_tags(["travel-docs"]))] == [r.id]  # type: ignore[attr-defined]
        hashed = store.codec.lookup_value("permanent", "fact_key", "passport")
        assert hashed != "passport" and store.records.find_by_metadata("u1", "fact_key", hashed, SEALED) == r.id
        assert store.records.find_by_metadata("u2", "fact_key", hashed, SEALED) is None
        assert store.records.find_by_metadata("u1", "fact_key", hashed, ("long_term",)) is None
        store.history.add_version(r.id, "passport number is E9999", "", 3_000, "u1", tags=["id"])
        assert store.records.get(r.id).tags == ("id",) and store.records.get(r.id).metadata == r.metadata  # type: ignore[union-attr]
        store.records.soft_delete(r.id, "user moved abroad", 4_000)
        assert "moved abroad" not in _raw_rows(store)
        new = SealingCodec(ContentCipher(decode_key("B" * 43 + "=")), SEALED)
        assert store.admin.recode(SEALED, new) == 1
        store.codec = new
        got = store.records.get(r.id, include_inactive=True)
        assert got is not None and got.content == "passport number is E9999" and got.metadata == r.metadata
        assert [a[2] for a in store.access.access_log(r.id) if a[0] == "delete"] == ["user moved abroad"]
        assert "moved abroad" not in _raw_rows(store)

    def test_recode_moves_rows_between_policies(self, store: SQLMetadataStore) -> None:
        """encrypt_at_rest="all" seals every tier, its tags and session rows; switching back opens them again."""
        r = rec(1, "我们周末去爬山", session="s", tags=("weekend",), metadata={"mood": "happy"})
        add(store, r)
        sessions = SessionStore(store)
        sessions.append("u1", "s", [Message("user", "周末去爬山", {"k": "爬山"})], [True], 10)
        cipher = ContentCipher(decode_key(TEST_KEY))
        every = SealingCodec(cipher, ("short_term", "long_term", "permanent"), seal_sessions=True)
        with store.atomic():
            store.admin.recode(("short_term", "long_term", "permanent"), every)
            sessions.recode(store.codec, every)
        store.codec = every
        rows = _raw_rows(store) + repr(store.reader().execute("SELECT * FROM session_messages").fetchall())
        for secret in ("爬山", "weekend", "happy"):
            assert secret not in rows, secret
        assert store.records.get(r.id).tags == ("weekend",)  # type: ignore[union-attr]
        assert [i for i, _ in search(store, "u1", tokenize_query("爬山"), 5)] == [r.id]
        assert sessions.turns("u1", "s")[0][0].data == {"k": "爬山"}
        with store.atomic():
            store.admin.recode(("short_term", "long_term", "permanent"), SealingCodec(cipher, SEALED))
            sessions.recode(every, SealingCodec(cipher, SEALED))
        store.codec = SealingCodec(cipher, SEALED)
        assert "weekend" in _raw_rows(store) and sessions.turns("u1", "s")[0][0].content == "周末去爬山"

    def test_backup_is_a_sqlite_store_with_the_same_answers(self, store: SQLMetadataStore, tmp_path: Path) -> None:
        add(store, *[rec(i, t, tags=("x",) if i % 2 else (), session=f"s{i % 3}", created=1_000 + 30 * i)
                     for i, t in enumerate(CORPUS)])
        add(store, rec(50, "生日是五月一日", tier=MemoryType.PERMANENT))
        store.history.add_version(rec(0, "").id, "我喜欢喝拿铁咖啡", "edit", 2_000, "u1")
        store.records.soft_delete(rec(3, "").id, "bye", 2_100)
        store.admin.backup_to(tmp_path / "copy.sqlite")
        copy = SQLiteMetadataStore(tmp_path / "copy.sqlite")
        copy.open()
        copy.codec = store.codec
        if copy.get_meta("keyword_index_rebuild") == "1":  # a server's copy carries rows only: the opener indexes them
            copy.keywords.repair_keyword_index()
        try:
            assert copy.lifecycle.counts() == store.lifecycle.counts()
            assert copy.history.versions(rec(0, "").id) == store.history.versions(rec(0, "").id)
            assert copy.records.get(rec(50, "").id) == store.records.get(rec(50, "").id)
            assert copy.access.access_log(rec(3, "").id) == store.access.access_log(rec(3, "").id)
            for query in ["咖啡", "marathon", "生日", "support group"]:
                toks = tokenize_query(query)
                # both backends compute FTS5's BM25 over the same statistics: same order, same scores
                ours, theirs = search(store, "u1", toks, 20), search(copy, "u1", toks, 20)
                assert [i for i, _ in theirs] == [i for i, _ in ours], query
                assert [s for _, s in theirs] == pytest.approx([s for _, s in ours], rel=1e-9)
        finally:
            copy.close()


def test_every_role_has_its_contract_tests_and_every_method_is_exercised() -> None:
    """A class of tests per role, and each method of the protocol called somewhere in this file, through the
    attribute of the store that holds its role (``store.records.get(``; the ``Connection`` on the store itself)."""
    source = Path(__file__).read_text(encoding="utf-8")
    for role in ROLES:
        assert isinstance(globals().get(f"Test{role.__name__}"), type), role.__name__
        held = f".{ROLE_ATTRIBUTES[role]}" if role in ROLE_ATTRIBUTES else ""
        untested = [m for m in vars(role) if not m.startswith("_") and f"{held}.{m}(" not in source]
        assert untested == [], role.__name__


@NEEDS_POSTGRES
@pytest.mark.server
def test_postgres_plans_repeated_reads_with_their_values(tmp_path: Path) -> None:
    """A statement run again and again (psycopg prepares it) keeps a plan made for its values: "has this user a
    memory in Chinese" probes the (user, language) index instead of a generic plan's scan of every user's rows
    (28 ms instead of 0.03 ms at 100k memories)."""
    store = _postgres(tmp_path, fresh_schema())
    store.open()
    try:
        with store.atomic() as conn:
            conn.execute(
                "INSERT INTO memory_entries (id, user_id, content, memory_type, created_at, updated_at, lang) "
                "SELECT 'm' || i, 'u' || (i % 3), 'text', 'long_term', i, i, 'en' FROM generate_series(1, 6000) i"
            )
            conn.execute("ANALYZE memory_entries")
        with store.connection() as raw:
            raw.execute("PREPARE probe(text, text) AS SELECT 1 FROM memory_entries "
                        "WHERE user_id = $1 AND lang = $2 AND is_active = 1 LIMIT 1")
            for _ in range(8):  # past PostgreSQL's 5 custom plans, when it may switch to a generic one
                raw.execute("EXECUTE probe('u1', 'zh')").fetchall()
            plan = "\n".join(r[0] for r in raw.execute("EXPLAIN EXECUTE probe('u1', 'zh')"))
            raw.execute("DEALLOCATE probe")
        assert "Seq Scan" not in plan and "idx_entries_user_lang" in plan, plan
        assert store.records.has_language("u1", "en") and not store.records.has_language("u1", "zh")
    finally:
        store.close()
