"""The hooks Hermes Agent added after 0.19 (its repository's 0.21.x ``MemoryProvider``): ``recall_status``,
``unavailable_reason``, ``initialize_for_inspection``, the fail-closed pre-compression checkpoint
(``pre_compress_checkpoint_api_version = 2``) and the typed setup fields. hermes-agent 0.19 (the package index's
last release) has none of them, so they are checked against the contract its repository documents; where 0.19's
own ``MemoryManager`` calls a hook (``on_pre_compress``), through it too."""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_agents import cores
from hermes_memory_agents.hermes_agent import DATA_DIR_NAME, HermesAgentProvider, ProviderSettings
from hermes_memory_agents.hermes_hooks import CheckpointLedger, PreCompressCheckpointError, RecallStatus
from hermes_memory_core import HermesMemoryError, MemoryConfig, MemoryProvider, StorageFullError
from tests.conftest import TEST_KEY


@pytest.fixture(autouse=True)
def _test_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    monkeypatch.delenv("HERMES_MEMORY_DATA_DIR", raising=False)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "hermes_home"
    path.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(path))
    return path


@pytest.fixture
def make(home: Path, core_factory: Callable[[MemoryConfig], MemoryProvider]) -> Iterator[Callable[..., HermesAgentProvider]]:
    made: list[HermesAgentProvider] = []

    def build(session_id: str = "s1", **kwargs: Any) -> HermesAgentProvider:
        provider = HermesAgentProvider(core_factory=core_factory)
        kwargs.setdefault("hermes_home", str(home))
        kwargs.setdefault("platform", "cli")
        kwargs.setdefault("agent_context", "primary")
        provider.initialize(session_id, **kwargs)
        made.append(provider)
        return provider

    yield build
    for provider in made:
        provider.shutdown()


def turn(user: str, assistant: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]


