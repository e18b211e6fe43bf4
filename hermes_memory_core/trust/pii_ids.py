"""National identity numbers of other countries, plates, accounts, medical records, coordinates and the shapes the
first detectors missed, for :mod:`hermes_memory_core.trust.redaction`.

``id_number`` (beside the Chinese resident ID), each checked by its own checksum or structure:

=====================  ==========================================================================================
India                  Aadhaar (12 digits, Verhoeff; grouped 4-4-4 or after "Aadhaar"), PAN ``ABCPE1234F``
United Kingdom         National Insurance number ``QQ 12 34 56 C`` (valid prefixes)
Canada                 SIN ``046 454 286`` (Luhn; grouped or after "SIN" / "social insurance")
Brazil                 CPF ``123.456.789-09`` (two check digits; bare 11 digits after "CPF")
Spain                  DNI ``12345678Z`` and NIE ``X1234567L`` (control letter)
Italy                  codice fiscale ``RSSMRA85T10A562S`` (check character)
France                 NIR ``1 84 12 76 451 089 46`` (key = 97 - n mod 97)
South Korea            resident registration number ``900101-1234568`` (check digit)
Singapore              NRIC / FIN ``S1234567D`` (check letter)
Hong Kong              HKID ``A123456(3)`` (check digit)
Taiwan                 national ID ``A123456789`` (check digit)
Mexico                 CURP ``GODE561231HDFRRN09`` (structure and check digit)
Sweden                 personnummer ``850709-9805`` (birth date and Luhn)
Russia                 SNILS ``112-233-445 95`` (checksum)
Japan, Netherlands,    My Number (12 digits, check digit), BSN (9 digits, 11-test), PESEL (11 digits,
Poland, Germany        checksum), Steuer-ID / Personalausweis — after their name ("マイナンバー", "BSN", …)
=====================  ==========================================================================================

``plate``: Chinese plates (``京A·12345``, new-energy ``粤B D12345``) anywhere; other countries' plates after
"licence / license / number / registration plate", "plate number", "reg", "Kennzeichen", "plaque", "matrícula",
"targa", "车牌", "ナンバー". ``account_number``: digits after "account number / acct / a/c / 账号 / 账户 /
routing / sort code / BSB / Kontonummer …". ``medical_record``: after "MRN / medical record / patient ID /
NHS number / 病历号 / 住院号 / 病案号". ``gps``: latitude/longitude pairs with hemisphere letters or degrees, or
with 4+ decimals each after a location word (or 5+ decimals anywhere). ``phone``: UK numbers ``07700 900123``,
``020 7946 0018``. ``bank_card``: cards written with slashes ``4111/1111/1111/1111``. ``address``: Chinese
addresses without 路/号 (province or city, district, and a building, estate, village or room).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from hermes_memory_core.text.patterns import compile_table

__all__ = ["detect_ids", "detect_places", "luhn_ok", "spelled_digit_runs", "verhoeff_ok"]

Found = tuple[int, int, str]

# ------------------------------------------------------------------------------------------------ checksums

_VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]


def verhoeff_ok(digits: str) -> bool:
    """The Verhoeff checksum of a digit string (Aadhaar)."""
    c = 0
    for i, ch in enumerate(reversed(digits)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum of a digit string of any length."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _cpf_ok(d: str) -> bool:
    if len(d) != 11 or len(set(d)) == 1:
        return False
    for n in (9, 10):
        s = sum(int(d[i]) * (n + 1 - i) for i in range(n)) * 10 % 11 % 10
        if s != int(d[n]):
            return False
    return True


def _dni_ok(t: str) -> bool:
    t = t.upper()
    body = t[:-1].replace("X", "0").replace("Y", "1").replace("Z", "2")
    return "TRWAGMYFPDXBNJZSQVHLCKE"[int(body) % 23] == t[-1]


_CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]


def _cf_ok(t: str) -> bool:
    t = t.upper()
    total = 0
    for i, ch in enumerate(t[:15]):
        v = int(ch) if ch.isdigit() else ord(ch) - 65
        total += _CF_ODD[v] if i % 2 == 0 else v
    return chr(65 + total % 26) == t[15]


def _nir_ok(d: str) -> bool:
    return len(d) == 15 and 97 - int(d[:13]) % 97 == int(d[13:])


def _rrn_ok(d: str) -> bool:
    w = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]
    return len(d) == 13 and (11 - sum(int(a) * b for a, b in zip(d[:12], w, strict=True)) % 11) % 10 == int(d[12])


def _nric_ok(t: str) -> bool:
    t = t.upper()
    w = [2, 7, 6, 5, 4, 3, 2]
    total = sum(int(a) * b for a, b in zip(t[1:8], w, strict=True)) + (4 if t[0] in "TG" else 3 if t[0] == "M" else 0)
    table = {"S": "JZIHGFEDCBA", "T": "JZIHGFEDCBA", "F": "XWUTRQPNMLK", "G": "XWUTRQPNMLK", "M": "KLJNPQRTUWX"}
    return table[t[0]][total % 11] == t[8]


def _hkid_ok(t: str) -> bool:
    t = re.sub(r"[()\s]", "", t.upper())
    letters, digits, check = t[:-7], t[-7:-1], t[-1]
    vals = ([36] if len(letters) == 1 else []) + [ord(c) - 55 for c in letters] + [int(c) for c in digits]
    total = sum(v * w for v, w in zip(vals, range(9, 1, -1), strict=True))
    want = (11 - total % 11) % 11
    return check == ("A" if want == 10 else str(want))


_TW_LETTERS = "ABCDEFGHJKLMNPQRSTUVXYWZIO"


def _tw_ok(t: str) -> bool:
    t = t.upper()
    n = _TW_LETTERS.index(t[0]) + 10
    vals = [n // 10, n % 10] + [int(c) for c in t[1:]]
    w = [1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1]
    return sum(a * b for a, b in zip(vals, w, strict=True)) % 10 == 0


def _curp_ok(t: str) -> bool:
    chars = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"
    t = t.upper()
    total = sum(chars.index(c) * (18 - i) for i, c in enumerate(t[:17]) if c in chars)
    return (10 - total % 10) % 10 == int(t[17])


def _personnummer_ok(d: str) -> bool:
    return 1 <= int(d[2:4]) <= 12 and 1 <= int(d[4:6]) % 60 <= 31 and luhn_ok(d[-10:])


def _snils_ok(d: str) -> bool:
    total = sum(int(c) * (9 - i) for i, c in enumerate(d[:9]))
    total = total % 101 % 100
    return total == int(d[9:])


def _mynumber_ok(d: str) -> bool:
    w = [6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2]
    r = sum(int(a) * b for a, b in zip(d[:11], w, strict=True)) % 11
    return (0 if r <= 1 else 11 - r) == int(d[11])


def _bsn_ok(d: str) -> bool:
    return len(d) == 9 and (sum(int(c) * (9 - i) for i, c in enumerate(d[:8])) - int(d[8])) % 11 == 0


def _pesel_ok(d: str) -> bool:
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    return len(d) == 11 and (10 - sum(int(a) * b for a, b in zip(d[:10], w, strict=True)) % 10) % 10 == int(d[10])


def _steuer_ok(d: str) -> bool:
    if len(d) != 11 or d[0] == "0":
        return False
    product = 10
    for c in d[:10]:
        total = (int(c) + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(d[10])


# ------------------------------------------------------------------------------------------------ national IDs

_B = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"
_CTX = r"(?:\s*(?:number|no\.?|num|nr\.?|#|id|号码|号|番号)?\s*(?:is|was|:|=|：|是|为|は)?\s*)"

#: (pattern, check of the matched text or None): structured numbers found anywhere.
_STRUCTURED: list[tuple[re.Pattern[str], Callable[[str], bool]]] = [
    (re.compile(_B + r"[2-9]\d{3}[ -]\d{4}[ -]\d{4}" + _E), lambda t: verhoeff_ok(_digits(t))),  # Aadhaar
    (re.compile(_B + r"[A-Z]{3}[ABCFGHLJPT][A-Z]\d{4}[A-Z]" + _E), lambda t: True),  # PAN
    (re.compile(_B + r"(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]" + _E),
     lambda t: True),  # UK NINO
    (re.compile(_B + r"[1-79]\d{2}[ -]\d{3}[ -]\d{3}" + _E), lambda t: luhn_ok(_digits(t))),  # Canada SIN
    (re.compile(_B + r"\d{3}\.\d{3}\.\d{3}-\d{2}" + _E), lambda t: _cpf_ok(_digits(t))),  # Brazil CPF
    (re.compile(_B + r"(?:\d{8}|[XYZ]\d{7})-?[A-Z]" + _E), lambda t: _dni_ok(t.replace("-", ""))),  # DNI / NIE
    (re.compile(_B + r"[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]" + _E), _cf_ok),  # codice fiscale
    (re.compile(_B + r"[12] ?\d{2} ?(?:0[1-9]|1[0-2]) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}" + _E),
     lambda t: _nir_ok(_digits(t))),  # France NIR
    (re.compile(_B + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])-[1-8]\d{6}" + _E),
     lambda t: _rrn_ok(_digits(t))),  # South Korea RRN
    (re.compile(_B + r"[STFGM]\d{7}[A-Z]" + _E), _nric_ok),  # Singapore NRIC / FIN
    (re.compile(_B + r"[A-Z]{1,2}\d{6}\s?\(?[0-9A]\)?(?![A-Za-z0-9])"), _hkid_ok),  # Hong Kong HKID
    (re.compile(_B + r"[A-Z][12]\d{8}" + _E), _tw_ok),  # Taiwan
    (re.compile(_B + r"[A-Z][AEIOUX][A-Z]{2}\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[HM][A-Z]{5}[0-9A-Z]\d" + _E),
     _curp_ok),  # Mexico CURP
    (re.compile(_B + r"(?:19|20)?\d{6}[-+]\d{4}" + _E), lambda t: _personnummer_ok(_digits(t))),  # Sweden
    (re.compile(_B + r"\d{3}-\d{3}-\d{3}[ -]\d{2}" + _E), lambda t: _snils_ok(_digits(t))),  # Russia SNILS
]

#: (context words, digits pattern, check): numbers that are only IDs after their name.
_NAMED: list[tuple[str, str, Callable[[str], bool]]] = [
    (r"aadhaar|aadhar|आधार|uidai", r"[2-9]\d{3} ?\d{4} ?\d{4}", lambda d: verhoeff_ok(d)),
    (r"\bSIN\b|social\s+insurance", r"\d{3}[ -]?\d{3}[ -]?\d{3}", luhn_ok),
    (r"\bCPF\b", r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}", _cpf_ok),
    (r"マイナンバー|個人番号|my\s*number", r"\d{4} ?\d{4} ?\d{4}", _mynumber_ok),
    (r"\bBSN\b|burgerservicenummer|sofinummer", r"\d{9}|\d{4}\.\d{2}\.\d{3}", _bsn_ok),
    (r"\bPESEL\b", r"\d{11}", _pesel_ok),
    (r"steuer-?id|steueridentifikationsnummer|identifikationsnummer|\bIdNr\b", r"\d{2} ?\d{3} ?\d{3} ?\d{3}",
     _steuer_ok),
    (r"주민등록번호|resident\s+registration", r"\d{6}-?[1-8]\d{6}", _rrn_ok),
    (r"\bSNILS\b|СНИЛС", r"\d{3}-?\d{3}-?\d{3}[ -]?\d{2}", _snils_ok),
    (r"personnummer", r"(?:19|20)?\d{6}[-+]?\d{4}", _personnummer_ok),
    (r"\bNIR\b|s[ée]curit[ée]\s+sociale|num[ée]ro\s+INSEE", r"[12] ?\d{2} ?\d{2} ?\d{2} ?\d{3} ?\d{3} ?\d{2}",
     _nir_ok),
    (r"\bTFN\b|tax\s+file\s+number", r"\d{3} ?\d{3} ?\d{3}", lambda d: len(d) == 9 and sum(
        int(c) * w for c, w in zip(d, (1, 4, 3, 7, 5, 8, 6, 9, 10), strict=True)) % 11 == 0),
    (
        (r"personalausweis|ausweisnummer|identity\s+card|id\s+card|carte\s+d'identit[ée]|national\s+id|"
         r"documento\s+de\s+identidad|身分证|身份证号?"),
        r"[A-Z0-9]{8,12}",
        lambda d: sum(c.isdigit() for c in d) >= 5,
    ),
]
_NAMED_RE = [
    (re.compile(rf"(?i)(?:{ctx}){_CTX}[\"'(]?(?P<v>{digits})" + _E), check) for ctx, digits, check in _NAMED
]


def _named(text: str, pattern: re.Pattern[str], check: Callable[[str], bool], kind: str) -> Iterator[Found]:
    for m in pattern.finditer(text):
        value = m.group("v")
        compact = re.sub(r"[\s.\-]", "", value)
        if check(compact):
            yield m.start("v"), m.end("v"), kind


def detect_ids(text: str) -> Iterator[Found]:
    """Other countries' identity numbers in ``text`` as ``(start, end, "id_number")``."""
    if not re.search(r"\d", text):
        return
    for pattern, check in _STRUCTURED:
        for m in pattern.finditer(text):
            if check(m.group()):
                yield m.start(), m.end(), "id_number"
    for pattern, check in _NAMED_RE:
        yield from _named(text, pattern, check, "id_number")


