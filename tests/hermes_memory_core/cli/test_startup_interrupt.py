"""Ctrl-C while the ``hermes-memory`` command is still importing the package: one line and exit status 130.

The console script pip writes is run as written (a file named ``hermes-memory`` importing ``main``); the Ctrl-C is
sent by the process to itself at a known point of the imports, so the test does not depend on timing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

#: What pip's console script does, with a Ctrl-C arriving where the test says.
SCRIPT = """import os, signal, sys
{before}
os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C here
{after}
from hermes_memory_core.cli import main
sys.exit(main(["stats", "--data-dir", sys.argv[1]]))
"""


def _run(tmp_path: Path, name: str, before: str, after: str = "", ignore: bool = False) -> subprocess.CompletedProcess[str]:
    script = tmp_path / name
    script.write_text(SCRIPT.format(before=before, after=after), encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    handler = signal.SIG_IGN if ignore else signal.SIG_DFL  # a terminal's foreground command, or a background job
    return subprocess.run([sys.executable, str(script), str(tmp_path / "none")], env=env, cwd=tmp_path, text=True,
                          capture_output=True, timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, handler))


def test_ctrl_c_during_the_packages_imports_is_one_line_and_130(tmp_path: Path) -> None:
    done = _run(tmp_path, "hermes-memory", before="import hermes_memory_core._startup  # the package's first import",
                after="import hermes_memory_core")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "hermes-memory: interrupted while starting; nothing was written\n"


def test_once_main_runs_ctrl_c_is_keyboard_interrupt_again(tmp_path: Path) -> None:
    done = _run(tmp_path, "hermes-memory", before="import hermes_memory_core._startup as s\ns.ready()  # as main does",
                after="print('not reached')")
    assert done.returncode != 130 and "KeyboardInterrupt" in done.stderr and "not reached" not in done.stdout


@pytest.mark.parametrize(("name", "ignore"), [("not-the-command.py", False), ("hermes-memory", True)])
def test_only_the_command_with_ctrl_c_live_gets_the_handler(tmp_path: Path, name: str, ignore: bool) -> None:
    # another program importing the package keeps Python's KeyboardInterrupt; an ignored SIGINT stays ignored
    done = _run(tmp_path, name, before="import hermes_memory_core", ignore=ignore)
    if ignore:
        assert done.returncode == 2 and "no Hermes Memory store" in done.stderr  # the signal did nothing
    else:
        assert "KeyboardInterrupt" in done.stderr and done.returncode != 130
