"""Secrets and wallets for the redactor: what :mod:`hermes_memory_core.trust.redaction` replaces by ``[SECRET]``
and ``[WALLET]``.

``secret``
    * API keys and tokens in their providers' formats: OpenAI / Anthropic ``sk-…`` (``sk-proj-``, ``sk-ant-``),
      AWS access key ids (``AKIA…``, ``ASIA…``), GitHub (``ghp_``, ``gho_``, ``ghs_``, ``ghu_``, ``ghr_``,
      ``github_pat_``), GitLab ``glpat-``, Slack ``xox[abprs]-`` and webhook URLs, Google ``AIza…`` and ``ya29.``,
      Stripe ``sk_live_`` / ``rk_test_``, Hugging Face ``hf_``, npm ``npm_``, SendGrid ``SG.``, Twilio ``SK…``,
      DigitalOcean ``dop_v1_``, Shopify ``shpat_``, Telegram bot tokens, JWTs (``eyJ….eyJ….…``), PEM / OpenSSH
      private key blocks and ``ssh-rsa``/``ssh-ed25519`` key lines, ``Bearer …`` headers, passwords inside URLs
      (``https://user:pass@host``);
    * a password after "password / passwd / pwd / passcode / PIN / 密码 / 口令 / パスワード / 비밀번호 / Passwort /
      mot de passe / contraseña / senha" and "is / : / = / 是 / 为": any token with a digit, a symbol or mixed case,
      a quoted one, or a plain word that is not an ordinary one ("password is required" stays);
    * a high-entropy string (16+ characters of letters *and* digits, Shannon entropy >= 3.0 bits per character)
      after "key / token / secret / password / credential / 密钥 / 令牌 / 密码" (also "api key", "client
      secret", "access token");
    * the value of a secret-bearing URL parameter (``?token=…``, ``reset_token``, ``code``, ``sig``, ``key``,
      ``password``, ``session`` …) and the long token after a ``/reset/``, ``/verify/``, ``/magic/``, ``/invite/``
      path segment.

``wallet``
    Ethereum-style ``0x`` + 40 hex digits, Bitcoin / Litecoin base58check addresses (checksum verified) and bech32
    ``bc1…`` / ``ltc1…`` / ``tb1…`` addresses, Tron ``T…`` (base58check), Monero (95 base58 characters from 4 or 8).

What stays: a git commit hash (hex only, no keyword before it), UUIDs, order numbers, dates, version strings,
ordinary words after "password" ("the password is wrong"), ``sk-`` followed by fewer than 20 characters.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterator

from hermes_memory_core.text.patterns import compile_table
from hermes_memory_core.trust.pii_credentials import detect_credentials

__all__ = ["base58check_valid", "detect_secrets", "detect_wallets", "shannon_entropy"]

Found = tuple[int, int, str]

_PROVIDER_TOKENS = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d{2}-)?[A-Za-z0-9_-]{20,}"
    r"|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abprse]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,}"
    r"|(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{20,}"
    r"|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{40,}"
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"
    r"|SK[0-9a-f]{32}|AC[0-9a-f]{32}"
    r"|dop_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
    r"|key-[0-9a-f]{32}"
    r"|\d{8,10}:AA[A-Za-z0-9_-]{33}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r")(?![A-Za-z0-9_-])"
)
_SLACK_HOOK = re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")
_PEM = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.S,
)
#: SSH public keys, bearer tokens, and the secrets a URL carries: a password in its authority, a token in a parameter
#: or in a path.
_KEYS_AND_URLS = compile_table({
    "ssh_key": r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d{3}) AAAA[0-9A-Za-z+/]{30,}={0,3}",
    "bearer": r"(?i)(?<=\bbearer\s)\s*[A-Za-z0-9._~+/-]{16,}=*",
    "url_password": r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]+:(?P<p>[^\s/@]{3,})@[\w.-]+",
    "url_param": (
        r"(?i)[?&#;](?:[a-z_]*token|reset(?:_?key|_?code)?|code|sig|signature|key|api_?key|apikey|auth|password|pass|"
        r"pwd|secret|session(?:_?id)?|sid|otp|hash|x-amz-signature|x-amz-credential|ticket)=(?P<v>[^&#\s\"'<>]{6,})"
    ),
    "url_path_token": (
        r"(?i)/(?:reset(?:[-_]password)?|password[-_]reset|verify|confirm(?:ation)?|magic(?:[-_]link)?|invite|"
        r"activate|unsubscribe|login|auth|token)/(?P<v>[A-Za-z0-9_-]{16,})"
    ),
})
_PASSWORD_WORDS = (
    r"passwords?|passwd|pwd|passcode|pass\s*phrase|passphrase|pin(?:\s*code)?|wi-?fi\s+key|"
    r"密码|口令|暗号|パスワード|비밀번호|passwort|kennwort|mot\s+de\s+passe|contraseña|clave|senha|пароль"
)
_PASSWORD = re.compile(
    rf"(?i)(?:{_PASSWORD_WORDS})(?:\s+(?:for|to|of|on)\s+[\w.@-]+(?:\s+[\w.@-]+)?)?"
    r"(?P<frame>\s*(?:is|was|:|=|->|是|为|為|：|は|는|ist|est|es|é|это)\s*|\s+)"
    r"(?P<q>[\"'“‘「`]?)(?P<v>[^\s\"'”’」`，。,;；]{3,64})"
)
_ORDINARY_AFTER_PASSWORD = frozenset(
    "the a an my your his her our their its this that same required wrong incorrect correct too not weak strong "
    "long short expired changed reset saved stored secure secret different empty blank invalid valid set "
    "manager managers protected policy policies hint hints field fields box hashed encrypted forgotten "
    "forgot lost new old unchanged case sensitive please and or but for to of on in at with from by "
    "again also still now only just never always easy hard simple complex known unknown shared "
    "reuse reused required. ok okay none null".split()
)
_KEYED = re.compile(
    r"(?i)(?<![A-Za-z])(?P<k>api[\s_-]?key|access[\s_-]?key(?:[\s_-]?id)?|secret(?:[\s_-]?(?:access[\s_-]?)?key)?|"
    r"client[\s_-]?secret|private[\s_-]?key|auth(?:entication|orization)?[\s_-]?(?:token|key|code)|"
    r"access[\s_-]?token|refresh[\s_-]?token|token|key|credentials?|passwords?|passphrase|"
    r"密钥|秘钥|令牌|密码|口令|凭证|トークン|キー|토큰)(?![a-z])"
    r"(?:\s+(?:for|to|of|on)\s+[\w.@-]+)?"
    r"[\"'`]?(?:\s*(?:is|was|=|:|：|->|=>|是|为|為|は|는)\s*|\s+)[\"'`]?"
    r"(?P<v>[A-Za-z0-9+/=_.-]{16,256})(?![A-Za-z0-9+/=_.-])"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s character distribution (0.0 for an empty string)."""
    if not text:
        return 0.0
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _password_like(token: str, quoted: bool) -> bool:
    if token.lower().strip(".!?") in _ORDINARY_AFTER_PASSWORD:
        return False
    if quoted or re.search(r"[\d\W_]", token) or (re.search("[a-z]", token) and re.search("[A-Z]", token)):
        return True
    return token.isascii() and len(token) >= 6


