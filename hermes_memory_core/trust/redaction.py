"""PII redaction before anything reaches long-term storage (docs/design.md#privacy-and-safety).

Detected, in Chinese and English text, and replaced by placeholders that keep the sentence readable
("用户手机号 [PHONE]"):

================  ==========================================================================================
``[EMAIL]``       e-mail addresses, internationalised ones (``josé@correo.es``, ``张伟@例子.中国``) and spelled-out
                  ones ("jane dot doe at gmail dot com", "wang[at]qq[dot]com") where the spelling is unambiguous
``[ID_NUMBER]``   Chinese resident identity numbers (18 characters, ISO 7064 MOD 11-2 checksum and birth date)
``[BANK_CARD]``   payment card numbers (13-19 digits starting 2-6, Luhn-validated)
``[PHONE]``       Chinese mobiles (also +86 / 0086, and written in Chinese numerals: 一三八…), international
                  ``+CC …`` / ``00CC …`` numbers, North-American ``(555) 123-4567`` / ``415-555-2671``, Chinese
                  landlines ``010-12345678``
``[IP]``          IPv4 and IPv6 addresses (``fe80::1%eth0``, ``::1``, ``::ffff:192.0.2.1``)
``[ADDRESS]``     street addresses (heuristic): "北京市朝阳区建国路88号", "221B Baker Street", "12 rue de Rivoli",
                  also in lower case ("350 fifth ave")
``[SSN]``         US social security numbers ``123-45-6789`` (valid area/group/serial; 9 bare digits only next to
                  "SSN" / "social security")
``[PASSPORT]``    passport numbers right after a context word ("passport", "护照", "Reisepass" …): CN ``E12345678``,
                  US/UK 9 digits, and the common 6-9 character letter+digit formats
``[IBAN]``        IBANs of known countries, exact length and mod-97 checksum validated
``[SECRET]``      passwords, API keys and tokens (providers' formats, JWTs, private keys, high-entropy strings after
                  "key / token / secret / password / 密码"), secret URL parameters (:mod:`.pii_secrets`)
``[WALLET]``      cryptocurrency addresses (``0x…``, base58check and bech32 checked)
``[ACCOUNT_NUMBER]``, ``[MEDICAL_RECORD]``, ``[PLATE]``, ``[GPS]``: after their context words; Chinese plates
                  and coordinates with hemispheres anywhere; other countries' identity numbers are
                  ``[ID_NUMBER]`` (:mod:`.pii_ids`)
================  ==========================================================================================

Also read: card numbers with slashes, numbers spelled digit by digit in English words ("four one one one …"),
UK phone numbers (``07700 900123``) and Chinese addresses without 路/号.

**Detection runs on normalised text** (:func:`~hermes_memory_core.trust.normalize.normalize`: full-width
characters, other scripts' digits, invisible characters and ``%XX`` escapes read as what they show), so
``１３８ 1234\\u200b5678`` and ``wang＠qq.com`` are found; **replacement** uses the normaliser's index map and
changes only the detected spans of the *original* text — the rest of the user's text is returned byte for byte.

Digits split by spaces, dots or dashes are read as one number when the grouping is a shape that number has
(``138 1234 5678``, ``4111.1111.1111.1111``, ``110105 19491231 002x``) and its checksum or shape holds; an order
number, a year, a price, a version, a time, an ISBN or a tracking number stays.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from hermes_memory_core.text.patterns import compile_table
from hermes_memory_core.trust.normalize import normalize
from hermes_memory_core.trust.pii_credentials import CN_DIGITS
from hermes_memory_core.trust.pii_ids import detect_ids, detect_places, spelled_digit_runs
from hermes_memory_core.trust.pii_secrets import detect_secrets, detect_wallets

__all__ = [
    "ALL_KINDS",
    "CREDENTIAL_KINDS",
    "RedactionResult",
    "Redactor",
    "cn_id_valid",
    "iban_valid",
    "log_redactions",
    "luhn_valid",
    "ssn_valid",
]

_LOG = logging.getLogger("hermes_memory.redaction")

#: Every kind the redactor knows, in the order their spans win an overlap.
ALL_KINDS = ("secret", "email", "iban", "id_number", "bank_card", "ssn", "passport", "phone", "account_number",
             "medical_record", "wallet", "plate", "gps", "ip", "address")
_PLACEHOLDER = {kind: f"[{kind.upper()}]" for kind in ALL_KINDS}
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


# ------------------------------------------------------------------------------------------------- validators


def cn_id_valid(number: str) -> bool:
    """ISO 7064 MOD 11-2 checksum and a plausible birth date of an 18-character Chinese resident ID."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    year, month, day = int(number[6:10]), int(number[10:12]), int(number[12:14])
    if not (1900 <= year <= 2099 and 1 <= month <= 12 and 1 <= day <= 31):
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == number[17].upper()


