"""PII redaction before anything reaches long-term storage (seed 003 §5.3).

Detected, in Chinese and English text, and replaced by placeholders that keep the sentence readable
("用户手机号 [PHONE]"):

==============  ==========================================================================================
``[EMAIL]``     e-mail addresses
``[ID_NUMBER]`` Chinese resident identity numbers (18 characters, ISO 7064 MOD 11-2 checksum validated)
``[BANK_CARD]`` payment card numbers (13-19 digits, optionally grouped, Luhn-validated)
``[PHONE]``     Chinese mobiles ``1[3-9]\\d{9}`` (also +86 / 0086 forms, with spaces or dashes), international
                ``+CC ...`` numbers and common national formats such as ``(555) 123-4567``
``[IP]``        IPv4 and IPv6 addresses
``[ADDRESS]``   street addresses (heuristic): "北京市朝阳区建国路88号", "221B Baker Street", "12 rue de Rivoli"
==============  ==========================================================================================

Numbers are only replaced when their checksum or shape says so: an order number or a year stays.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

__all__ = ["ALL_KINDS", "Redactor", "RedactionResult", "luhn_valid", "cn_id_valid"]

ALL_KINDS = ("email", "id_number", "bank_card", "phone", "ip", "address")

_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
_CN_ID = re.compile(r"(?<![0-9A-Za-z])[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])")
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_CN_MOBILE = re.compile(r"(?<!\d)(?:(?:\+|00)86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)")
_INTL_PHONE = re.compile(r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?!\d)")
_NATIONAL_PHONE = re.compile(r"(?<!\w)\(\d{3}\)\s?\d{3}[-.\s]\d{4}(?!\d)|(?<![\w-])\d{3}[-.]\d{3}[-.]\d{4}(?![\w-])")
_CN_LANDLINE = re.compile(r"(?<!\d)0\d{2,3}-\d{7,8}(?!\d)")
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\d)")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){2,7}[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{1,4})*(?![\w:])")
_CN_ADDRESS = re.compile(
    r"(?:[\u4e00-\u9fff]{2,6}(?:省|自治区))?(?:[\u4e00-\u9fff]{2,6}(?:市|州|盟))?(?:[\u4e00-\u9fff]{1,6}(?:区|县|旗))?"
    r"[\u4e00-\u9fff0-9]{1,12}(?:路|街|大道|巷|弄|胡同|道)[0-9一二三四五六七八九十百零]{1,5}(?:号|號)"
    r"(?:[0-9一二三四五六七八九十]{1,4}(?:栋|幢|座|号楼|单元|室|层|楼)){0,4}(?:[0-9]{1,5}室?)?"
)
_STREET_WORDS = (
    r"Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Court|Ct\.?|Place|Pl\.?|"
    r"Way|Terrace|Square|Sq\.?|Highway|Hwy\.?|Parkway|Pkwy\.?|Close|Crescent|Straße|Strasse|Str\.|Allee|Weg"
)
_NAME_WORD = r"(?:[A-Z0-9][\w'.-]*|de|den|der|van|von|la|le|du|of|the)"
_EN_ADDRESS = re.compile(
    rf"(?<![\w-])\d{{1,5}}[A-Za-z]?\s+(?:{_NAME_WORD}\s+){{1,5}}(?i:{_STREET_WORDS})(?![\w])"
    r"(?:,?\s+(?i:Apt\.?|Apartment|Suite|Unit|#)\s*\w+)?"
    r"|(?<![\w-])\d{1,5}(?:bis|ter)?,?\s+(?i:rue|avenue|boulevard|place|chemin|allée|via|calle|avenida)\s+"
    r"(?:(?:de|du|des|la|le|del|di)\s+|l'|d')?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}"
)
# Leading characters a greedy Chinese address match may swallow ("我住在", "寄到"): kept outside the placeholder.
_CN_LEAD = set("我你他她们住在到于寄是为家址向从去往的：:，, ")
_PLACEHOLDER = {
    "email": "[EMAIL]",
    "id_number": "[ID_NUMBER]",
    "bank_card": "[BANK_CARD]",
    "phone": "[PHONE]",
    "ip": "[IP]",
    "address": "[ADDRESS]",
}
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def cn_id_valid(number: str) -> bool:
    """ISO 7064 MOD 11-2 checksum of an 18-character Chinese resident ID."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == number[17].upper()


def luhn_valid(digits: str) -> bool:
    """Luhn checksum of a card number (digits only)."""
    if not digits.isdigit() or not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


@dataclass(frozen=True, slots=True)
class RedactionResult:
    """Redacted text and what was found (kind → count)."""

    text: str
    found: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.found)


class Redactor:
    """Replaces PII with placeholders.

    Args:
        kinds: Which kinds to redact (default: all of :data:`ALL_KINDS`).
    """

    def __init__(self, kinds: tuple[str, ...] | list[str] = ALL_KINDS) -> None:
        unknown = set(kinds) - set(ALL_KINDS)
        if unknown:
            raise ValueError(f"unknown PII kinds {sorted(unknown)}; known: {list(ALL_KINDS)}")
        self.kinds = tuple(kinds)

    def redact(self, text: str) -> RedactionResult:
        found: dict[str, int] = {}

        def sub(kind: str, pattern: re.Pattern[str], s: str, valid=None) -> str:  # type: ignore[no-untyped-def]
            if kind not in self.kinds:
                return s

            def repl(m: re.Match[str]) -> str:
                if valid is not None and not valid(m.group()):
                    return m.group()
                found[kind] = found.get(kind, 0) + 1
                return _PLACEHOLDER[kind]

            return pattern.sub(repl, s)

        out = sub("email", _EMAIL, text)
        out = sub("id_number", _CN_ID, out, cn_id_valid)
        out = sub("phone", _CN_MOBILE, out)
        out = sub("bank_card", _CARD, out, lambda s: luhn_valid(re.sub(r"[ -]", "", s)))
        out = sub("phone", _INTL_PHONE, out, lambda s: 8 <= len(re.sub(r"\D", "", s)) <= 15)
        out = sub("phone", _NATIONAL_PHONE, out)
        out = sub("phone", _CN_LANDLINE, out)
        out = sub("ip", _IPV4, out, _is_ip)
        out = sub("ip", _IPV6, out, _is_ip)
        if "address" in self.kinds:
            out = _CN_ADDRESS.sub(lambda m: _cn_address(m, found), out)
        out = sub("address", _EN_ADDRESS, out)
        return RedactionResult(out, found)


def _cn_address(m: re.Match[str], found: dict[str, int]) -> str:
    text = m.group()
    lead = 0
    while lead < len(text) - 1 and text[lead] in _CN_LEAD:
        lead += 1
    rest = text[lead:]
    if not re.search(r"(?:路|街|大道|巷|弄|胡同|道)", rest):
        return text
    found["address"] = found.get("address", 0) + 1
    return text[:lead] + _PLACEHOLDER["address"]


def _is_ip(s: str) -> bool:
    try:
        ipaddress.ip_address(s)
    except ValueError:
        return False
    return True