# ------------------------------------------------------------------------------------------------ other kinds

#: The other kinds of personal data: licence plates, account and medical record numbers after their labels, GPS
#: coordinates and the words that make a pair of numbers one, UK phone numbers, cards written with slashes, and
#: Chinese places with what leads up to one.
_OTHER_KINDS = compile_table({
    "cn_plate": (
        r"[京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼][A-HJ-NP-Z][·•・\s-]?"
        r"(?:[DF][A-HJ-NP-Z0-9]\d{4}|\d{5}[DF]|[A-HJ-NP-Z0-9]{4}[A-HJ-NP-Z0-9挂学警港澳])(?![A-Za-z0-9])"
    ),
    "plate": (
        r"(?i)(?:licen[cs]e\s+plate|number\s+plate|registration(?:\s+plate|\s+number)?|plate(?:\s+number|\s+no\.?)?|"
        r"\breg(?:\.|istration)?\s*(?:no\.?|number)?|kennzeichen|nummernschild|plaque(?:\s+d'immatriculation)?|"
        r"immatriculation|matr[ií]cula|targa|车牌(?:号码?)?|ナンバー(?:プレート)?|번호판)"
        r"(?:\s*(?:is|was|:|=|：|是|为|reads|says)\s*|\s+)[\"'“]?"
        r"(?P<v>(?=[A-Z0-9 -]*\d)(?=[A-Z0-9 -]*[A-Z])[A-Z0-9]{1,4}(?:[ -]?[A-Z0-9]{1,4}){1,3}|[\u4e00-\u9fff][A-Z][·•]?[A-Z0-9]{5,6})"
        r"(?![A-Za-z0-9])"
    ),
    "account": (
        r"(?i)(?:(?:bank\s+|checking\s+|savings\s+|current\s+)?account\s*(?:number|no\.?|num|#)|acct\.?\s*(?:no\.?|#|number)?|"
        r"a/c\s*(?:no\.?)?|routing\s*(?:number|no\.?|#)?|sort\s+code|\bBSB\b|kontonummer|num[ée]ro\s+de\s+(?:compte|cuenta)|"
        r"n[úu]mero\s+de\s+conta|conto\s+corrente|账号|帐号|账户号?码?|帳號|口座番号|계좌번호)"
        r"(?:\s*(?:is|was|:|=|：|是|为|は)\s*|\s+)[\"']?"
        r"(?P<v>\d[\d -]{4,24}\d)(?!\d)"
    ),
    "medical": (
        r"(?i)(?:\bMRN\b|medical\s+record(?:\s+(?:number|no\.?|#))?|patient\s+(?:id|number|no\.?)|health\s+card(?:\s+number)?|"
        r"\bNHS\s+(?:number|no\.?)|hospital\s+(?:number|id)|病历号|病历|住院号|病案号|门诊号|就诊卡号|医保卡号)"
        r"(?:\s*(?:is|was|:|=|：|是|为)\s*|\s+)[\"']?"
        r"(?P<v>[A-Z]{0,4}[-#]?\d[\d -]{3,14}\d[A-Z]?)(?![A-Za-z0-9])"
    ),
    "gps_hemi": (
        r"(?<![\w.])\d{1,3}(?:\.\d+)?°?(?:\s*\d{1,2}['′](?:\s*\d{1,2}(?:\.\d+)?[\"″])?)?\s*[NS],?\s*"
        r"\d{1,3}(?:\.\d+)?°?(?:\s*\d{1,2}['′](?:\s*\d{1,2}(?:\.\d+)?[\"″])?)?\s*[EW](?![A-Za-z])"
    ),
    "gps_dec": r"(?<![\w.])(?P<a>-?\d{1,2}\.(?P<da>\d{4,}))\s*,\s*(?P<b>-?\d{1,3}\.(?P<db>\d{4,}))(?![\w.])",
    "gps_context": r"(?i)gps|coord|lat(?:itude)?|lon(?:gitude)?|location|located|position|pin(?:ned)?|maps?|坐标|位置|定位|经纬度|住",
    "uk_phone": r"(?<![\d+])(?:07\d{3}\s?\d{6}|0[1-3]\d{1,3}\s\d{3,4}\s?\d{3,4})(?![\d])",
    "slash_card": r"(?<![\d/])\d{4}(?:/\d{4}){2}/\d{4}(?:/\d{1,3})?(?![\d/])",
    "cn_place": (
        r"(?:[\u4e00-\u9fff]{2,6}(?:省|自治区))?[\u4e00-\u9fff]{2,6}市[\u4e00-\u9fff]{1,6}(?:区|县)"
        r"[\u4e00-\u9fff0-9]{0,16}?(?:"
        r"[0-9一二三四五六七八九十]{1,4}(?:栋|幢|座|号楼|单元|室|层|楼)(?:[0-9一二三四五六七八九十]{1,4}(?:栋|幢|座|号楼|单元|室|层|楼))*"
        r"(?:[0-9]{2,5}室?)?"
        r"|[\u4e00-\u9fff]{1,8}(?:小区|花园|公寓|大厦|新村|家园|苑|村|组|社区)(?:[0-9一二三四五六七八九十]{1,4}(?:栋|幢|座|号楼|单元|室|层|楼))*)"
    ),
    "cn_lead": r"^.{0,6}[在到于住是为寄址往去从向:：，,\s]",
})