def luhn_valid(digits: str) -> bool:
    """Luhn checksum of a card number (13-19 digits only)."""
    if not digits.isdigit() or not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def ssn_valid(digits: str) -> bool:
    """A US SSN the SSA could issue: 9 digits, area not 000, 666 or 9xx, group not 00, serial not 0000."""
    if len(digits) != 9 or not digits.isdigit():
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "BY": 28,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SE": 24, "SI": 19, "SK": 24,
    "SM": 27, "TN": 24, "TR": 26, "UA": 29, "VG": 24, "XK": 20,
}  # fmt: skip


def iban_valid(iban: str) -> bool:
    """An IBAN (no spaces) of a known country with its exact length and ISO 13616 mod-97 checksum."""
    iban = iban.upper()
    if _IBAN_LENGTHS.get(iban[:2]) != len(iban) or not iban[2:4].isdigit() or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def _is_ip(s: str) -> bool:
    try:
        ipaddress.ip_address(s)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------------- detectors


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    kind: str


_CJK = r"\u3400-\u9fff"
_CJK_TLDS = r"中国|中國|公司|网络|網絡|香港|台湾|台灣|新加坡|在线|集团|我爱你|商标|网址|网店|手机|游戏|企业|信息|移动|商城|中文网"
_EMAIL = re.compile(
    rf"(?<![\w.+%'-])(?P<local>[^\W_](?:[\w.+%'-]*[^\W_])?)@(?P<domain>(?:[^\W_](?:[\w-]*[^\W_])?[.。])+)"
    rf"(?P<tld>xn--[A-Za-z0-9-]+|[A-Za-z]{{2,24}}(?![A-Za-z])|{_CJK_TLDS}|[^\W\d_A-Za-z{_CJK}]{{2,}})"
)
_EMAIL_CUT = re.compile(rf"^.*(?:是|为|的|：|:|给|到|至|发|邮箱|邮件|email)(?=[{_CJK}])")
_AT = r"\s*[(\[{<]\s*(?:at|@)\s*[)\]}>]\s*|\s+(?:at|AT)\s+|\s*艾特\s*"
_DOT = r"\s*[(\[{<]\s*(?:dot|\.|点)\s*[)\]}>]\s*|\s+(?:dot|DOT)\s+|\s*点\s*|\."
_SPELLED_TLDS = (
    r"com|net|org|edu|gov|io|co|cn|uk|de|fr|jp|me|info|biz|us|ca|au|ru|in|ai|app|dev|mil|xyz|cc|tv|hk|tw|sg|nl|es|"
    r"it|ch|se|no|eu"
)
_SPELLED_EMAIL = re.compile(
    rf"(?<![\w.])(?P<local>[A-Za-z0-9_%+-]+(?:(?:{_DOT})[A-Za-z0-9_%+-]+)*)(?P<at>{_AT})"
    rf"(?P<domain>[A-Za-z0-9-]+(?:(?:{_DOT})[A-Za-z0-9-]+)*?)(?P<dot>{_DOT})(?P<tld>{_SPELLED_TLDS})(?![A-Za-z0-9])"
)
_MAIL_PROVIDERS = frozenset(
    "gmail googlemail qq 163 126 yeah sina sohu foxmail outlook hotmail live msn yahoo icloud me mac proton "
    "protonmail aol gmx yandex mail zoho fastmail tutanota hey".split()
)
_MAIL_CONTEXT = re.compile(r"(?i)e-?mail|mail|邮箱|邮件|contact|reach|write\s+to|address|联系")


