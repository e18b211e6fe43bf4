"""Configuration mistakes are one-line ``ConfigError``s, wherever they are made."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core import ConfigError, HermesMemoryError, MemoryConfig, MemoryProvider
from hermes_memory_core.config import PII_KINDS, RankingConfig
from hermes_memory_core.trust.redaction import ALL_KINDS
from tests.conftest import make_config
from tests.fakes import HashingEmbedder


@pytest.mark.parametrize(
    ("build", "names"),
    [
        (lambda: MemoryConfig(bogus=1), ["bogus: unknown setting"]),
        (lambda: MemoryConfig(data_dri="x"), ["data_dri", "did you mean 'data_dir'"]),
        (lambda: MemoryConfig(redact_kinds=["phone", "passprt"]), ["redact_kinds", "passprt", "passport"]),
        (lambda: MemoryConfig(redact_tiers=["long"]), ["redact_tiers", "'long'", "long_term"]),
        (lambda: MemoryConfig(ring_size=1), ["ring_size"]),
        (lambda: MemoryConfig(ring_size=4, summarize_turns=4), ["summarize_turns must be smaller"]),
        (lambda: MemoryConfig(ranking={"dense_weight": 2, "bogus": 1}), ["ranking.dense_weight", "ranking.bogus"]),
        (lambda: MemoryConfig(ranking={"dense_weight": 0, "keyword_weight": 0}), ["ranking: dense_weight"]),
        (lambda: RankingConfig(dense_wieght=0.5), ["did you mean 'dense_weight'"]),
        (lambda: MemoryConfig.from_mapping({"bogus": 1}), ["bogus: unknown setting"]),
    ],
)
def test_constructor_mistakes_are_config_errors(build, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError) as info:
        build()
    message = str(info.value)
    assert "\n" not in message and message.startswith("invalid Hermes Memory configuration: ")
    assert "pydantic" not in message
    for name in names:
        assert name in message
    assert isinstance(info.value, HermesMemoryError) and isinstance(info.value, ValueError)


def test_assignment_is_checked_too() -> None:
    cfg = MemoryConfig()
    with pytest.raises(ConfigError, match="ring_size"):
        cfg.ring_size = 0
    with pytest.raises(ConfigError, match="redact_kinds"):
        cfg.redact_kinds = ["bogus"]
    assert cfg.ring_size == 12


def test_the_config_knows_every_pii_kind_the_redactor_has() -> None:
    assert PII_KINDS == ALL_KINDS


def test_a_data_dir_that_is_a_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    for where in (tmp_path / "file", tmp_path / "file" / "below"):
        with pytest.raises(ConfigError, match=r"(?i)not a directory|cannot open the store"):
            MemoryProvider(make_config(where), embedder=HashingEmbedder())
