"""Permanent memories are encrypted at rest: no plaintext in any file, bundle or vector payload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_memory_core import Caller, EncryptionKeyError, MemoryConfig, MemoryProvider
from tests.conftest import ADMIN, TEST_KEY, make_config

FACTS = [
    "The user is allergic to peanuts and shellfish",
    "用户的身份证姓名是张晓梅",
    "The user's employer is Quantoria Biolabs",
    "用户对青霉素过敏",
]
SECRETS = ["peanuts", "shellfish", "张晓梅", "Quantoria", "Biolabs", "青霉素"]


def _all_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def _assert_no_plaintext(blob: bytes, where: str) -> None:
    for secret in SECRETS:
        assert secret.encode("utf-8") not in blob, f"{secret!r} found in {where}"


def test_no_plaintext_in_files_bundle_or_payloads(mem: MemoryProvider, tmp_path: Path) -> None:
    ids = [mem.add(f, user_id="u", memory_type="permanent") for f in FACTS]
    mem.update(ids[0], "The user is allergic to peanuts, shellfish and Quantoria dust", version_note="more")
    mem.add("The user likes jazz", user_id="u")  # long-term stays searchable in plaintext
    assert mem.get(ids[1]).content == FACTS[1]
    assert mem.history(ids[0])[0].content == FACTS[0]
    assert mem.search("peanuts", user_id="u", memory_types=["permanent"])[0].id == ids[0]  # hashed keyword index
    assert mem.search("张晓梅", user_id="u")[0].id == ids[1]
    mem.flush()
    _assert_no_plaintext(_all_bytes(mem.data_dir), "the data dir")
    mem.export(tmp_path / "bundle")
    _assert_no_plaintext(_all_bytes(tmp_path / "bundle"), "the export bundle")
    payloads = json.dumps([p.payload for b in mem.engine.vectors.iter_points(with_vectors=False) for p in b], ensure_ascii=False)
    _assert_no_plaintext(payloads.encode(), "vector payloads")
    assert b"jazz" in _all_bytes(mem.data_dir)  # the scan can see plaintext when it is there


def test_missing_and_wrong_key(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    with MemoryProvider(make_config(tmp_path / "d"), embedder=embedder, caller=ADMIN) as mem:
        mem.add("用户对青霉素过敏", user_id="u", memory_type="permanent")
    with pytest.raises(EncryptionKeyError, match="no key"):
        MemoryProvider(MemoryConfig(data_dir=tmp_path / "d"), embedder=embedder)
    other = "ZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmY="
    with pytest.raises(EncryptionKeyError, match="wrong key"):
        MemoryProvider(MemoryConfig(data_dir=tmp_path / "d", encryption_key=other), embedder=embedder)
    with pytest.raises(EncryptionKeyError, match="32 bytes"):
        MemoryProvider(MemoryConfig(data_dir=tmp_path / "d", encryption_key="short"), embedder=embedder)
    with MemoryProvider(make_config(tmp_path / "d"), embedder=embedder, caller=ADMIN) as mem:
        assert mem.search("青霉素", user_id="u")[0].content == "用户对青霉素过敏"


def test_default_key_file_and_rotation(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "d"
    with MemoryProvider(MemoryConfig(data_dir=data), embedder=embedder, caller=ADMIN) as mem:
        mem.add("no permanent yet", user_id="u")
        assert not (data / "hermes.key").exists()  # created with the first permanent memory
        mid = mem.add("The user is allergic to peanuts", user_id="u", memory_type="permanent")
        assert (data / "hermes.key").stat().st_mode & 0o077 == 0
        old = (data / "hermes.key").read_text()
        mem.rotate_key()
        assert (data / "hermes.key").read_text() != old
        assert mem.get(mid).content == "The user is allergic to peanuts"
        assert mem.search("peanuts", user_id="u", memory_types=["permanent"])[0].id == mid
    with MemoryProvider(MemoryConfig(data_dir=data), embedder=embedder, caller=ADMIN) as mem:
        assert mem.get(mid).content == "The user is allergic to peanuts"
    (data / "hermes.key").write_text(old)
    with pytest.raises(EncryptionKeyError):
        MemoryProvider(MemoryConfig(data_dir=data), embedder=embedder)


def test_rotation_interrupted_after_commit_recovers(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    from hermes_memory_core.trust.encryption import ContentCipher, generate_key, write_key_file

    data = tmp_path / "d"
    with MemoryProvider(MemoryConfig(data_dir=data), embedder=embedder, caller=ADMIN) as mem:
        mid = mem.add("The user is allergic to peanuts", user_id="u", memory_type="permanent")
        new = generate_key()
        write_key_file(data / "hermes.key.new", new)  # as rotate_key does first ...
        from hermes_memory_core.trust.at_rest import SealingCodec

        store = mem.engine.metadata
        with store.atomic():  # ... then commits; "crash" before the rename
            store.admin.recode(("permanent",), SealingCodec(ContentCipher(new), ("permanent",)))
            store.set_meta("key_check", ContentCipher(new).check_value())
    with MemoryProvider(MemoryConfig(data_dir=data), embedder=embedder, caller=ADMIN) as mem:
        assert mem.get(mid).content == "The user is allergic to peanuts"
    assert not (data / "hermes.key.new").exists()


def test_rotation_needs_permission(mem: MemoryProvider) -> None:
    from hermes_memory_core import PermissionDeniedError

    with pytest.raises(PermissionDeniedError):
        mem.rotate_key(caller=Caller("reader", read_permanent=True))
    assert TEST_KEY