#: Cheap test before the spelled-out pattern runs: a top-level domain after a dot of some kind.
_SPELLED_HINT = re.compile(rf"(?:dot|DOT|点|[.)\]}}>])\s*(?:{_SPELLED_TLDS})(?![A-Za-z0-9])")


def _emails(text: str) -> Iterator[_Span]:
    if "@" not in text and not _SPELLED_HINT.search(text):
        return
    for m in _EMAIL.finditer(text) if "@" in text else ():
        start, local = m.start(), m.group("local")
        if re.search(f"[{_CJK}]", local):
            tail = re.search(f"[^{_CJK}]+$", local)
            cut = tail.start() if tail and re.match(r"[^\W_]", tail.group()) else _email_cjk_cut(local)
            start += cut
        yield _Span(start, m.end(), "email")
    for m in _SPELLED_EMAIL.finditer(text) if _SPELLED_HINT.search(text) else ():
        if _spelled_email_ok(m, text):
            yield _Span(m.start(), m.end(), "email")


def _email_cjk_cut(local: str) -> int:
    """Where a Chinese local part starts: after "邮箱是" / "发到" and the like, else at its start."""
    m = _EMAIL_CUT.match(local)
    return m.end() if m else 0


def _spelled_email_ok(m: re.Match[str], text: str) -> bool:
    """Only unambiguous spellings: a bracketed or upper-case AT, 艾特, or " at … dot …" with a mail context."""
    at, dots = m.group("at"), m.group("dot") + m.group("domain")
    if re.search(r"[(\[{<]|AT|艾特", at) or re.search(r"[(\[{<]|DOT", dots):
        return True
    domain = m.group("domain").split(".")[0].split()[0].lower()
    return domain in _MAIL_PROVIDERS or bool(_MAIL_CONTEXT.search(text[max(0, m.start() - 40) : m.start()]))


# Digit chains: groups of digits joined by one separator (space, dot, dash, or " - ").
#: Digit chains and what tells the number a chain holds: the chain, its groups, an order or tracking label before it,
#: a unit after it, and the words that make it a card, a phone or a social security number.
_NUMBERS = compile_table({
    "chain": r"(?<![A-Za-z0-9_+$¥€£#.,-])\d+(?:(?:[ .]|\s?-\s?)\d+)*(?:\s?[xX](?![A-Za-z0-9_]))?(?![A-Za-z0-9_])",
    "group": r"\d+|[xX]",
    "neg_context": (
        r"(?i)(?:order|invoice|tracking|track|ref(?:erence)?|sku|isbn|ean|upc|gtin|barcode|serial|model|part|ticket|case|"
        r"booking|receipt|条码|条形码|"
        r"订单|单号|快递|运单|发票|编号|序列号|型号|工单|流水号)\s*(?:no\.?|number|#|id|号|号码)?\s*[:#]?\s*$"
    ),
    #: A quantity after a number ("13812345678 units", "4111111111111111 次") makes it a count, not PII.
    "unit_after": (
        r"^\s*(?:units?|pcs|pieces|items|views|times|people|users|visitors|downloads|dollars|usd|rmb|yuan|euros?|"
        r"件|个|元|块|次|人|台|份|条|张|瓶|箱|吨|斤|公斤|米|千米|公里)(?![A-Za-z])"
    ),
    "card_context": r"(?i)card|visa|mastercard|amex|卡号|银行卡|信用卡|储蓄卡",
    "phone_context": r"(?i)phone|call|tel|mobile|cell|whatsapp|电话|手机|号码|联系|致电",
    "ssn_context": r"(?i)\bssn\b|social\s+security|社会安全号|社保号",
})


