"""A restored store keeps its key where later opens find it, and restore's errors say what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core import BundleError, Caller, EncryptionKeyError, MemoryConfig, MemoryProvider
from tests.conftest import TEST_KEY
from tests.fakes import HashingEmbedder

ADMIN = Caller.admin("tests")


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A bundle of a store whose key lives in its default key file (``<data_dir>/hermes.key``)."""
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "a"), embedder=HashingEmbedder(), caller=ADMIN) as mem:
        mem.add("The user is allergic to penicillin", user_id="u", memory_type="permanent")
        mem.add("The user likes green tea", user_id="u")
        mem.export(tmp_path / "bundle")
    assert (tmp_path / "a" / "hermes.key").exists()
    return tmp_path / "bundle"


def _open(path: Path, **config: object) -> MemoryProvider:
    return MemoryProvider(MemoryConfig(data_dir=path, **config), embedder=HashingEmbedder(), caller=ADMIN)  # type: ignore[arg-type]


def test_without_a_key_the_error_names_both_ways_to_give_one(bundle: Path, tmp_path: Path) -> None:
    with pytest.raises(EncryptionKeyError) as info:
        MemoryProvider.restore(bundle, MemoryConfig(data_dir=tmp_path / "b"), embedder=HashingEmbedder())
    message = str(info.value)
    assert "HERMES_MEMORY_ENCRYPTION_KEY" in message and "--key-file" in message and "\n" not in message
    assert f"the bundle {bundle} holds" in message  # the folder the user gave, not the private copy read
    assert not (tmp_path / "b" / "metadata.sqlite").exists()


def test_a_key_file_given_to_restore_is_kept_with_the_store(bundle: Path, tmp_path: Path) -> None:
    key_file = tmp_path / "a" / "hermes.key"
    cfg = MemoryConfig(data_dir=tmp_path / "b", encryption_key_file=key_file)
    with MemoryProvider.restore(bundle, cfg, embedder=HashingEmbedder(), caller=ADMIN) as mem:
        assert mem.stats().total_active == 2
    assert (tmp_path / "b" / "hermes.key").read_bytes() == key_file.read_bytes()
    with _open(tmp_path / "b") as again:  # a later open with no key given finds it
        hits = again.search("penicillin", user_id="u", memory_types=["permanent"])
        assert hits[0].content == "The user is allergic to penicillin"


def test_a_key_from_the_configuration_is_never_written(tmp_path: Path) -> None:
    with _open(tmp_path / "a", encryption_key=TEST_KEY) as mem:
        mem.add("The user is allergic to penicillin", user_id="u", memory_type="permanent")
        mem.export(tmp_path / "bundle")
    cfg = MemoryConfig(data_dir=tmp_path / "b", encryption_key=TEST_KEY)
    MemoryProvider.restore(tmp_path / "bundle", cfg, embedder=HashingEmbedder(), caller=ADMIN).close()
    assert not (tmp_path / "b" / "hermes.key").exists()


def test_restoring_into_a_store_names_the_overwrite_flag(bundle: Path, tmp_path: Path) -> None:
    with _open(tmp_path / "busy") as other:
        other.add("existing data", user_id="x")
    cfg = MemoryConfig(data_dir=tmp_path / "busy", encryption_key_file=tmp_path / "a" / "hermes.key")
    with pytest.raises(BundleError, match=r"overwrite=True .*hermes-memory restore --overwrite"):
        MemoryProvider.restore(bundle, cfg, embedder=HashingEmbedder())
