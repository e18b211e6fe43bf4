"""Text normalisation for the injection guard and PII redaction: one canonical form of what a reader sees.

Attackers and careless users write the same thing many ways: ``ｉｇｎｏｒｅ`` (full width), ``іgnоrе`` (Cyrillic
look-alikes), ``𝐢𝐠𝐧𝐨𝐫𝐞`` (mathematical letters), ``ig\u200bnore`` (a zero-width space), ``ig\u00adnore``
(a soft hyphen), ``１３８\u200b1234 5678`` (a phone number). Detectors run on the canonical form, never on the raw text.

Two entry points:

* :func:`normalize` keeps an **index map** from every character of the canonical text back to the original, so
  the redactor can replace the right span of the *original* text and leave the rest untouched.
* :func:`fold` is the guard's lossy form (no map): :func:`normalize` plus accents stripped, case folded,
  quotes and dashes unified and whitespace collapsed. :func:`guard_views` adds the cheap de-obfuscated readings
  of a text (letters split by separators joined, leetspeak, rot13, decoded base64 / hex / URL / HTML / ``\\u``
  escapes) that the guard checks as well.

The canonical form (:func:`normalize`):

1. Invisible characters are removed: format characters (Unicode category ``Cf``: zero-width space / joiner /
   non-joiner, word joiner, soft hyphen, BOM, bidi controls, tag characters, ...), variation selectors, the
   combining grapheme joiner and the Hangul fillers.
2. Each character is NFKC-normalised: full-width forms, mathematical alphanumerics, circled and squared
   letters, ligatures and compatibility ideographs become their plain form (``＠`` → ``@``, ``１`` → ``1``).
3. Look-alikes are folded (:data:`CONFUSABLES`): Cyrillic, Greek, Armenian and small-capital letters that look
   Latin; regional-indicator and negative-squared letters.
4. Decimal digits of every script become ASCII digits.
5. ``%XX`` URL escapes that decode to printable text are decoded (``%2B86`` → ``+86``).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import codecs
import html
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote

__all__ = ["CONFUSABLES", "Normalized", "fold", "guard_views", "is_invisible", "normalize", "squashed_runs"]

_PAIRS = (
    # Cyrillic → Latin
    "аa вb еe ёe кk мm нh оo рp сc тt уy хx ѕs іi їi јj ԁd ԛq ԝw һh ӏl ɡg ьb ԍg ҫc ӓa ӧo ӱy"
    " АA ВB ЕE ЁE КK МM НH ОO РP СC ТT УY ХX ЅS ІI ЇI ЈJ ԌG ԚQ ԜW Һh Ӏl"
    # Greek → Latin
    " αa βb γy εe ζz ηn ιi κk νv οo ρp σo τt υu χx ωw ϲc ϳj ϱp ςs"
    " ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX Ϲc"
    # Armenian, Latin extensions, small capitals
    " օo սu ոn հh ցg ɑa ɩi ıi ȷj ʟl ɪi ᴀa ʙb ᴄc ᴅd ᴇe ꜰf ɢg ʜh ᴊj ᴋk ᴍm ɴn ᴏo ᴘp ʀr ꜱs ᴛt ᴜu ᴠv ᴡw ʏy ᴢz"
    # punctuation look-alikes
    " ‘' ’' ‚' ‛' ′' “\" ”\" „\" ‟\" ″\" «\" »\" ‐- ‑- ‒- –- —- ―- −- ﹣- ։: ꞉: ∶: ˸: ․. ‧. ⁄/ ∕/"
)
#: Look-alike characters and what they are read as (applied after NFKC).
CONFUSABLES: dict[str, str] = {p[0]: p[1:] for p in _PAIRS.split()}
for _i in range(26):  # regional indicators 🇦-🇿 and negative squared 🅰-🆉 read as letters
    CONFUSABLES[chr(0x1F1E6 + _i)] = chr(ord("a") + _i)
    CONFUSABLES[chr(0x1F170 + _i)] = chr(ord("A") + _i)

_EXTRA_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0\u2800")


def is_invisible(ch: str) -> bool:
    """True for a character a reader does not see: format controls (``Cf``), variation selectors, fillers."""
    cp = ord(ch)
    return (
        unicodedata.category(ch) == "Cf"
        or 0xFE00 <= cp <= 0xFE0F
        or 0xE0100 <= cp <= 0xE01EF
        or ch in _EXTRA_INVISIBLE
    )


@lru_cache(maxsize=8192)
def _fold_char(ch: str, confusables: bool = True) -> str:
    """The canonical form of one character (may be empty or several characters)."""
    if is_invisible(ch):
        return ""
    out = []
    for c in unicodedata.normalize("NFKC", ch):
        c = CONFUSABLES.get(c, c) if confusables else c
        if c.isdecimal() and not c.isascii():
            c = str(unicodedata.decimal(c))
        out.append(c)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Normalized:
    """Canonical text with a map back to the original.

    The map is piecewise: ``segments`` holds ``(canonical start, original start, original end, identity)`` for
    runs copied unchanged (``identity``: the run maps character for character) and for each changed piece
    (several canonical characters may share one original span, e.g. ``½`` → ``1⁄2`` or ``%2B`` → ``+``). It is
    empty when the text was already canonical.
    """

    original: str
    text: str
    segments: tuple[tuple[int, int, int, bool], ...] = ()
    _starts: tuple[int, ...] = ()

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span ``[a, b)`` that canonical ``text[start:end]`` (non-empty) came from.

        Invisible characters inside the span are included; those at its edges are not.
        """
        if not self.segments:
            return start, end
        c0, o0, o1, same = self.segments[bisect.bisect_right(self._starts, start) - 1]
        a = o0 + (start - c0) if same else o0
        c0, o0, o1, same = self.segments[bisect.bisect_right(self._starts, end - 1) - 1]
        b = o0 + (end - c0) if same else o1
        return a, b