def _chains(text: str) -> Iterator[_Span]:
    """Numbers in digit chains: the longest window of groups whose digits and grouping make a known number."""
    for m in _NUMBERS["chain"].finditer(text):
        before = text[max(0, m.start() - 24) : m.start()]
        if _NUMBERS["neg_context"].search(before):
            continue
        if _NUMBERS["unit_after"].match(text[m.end() : m.end() + 12]):
            continue
        groups = [(g.start() + m.start(), g.end() + m.start(), g.group()) for g in _NUMBERS["group"].finditer(m.group())]
        seps = [text[groups[k][1] : groups[k + 1][0]] for k in range(len(groups) - 1)]
        yield from _windows(groups, seps, before)


_MAX_DIGITS = 19  # the longest number of any kind (a card); an ID number is 18 with its X
_MAX_GROUPS = 48  # more groups in one chain than any spelled-out number has (bounds the work on adversarial text)


def _windows(groups: list[tuple[int, int, str]], seps: list[str], before: str) -> Iterator[_Span]:
    """Left to right, the longest window of groups (at most :data:`_MAX_DIGITS` digits) that is a known number."""
    i = 0
    while i < len(groups):
        last, digits = i, 0
        limit = i + 1 if len(groups) > _MAX_GROUPS else len(groups)  # a long table of numbers: one group at a time
        while last < limit and digits + len(groups[last][2]) <= _MAX_DIGITS:
            digits += len(groups[last][2])
            last += 1
        for j in range(last, i, -1):
            kind = _number_kind([g[2] for g in groups[i:j]], seps[i : j - 1], before)
            if kind:
                yield _Span(groups[i][0], groups[j - 1][1], kind)
                i = j
                break
        else:
            i += 1


def _number_kind(parts: list[str], seps: list[str], before: str) -> str | None:
    """What a window of digit groups is, if anything (``parts`` may end with an ``X`` of an ID number)."""
    digits = "".join(parts)
    if parts[0] in "xX" or not 9 <= len(digits) <= 19:  # SSN (9) … card (19): nothing else is PII
        return None
    sizes = [len(p) for p in parts if p not in "xX"]
    spelled = all(n == 1 for n in sizes) and len(sizes) > 4  # "1 3 8 1 2 3 4 5 6 7 8"
    blocky = len(sizes) == 1 or spelled or all(3 <= n <= 6 for n in sizes)
    one_sep = len({s.strip() or " " for s in seps}) <= 1
    if len(digits) == 18 and cn_id_valid(digits):
        return "id_number"
    if parts[-1] in "xX":
        return None
    if digits[0] in "23456" and luhn_valid(digits) and (blocky or _NUMBERS["card_context"].search(before)):
        return "bank_card"
    mobile = re.sub(r"^(?:0086|86)(?=1[3-9]\d{9}$)", "", digits)
    if re.fullmatch(r"1[3-9]\d{9}", mobile) and (blocky or all(n >= 3 for n in sizes)):
        return "phone"
    if sizes == [3, 2, 4] and one_sep and seps[0].strip() in ("-", "") and ssn_valid(digits):
        return "ssn"
    if len(sizes) == 1 and ssn_valid(digits) and _NUMBERS["ssn_context"].search(before):
        return "ssn"
    return _landline_or_nanp(sizes, seps, digits, before)


def _landline_or_nanp(sizes: list[int], seps: list[str], digits: str, before: str) -> str | None:
    dashed = bool(seps) and all(s.strip() in ("-", ".") and s.strip() == seps[0].strip() for s in seps)
    if sizes in ([3, 3, 4], [1, 3, 3, 4]) and (dashed or _NUMBERS["phone_context"].search(before)):
        return "phone" if digits[-10] in "23456789" else None  # North American: area codes start 2-9
    if len(sizes) == 2 and sizes[0] in (3, 4) and sizes[1] in (7, 8) and digits[0] == "0" and dashed:
        return "phone"  # Chinese landline 010-12345678
    return None


