"""The offline relevance model: its shipped weights, the features it reads, the silence it decides, and the generator
that reproduces its weights."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.retrieval.relevance_model import (
    FEATURES,
    MODEL_PATH,
    RelevanceModel,
    default_model,
    line_features,
)
from hermes_memory_core.types import CONVERSATION_KIND, MemoryHit, MemoryRecord, MemoryType
from tests.conftest import make_config

FACTS = Path(__file__).parents[3] / "benchmarks" / "data" / "bilingual_facts.json"


def _hit(content: str, confidence: float | None, keyword: float | None = None, *, role: str | None = None,
         score: float = 1.0) -> MemoryHit:
    meta = {"kind": CONVERSATION_KIND, "role": role} if role else {}
    rec = MemoryRecord(id=content, user_id="u", session_id=None, content=content, memory_type=MemoryType.LONG_TERM,
                       importance=0.5, access_count=0, created_at=1, updated_at=1, expires_at=None, version=1,
                       metadata=meta)
    return MemoryHit(rec, score, score, None, keyword, confidence, bool(role))


def test_the_shipped_model_loads_and_a_file_for_other_features_is_refused(tmp_path: Path) -> None:
    model = default_model()
    assert MODEL_PATH.exists() and MODEL_PATH.suffix == ".npz"
    assert model.weights.shape == model.mean.shape == model.scale.shape == (len(FEATURES),)
    assert np.all(np.isfinite(model.weights)) and np.isfinite(model.bias) and np.all(model.scale > 0)
    other = tmp_path / "other.npz"
    np.savez(other, mean=model.mean, scale=model.scale, weights=model.weights, bias=np.array([model.bias]),
             features=np.array([*FEATURES[:-1], "something else"]))
    with pytest.raises(ValueError, match="features"):
        RelevanceModel.load(other)
    copy = tmp_path / "copy.npz"
    model.save(copy)
    again = RelevanceModel.load(copy)
    assert np.array_equal(again.weights, model.weights) and again.bias == model.bias


def test_features_are_computed_per_line() -> None:
    question = "Which medicine is Anna allergic to?"
    hits = [_hit("Anna is allergic to penicillin.", 6.0, 3.0),
            _hit("用户每周六早上去游泳。", 4.0),
            _hit("I think Anna said that too.", None, 1.5, role="user", score=0.5),
            _hit("Sure, noted.", 2.0, role="assistant", score=0.25)]
    rows = line_features(question, hits)
    assert rows.shape == (4, len(FEATURES))
    f = {name: rows[:, i].tolist() for i, name in enumerate(FEATURES)}
    assert f["confidence"] == [6.0, 4.0, 0.0, 2.0] and f["has_confidence"] == [1, 1, 0, 1]
    assert f["margin"] == [0.0, -2.0, 0.0, -4.0]
    assert f["keyword_share"] == [1.0, 0.0, 0.5, 0.0] and f["keyword_same_language"] == [1.0, 0.0, 0.5, 0.0]
    assert f["covers_focus"][0] == 1 and f["covers_focus"][1] == 0 and f["own_focus_share"][0] > 0
    assert f["user_line"] == [0, 0, 1, 0] and f["reply"] == [0, 0, 0, 1]
    assert f["shared_names"] == [1, 0, 1, 0]  # "Anna"
    assert f["rank"] == [1.0, 0.5, 1 / 3, 0.25] and f["score_share"] == [1.0, 1.0, 0.5, 0.25]
    assert line_features(question, []).shape == (0, len(FEATURES))


def test_the_model_decides_silence_and_leaves_lines_it_cannot_judge() -> None:
    model = default_model()
    hits = [_hit("Anna is allergic to penicillin.", 6.0, 3.0), _hit("用户每周六早上去游泳。", 4.0)]
    p = model.probabilities("Which medicine is Anna allergic to?", hits)
    assert p[0] > p[1]
    assert model.keep("Which medicine is Anna allergic to?", hits, float(p[0])) == hits  # all the lines, or none
    assert model.keep("Which medicine is Anna allergic to?", hits, float(p[0]) + 1e-6) == []
    unvectored = [_hit("Account tier: VIP", None, 2.0), _hit("用户每周六早上去游泳。", 4.0)]
    assert model.keep("What is my account tier?", unvectored, 1.0) == unvectored  # one line with a match: not judged
    assert model.keep("What is my account tier?", unvectored[1:], 1.0) == unvectored[1:]


@pytest.fixture(scope="module")
def fact_stores(tmp_path_factory: pytest.TempPathFactory, real_embedder: Embedder,
                ) -> Iterator[dict[float | None, MemoryProvider]]:
    """The fact set's memories in two stores: the offline model at its default threshold, and off."""
    data = json.loads(FACTS.read_text(encoding="utf-8"))
    items = [{"content": m["text"], "user_id": "lin", "memory_type": "long_term"}
             for m in [*data["facts"], *data["distractors"]]]
    default = MemoryConfig.model_fields["recall_relevance_threshold"].default
    stores = {}
    for threshold in (default, None):
        cfg = make_config(tmp_path_factory.mktemp("facts") / "s", recall_relevance_threshold=threshold)
        mem = MemoryProvider(cfg, embedder=real_embedder)
        mem.add_many(items)
        mem.flush()
        stores[threshold] = mem
    yield stores
    for mem in stores.values():
        mem.close()