# ---------------------------------------------------------------------------------------------- recall_status
def test_recall_status_describes_the_last_prefetch_only(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    assert p.recall_status() is None  # nothing recalled yet
    assert p.memory is not None
    p.memory.add("The user is allergic to peanuts", user_id="default")
    p.memory.add("The user lives in Hangzhou", user_id="default")
    lines = p.prefetch("What am I allergic to, and where do I live?").splitlines()
    status = p.recall_status()
    assert isinstance(status, RecallStatus) and status.count == len(lines) >= 1
    assert status.provider_label == "Hermes Memory" and status.glyph
    assert p.prefetch("thanks!") == "" and p.recall_status() is None  # never a stale count


def test_recall_status_is_hermes_own_class_where_hermes_has_one(make: Callable[..., HermesAgentProvider],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclasses.dataclass(frozen=True)
    class HermesRecallStatus:  # the fields of agent.memory_provider.RecallStatus in Hermes' repository
        provider_label: str
        count: int
        glyph: str = "*"

    module = types.ModuleType("agent.memory_provider")
    module.RecallStatus = HermesRecallStatus  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agent.memory_provider", module)
    p = make()
    assert p.memory is not None
    p.memory.add("The user is allergic to peanuts", user_id="default")
    p.prefetch("What am I allergic to?")
    status = p.recall_status()
    assert type(status) is HermesRecallStatus and status.count >= 1 and status.glyph == "*"


# ------------------------------------------------------------------------------------------ unavailable_reason
def test_unavailable_reason_says_what_to_fix(home: Path) -> None:
    p = HermesAgentProvider()
    assert p.is_available() and p.unavailable_reason() == ""
    (home / "config.yaml").write_text("memory:\n  hermes_memory:\n    prefetch_top_k: lots\n")
    assert p.is_available() is False
    reason = p.unavailable_reason()
    assert "\n" not in reason and "prefetch_top_k" in reason and str(home / "config.yaml") in reason
    (home / "config.yaml").write_text("memory:\n  hermes_memory:\n    config_file: missing.toml\n")
    assert p.is_available() is False and "missing.toml" in p.unavailable_reason()
    assert not (home / DATA_DIR_NAME).exists()  # asking opened nothing


def test_unavailable_reason_after_initialize_disabled_it(make: Callable[..., HermesAgentProvider], home: Path,
                                                         core_factory: Callable[[MemoryConfig], MemoryProvider]) -> None:
    holder = core_factory(MemoryConfig(data_dir=home / DATA_DIR_NAME, encryption_key=TEST_KEY))  # type: ignore[arg-type]
    try:
        p = make()
        assert p.unavailable_reason() == p.disabled_reason and "StoreLockedError" in p.unavailable_reason()
    finally:
        holder.close()


# ---------------------------------------------------------------------------------- initialize_for_inspection
def test_inspection_answers_without_opening_the_store(home: Path) -> None:
    p = HermesAgentProvider()
    p.initialize_for_inspection("s1", hermes_home=str(home), platform="cli", agent_context="primary",
                                agent_identity="coder")
    assert p.memory is None and cores.open_count() == 0 and not (home / DATA_DIR_NAME).exists()
    assert "'coder'" in p.system_prompt_block() and "read-only" not in p.system_prompt_block()
    assert [s["name"] for s in p.get_tool_schemas()] == ["hermes_memory_search", "hermes_memory_remember",
                                                         "hermes_memory_forget"]
    assert p.prefetch("What is my name?") == "" and p.recall_status() is None
    p.sync_turn("I like tea", "ok")
    assert json.loads(p.handle_tool_call("hermes_memory_search", {"query": "tea"})) == {
        "error": "hermes_memory was opened for inspection only"}
    assert not (home / DATA_DIR_NAME).exists()  # nothing created, nothing written

    p.initialize_for_inspection("s1", hermes_home=str(home), agent_context="cron")
    assert "read-only" in p.system_prompt_block()
    assert [s["name"] for s in p.get_tool_schemas()] == ["hermes_memory_search"]


def test_inspection_with_bad_settings_is_disabled_as_initialize_is(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  hermes_memory:\n    prefetch_top_k: 0\n")
    shown: list[str] = []
    p = HermesAgentProvider()
    p.initialize_for_inspection("s1", hermes_home=str(home), warning_callback=shown.append)
    assert shown == [p.disabled_reason] and "prefetch_top_k" in shown[0]
    assert p.get_tool_schemas() == [] and p.system_prompt_block() == ""


def test_initialize_after_inspection_opens_the_store(make: Callable[..., HermesAgentProvider], home: Path) -> None:
    p = make()
    p.initialize_for_inspection("s1", hermes_home=str(home))
    assert p.memory is None
    p.initialize("s1", hermes_home=str(home))
    assert p.memory is not None and p.writes and "hermes_memory_search" in p.handle_tool_call(
        "hermes_memory_search", {"query": "x"}).replace('"results"', "hermes_memory_search")


# ------------------------------------------------------------------------------ the v2 pre-compress checkpoint
def test_the_provider_advertises_the_v2_checkpoint_and_takes_require_checkpoint() -> None:
    assert HermesAgentProvider.pre_compress_checkpoint_api_version == 2
    param = inspect.signature(HermesAgentProvider().on_pre_compress).parameters["require_checkpoint"]
    assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is False  # what Hermes inspects


def test_the_checkpoint_stores_the_evidence_not_yet_synced_durably_and_once(
    make: Callable[..., HermesAgentProvider], home: Path, core_factory: Callable[[MemoryConfig], MemoryProvider],
) -> None:
    p = make()
    synced = turn("My name is Lin Wei.", "Hi Lin.") + turn("yes", "ok")
    for user, assistant in (("My name is Lin Wei.", "Hi Lin."), ("yes", "ok")):
        p.sync_turn(user, assistant, session_id="s1")
    queued = turn("yes", "Done.") + turn("I'm allergic to peanuts.", "Noted.")  # still on Hermes' worker
    evidence = [{"role": "system", "content": "You are Hermes"}, *synced,
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}]},
                {"role": "tool", "content": "tool output", "tool_call_id": "c1"},
                *queued[:2], {"role": "user", "content": [{"type": "text", "text": "I'm allergic to peanuts."}]},
                queued[3]]
    p.on_pre_compress(evidence, require_checkpoint=True)
    words = [(m["role"], m["content"]) for m in (*synced, *queued)]
    assert p.memory is not None
    buffer = p.memory.session("default", "s1")
    assert [(m.role, m.content) for m in buffer.view(all_turns=True).messages] == words
    for user, assistant in (("yes", "Done."), ("I'm allergic to peanuts.", "Noted.")):  # Hermes' worker catches up
        p.sync_turn(user, assistant, session_id="s1")
    p.on_pre_compress(evidence, require_checkpoint=True)  # nothing missing: nothing added
    assert [(m.role, m.content) for m in buffer.view(all_turns=True).messages] == words  # each message once
    p.shutdown()  # on disk: another process opening the store finds every message
    with core_factory(MemoryConfig(data_dir=home / DATA_DIR_NAME, encryption_key=TEST_KEY)) as mem:  # type: ignore[arg-type]
        assert [(m.role, m.content) for m in mem.session("default", "s1").view(all_turns=True).messages] == words

    p = make()  # a new process resumes the session: the buffer counts, the same evidence adds nothing
    p.on_pre_compress(evidence, require_checkpoint=True)
    assert p.memory is not None
    assert [(m.role, m.content) for m in p.memory.session("default", "s1").view(all_turns=True).messages] == words