_INTL_PHONE = re.compile(r"(?<![\w+])(?:\+\d{1,3}|00[1-9]\d{0,2}(?=[ .-]))(?:[ .-]?\(?\d{1,4}\)?){2,7}(?!\d)")
_NANP_PAREN = re.compile(r"(?<!\w)(?:\+?1[ .-]?)?\(\d{3}\)\s?\d{3}[-.\s]\d{4}(?!\d)")
_CN_DIGITS = "零〇一二三四五六七八九幺两洞"
_CN_DIGIT_VALUE = {c: str(v) for c, v in zip(_CN_DIGITS, (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 0), strict=True)}
_DIGIT_HINT = re.compile(rf"[0-9{_CN_DIGITS}]")
_CN_NUMERAL_RUN = re.compile(rf"[{_CN_DIGITS}0-9](?:[\s、,，-]?[{_CN_DIGITS}0-9]){{10,14}}")


def _phones(text: str) -> Iterator[_Span]:
    if not _DIGIT_HINT.search(text):
        return
    for m in _INTL_PHONE.finditer(text):
        before = text[max(0, m.start() - 24) : m.start()]
        if 8 <= len(re.sub(r"\D", "", m.group())) <= 15 and not _NUMBERS["neg_context"].search(before):
            yield _Span(m.start(), m.end(), "phone")
    for m in _NANP_PAREN.finditer(text):
        yield _Span(m.start(), m.end(), "phone")
    for m in _CN_NUMERAL_RUN.finditer(text):
        run = m.group()
        digits = "".join(_CN_DIGIT_VALUE.get(c, c) for c in run if c in _CN_DIGIT_VALUE or c.isdigit())
        if sum(c in _CN_DIGIT_VALUE for c in run) >= 3 and re.fullmatch(r"(?:86)?1[3-9]\d{9}", digits):
            yield _Span(m.start(), m.end(), "phone")


_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\d)")
_IPV6 = re.compile(
    r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?:%[\w.]+)?(?![\w:]|\.\d)"
)


def _ips(text: str) -> Iterator[_Span]:
    if not re.search(r"[0-9A-Fa-f][.:]|::", text):
        return
    for m in _IPV4.finditer(text):
        if _is_ip(m.group()):
            yield _Span(m.start(), m.end(), "ip")
    for m in _IPV6.finditer(text):
        address = m.group().split("%")[0]
        groups = [g for g in address.split(":") if g]
        if not groups or not _is_ip(address):
            continue
        if "::" in address and not address.startswith("::") and not any(
            len(g) >= 3 or (len(g) == 2 and re.search("[a-fA-F]", g)) for g in groups
        ):
            continue  # "a::b" (C++ scope) or "10::20": not an address worth hiding
        yield _Span(m.start(), m.end(), "ip")


#: An IBAN, a passport number after its label, and a hint that a text may name a passport.
_BANK_AND_TRAVEL = compile_table({
    "iban": r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]){11,30}",
    "passport": (
        r"(?i)(?:passport|pass\s*no|travel\s+document|reisepass|passeport|pasaporte|passaporto|护照|旅行证件|通行证)"
        r"(?:\s*(?:number|no\.?|num|#|id|nr\.?|numéro|号码|号|编号))?(?:\s*(?:is|was|:|=|为|是|：))?\s*"
        r"(?P<p>[A-Za-z]{0,2}\s?\d{6,9}[A-Za-z]?|\d{2}[A-Za-z]{2}\d{5}|[A-Za-z0-9]{9})(?![A-Za-z0-9])"
    ),
    "passport_hint": r"(?i)pass|pasaport|travel|护照|旅行证件|通行证",
})


