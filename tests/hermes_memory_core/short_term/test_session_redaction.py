"""A session write redacts each text once: the stored last message and the new one's redacted form are known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.short_term.session import RedactingOnce
from hermes_memory_core.trust.redaction import Redactor


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    spans = Redactor.spans

    def counted(self: Redactor, text: str, only: Any = None) -> list[tuple[int, int, str]]:
        seen.append(text)
        return spans(self, text, only)

    monkeypatch.setattr(Redactor, "spans", counted)
    return seen


def test_a_session_write_reads_each_text_once(tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "s"), embedder=embedder) as mem:
        s = mem.session("u", "s1")
        s.add_messages([("user", "Mail me at bob@example.com about the trip.")])
        seen = _counting(monkeypatch)
        s.add_messages([("assistant", "Sure, I will write to you tomorrow.")])
        # the new message, and the two read together (the stored one and the new one's redacted form are known)
        assert len(seen) == 2, seen
        assert seen[1] == "Mail me at [EMAIL] about the trip. Sure, I will write to you tomorrow."
        s.add_messages([("user", "and my card is 5555 5555")])
        s.add_messages([("user", "5555 4444 thanks")])
        raw = " ".join(m.content for t in mem.engine.sessions.turns("u", "s1") for m in t)
        assert "bob@" not in raw and "5555 5555" not in raw and "4444" not in raw, raw


@pytest.mark.parametrize("text", [
    "mail me at bob@example.com or call +1 415 555 0100, card 4111 1111 1111 1111",
    "我的手机号是13812345678，邮箱 li@example.cn",
    "nothing private here",
])
def test_redacting_once_gives_the_redactors_results(text: str) -> None:
    plain, once = Redactor(), RedactingOnce(Redactor().kinds)
    first = once.redact(text)
    assert first == plain.redact(text) and once.redact(text) == first
    assert once.redact(first.text).text == plain.redact(first.text).text == first.text  # idempotent
    assert once.redact_joined([text, "more"]) == plain.redact_joined([text, "more"])