def test_a_never_said_question_is_silent_and_answered_ones_keep_their_line(
    fact_stores: dict[float | None, MemoryProvider],
) -> None:
    default = MemoryConfig.model_fields["recall_relevance_threshold"].default
    judged, rules = fact_stores[default], fact_stores[None]
    never = "用户去过巴西吗？"  # never stored: the rules leave a trip to Xiamen; the model finds nothing answers
    assert rules.recall(never, user_id="lin")
    assert judged.recall(never, user_id="lin") == []
    for question, fact in (("用户对什么食物过敏？", "用户对花生过敏，吃了会起疹子。"),
                           ("What food is the user allergic to?", "用户对花生过敏，吃了会起疹子。"),
                           ("Which city does the user live in?", "用户住在杭州西湖区。"),
                           ("What is the user's favourite movie?", "The user's favourite film is Spirited Away.")):
        assert fact in [h.content for h in judged.recall(question, user_id="lin")]


def test_in_english_a_never_said_question_is_silent_at_a_stricter_threshold(tmp_path: Path,
                                                                           real_embedder: Embedder) -> None:
    facts = ["The user is allergic to penicillin.", "The user's daughter Emma is seven years old.",
             "The user drinks a flat white every morning.", "The user works as a nurse at a children's hospital.",
             "The user plays tennis with their brother on Sundays.", "The user's cat is called Miso.",
             "用户住在杭州西湖区。", "用户每周二晚上去游泳。", "用户的丈夫是中学物理老师。", "用户最喜欢的菜是红烧肉。",
             "用户在学日语。", "用户的车是白色的比亚迪。"]
    for threshold, silent in ((None, False), (0.5, True)):
        cfg = make_config(tmp_path / f"s{threshold}", recall_relevance_threshold=threshold)
        with MemoryProvider(cfg, embedder=real_embedder) as mem:
            mem.add_many([{"content": f, "user_id": "u", "memory_type": "long_term"} for f in facts])
            mem.flush()
            assert (mem.recall("What is my favourite TV show?", user_id="u") == []) is silent  # never said
            assert [h.content for h in mem.recall("What am I allergic to?", user_id="u")][:1] == facts[:1]
            assert [h.content for h in mem.recall("我住在哪里？", user_id="u")][:1] == ["用户住在杭州西湖区。"]
            # a floor the caller sets is theirs: the model stays out
            assert mem.recall("What is my favourite TV show?", user_id="u", min_score=3.7)


@pytest.mark.slow
def test_the_generator_reproduces_the_shipped_weights(real_embedder: Embedder) -> None:
    from benchmarks.relevance_training import build_rows, fit

    x, y, meta = build_rows(None)
    assert len(y) == len(meta) and 0 < y.sum() < len(y)
    assert not any("conv-" in m["question"] for m in meta)  # in-repo material only: no LoCoMo sample
    model, shipped = fit(x, y), default_model()
    for fresh, kept in ((model.mean, shipped.mean), (model.scale, shipped.scale), (model.weights, shipped.weights),
                        ([model.bias], [shipped.bias])):
        np.testing.assert_allclose(fresh, kept, rtol=1e-6, atol=1e-6)