def _ibans(text: str) -> Iterator[_Span]:
    if not re.search(r"[A-Za-z]{2}\d{2}", text):
        return
    for m in _BANK_AND_TRAVEL["iban"].finditer(text):
        country = m.group()[:2].upper()
        want = _IBAN_LENGTHS.get(country)
        if not want:
            continue
        taken, end = 0, m.start()
        for k, ch in enumerate(m.group()):
            if ch.isalnum():
                taken += 1
                if taken == want:
                    end = m.start() + k + 1
                    break
        compact = re.sub(r"[ -]", "", text[m.start() : end])
        if taken == want and iban_valid(compact) and not (end < len(text) and text[end].isalnum()):
            yield _Span(m.start(), end, "iban")


def _passports(text: str) -> Iterator[_Span]:
    if not _BANK_AND_TRAVEL["passport_hint"].search(text):
        return
    for m in _BANK_AND_TRAVEL["passport"].finditer(text):
        token = m.group("p")
        compact = token.replace(" ", "")
        if sum(c.isdigit() for c in compact) < 5 or re.fullmatch(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])\d{2}", compact):
            continue  # "2030" or "20300501": an expiry date, not the number
        yield _Span(m.start("p"), m.end("p"), "passport")


_CN_ADDRESS = re.compile(
    r"(?:[\u4e00-\u9fff]{2,6}(?:省|自治区))?(?:[\u4e00-\u9fff]{2,6}(?:市|州|盟))?(?:[\u4e00-\u9fff]{1,6}(?:区|县|旗))?"
    r"[\u4e00-\u9fff0-9]{1,12}(?:路|街|大道|巷|弄|胡同|道)(?:[0-9一二三四五六七八九十]{1,3}段)?[0-9一二三四五六七八九十百零]{1,5}(?:号|號)"
    r"(?:[0-9一二三四五六七八九十]{1,4}(?:栋|幢|座|号楼|单元|室|层|楼)){0,4}(?:[0-9]{1,5}室?)?"
)
# A greedy Chinese address match may swallow the words before it ("我住在", "公司在", "寄到", "地址："): the
# placeholder starts after the last of these markers in its first characters.
_CN_LEAD = re.compile(r"^.{0,6}[在到于住是为寄址往去从向:，,\s]")
_STREET_WORDS = (
    r"Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Court|Ct\.?|Place|Pl\.?|"
    r"Way|Terrace|Square|Sq\.?|Highway|Hwy\.?|Parkway|Pkwy\.?|Close|Crescent|Straße|Strasse|Str\.|Allee|Weg|"
    r"Plaza|Loop|Circle|Trail|Alley|Row|Mews|Grove|Path|Pike|Turnpike|Expressway|Freeway"
)
_NAME_WORD = r"(?:[A-Z0-9][\w'.-]*|de|den|der|van|von|la|le|du|of|the)"
_EN_ADDRESS = re.compile(
    rf"(?<![\w-])\d{{1,5}}[A-Za-z]?\s+(?:{_NAME_WORD}\s+){{1,5}}(?i:{_STREET_WORDS})(?![\w])"
    r"(?:,?\s+(?i:Apt\.?|Apartment|Suite|Unit|#)\s*\w+)?"
    r"|(?<![\w-])\d{1,5}(?:bis|ter)?,?\s+(?i:rue|avenue|boulevard|place|chemin|allée|via|calle|avenida)\s+"
    r"(?:(?:de|du|des|la|le|del|di)\s+|l'|d')?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}"
)
# Lower-case addresses: the name words may not be function words, units or counted things ("5 miles down the road").
_LOWER_STOP = (
    r"the|a|an|to|from|down|up|on|in|at|of|and|or|for|by|with|across|along|over|past|near|my|our|your|their|his|her|"
    r"this|that|more|few|many|some|miles?|km|kilometers?|kilometres?|meters?|metres?|minutes?|mins?|hours?|blocks?|"
    r"steps?|kids?|people|times?|cars?|lanes?|ways?|days?|weeks?|years?|houses?|doors?|floors?|stops?|exits?|"
    r"crossed|walked|drove|ran|lived|live|lives|is|are|was|were|main\s+and"
)
_EN_ADDRESS_LOWER = re.compile(
    rf"(?<![\w-])\d{{1,5}}[a-z]?\s+(?:(?!(?:{_LOWER_STOP})\b)[a-z][a-z'-]+\s+){{1,3}}"
    r"(?:street|road|avenue|boulevard|lane|drive|court|place|terrace|square|highway|parkway|crescent|plaza|loop|"
    r"circle|trail|alley|mews|grove|turnpike|expressway|freeway|"
    r"(?:st|rd|ave|blvd|ln|dr|ct|pl|sq|hwy|pkwy)(?:\.|(?=\s*(?:,|$|\n))))(?![\w])"
)


