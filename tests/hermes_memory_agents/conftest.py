"""Fixtures of the agent-integration tests: stores on the shared test embedder, and hermes-agent 0.19 installed
into its own folder (its exact pins clash with ours, so it never enters this environment)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hermes_memory_agents import cores
from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.embedding import Embedder

#: The Hermes Agent release the provider is tested against.
HERMES_AGENT_VERSION = "0.19.0"
#: A folder that already holds ``pip install --no-deps --target DIR hermes-agent==0.19.0 pyyaml`` (skips the
#: install; for repeated local runs).
HERMES_AGENT_PATH_ENV = "HERMES_AGENT_019_PATH"
_OFFLINE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|"
    r"Network is unreachable|Could not fetch URL|ConnectTimeout|ReadTimeout|ProxyError",
    re.IGNORECASE,
)


@pytest.fixture
def core_factory(embedder: Embedder) -> Callable[[MemoryConfig], MemoryProvider]:
    """Opens stores on the session's embedder (loading one per store would only cost time)."""
    return lambda config: MemoryProvider(config, embedder=embedder)


@pytest.fixture(autouse=True)
def _no_open_cores() -> Iterator[None]:
    """Every test leaves no store open in the shared registry."""
    yield
    leaked = cores.open_count()
    assert leaked == 0, f"{leaked} store(s) left open by the test"


@pytest.fixture(scope="session")
def hermes_agent_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hermes-agent 0.19.0 (+ PyYAML) installed with pip into a temporary folder, once per test session.

    Skipped only when pip cannot reach the package index; any other install failure fails the tests.
    """
    given = os.environ.get(HERMES_AGENT_PATH_ENV)
    if given and (Path(given) / "agent" / "memory_provider.py").exists():
        return Path(given)
    target = tmp_path_factory.mktemp("hermes-agent-0.19")
    _pip_target(target, [f"hermes-agent=={HERMES_AGENT_VERSION}", "pyyaml"], deps=False)
    return target


def _pip_target(target: Path, requirements: list[str], *, deps: bool) -> None:
    """``pip install --target`` with this interpreter; skips when the package index cannot be reached."""
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", str(target),
           *([] if deps else ["--no-deps"]), *requirements]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if res.returncode != 0:
        output = res.stdout + res.stderr
        if _OFFLINE.search(output):
            pytest.skip(f"pip cannot reach the package index to install {' '.join(requirements)}: "
                        f"{output.strip().splitlines()[-1]}")
        pytest.fail(f"pip install {' '.join(requirements)} failed:\n{output}")


@pytest.fixture(scope="session")
def hermes_runtime_dir(hermes_agent_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """hermes-agent's own requirements that this environment lacks (an ``AIAgent`` imports them), installed into a
    temporary folder once per session; None when nothing is missing. Appended to ``sys.path`` by its users, so
    every package this environment has is still ours."""
    from email import message_from_string
    from importlib import metadata

    from packaging.requirements import Requirement

    info = next(hermes_agent_dir.glob(f"hermes_agent-{HERMES_AGENT_VERSION}.dist-info"))
    requires = message_from_string((info / "METADATA").read_text(encoding="utf-8")).get_all("Requires-Dist") or []
    missing = []
    for line in requires:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            metadata.version(req.name)
        except metadata.PackageNotFoundError:
            missing.append(str(req))
    if not missing:
        return None
    target = tmp_path_factory.mktemp("hermes-agent-runtime")
    _pip_target(target, missing, deps=True)
    return target


@pytest.fixture
def hermes_env(hermes_agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Hermes Agent importable and ``HERMES_HOME`` a fresh temporary folder (returned)."""
    home = tmp_path / "hermes_home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.syspath_prepend(str(hermes_agent_dir))
    return home
