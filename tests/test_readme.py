"""Every Python block of the README runs as written (issue 17.3), so a snippet that breaks fails CI.

The blocks of one ``##`` section run in order in one namespace, as a reader pastes them into one session, in a new
empty folder (the snippets use ``./hermes_data``); sections are independent of each other. Before each section,
:data:`PRELUDE` runs: it defines the models the README names, as scripted stand-ins (no network, no weights). To
try the README with real models, define these names with them instead:

- ``model``: the LangChain chat model of the agent and chain examples (any tool-calling chat model);
- ``memory_model``: the LangChain model for memory work (summaries, classification, normalisation): the chat
  model itself, or a smaller one;
- ``llm``: the LlamaIndex chat model (a function-calling one: ``FunctionAgent`` needs it);
- ``memory_llm``: the LlamaIndex model for memory work;
- ``my_model``: the ``prompt -> text`` function of the tier-lifecycle example.

Chat and memory work get separate models on purpose: background summaries and classifications would otherwise take
the chat model's scripted replies.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider, MemoryType

README = Path(__file__).resolve().parents[1] / "README.md"

#: Runs before each README section (see the module docstring).
PRELUDE = '''
import itertools
import json

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockFunctionCallingLLM


def my_model(prompt: str) -> str:
    """SCRIPTED memory work: JSON for Hermes' classification prompt, the statement itself for its rewrite prompt,
    a one-line summary for anything else."""
    if "memory classifier" in prompt:
        return json.dumps({"type": "long_term", "reason": "scripted: a lasting preference", "key": None})
    if "Rewrite the user's statement" in prompt:
        return prompt.rsplit("Statement:", 1)[-1].strip()
    return "Scripted summary: the user talked about their preferences."


class ScriptedChatModel(GenericFakeChatModel):
    """SCRIPTED LangChain chat model: the next scripted reply; accepts tools."""

    def bind_tools(self, tools, **kwargs):
        return self


class ScriptedMemoryModel(BaseChatModel):
    """SCRIPTED LangChain model for memory work: answers through my_model."""

    @property
    def _llm_type(self) -> str:
        return "scripted-memory-work"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=AIMessage(my_model(messages[-1].text)))])


class ScriptedMemoryLLM(CustomLLM):
    """SCRIPTED LlamaIndex completion model for memory work: answers through my_model."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=False)

    @llm_completion_callback()
    def complete(self, prompt, formatted=False, **kwargs):
        return CompletionResponse(text=my_model(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt, formatted=False, **kwargs):
        text = my_model(prompt)
        yield CompletionResponse(text=text, delta=text)


remember_call = AIMessage("", tool_calls=[{"name": "manage_memory", "id": "call-1", "type": "tool_call",
                                            "args": {"content": "I live in Hangzhou and work remotely"}}])
model = ScriptedChatModel(messages=itertools.chain(
    [remember_call, "Noted.", "You live in Hangzhou."], itertools.cycle(["Noted: Python, mostly."])))
memory_model = ScriptedMemoryModel()
llm = MockFunctionCallingLLM(max_tokens=64)       # function-calling: it calls each tool once, then answers
memory_llm = ScriptedMemoryLLM()
'''


def python_blocks() -> dict[str, list[tuple[int, str]]]:
    """``{section title: [(first line, code), ...]}`` for every ``python`` block of the README, in order."""
    sections: dict[str, list[tuple[int, str]]] = {}
    title, block, start = "(top)", None, 0
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if block is None and line.startswith("## "):
            title = line[3:].strip()
        elif block is None and line.strip() == "```python":
            block, start = [], number + 1
        elif block is not None and line.startswith("```"):
            sections.setdefault(title, []).append((start, "\n".join(block) + "\n"))
            block = None
        elif block is not None:
            block.append(line)
    return sections


SECTIONS = python_blocks()


def run_section(title: str) -> dict[str, Any]:
    """Run the prelude, then the section's blocks, in a module of their own (dataclasses look their module up);
    returns its namespace (open stores still open)."""
    module = types.ModuleType("readme_section")
    sys.modules[module.__name__] = module
    try:
        exec(compile(PRELUDE, "tests/test_readme.py:PRELUDE", "exec"), module.__dict__)
        for start, code in SECTIONS[title]:
            if "langmem" in code:
                pytest.importorskip("langmem")
            exec(compile(code, f"{README}:{start}", "exec"), module.__dict__)
    finally:
        sys.modules.pop(module.__name__, None)
    return module.__dict__


def close_stores(scope: dict[str, Any]) -> None:
    for value in scope.values():
        if isinstance(value, MemoryProvider):
            value.close()


def test_every_python_block_is_run() -> None:
    text = README.read_text(encoding="utf-8")
    assert sum(len(blocks) for blocks in SECTIONS.values()) == len(re.findall(r"^```python$", text, flags=re.M)) > 5


@pytest.mark.parametrize("title", sorted(SECTIONS))
def test_the_section_runs_as_written(title: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    scope = run_section(title)
    try:
        _check(title, scope)
    finally:
        close_stores(scope)


def _check(title: str, scope: dict[str, Any]) -> None:
    """What each section's snippets should have done, beyond not raising."""
    if title == "Using the core":
        assert scope["hits"][0].content == "用户主用 Python，避免 Java"
    elif title == "Short-term memory and the tier lifecycle":
        mem = scope["mem"]
        mem.flush()
        stored = [r.content for r in mem.list_memories(user_id="u1", memory_types=["long_term"])]
        assert "我平时写 Python 比较多，不太想用 Java" in stored  # the scripted model classified it long-term
    elif title == "LangChain":
        mem = scope["mem"]
        assert any("Hangzhou" in h.content for h in mem.search("Hangzhou", user_id="alice"))
        assert [i.key for i in scope["store"].search(("memories", "alice"), query="她主要用什么编程语言？", limit=1)] == [
            "lang"]
    elif title == "LlamaIndex":
        roles = [m.role.value for m in scope["memory"].get_all()]
        assert roles.count("user") == 2  # the chat engine's turn and the agent's
    elif title == "Reliability and security":
        from pydantic import SecretStr

        from hermes_memory_core import Caller, MemoryProvider

        # the snippet rotated the key (into ./new.key) and closed its store
        cfg = scope["cfg"].model_copy(update={"encryption_key": SecretStr(scope["new_key"].hex())})
        with MemoryProvider(cfg, caller=Caller.admin("check")) as app:
            tiers = {r.content: r.memory_type for r in app.list_memories(user_id="u1")}
        assert tiers["Account tier: VIP (billing API)"] is MemoryType.PERMANENT


def test_the_core_example_runs_twice_in_one_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        scope = run_section("Using the core")
        close_stores(scope)
    assert (tmp_path / "hermes_data").is_dir() and (tmp_path / "elsewhere").is_dir()


def test_the_readme_cites_only_what_the_repository_holds() -> None:
    """Issue 17.10: no design notes, seeds, issues or sessions a reader cannot open; nothing beside the clone."""
    text = README.read_text(encoding="utf-8")
    for outside in (r"\bDESIGN\b", r"\bseed \d", r"§", r"\bissue[ -]\d", r"\b[Ss]ession \d", r"\.\./shared",
                    r"shared/data", r"issue tracker"):
        assert not re.search(outside, text), outside
    repo = README.parent
    for cited in re.findall(r"`((?:tests|benchmarks|notebooks|\.ci|storage|trust|retrieval|lifecycle)/[^`\s]*)`", text):
        pattern = cited.replace(".../", "**/")
        found = [p for base in (repo, repo / "hermes_memory_core") for p in base.glob(pattern + "*")]  # "notebooks/01"
        assert found, cited