_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
# Characters that may change: everything but ASCII (and "%" when escapes are decoded) and CJK ideographs.
_MAY_CHANGE = re.compile(r"[^\x00-\x7f\u3400-\u4dbf\u4e00-\u9fff]")
_MAY_CHANGE_PCT = re.compile(r"(?:%[0-9A-Fa-f]{2})+|[^\x00-\x7f\u3400-\u4dbf\u4e00-\u9fff]")


def normalize(text: str, *, decode_percent: bool = True, fold_confusables: bool = True) -> Normalized:
    """The canonical form of ``text`` with its index map (see the module docstring for the steps).

    ``fold_confusables=False`` skips step 3 (the redactor keeps Cyrillic e-mail addresses Cyrillic).

    Contract: ``normalize(t).text`` never contains an invisible character; characters that need no change map
    to themselves; ``span`` maps any canonical span back onto the original text.
    """
    pattern = _MAY_CHANGE_PCT if decode_percent else _MAY_CHANGE
    out: list[str] = []
    segments: list[tuple[int, int, int, bool]] = []
    c = i = 0
    for m in pattern.finditer(text):
        if m.start() > i:
            out.append(text[i : m.start()])
            segments.append((c, i, m.start(), True))
            c += m.start() - i
        if m.group().startswith("%"):
            pieces = list(_decode_percent(m.group(), m.start(), fold_confusables))
        else:
            pieces = [(_fold_char(m.group(), fold_confusables), m.start(), m.end())]
        for piece, a, b in pieces:
            if piece:
                out.append(piece)
                segments.append((c, a, b, piece == text[a:b]))
                c += len(piece)
        i = m.end()
    if not segments:
        return Normalized(text, text)
    if i < len(text):
        out.append(text[i:])
        segments.append((c, i, len(text), True))
    canonical = "".join(out)
    if canonical == text:
        return Normalized(text, text)
    return Normalized(text, canonical, tuple(segments), tuple(seg[0] for seg in segments))


