"""Language detection and language-calibrated dense scores (hermes_memory_core.text.language)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hermes_memory_core.embedding import Embedder
from hermes_memory_core.text.language import (
    DenseCalibrator,
    LanguageProfile,
    chinese_share,
    language_of,
    load_corpus,
)


def test_chinese_share_and_language() -> None:
    assert chinese_share("用户对花生过敏") == 1.0
    assert chinese_share("The user is allergic to peanuts") == 0.0
    assert chinese_share("") == 0.0 and chinese_share("2024-05-01 !!") == 0.0
    assert language_of("用户写代码只用 Vim") == "zh"  # a Latin word inside Chinese text
    assert language_of("The user's cat is called 年糕") == "en"
    assert language_of("") == "en"


def test_the_shipped_corpus_is_parallel_chinese_and_english() -> None:
    pairs = load_corpus()
    assert len(pairs) >= 100
    assert all(language_of(zh) == "zh" and language_of(en) == "en" for zh, en in pairs)
    assert len({zh for zh, _ in pairs}) == len(pairs)


@pytest.fixture(scope="module")
def embedder(real_embedder: Embedder) -> Embedder:
    """The real default model: calibration is about its vectors (the fake test embedder has no profile)."""
    return real_embedder


@pytest.fixture(scope="module")
def profile(embedder: Embedder) -> LanguageProfile:
    found = LanguageProfile.for_model(embedder.model_id)
    assert found is not None, f"no shipped language profile for the default model {embedder.model_id}"
    return found


def test_the_shipped_profile_matches_the_default_model(embedder: Embedder, profile: LanguageProfile) -> None:
    assert profile.background["zh"].shape == profile.background["en"].shape == (len(load_corpus()), embedder.dim)
    assert LanguageProfile.for_model("some/other-model") is None
    rebuilt = LanguageProfile.build(embedder, load_corpus()[:5])
    # the shipped vectors are this model's (float16 in the file)
    np.testing.assert_allclose(rebuilt.background["en"], profile.background["en"][:5], atol=2e-3)


def test_profile_save_and_load(profile: LanguageProfile, tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    profile.save(path)
    again = LanguageProfile.load(path)
    assert again.model_id == profile.model_id
    for lang in ("zh", "en"):
        np.testing.assert_allclose(again.query_means[lang], profile.query_means[lang])
        np.testing.assert_allclose(again.background[lang], profile.background[lang], atol=2e-3)


def test_same_language_order_is_the_cosine_order(embedder: Embedder, profile: LanguageProfile) -> None:
    docs = ["The user is allergic to peanuts", "The user drinks coffee every morning", "My cat sleeps all day"]
    vecs = embedder.embed_documents(docs)
    query = embedder.embed_query("What is the user allergic to?")
    cal = DenseCalibrator(profile, query, "en")
    z = cal.z(vecs, ["en"] * 3)
    cos = vecs @ (query / np.linalg.norm(query))
    assert list(np.argsort(-z)) == list(np.argsort(-cos))
    assert cal.z_from_cosine(float(cos[0]), "en") == pytest.approx(z[0], rel=1e-4)
    with pytest.raises(ValueError, match="needs its vector"):
        cal.z_from_cosine(0.8, "zh")


@pytest.mark.parametrize(
    ("question", "answer", "others"),
    [
        ("用户对什么过敏？", "The user is allergic to peanuts.", ["用户住在杭州西湖区。", "用户每天早上喝一杯美式咖啡。"]),
        ("用户住在哪个城市？", "The user lives in Hangzhou.", ["用户对花生过敏。", "用户的女儿今年六岁。"]),
        ("How old is the user's daughter?", "用户的女儿今年六岁。", ["The user lives in Berlin.", "The user likes tea."]),
    ],
)
def test_a_cross_language_answer_beats_same_language_noise(
    embedder: Embedder, profile: LanguageProfile, question: str, answer: str, others: list[str]
) -> None:
    docs = [answer, *others]
    vecs = embedder.embed_documents(docs)
    query = embedder.embed_query(question)
    raw = vecs @ (query / np.linalg.norm(query))
    z = DenseCalibrator(profile, query, language_of(question)).z(vecs, [language_of(d) for d in docs])
    assert int(np.argmax(z)) == 0, (z, raw)


def test_a_translated_query_is_calibrated_on_the_same_scale(embedder: Embedder, profile: LanguageProfile) -> None:
    """With the query's dictionary translation, cross-language scores are still z-scores against the background
    (so the same floor applies), and same-language scores do not change."""
    docs = ["The user plays badminton every Wednesday evening.", "用户每周二和周四晚上去游泳。", "The sky is blue."]
    vecs = embedder.embed_documents(docs)
    langs = [language_of(d) for d in docs]
    question = "用户每周三晚上做什么运动？"
    query = embedder.embed_query(question)
    plain = DenseCalibrator(profile, query, "zh")
    translated = DenseCalibrator(profile, query, "zh", embedder.embed_query("every Wednesday evening sport"))
    z_plain, z_translated = plain.z(vecs, langs), translated.z(vecs, langs)
    assert z_translated[1] == pytest.approx(z_plain[1])  # the Chinese memory: same-language, untouched
    assert z_translated[0] > z_translated[2]  # the English answer stands out from unrelated English
    background = translated.z(profile.background["en"], ["en"] * len(profile.background["en"]))
    assert abs(float(background.mean())) < 1e-3 and float(background.std()) == pytest.approx(1.0, abs=1e-3)