def _keyed_high_entropy(text: str) -> Iterator[Found]:
    for m in _KEYED.finditer(text):
        token = m.group("v").rstrip("._-")
        if m.group("k").lower() == "key" and re.fullmatch(r"[0-9a-f]+", token):
            continue  # "key" alone before a lower-case hex digest: a fingerprint or a commit, not a credential
        if (re.search(r"\d", token) and re.search(r"[A-Za-z]", token) and shannon_entropy(token) >= 3.0
                and not _UUID.fullmatch(token)):
            yield m.start("v"), m.start("v") + len(token), "secret"


def detect_secrets(text: str) -> Iterator[Found]:
    """Spans of secrets in ``text`` (see the module docstring), as ``(start, end, "secret")``."""
    for pattern in (_PROVIDER_TOKENS, _SLACK_HOOK, _PEM, _KEYS_AND_URLS["ssh_key"], _KEYS_AND_URLS["bearer"]):
        for m in pattern.finditer(text):
            yield m.start(), m.end(), "secret"
    for pattern in (_KEYS_AND_URLS["url_param"], _KEYS_AND_URLS["url_path_token"]):
        for m in pattern.finditer(text):
            yield m.start("v"), m.end("v"), "secret"
    for m in _KEYS_AND_URLS["url_password"].finditer(text):
        yield m.start("p"), m.end("p"), "secret"
    for m in _PASSWORD.finditer(text):
        token = m.group("v").rstrip(".")
        quoted = bool(m.group("q"))
        if m.group("frame").strip() == "" and not quoted and not re.search(r"\d", token):
            continue  # "password manager", "pin the note": a bare word after the noun needs "is" / ":" / a digit
        if _password_like(token, quoted):
            yield m.start("v"), m.start("v") + len(token), "secret"
    yield from _keyed_high_entropy(text)
    yield from detect_credentials(text)


# ------------------------------------------------------------------------------------------------------ wallets

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_ETH = re.compile(r"(?<![0-9A-Za-z])0x[0-9a-fA-F]{40}(?![0-9A-Za-z])")
_BASE58_ADDR = re.compile(r"(?<![0-9A-Za-z])[13LMT][1-9A-HJ-NP-Za-km-z]{25,34}(?![0-9A-Za-z])")
_MONERO = re.compile(r"(?<![0-9A-Za-z])[48][0-9AB][1-9A-HJ-NP-Za-km-z]{93}(?![0-9A-Za-z])")
_BECH32 = re.compile(r"(?<![0-9A-Za-z])(?:bc1|tb1|ltc1)[ac-hj-np-z02-9]{11,71}(?![0-9A-Za-z])", re.I)


def base58check_valid(address: str) -> bool:
    """A base58check string: its last 4 bytes are the double-SHA-256 checksum of the rest."""
    num = 0
    for ch in address:
        idx = _B58.find(ch)
        if idx < 0:
            return False
        num = num * 58 + idx
    body = num.to_bytes((num.bit_length() + 7) // 8, "big")
    raw = b"\x00" * (len(address) - len(address.lstrip("1"))) + body
    if len(raw) < 5:
        return False
    payload, check = raw[:-4], raw[-4:]
    return hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] == check


def detect_wallets(text: str) -> Iterator[Found]:
    """Cryptocurrency addresses in ``text`` as ``(start, end, "wallet")``."""
    for pattern in (_ETH, _MONERO):
        for m in pattern.finditer(text):
            yield m.start(), m.end(), "wallet"
    for m in _BECH32.finditer(text):
        if m.group().islower() or m.group().isupper():
            yield m.start(), m.end(), "wallet"
    for m in _BASE58_ADDR.finditer(text):
        if base58check_valid(m.group()):
            yield m.start(), m.end(), "wallet"
