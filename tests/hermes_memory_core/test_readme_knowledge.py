"""The "Knowledge that stays current" snippet of docs/core.md runs as a user would paste it, and says what it does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder

README = Path(__file__).resolve().parents[2] / "docs" / "core.md"


def _snippet() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("\n## Knowledge that stays current\n") : text.index("\n## Conversation memories\n")]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return code


def test_readme_knowledge_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_embedder: Embedder) -> None:
    monkeypatch.chdir(tmp_path)  # the snippet uses ./hermes_data
    monkeypatch.setattr("hermes_memory_core.engine.load_embedder", lambda *_a, **_k: real_embedder)
    answers: list[str] = []
    search = MemoryProvider.search

    def recording(self: MemoryProvider, *args: Any, **kwargs: Any) -> Any:
        hits = search(self, *args, **kwargs)
        answers.append(hits[0].content if hits else "")
        return hits

    monkeypatch.setattr(MemoryProvider, "search", recording)
    scope: dict[str, Any] = {}
    exec(compile(_snippet(), str(README), "exec"), scope)
    assert scope["habit"].action == "added"
    assert scope["again"].action == "duplicate" and scope["again"].id == scope["habit"].id
    assert scope["quit_"].action == "versioned" and scope["quit_"].id == scope["habit"].id
    assert answers == ["用户最近把咖啡戒了", "The user lives in Berlin"]  # what the comments say
    with MemoryProvider.from_config({"data_dir": str(tmp_path / "hermes_data")}) as mem:
        assert mem.stats().total_active == 0 and mem.engine.metadata.lifecycle.counts()["versions"] == 0
