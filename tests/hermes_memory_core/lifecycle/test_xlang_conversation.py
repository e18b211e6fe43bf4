"""Conversation memories get other-language key terms from the host's model too: in the background, the lines
of one session asked together (at most one call per memory), indexed so that a question in the other language
finds them, kept through export/restore, erased by purge (both metadata backends)."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.retrieval.translation import BATCH_NOTES, parse_batch_terms
from hermes_memory_core.text.tokenizer import tokenize_query
from tests.conftest import ADMIN, BACKENDS, make_config
from tests.fakes import Clock

CHAT = [
    ("user", "My landlord Mr. Okonkwo raised the rent again."),
    ("assistant", "Ask Mr. Okonkwo for the new lease in writing before you agree."),
    ("user", "我打算周末去爬黄山。"),
    ("assistant", "黄山周末人多，最好早上六点前出发。"),
]
#: What the scripted model answers for each line (a name no dictionary knows, so only the terms can find it).
TERMS = {
    CHAT[0][1]: ["房东", "奥孔克沃", "房租"],
    CHAT[1][1]: ["奥孔克沃", "租约"],
    CHAT[2][1]: ["Huangshan", "hiking", "weekend"],
    CHAT[3][1]: ["Huangshan", "early start"],
}


class BatchModel:
    """Answers a batched key-terms prompt with a JSON object of each numbered note's terms; counts its calls."""

    def __init__(self, style: str = "object") -> None:
        self.style = style
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def complete(self, prompt: str) -> str:
        with self._lock:
            self.prompts.append(prompt)
        notes = re.findall(r"^Note (\d+): (.*)$", prompt, re.M)
        if notes:
            if self.style == "junk":
                return "Sure! Here are some thoughts about your notes."
            lists = [TERMS.get(text, []) for _, text in notes]
            if self.style == "list":
                return "```json\n" + json.dumps(lists, ensure_ascii=False) + "\n```"
            return json.dumps({n: t for (n, _), t in zip(notes, lists, strict=True)}, ensure_ascii=False)
        if "\n\nNote: " in prompt:
            return json.dumps(TERMS.get(prompt.rsplit("\n\nNote: ", 1)[1], []), ensure_ascii=False)
        return ""

    async def acomplete(self, prompt: str) -> str:
        return self.complete(prompt)

    def term_calls(self) -> list[str]:
        return [p for p in self.prompts if "\nNote 1: " in p or "\n\nNote: " in p]


#: Other memories of the user (short-term notes: no terms asked), so a word two lines share is still rare.
NOTES = ["The user bought a new kettle.", "The user's bike needs new brakes.", "用户的猫喜欢晒太阳。",
         "The user is reading a novel about sailors.", "用户上周换了新手机。", "The user prefers tea to coffee."]


def _talk(mem: MemoryProvider, clock: Clock) -> None:
    for note in NOTES:
        mem.add(note, user_id="u1", memory_type="short_term", session_id="notes")
    session = mem.session("u1", "monday")
    for i in range(0, len(CHAT), 2):
        clock.now += 60
        session.add_messages(CHAT[i:i + 2])
    session.close()
    mem.flush()  # archived as conversation memories, then their terms asked in the background


def _said(mem: MemoryProvider) -> dict[str, str]:
    return {r.content: r.id for r in mem.list_memories(user_id="u1", limit=100) if r.is_conversation}


def _found(mem: MemoryProvider, word: str) -> list[str]:
    engine = mem.engine
    return [mid for mid, score in engine.metadata.keywords.keyword_search("u1", engine.codec.query_terms(tokenize_query(word)), 5)
            if score > engine.config.ranking.keyword_min_score]


@pytest.mark.parametrize("backend", BACKENDS)
def test_conversation_lines_get_terms_in_one_call_per_session_and_language(
    tmp_path: Path, embedder: Embedder, backend: str
) -> None:
    model = BatchModel()
    clock = Clock()
    with MemoryProvider(make_config(tmp_path / "a", backend), embedder=embedder, caller=ADMIN, llm=model, clock=clock) as mem:
        _talk(mem, clock)
        said = _said(mem)
        assert set(said) == {text for _, text in CHAT}
        for text, mid in said.items():
            assert mem.engine.metadata.keywords.xlang_terms(mid) == "\n".join(TERMS[text])
        # the English lines in one call (Chinese terms), the Chinese lines in another (English terms)
        assert len(model.term_calls()) == 2
        assert _found(mem, "奥孔克沃") and set(_found(mem, "奥孔克沃")) == {said[CHAT[0][1]], said[CHAT[1][1]]}
        assert set(_found(mem, "Huangshan")) == {said[CHAT[2][1]], said[CHAT[3][1]]}
        mem.export(tmp_path / "bundle")
        mem.purge_user("u1", caller=ADMIN)
        assert _found(mem, "奥孔克沃") == [] and _found(mem, "Huangshan") == []
        rows = mem.engine.metadata.reader().execute(
            "SELECT count(*) FROM memory_entries WHERE xlang_terms IS NOT NULL").fetchone()
        assert rows[0] == 0
    with MemoryProvider.restore(tmp_path / "bundle", make_config(tmp_path / "b", backend), embedder=embedder,
                                caller=ADMIN, overwrite=True) as restored:
        back = _said(restored)
        assert {restored.engine.metadata.keywords.xlang_terms(mid) for mid in back.values()} == {
            "\n".join(t) for t in TERMS.values()}
        assert set(_found(restored, "Huangshan")) == {back[CHAT[2][1]], back[CHAT[3][1]]}


@pytest.mark.parametrize("style", ["list", "junk"])
def test_a_batched_answer_as_a_list_is_read_and_junk_is_asked_once(
    tmp_path: Path, embedder: Embedder, style: str
) -> None:
    model = BatchModel(style)
    clock = Clock()
    with MemoryProvider(make_config(tmp_path / "a"), embedder=embedder, caller=ADMIN, llm=model, clock=clock) as mem:
        _talk(mem, clock)
        said = _said(mem)
        stored = {mem.engine.metadata.keywords.xlang_terms(mid) for mid in said.values()}
        mem.add("The user likes jazz.", user_id="u1")  # another sweep: the junk-answered lines are not asked again
        mem.flush()
    assert len(model.term_calls()) == 3
    if style == "list":
        assert stored == {"\n".join(t) for t in TERMS.values()}
    else:
        assert stored == {None}


def test_batches_are_bounded_and_answers_are_matched_by_number() -> None:
    assert parse_batch_terms('{"2": ["花生"], "1": ["过敏", "peanut"]}', 2, "zh") == [["过敏"], ["花生"]]
    assert parse_batch_terms('{"notes": {"1": ["rash"]}}', 2, "en") == [["rash"], None]
    assert parse_batch_terms('[["rash"], ["hives"]]', 2, "en") == [["rash"], ["hives"]]
    assert parse_batch_terms('[["rash"]]', 2, "en") is None  # a list must have one entry per note
    assert parse_batch_terms("I cannot help with that.", 2, "en") is None
    assert BATCH_NOTES >= 2
