"""The provider inside hermes-agent 0.19: installed by ``hermes-memory hermes-agent install``, found and loaded by
Hermes' own plugin discovery, and driven through Hermes' ``MemoryManager`` (no LLM)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_agents import cores
from hermes_memory_agents.cli import main
from hermes_memory_agents.hermes_install import plugin_init_source
from tests.conftest import TEST_KEY

TURNS = [
    ("My name is Lin Wei and I work as a data engineer.", "Nice to meet you, Lin."),
    ("I'm allergic to peanuts.", "Noted, no peanuts."),
    ("I prefer Python over Java for data pipelines.", "Python it is."),
    ("hi", "Hello!"),
] + [(f"Let's plan step {i} of the Airflow migration", f"Step {i}: done.") for i in range(11)]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    monkeypatch.delenv("HERMES_MEMORY_DATA_DIR", raising=False)


def install(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hermes-agent", "install", "--hermes-home", str(home), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"plugin_dir": str(home / "plugins" / "hermes_memory"), "hermes_home": str(home), "replaced": False}
    (home / "config.yaml").write_text("memory:\n  provider: hermes_memory\n")


def test_hermes_discovers_and_loads_the_installed_provider(hermes_env: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from agent.memory_provider import MemoryProvider
    from plugins.memory import discover_memory_providers, find_provider_dir, load_memory_provider

    assert load_memory_provider("hermes_memory") is None  # not installed yet
    install(hermes_env, capsys)
    assert find_provider_dir("hermes_memory") == hermes_env / "plugins" / "hermes_memory"
    found = {name: (desc, available) for name, desc, available in discover_memory_providers()}
    assert found["hermes_memory"][1] is True and "Hermes Memory" in found["hermes_memory"][0]
    provider = load_memory_provider("hermes_memory")
    assert isinstance(provider, MemoryProvider) and provider.name == "hermes_memory"
    assert provider.get_config_schema()[0]["key"] == "data_dir"


def test_memory_manager_drives_a_whole_session(hermes_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agent.memory_manager import MemoryManager, build_memory_context_block
    from plugins.memory import load_memory_provider

    install(hermes_env, capsys)
    provider = load_memory_provider("hermes_memory")
    assert provider is not None
    manager = MemoryManager()
    manager.add_provider(provider)
    manager.initialize_all(session_id="s1", platform="cli", agent_context="primary", agent_identity="default")
    try:
        assert provider.disabled_reason is None
        assert Path(provider.memory.config.data_dir) == hermes_env / "hermes_memory"
        assert "# Hermes Memory" in manager.build_system_prompt()
        assert [s["name"] for s in manager.get_all_tool_schemas()] == [
            "hermes_memory_search", "hermes_memory_remember", "hermes_memory_forget"]

        messages: list[dict[str, Any]] = []
        for i, (user, assistant) in enumerate(TURNS, start=1):
            manager.on_turn_start(i, user)
            messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
            started = time.perf_counter()
            manager.sync_all(user, assistant, session_id="s1", messages=list(messages))
            assert time.perf_counter() - started < 1.0  # queued on Hermes' worker, never run inline
        assert manager.flush_pending(timeout=60)
        provider.memory.flush()  # the core's background promotion of the evicted turns

        assert "Lin Wei" in manager.on_pre_compress(messages)
        manager.on_session_end(messages)
        assert provider.memory.session("default", "s1").view().turns == []

        recalled = manager.prefetch_all("What am I allergic to, and what is my name?", session_id="s1")
        assert "allergic to peanuts" in recalled and "- [fact · " in recalled
        assert "Lin Wei" in recalled
        assert "allergic to peanuts" in build_memory_context_block(recalled)
        assert manager.prefetch_all("thanks!") == ""

        found = json.loads(manager.handle_tool_call(
            "hermes_memory_search", {"query": "Which language does the user prefer for data pipelines?", "top_k": 3}))
        assert any("Python" in r["content"] for r in found["results"])
        stored = json.loads(manager.handle_tool_call(
            "hermes_memory_remember", {"content": "The user drinks oolong tea", "tier": "long_term"}))
        assert stored["stored"] and stored["tier"] == "long_term"
        bad = json.loads(manager.handle_tool_call("hermes_memory_search", {"query": "tea", "top_k": "three"}))
        assert set(bad) == {"error"}
        after = json.loads(manager.handle_tool_call("hermes_memory_forget", {"memory_id": stored["id"]}))
        assert after == {"forgotten": True, "id": stored["id"]}
        assert "No memory provider handles" in manager.handle_tool_call("memory", {})

        manager.on_memory_write("add", "user", "User prefers concise answers", {"write_origin": "assistant_tool"})
        tagged = provider.memory.list_memories(user_id="default", tags=["hermes-user"])
        assert [r.content for r in tagged] == ["User prefers concise answers"]
    finally:
        mem = provider.memory
        manager.shutdown_all()
    assert mem.closed and cores.open_count() == 0


def test_gateway_users_get_their_own_memory_from_one_store(hermes_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agent.memory_manager import MemoryManager
    from plugins.memory import load_memory_provider

    install(hermes_env, capsys)
    managers = []
    for uid in ("111", "222"):
        m = MemoryManager()
        m.add_provider(load_memory_provider("hermes_memory"))
        m.initialize_all(session_id=f"chat-{uid}", platform="telegram", agent_context="primary", user_id=uid)
        managers.append(m)
    try:
        a, b = (m.providers[0] for m in managers)
        assert a.memory is b.memory and cores.open_count() == 1
        managers[0].handle_tool_call("hermes_memory_remember", {"content": "User 111 keeps bees", "tier": "long_term"})
        assert "bees" in managers[0].prefetch_all("What does the user keep?")
        assert managers[1].prefetch_all("What does the user keep?") == ""
    finally:
        for m in managers:
            m.shutdown_all()
    assert cores.open_count() == 0


def _run_hermes(hermes_dir: Path, home: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Python without site-packages (``-S``): only Hermes Agent's folder is importable, as in a Hermes venv
    that lacks Hermes Memory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=str(hermes_dir), HERMES_HOME=str(home), PYTHONNOUSERSITE="1", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          cwd=str(home))


LOAD = (
    "from plugins.memory import load_memory_provider\n"
    "p = load_memory_provider('hermes_memory')\n"
    "print(type(p).__name__)\n"
)


def test_plugin_finds_hermes_memory_where_it_was_installed(hermes_agent_dir: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert main(["hermes-agent", "install", "--hermes-home", str(home)]) == 0
    res = _run_hermes(hermes_agent_dir, home, "import sys\ntry:\n    import hermes_memory_agents\n"
                      "    sys.exit('importable without the fallback')\nexcept ImportError:\n    pass\n" + LOAD)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "HermesMemoryProvider"
    # a plugin whose recorded paths are wrong registers nothing and says why, once
    (home / "plugins" / "hermes_memory" / "__init__.py").write_text(plugin_init_source(["/nonexistent"]))
    res = _run_hermes(hermes_agent_dir, home, "import logging\nlogging.basicConfig()\n" + LOAD)
    assert res.returncode == 0 and res.stdout.strip() == "NoneType"
    assert res.stderr.count("hermes_memory is not available") == 1 and "Install Hermes Memory into Hermes Agent's environment" in res.stderr


@pytest.mark.slow
def test_a_whole_aiagent_turn_loop_with_canned_completions(
    hermes_agent_dir: Path, hermes_runtime_dir: Path | None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    real_embedder: Any,
) -> None:
    """Hermes' own agent loop: the model (canned) calls hermes_memory_remember with the user's words; the next
    turn's prompt carries the recalled fact in Hermes' <memory-context> block; the session end extracts it."""
    from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
    from tests.hermes_memory_agents.canned_openai import CannedChatServer

    home = tmp_path / "home"
    home.mkdir()
    install(home, capsys)
    server = CannedChatServer([
        {"tool_calls": [("hermes_memory_remember", {"content": "I am allergic to peanuts", "tier": "permanent"})]},
        {"content": "Noted: you are allergic to peanuts."},
        {"content": "You are allergic to peanuts."},
    ])
    try:
        env = {**os.environ, "HERMES_HOME": str(home), "HF_HUB_OFFLINE": "1",
               "PYTHONPATH": os.pathsep.join([str(hermes_agent_dir), str(Path(__file__).resolve().parents[2])])}
        script = Path(__file__).with_name("aiagent_turns.py")
        res = subprocess.run([sys.executable, str(script), server.base_url, str(hermes_runtime_dir or "")],
                             capture_output=True, text=True, env=env, timeout=600, cwd=str(tmp_path))
        requests = server.requests
    finally:
        server.close()
    assert res.returncode == 0, res.stderr[-3000:]
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["providers"] == ["HermesMemoryProvider"]
    assert {"hermes_memory_search", "hermes_memory_remember", "hermes_memory_forget"} <= set(report["tools"])
    assert report["final"] == ["Noted: you are allergic to peanuts.", "You are allergic to peanuts."]

    assert len(requests) == 3
    tool_results = [m for m in requests[1]["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 1
    stored = json.loads(tool_results[0]["content"])
    assert stored["stored"] is True and stored["tier"] == "permanent"
    asked = requests[2]["messages"][-1]["content"]
    assert asked.startswith("What am I allergic to?") and "<memory-context>" in asked
    assert "] The user is allergic to peanuts" in asked and "- [fact · " in asked

    config = MemoryConfig(data_dir=home / "hermes_memory", encryption_key=TEST_KEY)  # type: ignore[arg-type]
    with MemoryProvider(config, embedder=real_embedder, caller=Caller("check", read_permanent=True)) as mem:
        facts = mem.list_memories(user_id="default", memory_types=["permanent"])
        assert [f.content for f in facts] == ["The user is allergic to peanuts"]
        assert mem.session("default", "sess-1").view().turns == []  # extracted at the session's end
