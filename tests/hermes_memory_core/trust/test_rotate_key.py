"""``rotate-key`` hands the new key over durably before it commits, or changes nothing.

The key is written to a file and read back before the re-encryption commits; it is never only printed. A full or
closed stdout after the commit loses nothing; a key file that cannot be written, or that reads back wrong, leaves
the store under its old key.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import EncryptionKeyError, InvalidInputError, MemoryConfig, MemoryProvider
from hermes_memory_core.trust.encryption import read_key_file
from tests.conftest import ADMIN, TEST_KEY

FACT = "The user is allergic to penicillin"


def _store(path: Path, embedder: Any, key: str = TEST_KEY) -> str:
    with MemoryProvider(MemoryConfig(data_dir=path, encryption_key=key), embedder=embedder, caller=ADMIN) as mem:
        return mem.add(FACT, user_id="u", memory_type="permanent", tags=["health"])


def _reads_with(path: Path, key: str, mid: str, embedder: Any) -> bool:
    try:
        with MemoryProvider(MemoryConfig(data_dir=path, encryption_key=key), embedder=embedder, caller=ADMIN) as mem:
            return mem.get(mid).content == FACT and mem.search("penicillin", user_id="u")[0].id == mid
    except EncryptionKeyError:
        return False


def _cli(args: list[str], key: str, stdout: str = "pipe") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_MEMORY_ENCRYPTION_KEY": key, "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "hermes_memory_core.cli", *args]
    if stdout == "full":
        with open("/dev/full", "w") as full:
            return subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    if stdout == "closed":
        shell = " ".join(f"'{a}'" for a in cmd) + " >&-"
        return subprocess.run(["bash", "-c", shell], stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("stdout", ["full", "closed"])
def test_cli_rotation_survives_an_unwritable_stdout(tmp_path: Path, real_embedder: Any, stdout: str) -> None:
    data, out = tmp_path / "d", tmp_path / "keys" / "new.key"
    mid = _store(data, real_embedder)
    res = _cli(["rotate-key", "--data-dir", str(data), "--key-out", str(out)], TEST_KEY, stdout)
    assert res.returncode == (3 if stdout == "full" else 0), res.stderr[-2000:]
    if stdout == "full":
        assert "completed, but its output could not be written" in res.stderr
    assert out.stat().st_mode & 0o077 == 0
    new = base64.b64encode(read_key_file(out)).decode()
    assert new != TEST_KEY and new not in res.stderr
    assert _reads_with(data, new, mid, real_embedder)
    assert not _reads_with(data, TEST_KEY, mid, real_embedder)


def test_cli_never_prints_the_key(tmp_path: Path, real_embedder: Any) -> None:
    data, out = tmp_path / "d", tmp_path / "new.key"
    _store(data, real_embedder)
    res = _cli(["rotate-key", "--data-dir", str(data), "--key-out", str(out), "--json"], TEST_KEY)
    assert res.returncode == 0, res.stderr
    new = base64.b64encode(read_key_file(out)).decode()
    assert new not in res.stdout and str(out) in res.stdout


@pytest.mark.parametrize("where", ["missing", "under-a-file", "exists"])
def test_cli_rotation_without_a_usable_key_file_changes_nothing(tmp_path: Path, real_embedder: Any, where: str) -> None:
    data = tmp_path / "d"
    mid = _store(data, real_embedder)
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "taken.key").write_text("someone's file")
    args = ["rotate-key", "--data-dir", str(data)]
    if where == "under-a-file":
        args += ["--key-out", str(tmp_path / "a-file" / "new.key")]
    elif where == "exists":
        args += ["--key-out", str(tmp_path / "taken.key")]
    res = _cli(args, TEST_KEY)
    assert res.returncode == 2, res.stderr
    assert {"missing": "name a file", "under-a-file": "cannot write", "exists": "exists"}[where] in res.stderr
    assert _reads_with(data, TEST_KEY, mid, real_embedder)
    assert (tmp_path / "taken.key").read_text() == "someone's file"


def test_api_needs_a_file_for_a_configured_key(tmp_path: Path, embedder: Any) -> None:
    mid = _store(tmp_path / "d", embedder)
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d", encryption_key=TEST_KEY), embedder=embedder,
                        caller=ADMIN) as mem:
        with pytest.raises(InvalidInputError, match="save_to"):
            mem.rotate_key()
        key = mem.rotate_key(save_to=tmp_path / "new.key")
        assert read_key_file(tmp_path / "new.key") == key
        assert mem.get(mid).content == FACT and mem.search("penicillin", user_id="u", tags=["health"])[0].id == mid
    assert _reads_with(tmp_path / "d", base64.b64encode(key).decode(), mid, embedder)


def test_a_failed_commit_removes_the_new_key_and_keeps_the_old(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    mid = _store(tmp_path / "d", embedder)
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d", encryption_key=TEST_KEY), embedder=embedder,
                        caller=ADMIN) as mem:

        def broken(*args: Any, **kwargs: Any) -> int:
            raise RuntimeError("disk gone mid-transaction")

        monkeypatch.setattr(type(mem.engine.metadata.admin), "recode", broken)
        with pytest.raises(RuntimeError):
            mem.rotate_key(save_to=tmp_path / "new.key")
        assert not (tmp_path / "new.key").exists()
        assert mem.get(mid).content == FACT
    monkeypatch.undo()
    assert _reads_with(tmp_path / "d", TEST_KEY, mid, embedder)


def test_a_key_that_reads_back_wrong_aborts(tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_memory_core.trust import keys

    mid = _store(tmp_path / "d", embedder)
    monkeypatch.setattr(keys, "read_key_file", lambda path: b"\0" * 32)  # the disk returned something else
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d", encryption_key=TEST_KEY), embedder=embedder,
                        caller=ADMIN) as mem, pytest.raises(EncryptionKeyError, match="read back"):
        mem.rotate_key(save_to=tmp_path / "new.key")
    monkeypatch.undo()
    assert not (tmp_path / "new.key").exists()
    assert _reads_with(tmp_path / "d", TEST_KEY, mid, embedder)


def test_key_file_rotation_also_writes_save_to(tmp_path: Path, embedder: Any) -> None:
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d"), embedder=embedder, caller=ADMIN) as mem:
        mid = mem.add(FACT, user_id="u", memory_type="permanent")
        key = mem.rotate_key(save_to=tmp_path / "copy.key")
    assert read_key_file(tmp_path / "d" / "hermes.key") == key == read_key_file(tmp_path / "copy.key")
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d"), embedder=embedder, caller=ADMIN) as mem:
        assert mem.get(mid).content == FACT