def _addresses(text: str) -> Iterator[_Span]:
    cn = ("号" in text or "號" in text) and re.search("路|街|道|巷|弄|胡同", text)
    for m in _CN_ADDRESS.finditer(text) if cn else ():
        cut = _CN_LEAD.match(m.group())
        lead = cut.end() if cut else 0
        if re.search(r"路|街|大道|巷|弄|胡同|道", m.group()[lead:]):
            yield _Span(m.start() + lead, m.end(), "address")
    for pattern in (_EN_ADDRESS, _EN_ADDRESS_LOWER) if re.search(r"\d", text) else ():
        for m in pattern.finditer(text):
            yield _Span(m.start(), m.end(), "address")


def _more(text: str) -> Iterator[_Span]:
    """The detectors of :mod:`.pii_secrets` and :mod:`.pii_ids`; identity numbers and accounts after an order,
    invoice or tracking word stay (as digit chains do)."""
    for detect in (detect_secrets, detect_wallets, detect_ids, detect_places):
        for start, end, kind in detect(text):
            if kind in ("secret", "wallet") or not _NUMBERS["neg_context"].search(text[max(0, start - 24) : start]):
                yield _Span(start, end, kind)
    for start, end, digits in spelled_digit_runs(text):
        spelled = _number_kind([digits], [], text[max(0, start - 24) : start])
        if spelled is None and ((len(digits) == 10 and digits[0] in "23456789")
                                or (len(digits) == 11 and digits[0] in "01")):
            spelled = "phone"  # ten digits spelled out one by one (North America), eleven from 0 (UK) or 1
        if spelled is not None:
            yield _Span(start, end, spelled)


#: What no tier keeps, whatever ``redact_tiers`` says: a password, PIN, one-time or recovery code, seed phrase, API
#: key (``secret``) and a card number (``bank_card``). A permanent fact is the user's own record, but a credential in
#: it would be recalled into every prompt that asks about the user.
CREDENTIAL_KINDS = frozenset({"secret", "bank_card"})
#: Kinds read again in the Chinese-numeral view of a text (one numeral for one digit: spans hold).
_NUMERAL_KINDS = frozenset({"bank_card", "id_number", "account_number", "secret", "ssn", "iban"})
_DETECTORS = (_emails, _ibans, _chains, _passports, _phones, _ips, _addresses, _more)


# ------------------------------------------------------------------------------------------------------ redactor


@dataclass(frozen=True, slots=True)
class RedactionResult:
    """Redacted text and what was found (kind → count)."""

    text: str
    found: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.found)


def _replace(text: str, spans: Sequence[tuple[int, int, str]]) -> RedactionResult:
    """``text`` with each ``(start, end, kind)`` replaced by its placeholder, and the counts per kind."""
    if not spans:
        return RedactionResult(text, {})
    found: dict[str, int] = {}
    out, last = [], 0
    for start, end, kind in spans:
        out += [text[last:start], _PLACEHOLDER[kind]]
        last = end
        found[kind] = found.get(kind, 0) + 1
    out.append(text[last:])
    return RedactionResult("".join(out), found)