def _decode_percent(run: str, offset: int, confusables: bool) -> Iterator[tuple[str, int, int]]:
    """Decode a run of ``%XX`` escapes into (text, original start, original end) pieces, one per character.

    An escape that does not start a printable UTF-8 character is kept as it is.
    """
    raw = bytes(int(run[k + 1 : k + 3], 16) for k in range(0, len(run), 3))
    k = 0
    while k < len(raw):
        width = 1 if raw[k] < 0x80 else 2 if raw[k] >> 5 == 0b110 else 3 if raw[k] >> 4 == 0b1110 else 4
        try:
            ch = raw[k : k + width].decode("utf-8")
        except UnicodeDecodeError:
            ch = ""
        a = offset + 3 * k
        if len(ch) == 1 and ch.isprintable():
            yield _fold_char(ch, confusables), a, a + 3 * width
            k += width
        else:
            yield run[3 * k : 3 * k + 3], a, a + 3
            k += 1


# ---------------------------------------------------------------------------------------------------- the guard


def fold(text: str) -> str:
    """The guard's reading of ``text``: canonical form, accents stripped, case folded, spacing collapsed.

    Lossy and unmapped: for detection only, never for storage.
    """
    return " ".join(_fold_keep_space(text).split())


def _fold_keep_space(text: str) -> str:
    canonical = normalize(text, decode_percent=False).text
    if not canonical.isascii():
        stripped = "".join(c for c in unicodedata.normalize("NFKD", canonical) if not unicodedata.combining(c))
        canonical = unicodedata.normalize("NFC", stripped)
        canonical = "".join(CONFUSABLES.get(c, c) for c in canonical)
    return canonical.casefold()


_SPACED = re.compile(r"(?<![\w@$!|+€£])[^\W\d_](?P<sep>[ .\-_*·/|+~,])[^\W\d_](?:(?P=sep)[^\W\d_])*(?![\w@$!|+€£])")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
                       "@": "a", "$": "s", "!": "i", "|": "l", "+": "t", "€": "e", "£": "l"})
_LEET_TOKEN = re.compile(r"(?=[\w@$!|+€£]*[a-z])(?=[\w@$!|+€£]*[013457893@$!|+€£])[\w@$!|+€£]{2,}")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{12,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?:\\x[0-9a-fA-F]{2}){4,}|(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}[ :]?){6,}(?![0-9a-fA-F])")
_UESC = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}){2,}")


def _join_spaced(text: str) -> str:
    """``i g n o r e  a l l`` → ``ignore all``; ``i-g-n-o-r-e`` → ``ignore`` (runs of 2+ single letters with one
    separator between them are joined; a different or doubled separator ends a word)."""
    return _SPACED.sub(lambda m: m.group().replace(m.group("sep"), ""), text)


def squashed_runs(text: str) -> list[str]:
    """The letters of every run of 8+ single letters split by one repeated separator, joined without spaces.

    ``i g n o r e a l l r u l e s`` → ``ignoreallrules``: word gaps are lost, so the guard matches these runs
    with patterns that need no spaces.
    """
    folded = _fold_keep_space(text)
    return [m.group().replace(m.group("sep"), "") for m in _SPACED.finditer(folded) if len(m.group()) >= 15]


#: Words where a leetspeak ``1`` reads as ``l`` rather than ``i`` (``ru1es``, ``gu1del1nes``).
_L_WORDS = frozenset(
    "all rule rules role roles policy policies filter filters guideline guidelines limit limits unlimited "
    "developer model leak leaks reveal tell list full level only always follow play elevate unlock delete "
    "email emails login password passwords illegal law laws please let release learn loyal slave control "
    "protocol protocols moral morals ethical legal clearance privilege privileges".split()
)