def test_the_checkpoint_fails_closed(make: Callable[..., HermesAgentProvider], home: Path,
                                     monkeypatch: pytest.MonkeyPatch,
                                     core_factory: Callable[[MemoryConfig], MemoryProvider]) -> None:
    cron = make("c1", agent_context="cron")
    assert cron.pre_compress_checkpoint_api_version == 1  # it stores nothing: Hermes must not count on it
    assert cron.on_pre_compress(turn("I like tea", "ok")) == ""
    with pytest.raises(PreCompressCheckpointError, match="'cron' context"):
        cron.on_pre_compress(turn("I like tea", "ok"), require_checkpoint=True)

    p = make()
    assert p.pre_compress_checkpoint_api_version == 2

    def full(*_a: Any, **_k: Any) -> None:
        raise StorageFullError("the disk is full")

    monkeypatch.setattr("hermes_memory_core.short_term.session.SessionMemory.add_messages", full)
    with pytest.raises(PreCompressCheckpointError, match="the disk is full") as caught:
        p.on_pre_compress(turn("I like tea", "ok"))  # raised even when not required: Hermes decides
    assert isinstance(caught.value, HermesMemoryError)
    monkeypatch.undo()
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)

    holder = core_factory(MemoryConfig(data_dir=home / "locked", encryption_key=TEST_KEY))  # type: ignore[arg-type]
    try:
        locked = HermesAgentProvider(ProviderSettings(data_dir=str(home / "locked")), core_factory=core_factory)
        locked.initialize("s1", hermes_home=str(home))
        assert locked.disabled_reason and locked.on_pre_compress([]) == ""
        assert locked.pre_compress_checkpoint_api_version == 1
        with pytest.raises(PreCompressCheckpointError, match="StoreLockedError"):
            locked.on_pre_compress(turn("I like tea", "ok"), require_checkpoint=True)
    finally:
        holder.close()


def test_hermes_019_memory_manager_still_gets_the_summary_and_the_checkpoint(
    hermes_env: Path, core_factory: Callable[[MemoryConfig], MemoryProvider],
) -> None:
    from agent.memory_manager import MemoryManager  # hermes-agent 0.19: calls on_pre_compress(messages)

    provider = HermesAgentProvider(core_factory=core_factory)
    manager = MemoryManager()
    manager.add_provider(provider)
    manager.initialize_all(session_id="s1", platform="cli", agent_context="primary", agent_identity="default",
                           hermes_home=str(hermes_env))
    try:
        provider.sync_turn("My name is Lin Wei.", "Hi Lin.", session_id="s1")
        manager.on_pre_compress(turn("My name is Lin Wei.", "Hi Lin.") + turn("I live in Hangzhou.", "Nice."))
        assert provider.memory is not None
        held = [m.content for m in provider.memory.session("default", "s1").view(all_turns=True).messages]
        assert held == ["My name is Lin Wei.", "Hi Lin.", "I live in Hangzhou.", "Nice."]
    finally:
        manager.shutdown_all()


def test_the_ledger_counts_repeats(make: Callable[..., HermesAgentProvider]) -> None:
    p = make()
    assert p.memory is not None
    s, t = p.memory.session("default", "s"), p.memory.session("default", "t")
    t.add_messages([("user", "a")])
    ledger = CheckpointLedger()
    assert ledger.synced(s, [("user", "yes"), ("assistant", "ok")]) == [("user", "yes"), ("assistant", "ok")]
    missing = ledger.missing("s", [("user", "yes"), ("assistant", "ok"), ("user", " yes "), ("assistant", "fine")])
    assert missing == [("user", " yes "), ("assistant", "fine")]  # the second "yes" is a new message
    ledger.checkpointed("s", missing)
    assert ledger.synced(s, [("user", "yes"), ("assistant", "fine"), ("user", "more")]) == [("user", "more")]
    ledger.checkpoint(t, [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])  # "a" is held
    assert [m.content for m in t.view(all_turns=True).messages] == ["a", "b"]
    ledger.seed("s", [])  # a known session keeps its counts
    assert ledger.knows("s") and ledger.missing("s", [("user", "yes")]) == []


# ------------------------------------------------------------------------------------------- typed setup fields
def test_setup_fields_are_typed_and_their_bounds_are_the_settings_bounds() -> None:
    fields = {f["key"]: f for f in HermesAgentProvider().get_config_schema()}
    assert {k: f["type"] for k, f in fields.items()} == {"data_dir": "text", "config_file": "text",
                                                         "prefetch_top_k": "integer", "mirror_builtin_writes": "boolean"}
    k = fields["prefetch_top_k"]
    assert (k["minimum"], k["maximum"], k["step"]) == (1, 20, 1)
    for value in (k["minimum"], k["maximum"]):
        assert ProviderSettings.from_mapping({"prefetch_top_k": value}).prefetch_top_k == value
    for value in (k["minimum"] - 1, k["maximum"] + 1):
        with pytest.raises(HermesMemoryError):
            ProviderSettings.from_mapping({"prefetch_top_k": value})
    defaults = {key: f["default"] for key, f in fields.items() if key != "data_dir"}
    assert ProviderSettings.from_mapping(defaults) == ProviderSettings()  # the defaults are the settings' own
    assert fields["mirror_builtin_writes"]["default"] in fields["mirror_builtin_writes"]["choices"]  # 0.19's picker
    for f in fields.values():
        assert f["type"] in ("text", "integer", "number", "boolean") and not f.get("secret")