class Redactor:
    """Replaces PII with placeholders.

    Contract: :meth:`redact` returns the input unchanged when nothing is found; otherwise only the detected spans
    of the original text are replaced (by ``[KIND]``), and ``found`` counts them by kind. Overlapping detections
    are resolved by kind priority (:data:`ALL_KINDS` order), then by length.

    Args:
        kinds: Which kinds to redact (default: all of :data:`ALL_KINDS`).

    Raises:
        ValueError: An unknown kind.
    """

    def __init__(self, kinds: tuple[str, ...] | list[str] = ALL_KINDS) -> None:
        unknown = set(kinds) - set(ALL_KINDS)
        if unknown:
            raise ValueError(f"unknown PII kinds {sorted(unknown)}; known: {list(ALL_KINDS)}")
        self.kinds = tuple(kinds)

    def redact(self, text: str, only: frozenset[str] | None = None) -> RedactionResult:
        """Redact ``text`` (see the class contract); ``only``: just these of the redactor's kinds (e.g.
        :data:`CREDENTIAL_KINDS`, what every tier loses)."""
        return _replace(text, self.spans(text, only))

    def spans(self, text: str, only: frozenset[str] | None = None) -> list[tuple[int, int, str]]:
        """Where :meth:`redact` replaces: ``(start, end, kind)`` of ``text``, in order, not overlapping."""
        norm = normalize(text, fold_confusables=False)
        kinds = set(self.kinds) if only is None else set(self.kinds) & only
        found = [s for detect in _DETECTORS for s in detect(norm.text) if s.kind in kinds]
        numerals = norm.text.translate(CN_DIGITS)
        if numerals != norm.text:  # a number written in Chinese numerals ("卡号四一一一…", "密码是四四一七")
            found += [s for detect in _DETECTORS for s in detect(numerals) if s.kind in kinds and s.kind in _NUMERAL_KINDS]
        return [(*norm.span(sp.start, sp.end), sp.kind) for sp in self._select(found)]

    def redact_joined(self, texts: Sequence[str], only: frozenset[str] | None = None) -> list[str]:
        """``texts`` (messages of one turn, in order) each redacted (:meth:`redact`), and then each neighbouring
        pair read joined: a number or credential found only across the boundary ("my card is 4111 1111" then
        "1111 1111") is replaced in both — each part becomes the placeholder."""
        out = [self.redact(t, only).text for t in texts]
        for i in range(len(out) - 1):
            left, right = out[i], out[i + 1]
            cut = len(left) + 1  # where ``right`` starts in the joined text
            lefts, rights = [], []
            for start, end, kind in self.spans(left + " " + right, only):
                if start < cut - 1:
                    lefts.append((start, min(end, cut - 1), kind))
                if end > cut:
                    rights.append((max(start, cut) - cut, end - cut, kind))
            out[i], out[i + 1] = _replace(left, lefts).text, _replace(right, rights).text
        return out

    @staticmethod
    def _select(spans: list[_Span]) -> list[_Span]:
        """Non-overlapping spans, by kind priority then length, in text order."""
        chosen: list[_Span] = []
        for span in sorted(spans, key=lambda s: (ALL_KINDS.index(s.kind), s.start - s.end, s.start)):
            if all(span.end <= c.start or span.start >= c.end for c in chosen):
                chosen.append(span)
        return sorted(chosen, key=lambda s: s.start)


def log_redactions(redacted: Sequence[tuple[str, Mapping[str, int]]], total: int) -> None:
    """Tell the caller that PII was replaced before storing: one warning per write call on the
    ``hermes_memory.redaction`` logger, with the kinds and where to look (each memory's ``metadata["pii_redacted"]``).

    Args:
        redacted: ``(memory id, found kinds)`` of each memory whose text was redacted.
        total: How many memories the call stored.
    """
    if not redacted:
        return
    kinds: Counter[str] = Counter()
    for _mid, found in redacted:
        kinds.update(found)
    _LOG.warning(
        "hermes_memory: PII replaced by placeholders before storing %d of %d memories (%s; first id %s); each one's "
        "metadata['pii_redacted'] says which kinds (redact_pii, redact_tiers and redact_kinds control it)",
        len(redacted), total, ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())), redacted[0][0],
    )
