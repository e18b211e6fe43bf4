"""How the CLI opens a store: its reading commands open an embedded store read-only, so they change nothing in it
and work beside a running app that holds it; writers are still turned away."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.cli import main
from hermes_memory_core.cli.common import READ_COMMANDS
from tests.conftest import TEST_KEY
from tests.fakes import HashingEmbedder


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_reading_commands_change_nothing_even_beside_the_app_that_holds_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("hermes_memory_core.engine.load_embedder", lambda *_a, **_k: HashingEmbedder())
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    data = tmp_path / "d"
    args = ["--data-dir", str(data)]
    app = MemoryProvider(MemoryConfig(data_dir=data))  # the running app: holds the store, a session open
    try:
        mid = app.add("The user likes green tea", user_id="u")
        app.session("u", "s1").add_messages([("user", "I always drink oolong in the morning"), ("assistant", "Noted")])
        app.flush()
        before = digest(data)
        outputs = []
        for argv in (["list", "--user", "u"], ["list", "--user", "u"], ["search", "green tea", "--user", "u"],
                     ["history", mid], ["stats"]):
            code = main([*argv, *args])
            out, err = capsys.readouterr()
            assert code == 0, err
            outputs.append(out)
        assert outputs[0] == outputs[1] and "green tea" in outputs[0] and "green tea" in outputs[2]
        assert digest(data) == before  # not a byte written, no session ended, nothing promoted
        assert main(["add", "written beside the app", "--user", "u", *args]) == 2
        assert "StoreLockedError" in capsys.readouterr().err
    finally:
        app.close()
    before = digest(data)
    assert main(["list", "--user", "u", *args]) == 0 and "green tea" in capsys.readouterr().out
    assert digest(data) == before
    assert {"list", "search", "history", "get", "recall", "stats"} == READ_COMMANDS
