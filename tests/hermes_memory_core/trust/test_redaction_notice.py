"""``add`` tells its caller when it redacted something: one log warning per write call, and the
record's metadata says which kinds."""

from __future__ import annotations

import logging

import pytest

from hermes_memory_core import MemoryProvider


def _notices(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "hermes_memory.redaction"]


def test_add_says_what_it_redacted(mem: MemoryProvider, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hermes_memory.redaction"):
        mid = mem.add("The user's e-mail is lin.wei@example.com", user_id="u")
    (notice,) = _notices(caplog)
    assert "1 of 1" in notice and "email 1" in notice and mid in notice and "pii_redacted" in notice
    record = mem.get(mid)
    assert "[EMAIL]" in record.content and record.metadata["pii_redacted"] == {"email": 1}


def test_one_notice_per_call_and_none_without_pii(mem: MemoryProvider, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hermes_memory.redaction"):
        mem.add("The user likes green tea", user_id="u")
        assert _notices(caplog) == []
        mem.add_many([{"content": "Write to a@example.com or b@example.com", "user_id": "u"},
                      {"content": "The user likes jazz", "user_id": "u"},
                      {"content": "The user's phone is 13800138000", "user_id": "u"}])
    (notice,) = _notices(caplog)
    assert "2 of 3" in notice and "email 2" in notice and "phone 1" in notice


def test_update_says_it_too(mem: MemoryProvider, caplog: pytest.LogCaptureFixture) -> None:
    mid = mem.add("The user likes green tea", user_id="u")
    with caplog.at_level(logging.WARNING, logger="hermes_memory.redaction"):
        mem.update(mid, "The user's phone is 13800138000")
    assert len(_notices(caplog)) == 1 and mem.get(mid).metadata["pii_redacted"] == {"phone": 1}


def test_tiers_that_are_not_redacted_say_nothing(mem: MemoryProvider, caplog: pytest.LogCaptureFixture) -> None:
    mem.config.redact_tiers = ["long_term"]  # short-term memories are redacted by default; here they are not
    with caplog.at_level(logging.WARNING, logger="hermes_memory.redaction"):
        mid = mem.add("mail lin.wei@example.com", user_id="u", session_id="s", memory_type="short_term")
    assert _notices(caplog) == [] and "lin.wei@example.com" in mem.get(mid).content
