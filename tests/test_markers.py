"""``pytest -m server`` selects every test that needs PostgreSQL, and ``-m "not server"`` none of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _collect(marker: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    env.pop("HERMES_TEST_POSTGRES_URL", None)  # what is collected must not depend on a server being there
    res = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", marker,
                          "tests"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode in (0, 5), res.stdout[-2000:] + res.stderr[-2000:]
    return [line for line in res.stdout.splitlines() if "::" in line]


@pytest.mark.slow  # collects the whole suite twice (~40 s on 2 cores)
def test_server_marker_covers_every_postgres_test() -> None:
    server = _collect("server")
    assert any("[server]" in t for t in server) and any("test_server_mode.py" in t for t in server)
    assert len(server) >= 30
    not_server = _collect("not server")
    assert [t for t in not_server if "[postgres]" in t or "-server]" in t or "[server]" in t
            or "test_server_mode.py" in t] == []
