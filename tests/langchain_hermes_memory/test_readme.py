"""Every Python snippet of the README's LangChain section runs, in order, as a user would paste it (with a scripted
model standing in for ``model``)."""

from __future__ import annotations

import itertools
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from langchain_hermes_memory.middleware import MEMORY_BLOCK_START
from tests.langchain_hermes_memory.scripted import ScriptedChatModel, tool_call

README = Path(__file__).resolve().parents[2] / "README.md"


def _langchain_snippets() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("\n## LangChain\n") : text.index("\n## LlamaIndex\n")]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_readme_langchain_section_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippets = _langchain_snippets()
    assert len(snippets) == 4
    try:
        import langmem  # noqa: F401 - installed with the dev extra
    except ImportError:
        snippets = [code for code in snippets if "langmem" not in code]
    monkeypatch.chdir(tmp_path)  # the snippets use ./hermes_data
    model = ScriptedChatModel()
    model.say(tool_call("manage_memory", {"content": "I live in Hangzhou and work remotely"}, "c1"), "Noted.",
              "You live in Hangzhou.", "Noted: Python.")
    # memory work has its own model (the README's memory_model); it is not called in these few turns
    memory_model = GenericFakeChatModel(messages=itertools.cycle(['{"type": "long_term", "reason": "scripted"}']))
    scope: dict[str, Any] = {"model": model, "memory_model": memory_model}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # RunnableWithMessageHistory warns by design
            for code in snippets:
                exec(compile(code, str(README), "exec"), scope)
        system = ScriptedChatModel.system_text(model.requests[2])  # the question asked in thread t2
        assert MEMORY_BLOCK_START in system and "Hangzhou" in system
        store = scope["store"]
        assert [i.key for i in store.search(("memories", "alice"), query="她主要用什么编程语言？", limit=1)] == ["lang"]
        assert store.list_namespaces(prefix=("memories",), max_depth=2) == [("memories", "alice")]
        if "langmem_tools" in scope:
            assert "window seats" in str(store.search(("memories", "alice"), query="seat preference")[0].value)
        assert model.requests[-1][-1].content == "我平时写 Python 比较多"
    finally:
        scope["mem"].close()
