"""A store left open at exit is closed by the process that opened it: at a plain exit and at a default SIGTERM
(``docker stop``), so the turns of its open sessions are classified by the host model that process was given."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from tests.fakes import HashingEmbedder

CHILD = """
import json, os, signal, sys, time
sys.path.insert(0, sys.argv[2])
from hermes_memory_core import CallableLLM, MemoryConfig, MemoryProvider
from tests.fakes import HashingEmbedder

def model(prompt):
    if "memory classifier" in prompt:
        return json.dumps({"type": "permanent", "reason": "the host model", "key": "residence"})
    if "Rewrite the user's statement" in prompt:
        return "The user lives in Lyon."
    return ""

if sys.argv[3] == "own-handler":
    signal.signal(signal.SIGTERM, lambda n, f: (print("APP HANDLER", flush=True), os._exit(7)))
mem = MemoryProvider(MemoryConfig(data_dir=sys.argv[1]), embedder=HashingEmbedder())
chat = mem.session("u", "s1", llm=CallableLLM(model))
chat.add_messages([("user", "I live in Lyon."), ("assistant", "Noted.")])
if sys.argv[3] == "bare-except":  # an application loop that catches everything keeps serving through an exception
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(300):
        try:
            time.sleep(0.1)
        except:  # noqa: E722
            pass
    sys.exit(3)
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(30)
sys.exit(3)
"""

REPO = Path(__file__).resolve().parents[2]


def _reasons(data: Path) -> list[str]:
    with MemoryProvider(MemoryConfig(data_dir=data), embedder=HashingEmbedder()) as mem:
        mem.flush()
        return [str(r.metadata.get("reason")) for r in mem.list_memories(user_id="u") if not r.is_conversation]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_a_default_sigterm_ends_the_sessions_with_the_processes_model(tmp_path: Path) -> None:
    data = tmp_path / "store"
    res = subprocess.run([sys.executable, "-c", CHILD, str(data), str(REPO), "default"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == -signal.SIGTERM, res.stderr[-2000:]  # ended as the signal ends it
    assert _reasons(data) == ["the host model"]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_an_application_that_catches_everything_still_stops_on_sigterm(tmp_path: Path) -> None:
    """The stores are closed and the process ends even where the application's own ``except:`` would have caught an
    exception raised to stop it (trial seven: it kept serving until SIGKILL)."""
    data = tmp_path / "store"
    res = subprocess.run([sys.executable, "-c", CHILD, str(data), str(REPO), "bare-except"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == -signal.SIGTERM, res.stderr[-2000:]
    assert _reasons(data) == ["the host model"]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_an_applications_own_sigterm_handler_is_left_as_it_is(tmp_path: Path) -> None:
    data = tmp_path / "store"
    res = subprocess.run([sys.executable, "-c", CHILD, str(data), str(REPO), "own-handler"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 7 and "APP HANDLER" in res.stdout, res.stderr[-2000:]
