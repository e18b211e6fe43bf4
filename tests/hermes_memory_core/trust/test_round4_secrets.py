"""Trust round 4, class 5: secrets are redacted on every write path (remember() included, every tier), in the
shapes people type and their Chinese / full-width forms, also split across two messages of a turn. Strings written
for this sweep."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider, MemoryType
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.trust.redaction import Redactor
from tests.conftest import ADMIN, make_config

#: (text, the secret that must not survive)
SECRETS = [
    ("for the router pw=Ma1ze!road", "Ma1ze!road"),
    ("wifi pwd: Gull7harbour", "Gull7harbour"),
    ("the alarm PIN is 80519", "80519"),
    ("my debit card pin: 3307", "3307"),
    ("vpn login is rosa.m / Quartz#2031", "Quartz#2031"),
    ("creds: ops-admin:Falcon88x", "Falcon88x"),
    ("my 2FA code is 730418", "730418"),
    ("GitLab recovery codes: 7d2k-91qa, m3x8-55rv, 0q9w-tt41", "91qa"),
    ("the SMS code was 664209, please hurry", "664209"),
    ("seed phrase is orbit canvas velvet tundra pilot ember saddle thunder meadow quartz lantern ripple",
     "tundra pilot ember"),
    ("my mnemonic: cactus harbor violin", None),  # too short to be a seed: nothing to find
    ("支付密码是七三九二一八", "七三九二一八"),
    ("登录密码：Ｔｉｇｅｒ＃４４２", "Ｔｉｇｅｒ"),
    ("我的PIN码 ９０２１", "９０２１"),
    ("验证码是 558013", "558013"),
    ("助记词：山 水 火 木 金 土 日 月 星 云 风 雨", "山 水 火 木 金 土"),
    ("卡号：四九九二七三九八七一六", None),  # not a valid card number (Luhn): stays
    ("卡号 ５５５５ ５５５５ ５５５５ ４４４４", "４４４４"),
    ("信用卡号是五五五五五五五五五五五五四四四四", "五五五五五五五五五五五五四四四四"),
]

ORDINARY = [
    "I passed 3 exams this week",
    "the security code review is on Monday",
    "My login screen shows a cat photo",
    "我一二三四五六七八都会写",
    "We had pin 8 at bowling night",
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_each_shape_is_redacted(text: str, secret: str | None) -> None:
    out = Redactor().redact(text).text
    if secret is None:
        return
    assert secret not in out, out


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_stays(text: str) -> None:
    assert Redactor().redact(text).text == text


def test_remember_redacts_credentials_in_a_permanent_fact(tmp_path: Path, embedder: Embedder) -> None:
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, caller=ADMIN) as mem:
        for text in ("My banking PIN is 61937.", "My card number is 5555 5555 5555 4444.",
                     "我的支付密码是七三九二一八。"):
            res = mem.remember(text, user_id="u", memory_type=MemoryType.PERMANENT)
            assert res.id is not None
            stored = mem.get(res.id, user_id="u").content
            assert "61937" not in stored and "4444" not in stored and "七三九二一八" not in stored, stored
        block = " ".join(h.content for h in mem.recall("What is my PIN and card number?", user_id="u"))
        assert "61937" not in block and "5555 5555" not in block


def test_a_number_split_across_two_messages_is_caught(tmp_path: Path, embedder: Embedder) -> None:
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder) as mem:
        s = mem.session("u", "pay")
        s.add_messages([("user", "my new card is 5555 5555")])
        s.add_messages([("user", "5555 4444 expiring soon")])
        s.add_messages([("assistant", "Thanks, noted."), ("user", "and the door pw is"), ("user", "Sand7dune!")])
        raw = " ".join(m.content for t in mem.engine.sessions.turns("u", "pay") for m in t)
        assert "5555 5555" not in raw and "4444" not in raw and "Sand7dune" not in raw, raw