def _deleet_token(token: str) -> str:
    """One token read as leetspeak; each ``1`` becomes ``i`` or ``l``, whichever makes a word in _L_WORDS."""
    tail = len(token) - len(token.rstrip("!"))  # "feels!" is punctuation, not "feelsi"
    token, rest = (token[:-tail], token[-tail:]) if tail else (token, "")
    return _deleet_word(token) + rest


def _deleet_word(token: str) -> str:
    plain = token.translate(_LEET)
    ones = [i for i, c in enumerate(token) if c == "1"]
    if not ones or len(ones) > 4:
        return plain
    for mask in range(1, 1 << len(ones)):
        chars = list(plain)
        for bit, pos in enumerate(ones):
            if mask >> bit & 1:
                chars[pos] = "l"
        candidate = "".join(chars)
        if candidate in _L_WORDS:
            return candidate
    return plain


def _deleet(text: str) -> str:
    """Read leetspeak in tokens that mix letters with digits or symbols (``1gn0r3 ru1es`` → ``ignore rules``)."""
    return _LEET_TOKEN.sub(lambda m: _deleet_token(m.group()), text)


def _printable_text(raw: bytes) -> str | None:
    """``raw`` as text when it is valid UTF-8 made of mostly letters and spaces, else None."""
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(decoded) < 4 or not all(c.isprintable() or c.isspace() for c in decoded):
        return None
    letters = sum(c.isalpha() or c.isspace() for c in decoded)
    return decoded if letters >= 0.7 * len(decoded) else None


def _decoded_segments(text: str) -> Iterator[str]:
    """Texts hidden in ``text`` by a cheap encoding: base64, hex, URL escapes, HTML entities, ``\\u`` escapes,
    Unicode tag characters (invisible copies of ASCII, read in the original ``text``)."""
    if any(0xE0020 <= ord(c) <= 0xE007E for c in text):
        yield "".join(chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else c for c in text)
    text = normalize(text, decode_percent=False).text
    for m in _BASE64.finditer(text):
        token = m.group().rstrip("=")
        token += "=" * (-len(token) % 4)
        for decoder in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                found = _printable_text(decoder(token))
            except (binascii.Error, ValueError):
                continue
            if found:
                yield found
                break
    for m in _HEX.finditer(text):
        digits = re.sub(r"\\x|[ :]", "", m.group())
        if len(digits) % 2 == 0:
            found = _printable_text(bytes.fromhex(digits))
            if found:
                yield found
    if "%" in text:
        yield unquote(text)
    if "&" in text and ";" in text:
        yield html.unescape(text)
    if _UESC.search(text):
        yield _UESC.sub(lambda m: _unescape(m.group()), text)


def _unescape(run: str) -> str:
    try:
        return codecs.decode(run, "unicode_escape")
    except UnicodeDecodeError:
        return run


def guard_views(text: str, *, depth: int = 2) -> list[str]:
    """Every reading of ``text`` the guard checks: its :func:`fold`, then de-obfuscated variants.

    Variants (each folded, deduplicated, the plain fold first): letters split by separators joined; leetspeak
    read; rot13 of Latin text; and, up to ``depth`` levels deep, the views of
    every segment that decodes from base64, hex, URL escapes, HTML entities or ``\\u`` escapes.
    """
    spaced = _fold_keep_space(text)
    base = " ".join(spaced.split())
    views = [base]
    joined = " ".join(_join_spaced(spaced).split())
    views.append(joined)
    if re.search(r"[0-9@$!|+€£]", joined):
        views += [_deleet(base), _deleet(joined)]
    if sum(c.isascii() and c.isalpha() for c in base) >= 8:
        views.append(codecs.encode(base, "rot13"))
    if depth > 0:
        for segment in _decoded_segments(text):
            if segment != text:
                views += guard_views(segment, depth=depth - 1)
    return list(dict.fromkeys(views))
