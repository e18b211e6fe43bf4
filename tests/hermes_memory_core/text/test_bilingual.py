"""Chinese ↔ English term lookup from CC-CEDICT (hermes_memory_core.text.bilingual)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from hermes_memory_core.text.bilingual import (
    SHIPPED_TERMS,
    BilingualDictionary,
    DictionaryUnavailableError,
    default_dictionary,
    english_words,
)

# A few real CC-CEDICT lines (CC BY-SA 4.0), chosen to cover what the parser must keep and drop.
SAMPLE = """\
# CC-CEDICT sample
過敏 过敏 [guo4 min3] /oversensitive/allergic/allergy/
花生 花生 [hua1 sheng1] /peanut/groundnut/CL:粒[li4]/
用戶 用户 [yong4 hu4] /user/consumer/subscriber/customer/
血型 血型 [xue4 xing2] /blood group; blood type/
手機 手机 [shou3 ji1] /cell phone; mobile phone/
貓 猫 [mao1] /cat/CL:隻|只[zhi1]/(dialect) to hide oneself/(coll.) modem/
車 车 [Che1] /surname Che/
車 车 [che1] /car/vehicle/CL:輛|辆[liang4]/machine/
柏林 柏林 [Bo2 lin2] /Berlin, capital of Germany/
任務 任务 [ren4 wu5] /mission; assignment; task; duty; role/CL:項|项[xiang4],個|个[ge4]/
什麼 什么 [shen2 me5] /what?/something/anything/
杭州 杭州 [Hang2 zhou1] /Hangzhou subprovincial city and capital of Zhejiang province in southeast China/
咖啡 咖啡 [ka1 fei1] /coffee (loanword)/CL:杯[bei1]/
吖 吖 [a1] /used in transliteration/
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> BilingualDictionary:
    path = tmp_path_factory.mktemp("cedict") / "sample.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(SAMPLE)
    return BilingualDictionary.from_cedict(path)


def test_english_words_keeps_content_words_only() -> None:
    assert english_words("What food is the user's daughter allergic to?") == ["food", "user", "daughter", "allergic"]
    assert english_words("Allergies, peanuts and buses") == ["allergy", "peanut", "buse"]
    assert english_words("用户 likes 咖啡") == ["like"]


def test_glosses_take_the_first_senses_and_skip_pointers(sample: BilingualDictionary) -> None:
    assert sample.glosses("过敏") == ("oversensitive", "allergic")  # two senses by default
    assert sample.glosses("花生") == ("peanut", "groundnut")  # "CL:粒[li4]" is not a sense
    assert sample.glosses("车") == ("car", "vehicle")  # the surname entry gives nothing
    assert sample.glosses("任务") == ("mission", "assignment", "task", "duty", "role")  # synonyms of one sense
    assert sample.glosses("柏林") == ("berlin",)  # a proper noun keeps its name, not the description
    assert sample.glosses("杭州") == ("hangzhou",)
    assert sample.glosses("吖") == ()  # only a pointer ("used in transliteration")
    assert "什么" not in sample  # question words are stop words
    assert sample.glosses("不存在") == ()


def test_segment_by_longest_match(sample: BilingualDictionary) -> None:
    assert sample.segment("用户对花生过敏，住在杭州。") == ["用户", "对", "花生", "过敏", "住", "在", "杭州"]
    assert sample.segment("no Chinese here") == []


def test_english_terms_of_chinese_text(sample: BilingualDictionary) -> None:
    terms = sample.english_terms("用户对花生过敏，喝咖啡吗？")
    assert terms[:2] == ["user", "consumer"]
    assert {"peanut", "allergic", "coffee"} <= set(terms)
    assert "what" not in terms and "something" not in terms


def test_chinese_terms_of_english_text(sample: BilingualDictionary) -> None:
    assert "过敏" in sample.chinese_terms("Is the user allergic to peanuts?")
    assert "花生" in sample.chinese_terms("Is the user allergic to peanuts?")
    assert sample.chinese_terms("What is the user's blood type?")[:2] == ["用户", "血型"]  # the phrase is found
    assert sample.headwords("phone") == ("手机",)  # the head of "mobile phone"
    assert sample.headwords("cat") == ("猫",)  # a character through its first sense
    assert sample.headwords("modem") == ()  # ... and never through a later one
    assert sample.chinese_terms("no such words zzz") == []


def test_save_and_load_round_trip(sample: BilingualDictionary, tmp_path: Path) -> None:
    path = tmp_path / "terms.tsv.gz"
    sample.save(path)
    again = BilingualDictionary.load(path)
    assert len(again) == len(sample)
    for text in ("用户对花生过敏", "任务在柏林", "What is the user's blood type?", "mobile phone and a cat"):
        assert again.english_terms(text) == sample.english_terms(text)
        assert again.chinese_terms(text) == sample.chinese_terms(text)


def test_missing_files_raise_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(DictionaryUnavailableError):
        BilingualDictionary.load(tmp_path / "nope.tsv.gz")
    with pytest.raises(DictionaryUnavailableError):
        BilingualDictionary.from_cedict(tmp_path / "nope.txt")


def test_transliterated_names_and_slang_do_not_leak_glosses() -> None:
    words = default_dictionary()
    # 卡罗琳 (Caroline) must not become "stop" + "Rowling"; 梅兰妮 (Melanie) not "plum" + "girl"
    assert words.english_terms("卡罗琳研究了什么？") == ["research", "study"]
    terms = words.english_terms("梅兰妮和家人去露营")
    assert {"family", "camp"} <= set(terms) and not {"plum", "girl"} & set(terms)
    # bidirectional longest match: 我/去/了/意大利, not the slang 我去 ("oh my god")
    assert words.segment("我去了意大利") == ["我", "去", "了", "意大利"]
    assert words.english_terms("我去了意大利") == ["italy"]


def test_the_shipped_dictionary_translates_everyday_memory_words() -> None:
    assert SHIPPED_TERMS.is_file()
    words = default_dictionary()
    assert words is default_dictionary()  # loaded once per process
    assert len(words) > 50_000
    assert {"peanut", "allergic"} <= set(words.english_terms("用户对花生过敏"))
    assert {"daughter", "piano"} <= set(words.english_terms("女儿在学钢琴"))
    assert {"过敏", "花生"} <= set(words.chinese_terms("The user is allergic to peanuts"))
    assert "血型" in words.chinese_terms("What is the user's blood type?")
    assert "咖啡" in words.chinese_terms("coffee")
