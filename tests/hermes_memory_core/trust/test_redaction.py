"""PII redaction: a table of 40 positive and 40 negative cases, and what the provider stores."""

from __future__ import annotations

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.trust.redaction import Redactor, cn_id_valid, luhn_valid
from tests.hermes_memory_core.trust.cases import NEGATIVE, POSITIVE


def test_table_sizes() -> None:
    assert len(POSITIVE) >= 40 and len(NEGATIVE) >= 40


@pytest.mark.parametrize(("text", "expected"), POSITIVE)
def test_positive(text: str, expected: str) -> None:
    assert Redactor().redact(text).text == expected


@pytest.mark.parametrize("text", NEGATIVE)
def test_negative(text: str) -> None:
    result = Redactor().redact(text)
    assert result.text == text and not result.changed


def test_checksums() -> None:
    assert cn_id_valid("11010519491231002X") and not cn_id_valid("110105194912310021")
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")


def test_kinds_are_configurable() -> None:
    only_email = Redactor(["email"]).redact("mail a@b.io or call 13812345678")
    assert only_email.text == "mail [EMAIL] or call 13812345678" and only_email.found == {"email": 1}
    with pytest.raises(ValueError):
        Redactor(["passport"])


def test_long_term_is_redacted_before_storage(mem: MemoryProvider) -> None:
    mid = mem.add("用户手机号 13812345678，邮箱 wang@example.com", user_id="u")
    rec = mem.get(mid)
    assert rec.content == "用户手机号 [PHONE]，邮箱 [EMAIL]"
    assert rec.metadata["pii_redacted"] == {"phone": 1, "email": 1}
    assert mem.engine.metadata.keyword_search("u", ["13812345678"], 5) == []
    raw = mem.engine.metadata.reader().execute("SELECT group_concat(content) FROM memory_versions").fetchone()[0]
    assert "13812345678" not in raw
    mid2 = mem.update(mid, "新号码 13912345678") and mid
    assert mem.get(mid2).content == "新号码 [PHONE]"


def test_short_term_and_switch_off(mem: MemoryProvider) -> None:
    sid = mem.add("call me at 13812345678 today", user_id="u", session_id="s", memory_type="short_term")
    assert "13812345678" in mem.get(sid).content  # redact_tiers defaults to long_term
    mem.config.redact_pii = False
    mem.engine._redactor = None
    assert "13812345678" in mem.get(mem.add("13812345678", user_id="u")).content
