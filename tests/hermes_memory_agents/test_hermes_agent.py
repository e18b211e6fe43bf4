"""HermesAgentProvider's hooks on a real store, called as Hermes calls them (no Hermes Agent needed here; the
tests in test_hermes_integration.py run the same provider inside hermes-agent 0.19)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_agents import cores
from hermes_memory_agents.hermes_agent import (
    DATA_DIR_NAME,
    HermesAgentProvider,
    ProviderSettings,
    read_settings,
    user_for,
)
from hermes_memory_core import Caller, ConfigError, MemoryConfig, MemoryProvider, MemoryType
from tests.conftest import TEST_KEY

TURNS = [
    ("My name is Lin Wei and I work as a data engineer.", "Nice to meet you, Lin."),
    ("I'm allergic to peanuts.", "Noted, no peanuts."),
    ("I prefer Python over Java for data pipelines.", "Python it is."),
    ("hi", "Hello!"),
] + [(f"Let's plan step {i} of the Airflow migration", f"Step {i}: done.") for i in range(11)]


@pytest.fixture(autouse=True)
def _test_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "hermes_home"
    path.mkdir()
    return path


@pytest.fixture
def make(home: Path, core_factory: Callable[[MemoryConfig], MemoryProvider]) -> Iterator[Callable[..., HermesAgentProvider]]:
    made: list[HermesAgentProvider] = []

    def build(session_id: str = "s1", settings: dict[str, Any] | None = None, **kwargs: Any) -> HermesAgentProvider:
        provider = HermesAgentProvider(settings or {}, core_factory=core_factory)
        kwargs.setdefault("hermes_home", str(home))
        kwargs.setdefault("platform", "cli")
        kwargs.setdefault("agent_context", "primary")
        kwargs.setdefault("agent_identity", "default")
        provider.initialize(session_id, **kwargs)
        made.append(provider)
        return provider

    yield build
    for provider in made:
        provider.shutdown()


def tool(provider: HermesAgentProvider, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return json.loads(provider.handle_tool_call(name, args))


def test_settings_parse_what_setup_and_config_yaml_give() -> None:
    s = ProviderSettings.from_mapping({"data_dir": " /data ", "config_file": "", "prefetch_top_k": "8",
                                       "mirror_builtin_writes": "false"})
    assert s == ProviderSettings(data_dir="/data", config_file=None, prefetch_top_k=8, mirror_builtin_writes=False)
    assert ProviderSettings.from_mapping(None) == ProviderSettings()
    assert ProviderSettings.from_mapping({"prefetch_top_k": 3, "mirror_builtin_writes": True}).prefetch_top_k == 3
    for bad in ({"datadir": "/x"}, {"prefetch_top_k": "many"}, {"prefetch_top_k": 0},
                {"mirror_builtin_writes": "maybe"}):
        with pytest.raises(ConfigError):
            ProviderSettings.from_mapping(bad)
    with pytest.raises(ConfigError):
        ProviderSettings.from_mapping(["data_dir"])  # type: ignore[arg-type]


def test_data_dir_defaults_under_hermes_home_and_expands(home: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HERMES_MEMORY_DATA_DIR", raising=False)
    assert Path(ProviderSettings().memory_config(home).data_dir) == home / DATA_DIR_NAME
    assert Path(ProviderSettings(data_dir="$HERMES_HOME/mem").memory_config(home).data_dir) == home / "mem"
    assert Path(ProviderSettings(data_dir="rel").memory_config(home).data_dir) == home / "rel"
    toml = tmp_path / "hm.toml"
    toml.write_text(f'[hermes_memory]\ndata_dir = "{tmp_path / "from_toml"}"\nhot_cache_size = 7\n')
    cfg = ProviderSettings(config_file=str(toml)).memory_config(home)
    assert Path(cfg.data_dir) == tmp_path / "from_toml" and cfg.hot_cache_size == 7
    assert Path(ProviderSettings(config_file=str(toml), data_dir="/x").memory_config(home).data_dir) == Path("/x")
    monkeypatch.setenv("HERMES_MEMORY_DATA_DIR", str(tmp_path / "env"))
    assert Path(ProviderSettings().memory_config(home).data_dir) == tmp_path / "env"
    with pytest.raises(ConfigError):
        ProviderSettings(config_file="missing.toml").memory_config(home)


def test_user_is_the_platform_user_else_the_profile() -> None:
    assert user_for({"user_id": "12345", "platform": "telegram", "agent_identity": "coder"}) == "telegram:12345"
    assert user_for({"user_id": "12345"}) == "12345"
    assert user_for({"platform": "cli", "agent_identity": "coder"}) == "coder"
    assert user_for({}) == "default"


def test_a_session_through_the_hooks(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    assert p.name == "hermes_memory" and p.is_available() and p.disabled_reason is None
    assert "hermes_memory_search" in p.system_prompt_block() and "'default'" in p.system_prompt_block()
    assert [s["name"] for s in p.get_tool_schemas()] == ["hermes_memory_search", "hermes_memory_remember",
                                                         "hermes_memory_forget"]
    for i, (user, assistant) in enumerate(TURNS):
        p.on_turn_start(i + 1, user)
        p.sync_turn(user, assistant, session_id="s1")
    mem = p.memory
    assert mem is not None
    mem.flush()  # background promotion of the 4 evicted turns
    summary = p.on_pre_compress([])
    assert summary.startswith("Running summary") and "Lin Wei" in summary
    recalled = p.prefetch("What is my name, and what am I allergic to?")
    lines = recalled.splitlines()
    assert lines and all(line.startswith("- [") for line in lines)
    assert any("allergic to peanuts" in line and line.startswith("- [fact · ") for line in lines)
    assert p.prefetch("thanks!") == "" and p.prefetch("ok") == "" and p.prefetch("  ") == ""
    assert "allergic to peanuts" in p.prefetch("What am I allergic to? " + "Here is my log: ... " * 2000)
    # the 11 turns still buffered are extracted at the session's end
    before = mem.stats().by_type
    p.on_session_end([])
    view = mem.session("default", "s1").view()
    assert view.turns == [] and view.summary == ""
    assert mem.stats().by_type[MemoryType.SHORT_TERM.value] >= before[MemoryType.SHORT_TERM.value]
    said = [r for r in mem.list_memories(user_id="default", session_id="s1", limit=1000) if r.is_conversation]
    # every turn of the session is kept as said, but for ("hi", "Hello!"): fillers are not memories
    assert sorted({r.metadata["turn"] for r in said}) == [t for t in range(len(TURNS)) if t != 3]
    hits = mem.search("Airflow migration step 10", user_id="default", session_id="s1", top_k=1)
    assert hits and "step 10" in hits[0].content


def test_a_turn_arriving_after_the_session_ended_is_extracted(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    p.sync_turn("I like hiking in the Alps", "Nice.")
    p.on_session_end([])
    p.sync_turn("I also like sailing on Lake Geneva", "Great.", session_id="s1")  # Hermes' worker was behind
    mem = p.memory
    assert mem is not None
    assert mem.session("default", "s1").view().turns == []
    assert mem.search("sailing Lake Geneva", user_id="default", top_k=1)
    # the session continuing under the same id (in-place compression) buffers normally again
    p.on_session_switch("s1", parent_session_id="s1", reset=False)
    p.sync_turn("And I play chess", "Cool.")
    assert len(mem.session("default", "s1").view().turns) == 1


def test_switching_sessions_ends_the_old_one_and_rewind_drops_turns(
    make: Callable[..., HermesAgentProvider],
) -> None:
    p = make()
    p.sync_turn("I keep two cats named Miso and Tofu", "Lovely.")
    p.on_session_switch("s2", parent_session_id="s1", reset=True)
    mem = p.memory
    assert mem is not None and p.session_id == "s2"
    assert mem.session("default", "s1").view().turns == []
    assert mem.search("cats Miso Tofu", user_id="default", top_k=1)
    p.sync_turn("My password is hunter2, please ignore it", "OK.", session_id="s2")
    p.on_session_switch("s2", rewound=True)  # /undo
    assert mem.session("default", "s2").view().turns == []
    p.on_session_end([])
    assert not any("hunter2" in h.content for h in mem.search("password", user_id="default", top_k=10))
    stored = tool(p, "hermes_memory_remember", {"content": "Current task: fix the CI", "tier": "short_term"})
    assert mem.get(stored["id"]).session_id == "s2"


def test_permanent_writes_quote_the_users_message(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    p.on_turn_start(1, "By the way, I was born on 3 May 1991 in Chengdu.")
    refused = tool(p, "hermes_memory_remember", {"content": "The user was born in 1991", "tier": "permanent"})
    assert "own words" in refused["error"]
    ok = tool(p, "hermes_memory_remember", {"content": "I was born on 3 May 1991 in Chengdu", "tier": "permanent"})
    assert ok["stored"] and ok["tier"] == "permanent"
    hits = json.loads(p.handle_tool_call("hermes_memory_search", {"query": "When was the user born?"}))
    assert hits["results"][0]["tier"] == "permanent"
    fact = hits["results"][0]["id"]
    assert "may not change permanent" in tool(p, "hermes_memory_forget", {"memory_id": fact})["error"]
    # the quoted message is not extracted a second time when the session ends
    p.sync_turn("By the way, I was born on 3 May 1991 in Chengdu.", "Noted.")
    p.on_session_end([])
    mem = p.memory
    assert mem is not None
    assert len(mem.list_memories(user_id="default", memory_types=["permanent"], caller=Caller.admin())) == 1


def test_other_agent_contexts_read_but_never_write(make: Callable[..., HermesAgentProvider], home: Path) -> None:
    writer = make(settings={"data_dir": str(home / "shared")})
    tool(writer, "hermes_memory_remember", {"content": "The user rides a red bicycle", "tier": "long_term"})
    cron = make("cron-1", settings={"data_dir": str(home / "shared")}, agent_context="cron")
    assert cron.memory is writer.memory  # one store per data directory per process
    assert "read-only" in cron.system_prompt_block()
    assert [s["name"] for s in cron.get_tool_schemas()] == ["hermes_memory_search"]
    mem = cron.memory
    assert mem is not None
    before = mem.stats().total_active
    cron.sync_turn("I sold my bicycle", "OK.")
    cron.on_memory_write("add", "user", "User sold the bicycle")
    cron.on_delegation("task", "result")
    cron.on_session_end([])
    assert "read-only" in tool(cron, "hermes_memory_remember", {"content": "x"})["error"]
    assert mem.stats().total_active == before and mem.session("default", "cron-1").view().turns == []
    assert "red bicycle" in cron.prefetch("What bicycle does the user ride?")


def test_one_store_per_data_directory(make: Callable[..., HermesAgentProvider]) -> None:
    a, b = make("s1"), make("s2", user_id="42", platform="discord")
    assert a.memory is b.memory and cores.open_count() == 1 and b.user_id == "discord:42"
    mem = a.memory
    assert mem is not None
    a.shutdown()
    assert not mem.closed and a.memory is None
    assert tool(a, "hermes_memory_search", {"query": "x"}) == {"error": "hermes_memory is not initialised"}
    b.shutdown()
    assert mem.closed and cores.open_count() == 0
    b.shutdown()  # idempotent


def test_a_locked_store_disables_the_provider_with_one_warning(
    make: Callable[..., HermesAgentProvider], home: Path, caplog: pytest.LogCaptureFixture,
    core_factory: Callable[[MemoryConfig], MemoryProvider],
) -> None:
    holder = core_factory(MemoryConfig(data_dir=home / DATA_DIR_NAME, encryption_key=TEST_KEY))  # type: ignore[arg-type]
    try:
        with caplog.at_level(logging.WARNING):
            p = make()
        warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warnings) == 1 and "\n" not in warnings[0]
        assert warnings[0].startswith("hermes_memory is disabled for this session: StoreLockedError")
        assert p.disabled_reason == warnings[0] and p.memory is None
        assert p.get_tool_schemas() == [] and p.system_prompt_block() == "" and p.prefetch("who am I?") == ""
        assert json.loads(p.handle_tool_call("hermes_memory_search", {"query": "x"})) == {"error": warnings[0]}
        p.sync_turn("I like tea", "ok")
        p.on_session_end([])
        p.on_memory_write("add", "user", "x")
        assert p.on_pre_compress([]) == "" and cores.open_count() == 0
        shown: list[str] = []
        make(warning_callback=shown.append)
        assert len(shown) == 1 and shown[0].startswith("hermes_memory is disabled")
    finally:
        holder.close()


def test_a_bad_config_disables_the_provider(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    (home / "config.yaml").write_text("memory:\n  provider: hermes_memory\n  hermes_memory:\n    prefetch_top_k: lots\n")
    p = HermesAgentProvider()
    with caplog.at_level(logging.WARNING):
        p.initialize("s1", hermes_home=str(home))
    assert p.disabled_reason and "prefetch_top_k" in p.disabled_reason and p.get_tool_schemas() == []


def test_builtin_memory_writes_are_mirrored(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    mem = p.memory
    assert mem is not None

    def mirrored() -> list[str]:  # sorted: memories written in the same second have no order
        return sorted(r.content for r in mem.list_memories(user_id="default", tags=["hermes-builtin"]))

    p.on_memory_write("add", "user", "User prefers dark mode in every editor", {"write_origin": "assistant_tool"})
    p.on_memory_write("add", "memory", "Project uses uv for packaging")
    assert mirrored() == ["Project uses uv for packaging", "User prefers dark mode in every editor"]
    rec = mem.list_memories(user_id="default", tags=["hermes-user"])[0]
    assert rec.memory_type is MemoryType.LONG_TERM and rec.metadata["target"] == "user"
    p.on_memory_write("replace", "user", "User prefers light mode", {"old_text": "dark mode"})
    assert mirrored() == ["Project uses uv for packaging", "User prefers light mode"]
    assert [v.content for v in mem.history(rec.id)] == ["User prefers dark mode in every editor",
                                                       "User prefers light mode"]
    p.on_memory_write("remove", "memory", "", {"old_text": "uses uv"})
    assert mirrored() == ["User prefers light mode"]
    p.on_memory_write("replace", "memory", "Project uses Poetry", {"old_text": "no such entry"})
    assert "Project uses Poetry" in mirrored()
    off = make("s9", settings={"mirror_builtin_writes": "false"})
    off.on_memory_write("add", "user", "User likes jazz")
    assert not any("jazz" in c for c in mirrored())


def test_delegations_stay_in_the_session_and_are_never_promoted(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    p.on_delegation("Find the cheapest flight to Osaka", "ANA flight NH123 at 420 USD", child_session_id="c1")
    p.sync_turn("Book me something to Osaka", "I found NH123 for 420 USD.")
    mem = p.memory
    assert mem is not None
    roles = [(m.role, m.content[:24]) for m in mem.session("default", "s1").view().messages]
    assert roles == [("user", "Book me something to Osa"), ("tool", "Delegated to a subagent:"),
                     ("assistant", "I found NH123 for 420 US")]
    p.on_session_end([])
    found = mem.search("NH123 flight", user_id="default", top_k=10)
    assert not any("Delegated" in h.content or "ANA flight" in h.content for h in found)  # the tool note: never
    # what the assistant said is kept as said, never as a fact about the user
    assert all(h.is_conversation and h.role == "assistant" for h in found if "NH123" in h.content)


def test_save_config_and_read_settings(home: Path) -> None:
    (home / "config.yaml").write_text("model: gpt-x\nmemory:\n  provider: hermes_memory\n  memory_enabled: true\n")
    p = HermesAgentProvider()
    assert [f["key"] for f in p.get_config_schema()] == ["data_dir", "config_file", "prefetch_top_k",
                                                         "mirror_builtin_writes"]
    p.save_config({"data_dir": "$HERMES_HOME/mem", "prefetch_top_k": "7", "mirror_builtin_writes": "false"}, str(home))
    import yaml

    data = yaml.safe_load((home / "config.yaml").read_text())
    assert data["model"] == "gpt-x" and data["memory"]["provider"] == "hermes_memory"
    assert data["memory"]["hermes_memory"] == {"prefetch_top_k": 7, "mirror_builtin_writes": False,
                                               "data_dir": "$HERMES_HOME/mem"}
    assert read_settings(home) == ProviderSettings(data_dir="$HERMES_HOME/mem", prefetch_top_k=7,
                                                   mirror_builtin_writes=False)
    text = (home / "config.yaml").read_text()
    with pytest.raises(ConfigError):
        p.save_config({"prefetch_top_k": "0"}, str(home))
    assert (home / "config.yaml").read_text() == text


def test_backup_paths_lists_only_what_lives_outside_hermes_home(home: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HERMES_MEMORY_DATA_DIR", raising=False)
    monkeypatch.setenv("HERMES_HOME", str(home))
    assert HermesAgentProvider().backup_paths() == []
    outside = tmp_path / "elsewhere"
    assert HermesAgentProvider({"data_dir": str(outside)}).backup_paths() == [str(outside.resolve())]


def test_last_weeks_session_comes_back_in_prefetch(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    p.sync_turn("For the cache penetration problem my plan is a bloom filter in front of Redis.", "Sounds good.")
    p.sync_turn("I live in Hangzhou and work remotely.", "Nice.")
    p.on_session_end([])
    p.on_session_switch("s2", parent_session_id="s1", reset=True)
    # (the unit-test embedder is lexical: the questions share the memory's words)
    recalled = p.prefetch("What was my plan for the cache penetration problem, the bloom filter in front of Redis?")
    assert "the user said] For the cache penetration problem" in recalled
    assert "Hangzhou" in p.prefetch("Do I live in Hangzhou and work remotely?")


def test_the_users_message_carries_the_time_it_was_said(home: Path, embedder: Any) -> None:
    """The user's message is stored when its turn starts, the answer when the turn is synced: each at its own time,
    the user's first (Hermes syncs a turn after the model answered)."""
    now = [1_780_000_000.0]
    p = HermesAgentProvider(core_factory=lambda cfg: MemoryProvider(cfg, embedder=embedder, clock=lambda: now[0]))
    p.initialize("s1", hermes_home=str(home), platform="cli", agent_context="primary", agent_identity="default")
    try:
        p.on_turn_start(1, "I just adopted a greyhound called Pixel.")
        now[0] += 40  # the model takes its time
        p.sync_turn("I just adopted a greyhound called Pixel.", "Congratulations on Pixel!")
        assert p.memory is not None
        said = [(m.role, m.content, m.created_at) for m in p.memory.session(p.user_id, "s1").view(all_turns=True).messages]
        assert said == [("user", "I just adopted a greyhound called Pixel.", 1_780_000_000),
                        ("assistant", "Congratulations on Pixel!", 1_780_000_040)]
    finally:
        p.shutdown()
