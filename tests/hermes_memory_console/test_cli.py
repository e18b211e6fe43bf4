"""``hermes-memory console``: one typed line (exit status 2) for what cannot be served, never a traceback, and no
store created where there is none."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.cli import build_parser, main
from tests.conftest import ADMIN, TEST_KEY, make_config
from tests.fakes import HashingEmbedder


def test_the_command_is_registered() -> None:
    args = build_parser().parse_args(["console", "--data-dir", "x", "--port", "0", "--read-only"])
    assert args.command == "console" and args.port == 0 and args.read_only is True


def test_no_store_no_console(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["console", "--data-dir", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ConfigError: no Hermes Memory store" in err
    assert not (tmp_path / "none").exists()


def test_a_bad_port_and_a_store_held_by_an_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("hermes_memory_core.engine.load_embedder", lambda *_a, **_k: HashingEmbedder())
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    data = tmp_path / "d"
    with MemoryProvider(make_config(data), caller=ADMIN) as mem:
        mem.add("The user likes green tea", user_id="u")
    assert main(["console", "--data-dir", str(data), "--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "InvalidInputError: cannot serve the console on 127.0.0.1:70000" in err
    with MemoryProvider(make_config(data), caller=ADMIN):  # the app holds the store
        assert main(["console", "--data-dir", str(data)]) == 2
        err = capsys.readouterr().err
        assert "StoreLockedError" in err and "hermes-memory console --read-only" in err and err.count("\n") == 1


@pytest.mark.real_model
def test_sigterm_closes_the_store(tmp_path: Path) -> None:
    data = tmp_path / "d"
    subprocess.run([sys.executable, "-m", "hermes_memory_core.cli", "add", "tea", "--user", "u", "--data-dir",
                    str(data)], check=True, capture_output=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    proc = subprocess.Popen([sys.executable, "-m", "hermes_memory_core.cli", "console", "--data-dir", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert proc.stdout is not None
    first = proc.stdout.readline() + proc.stdout.readline()
    assert "http://127.0.0.1:" in first and "token=" in first
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err
    with MemoryProvider(MemoryConfig(data_dir=data)) as mem:
        assert mem.stats().total_active == 1  # closed cleanly: the store opens for writing at once
