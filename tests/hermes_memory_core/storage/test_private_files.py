"""The data folder is 0700 and its files 0600 whatever the umask; a loose existing store is
tightened at open with one warning."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.storage.private_files import loose_entries
from tests.conftest import ADMIN, make_config


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _modes(folder: Path) -> dict[str, int]:
    out = {".": stat.S_IMODE(folder.stat().st_mode)}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            out[str(p.relative_to(folder))] = stat.S_IMODE(p.lstat().st_mode)
    return out


def test_new_store_is_private_under_an_open_umask(tmp_path: Path, embedder: Any, open_umask: None) -> None:
    data = tmp_path / "store"
    with MemoryProvider(make_config(data), embedder=embedder, caller=ADMIN) as mem:
        mem.add("The user's phone is in the notes", user_id="u")
        mem.add("The user is allergic to latex", user_id="u", memory_type="permanent")
        mem.session("u", "s1").add_messages([("user", "call me at 13812345678")])
        while_open = _modes(data)
        assert while_open["."] == 0o700 and while_open["metadata.sqlite"] == 0o600
    modes = _modes(data)
    assert "metadata.sqlite" in modes and any(k.startswith("vectors") for k in modes)
    loose = {k: oct(m) for k, m in modes.items() if m & 0o077}
    assert loose == {}, loose
    assert {m for k, m in modes.items() if (data / k).is_file()} == {0o600}


def test_a_loose_existing_store_is_tightened_with_a_warning(
    tmp_path: Path, embedder: Any, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "store"
    with MemoryProvider(make_config(data), embedder=embedder, caller=ADMIN) as mem:
        mem.add("The user likes green tea", user_id="u")
    os.chmod(data, 0o755)
    os.chmod(data / "metadata.sqlite", 0o644)
    assert loose_entries(data) == [". 0755", "metadata.sqlite 0644"] or set(loose_entries(data)) == {
        ". 0755", "metadata.sqlite 0644"}
    with caplog.at_level(logging.WARNING, logger="hermes_memory.files"), \
            MemoryProvider(make_config(data), embedder=embedder, caller=ADMIN) as mem:
        assert mem.search("green tea", user_id="u")  # the data is untouched
    warnings = [r.getMessage() for r in caplog.records if r.name == "hermes_memory.files"]
    assert len(warnings) == 1 and "metadata.sqlite 0644" in warnings[0] and str(data) in warnings[0]
    assert loose_entries(data) == []


def test_other_files_in_the_folder_are_left_alone(tmp_path: Path, embedder: Any, caplog: pytest.LogCaptureFixture,
                                                  ) -> None:
    data = tmp_path / "store"
    data.mkdir()
    (data / "notes.txt").write_text("mine")
    os.chmod(data / "notes.txt", 0o644)
    with caplog.at_level(logging.WARNING, logger="hermes_memory.files"), \
            MemoryProvider(make_config(data), embedder=embedder, caller=ADMIN) as mem:
        mem.add("The user likes green tea", user_id="u")
    assert stat.S_IMODE((data / "notes.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert not [r for r in caplog.records if r.name == "hermes_memory.files"]  # a new store is not "loose"
