"""Beyond the table in cases.py: what the provider stores (content, tags, updates), each new
detector's checksum, and precision on ordinary text measured over a large generated set."""

from __future__ import annotations

import itertools

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.trust.pii_ids import luhn_ok, verhoeff_ok
from hermes_memory_core.trust.pii_secrets import base58check_valid, shannon_entropy
from hermes_memory_core.trust.redaction import Redactor


def test_secrets_never_reach_long_term_storage(mem: MemoryProvider) -> None:
    mid = mem.add("My GitHub token is ghp_1a2b3c4d5e6f7g8h9i0jklmnopqrstuvwxyz12 and my wifi password is Tr0ub4dor&3",
                  user_id="u")
    rec = mem.get(mid)
    assert rec.content == "My GitHub token is [SECRET] and my wifi password is [SECRET]"
    assert rec.metadata["pii_redacted"] == {"secret": 2}
    raw = mem.engine.metadata.reader().execute("SELECT group_concat(content) FROM memory_versions").fetchone()[0]
    assert "ghp_" not in raw and "Tr0ub4dor" not in raw


def test_tags_are_redacted_like_content(mem: MemoryProvider) -> None:
    mid = mem.add("the user's contact", user_id="u", tags=["13812345678", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1w",
                                                            "friends"])
    assert sorted(mem.get(mid).tags) == ["[PHONE]", "[SECRET]", "friends"]
    mem.update(mid, "the user's contact again", tags=["13912345678", "13812345678"])
    assert mem.get(mid).tags == ("[PHONE]",)  # two tags that redact alike become one
    raw = mem.engine.metadata.reader().execute("SELECT group_concat(tag) FROM memory_tags").fetchone()[0]
    assert "138" not in raw and "sk-proj" not in raw


def test_checksums() -> None:
    assert verhoeff_ok("234123412346") and not verhoeff_ok("234123412345")
    assert luhn_ok("046454286") and not luhn_ok("046454287")
    assert base58check_valid("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")
    assert not base58check_valid("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3")
    assert shannon_entropy("aaaa") == 0.0 and shannon_entropy("ab") == 1.0


def test_a_one_digit_change_is_not_an_id() -> None:
    """Checksums decide: the same shapes with one digit changed are left alone."""
    for text in ("Aadhaar 2341 2341 2345", "CPF 123.456.789-08", "DNI 12345678A", "NRIC S1234567A",
                 "BTC 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3", "主民 900101-1234567", "codice fiscale RSSMRA85T10A562A"):
        assert Redactor().redact(text).found == {}, text


_SUBJECTS = ["I", "We", "My sister", "The team", "Our landlord", "我", "我们"]
_ORDINARY = [
    "merged commit {h} into main on {d}", "order number {o} ships on {d}", "the build {v} failed at {t}",
    "invoice {o} was paid on {d}", "git revert {h7}", "met on {d} at {t}", "tracking {o} arrives {d}",
    "version {v} fixed the key bug", "订单号 {o} 于 {d} 发货", "提交 {h7} 修复了问题", "{d} {t} 开会",
    "the password policy changed on {d}", "the token count was {n}", "key result {n} reached by {d}",
]
_FILL = {
    "h": ["9fceb02d0ae598e95dc970b74767f19372d61af8", "e83c5163316f89bfbde7d9ab23ca2e25604af290",
          "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"],
    "h7": ["3f2a9c1", "a1b2c3d", "9fceb02"],
    "o": ["123456789012", "#ABCDE12345", "2024-000123", "SO-884213", "20240517123456"],
    "d": ["2024-05-17", "17/05/2024", "May 17, 2024", "2024年5月17日", "17.05.2024"],
    "t": ["10:30", "3pm", "14:45:10"],
    "v": ["3.11.4", "v2.0.0-rc.1", "2024.05.1"],
    "n": ["4096", "128000", "12"],
}


def _ordinary() -> list[str]:
    out = []
    for subject, template in itertools.product(_SUBJECTS, _ORDINARY):
        for i in range(3):
            text = template
            for k, values in _FILL.items():
                text = text.replace("{" + k + "}", values[i % len(values)])
            out.append(f"{subject}: {text}")
    return out


def test_precision_on_ordinary_text(capsys: pytest.CaptureFixture[str]) -> None:
    """Git hashes, order numbers, dates, versions and times in ordinary sentences: >= 99% stay untouched."""
    texts = _ordinary()
    flagged = [(t, Redactor().redact(t).found) for t in texts if Redactor().redact(t).found]
    with capsys.disabled():
        print(f"\n[secrets] ordinary sentences: {len(texts)}, changed: {len(flagged)} {flagged[:3]}")
    assert len(texts) >= 250 and len(flagged) / len(texts) <= 0.01, flagged[:10]
