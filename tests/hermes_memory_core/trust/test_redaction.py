"""PII redaction: a table of 200+ positive and 200+ negative cases in both languages (per-kind precision and
recall printed), the index-map contract (only detected spans of the original text change), and what the provider
stores."""

from __future__ import annotations

import collections
import re

import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.trust.redaction import (
    ALL_KINDS,
    Redactor,
    cn_id_valid,
    iban_valid,
    luhn_valid,
    ssn_valid,
)
from tests.hermes_memory_core.trust.cases import NEGATIVE, POSITIVE

_PLACEHOLDER = re.compile(r"\[(" + "|".join(k.upper() for k in ALL_KINDS) + r")\]")


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def test_table_sizes() -> None:
    assert len(POSITIVE) >= 200 and len(NEGATIVE) >= 200
    assert sum(_has_cjk(t) for t, _e in POSITIVE) >= 50 and sum(_has_cjk(t) for t in NEGATIVE) >= 30
    assert {m.lower() for _t, e in POSITIVE for m in _PLACEHOLDER.findall(e)} == set(ALL_KINDS)


def _scores() -> dict[str, tuple[int, int, int]]:
    """Per kind: (true positives, false positives, false negatives) over the whole table, counted by placeholder."""
    tp: collections.Counter[str] = collections.Counter()
    fp: collections.Counter[str] = collections.Counter()
    fn: collections.Counter[str] = collections.Counter()
    redactor = Redactor()
    for text, expected in POSITIVE:
        want = collections.Counter(m.lower() for m in _PLACEHOLDER.findall(expected))
        got = collections.Counter(redactor.redact(text).found)
        for kind in set(want) | set(got):
            tp[kind] += min(want[kind], got[kind])
            fp[kind] += max(0, got[kind] - want[kind])
            fn[kind] += max(0, want[kind] - got[kind])
    for text in NEGATIVE:
        fp.update(redactor.redact(text).found)
    return {k: (tp[k], fp[k], fn[k]) for k in ALL_KINDS}


def test_precision_and_recall_per_kind(capsys: pytest.CaptureFixture[str]) -> None:
    scores = _scores()
    rows = [f"{'kind':<10} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>9} {'recall':>7}"]
    for kind, (tp, fp, fn) in scores.items():
        rows.append(f"{kind:<10} {tp:>4} {fp:>4} {fn:>4} {tp / max(tp + fp, 1):>9.3f} {tp / max(tp + fn, 1):>7.3f}")
    tp, fp, fn = (sum(v[i] for v in scores.values()) for i in range(3))
    rows.append(f"{'overall':<10} {tp:>4} {fp:>4} {fn:>4} {tp / (tp + fp):>9.3f} {tp / (tp + fn):>7.3f}")
    with capsys.disabled():
        print(f"\n[redaction] {len(POSITIVE)} positive rows, {len(NEGATIVE)} negative rows\n" + "\n".join(rows))
    assert tp / (tp + fn) >= 0.95 and tp / (tp + fp) >= 0.98
    for kind, (k_tp, k_fp, k_fn) in scores.items():
        assert k_tp / max(k_tp + k_fn, 1) >= 0.9 and k_tp / max(k_tp + k_fp, 1) >= 0.9, kind


@pytest.mark.parametrize(("text", "expected"), POSITIVE)
def test_positive(text: str, expected: str) -> None:
    assert Redactor().redact(text).text == expected


@pytest.mark.parametrize("text", NEGATIVE)
def test_negative(text: str) -> None:
    result = Redactor().redact(text)
    assert result.text == text and not result.changed


def test_checksums() -> None:
    assert cn_id_valid("11010519491231002X") and not cn_id_valid("110105194912310021")
    assert not cn_id_valid("110105194913310021")  # month 13
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert iban_valid("GB82WEST12345698765432") and iban_valid("gb82west12345698765432")
    assert not iban_valid("GB82WEST12345698765433") and not iban_valid("GB82WEST1234569876543")
    assert not iban_valid("XX82WEST12345698765432")
    assert ssn_valid("123456789") and not ssn_valid("666123456") and not ssn_valid("123004567")


def test_only_the_detected_span_of_the_original_changes() -> None:
    """Detection reads normalised text; the rest of the user's text comes back exactly as it was written."""
    text = "ＡＢＣ\u200b会员，手机１３８\u200b1234 5678，全角：ｏｋ"
    result = Redactor().redact(text)
    assert result.text == "ＡＢＣ\u200b会员，手机[PHONE]，全角：ｏｋ" and result.found == {"phone": 1}
    url = "tel:%2B8613812345678%20ok"
    assert Redactor().redact(url).text == "tel:[PHONE]%20ok"
    assert Redactor().redact("nothing here ｏｋ\u200b").text == "nothing here ｏｋ\u200b"


def test_found_counts_every_kind() -> None:
    result = Redactor().redact("a@b.io, c@d.io, 13812345678, SSN 123-45-6789, IBAN GB82 WEST 1234 5698 7654 32")
    assert result.found == {"email": 2, "phone": 1, "ssn": 1, "iban": 1}


def test_config_default_redacts_every_kind(config: MemoryConfig) -> None:
    assert list(config.redact_kinds) == list(ALL_KINDS)


def test_kinds_are_configurable() -> None:
    only_email = Redactor(["email"]).redact("mail a@b.io or call 13812345678")
    assert only_email.text == "mail [EMAIL] or call 13812345678" and only_email.found == {"email": 1}
    with pytest.raises(ValueError, match="dna"):
        Redactor(["dna"])
    assert Redactor(["ssn"]).redact("SSN 123-45-6789, 13812345678").text == "SSN [SSN], 13812345678"


def test_long_term_is_redacted_before_storage(mem: MemoryProvider) -> None:
    mid = mem.add("用户手机号 13812345678，邮箱 wang@example.com", user_id="u")
    rec = mem.get(mid)
    assert rec.content == "用户手机号 [PHONE]，邮箱 [EMAIL]"
    assert rec.metadata["pii_redacted"] == {"phone": 1, "email": 1}
    assert mem.engine.metadata.keywords.keyword_search("u", ["13812345678"], 5) == []
    raw = mem.engine.metadata.reader().execute("SELECT group_concat(content) FROM memory_versions").fetchone()[0]
    assert "13812345678" not in raw
    mid2 = mem.update(mid, "新号码 13912345678") and mid
    assert mem.get(mid2).content == "新号码 [PHONE]"


def test_short_term_and_switch_off(mem: MemoryProvider) -> None:
    sid = mem.add("call me at 13812345678 today", user_id="u", session_id="s", memory_type="short_term")
    assert "13812345678" not in mem.get(sid).content  # redact_tiers defaults to short_term and long_term
    mem.config.redact_tiers = ["long_term"]
    sid = mem.add("call me at 13812345678 today", user_id="u", session_id="s", memory_type="short_term")
    assert "13812345678" in mem.get(sid).content
    mem.config.redact_pii = False
    mem.engine.parts.redactor = None
    assert "13812345678" in mem.get(mem.add("13812345678", user_id="u")).content
