"""Credentials people type in chat, for the redactor's ``secret`` kind: what :mod:`~hermes_memory_core.trust.pii_secrets`
leaves to this module because its shape is a person's, not a provider's.

:func:`detect_credentials` yields ``(start, end, "secret")`` for:

* **short password keys**: ``pw=…``, ``pwd: …``, ``pass …``, ``PIN码 …``, ``支付密码 …``, ``CVV …`` — the value after
  the key (a token with a digit, a symbol or mixed case; a PIN's 3–8 digits);
* **login pairs**: "login is kai / Winter2024!", "creds: kai:Winter2024!", "账号密码 kai / Winter2024!" — the
  password half (the value after the separator);
* **one-time and recovery codes**: after "2FA / MFA / OTP / verification / security / backup / recovery / auth /
  sms / reset code(s)" (and 验证码, 动态码, 恢复码, 备用码, 安全码, 校验码), every code-shaped token of the rest of the
  sentence (4+ characters with a digit, dashes allowed);
* **seed phrases**: after "seed phrase / recovery phrase / mnemonic / secret phrase / wallet words / 助记词", a run
  of 12–24 words (or 12–24 Chinese characters) — the run.

Text is read as the redactor gives it (NFKC: full-width letters and digits read as ASCII); Chinese numerals are read
by the redactor's numeral view (:data:`CN_DIGITS`, one character for one digit, so positions hold).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["CN_DIGITS", "detect_credentials"]

Found = tuple[int, int, str]

#: Chinese numerals (plain, financial and 〇) as digits, one character for one, so a span found in the digit view is
#: the same span of the text.
CN_DIGITS = str.maketrans({**dict(zip("零〇一二三四五六七八九", "00123456789", strict=True)),
                           **dict(zip("壹贰叁肆伍陆柒捌玖", "123456789", strict=True))})

_VALUE = r"(?P<q>[\"'“‘「`]?)(?P<v>[^\s\"'”’」`，。,;；、]{3,64})"
_SHORT_KEY = re.compile(
    r"(?i)(?<![a-z])(?:pw|pwd|pword|pass|passwd|passcode|pin(?:\s*(?:code|number|no\.?|#))?|pin码|cvv2?|cvc|"
    r"支付密码|取款密码|交易密码|银行卡密码|登录密码|开机密码|锁屏密码|门禁密码|密码|口令|安全码)"
    r"(?P<frame>\s*(?:is|was|:|=|->|是|为|為|：)\s*|\s+)" + _VALUE
)
#: A PIN typed digit by digit ("pin is 6 0 4 2", "PIN码 1-9-8-3"): the key, then 3–8 digits split by spaces, dots or dashes.
_SPACED_PIN = re.compile(
    r"(?i)(?<![a-z])(?:pin(?:\s*(?:code|number|no\.?|#))?|pin码|cvv2?|cvc|passcode|支付密码|取款密码|交易密码|银行卡密码|"
    r"密码|安全码)(?:\s*(?:is|was|:|=|->|是|为|為|：)\s*|\s+)(?P<v>\d(?:[ .\-]\d){2,7})(?![\d.-])"
)
_LOGIN = re.compile(
    r"(?i)(?<![a-z])(?:log-?in|sign-?in|credentials?|creds|user(?:name)?\s*(?:and|&|/)\s*pass(?:word)?|"
    r"user\s*/\s*pw|account|账号密码|账户密码|账号|登录)\s*(?:details\s*)?(?:is|are|:|=|是|为|：)\s*"
    r"(?P<u>[\w.@+-]{2,40})\s*(?:/|:|\||,|，|\s+and\s+|\s+pw\s+|和|密码)\s*" + _VALUE
)
_CODES_KEY = re.compile(
    r"(?i)(?<![a-z])(?:2fa|two[- ]factor|mfa|otp|one[- ]time|verification|security|backup|recovery|auth(?:enticator|"
    r"entication)?|sms|login|reset|confirmation|access)\s+(?:codes?|keys?|pins?|tokens?)(?![a-z])"
    r"|验证码|动态码|动态密码|恢复码|备用码|备份码|安全码|校验码|两步验证码|二次验证码"
)
_CODE = re.compile(r"(?<![\w-])(?=[\w-]*\d)[A-Za-z0-9]{2,}(?:[-\s][A-Za-z0-9]{2,}){0,3}(?![\w-])")
_SENTENCE_END = re.compile(r"[.!?。！？\n](?:\s|$)|[.!?。！？\n]$")
_SEED_KEY = re.compile(
    r"(?i)(?:seed|recovery|secret|backup|mnemonic|wallet)\s+(?:phrase|words|sentence)|mnemonic|助记词|种子短语|"
    r"恢复短语|钱包助记词"
)
_SEED_WORDS = re.compile(r"(?i)(?P<v>(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8})\b")
_SEED_CN = re.compile(r"(?P<v>(?:[\u4e00-\u9fff][\s,，]*){11,23}[\u4e00-\u9fff])")


def _password_shaped(token: str, quoted: bool, pin: bool) -> bool:
    if pin and re.fullmatch(r"\d{3,8}", token):
        return True
    if quoted and len(token) >= 4:
        return True
    return bool(re.search(r"\d", token) or re.search(r"[^\w]", token) or (re.search(r"[a-z]", token)
                                                                          and re.search(r"[A-Z]", token)))


def detect_credentials(text: str) -> Iterator[Found]:
    """Spans of typed credentials in ``text`` (see the module docstring), as ``(start, end, "secret")``."""
    for m in _SHORT_KEY.finditer(text):
        token = m.group("v").rstrip(".!")
        key = m.group()[: m.start("frame") - m.start()].casefold()
        if _password_shaped(token, bool(m.group("q")), "pin" in key or "cvv" in key or "cvc" in key or "码" in key):
            yield m.start("v"), m.start("v") + len(token), "secret"
    for m in _SPACED_PIN.finditer(text):
        yield m.start("v"), m.end("v"), "secret"
    for m in _LOGIN.finditer(text):
        token = m.group("v").rstrip(".")
        if _password_shaped(token, bool(m.group("q")), False) and token.casefold() != m.group("u").casefold():
            yield m.start("v"), m.start("v") + len(token), "secret"
    for m in _CODES_KEY.finditer(text):
        rest = text[m.end() : m.end() + 240]
        end = _SENTENCE_END.search(rest)
        rest = rest[: end.start()] if end else rest
        for code in _CODE.finditer(rest):
            if sum(c.isdigit() for c in code.group()) >= 3 or len(code.group()) >= 8:
                yield m.end() + code.start(), m.end() + code.end(), "secret"
    for m in _SEED_KEY.finditer(text):
        window = text[m.end() : m.end() + 300]
        lead = re.match(r"[^\w\u4e00-\u9fff]{0,12}(?:is|are|是|为|:|：)?[^\w\u4e00-\u9fff]{0,6}", window)
        offset = m.end() + (lead.end() if lead else 0)
        seed = _SEED_WORDS.match(text, offset) or _SEED_CN.match(text, offset)
        if seed is not None:
            yield seed.start("v"), seed.end("v"), "secret"