def _in_range(a: str, b: str) -> bool:
    return abs(float(a)) <= 90 and abs(float(b)) <= 180


def detect_places(text: str) -> Iterator[Found]:
    """Plates, accounts, medical records, coordinates, UK phones, slashed cards and Chinese addresses without
    路/号, as ``(start, end, kind)``."""
    for m in _OTHER_KINDS["cn_plate"].finditer(text):
        yield m.start(), m.end(), "plate"
    for m in _OTHER_KINDS["cn_place"].finditer(text):
        lead = _OTHER_KINDS["cn_lead"].match(m.group())
        yield m.start() + (lead.end() if lead else 0), m.end(), "address"
    if not re.search(r"\d", text):
        return
    for m in _OTHER_KINDS["plate"].finditer(text):
        yield m.start("v"), m.end("v"), "plate"
    for m in _OTHER_KINDS["account"].finditer(text):
        if len(_digits(m.group("v"))) >= 6:
            yield m.start("v"), m.end("v"), "account_number"
    for m in _OTHER_KINDS["medical"].finditer(text):
        if len(_digits(m.group("v"))) >= 5:
            yield m.start("v"), m.end("v"), "medical_record"
    for m in _OTHER_KINDS["gps_hemi"].finditer(text):
        if re.search(r"[.°'′]", m.group()):
            yield m.start(), m.end(), "gps"
    for m in _OTHER_KINDS["gps_dec"].finditer(text):
        five = len(m.group("da")) >= 5 and len(m.group("db")) >= 5 and max(abs(float(m.group(k))) for k in "ab") >= 1
        before = text[max(0, m.start() - 40) : m.start()]
        if _in_range(m.group("a"), m.group("b")) and (five or _OTHER_KINDS["gps_context"].search(before)):
            yield m.start(), m.end(), "gps"
    for m in _OTHER_KINDS["uk_phone"].finditer(text):
        if len(_digits(m.group())) == 11:
            yield m.start(), m.end(), "phone"
    for m in _OTHER_KINDS["slash_card"].finditer(text):
        if m.group()[0] in "23456" and luhn_ok(_digits(m.group())):
            yield m.start(), m.end(), "bank_card"


_WORD_DIGITS = {"zero": "0", "oh": "0", "o": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
                "six": "6", "seven": "7", "eight": "8", "nine": "9", "niner": "9"}
_SPELLED = re.compile(
    r"(?i)(?<![A-Za-z])(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|niner)"
    r"(?:[\s,-]+(?:zero|oh|o|one|two|three|four|five|six|seven|eight|nine|niner|double|triple)){8,22}(?![A-Za-z])"
)


def spelled_digit_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """Numbers spelled digit by digit in English words ("four one one one …", "double five"), as
    ``(start, end, digits)`` for runs of 9 or more digits."""
    for m in _SPELLED.finditer(text):
        digits, repeat = [], 1
        for word in re.findall(r"[A-Za-z]+", m.group().lower()):
            if word in ("double", "triple"):
                repeat = 2 if word == "double" else 3
                continue
            digits.append(_WORD_DIGITS[word] * repeat)
            repeat = 1
        number = "".join(digits)
        if len(number) >= 9:
            yield m.start(), m.end(), number
