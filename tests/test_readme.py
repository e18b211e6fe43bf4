"""Every Python block of the README and of ``docs/`` runs as written, so a snippet that breaks fails CI.

A section is the text under one ``##`` or ``###`` heading of one page. Its blocks run in order in one namespace,
as a reader pastes them into one session, in a new empty folder (the snippets use ``./hermes_data``); sections are
independent of each other. Nothing is defined for them beforehand: a block that needs a model defines a clearly
labelled scripted one itself, with a comment line showing the real one, so every block runs as pasted.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider, MemoryType

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: Names a block uses for a model: each block that builds one must label it SCRIPTED and show the real one.
MODEL_STAND_INS = ("GenericFakeChatModel", "MockLLM", "MockFunctionCallingLLM", "def my_model")


def python_blocks(page: Path) -> dict[str, list[tuple[int, str]]]:
    """``{"<page>::<section title>": [(first line, code), ...]}`` for every ``python`` block of a page, in order."""
    sections: dict[str, list[tuple[int, str]]] = {}
    name = page.relative_to(ROOT).as_posix()
    title, block, start = "(top)", None, 0
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if block is None and re.match(r"#{2,3} ", line):
            title = line.lstrip("#").strip()
        elif block is None and line.strip() == "```python":
            block, start = [], number + 1
        elif block is not None and line.startswith("```"):
            sections.setdefault(f"{name}::{title}", []).append((start, "\n".join(block) + "\n"))
            block = None
        elif block is not None:
            block.append(line)
    return sections


SECTIONS = {key: blocks for page in PAGES for key, blocks in python_blocks(page).items()}


def run_section(key: str) -> dict[str, Any]:
    """Run a section's blocks in a module of their own (dataclasses look their module up); returns its namespace
    (open stores still open)."""
    module = types.ModuleType("readme_section")
    sys.modules[module.__name__] = module
    page = key.split("::", 1)[0]
    try:
        for start, code in SECTIONS[key]:
            if "langmem" in code:
                pytest.importorskip("langmem")
            exec(compile(code, f"{ROOT / page}:{start}", "exec"), module.__dict__)
    finally:
        sys.modules.pop(module.__name__, None)
    return module.__dict__


def close_stores(scope: dict[str, Any]) -> None:
    for value in scope.values():
        if isinstance(value, MemoryProvider):
            value.close()


def test_every_python_block_is_run() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        found = sum(len(b) for b in python_blocks(page).values())
        assert found == len(re.findall(r"^```python$", text, flags=re.M)), page
    assert sum(len(blocks) for blocks in SECTIONS.values()) > 10
    assert sum(len(b) for b in python_blocks(README).values()) >= 4  # the tour: core, LangChain, LlamaIndex, Hermes


@pytest.mark.real_model  # the snippets open stores on the default (real) embedding model
@pytest.mark.parametrize("key", sorted(SECTIONS))
def test_the_section_runs_as_written(key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    scope = run_section(key)
    try:
        _check(key, scope)
    finally:
        close_stores(scope)


def _check(key: str, scope: dict[str, Any]) -> None:
    """What each section's snippets should have done, beyond not raising."""
    if key == "README.md::A tour":
        from hermes_memory_core import MemoryConfig

        assert not any(isinstance(v, MemoryProvider) and not v.closed for v in scope.values())  # each block closed its store
        with MemoryProvider(MemoryConfig(data_dir="./hermes_home/hermes_memory")) as hermes:  # Hermes' own store
            stored = [r.content for r in hermes.list_memories(user_id="default")]
        assert "The user mostly writes Python and avoids Java" in stored  # session end filed the user's words
        assert "The user mostly writes Python and avoids Java" in scope["context"]  # and the next prefetch shows them
    elif key == "docs/core.md::Using the core":
        assert scope["hits"][0].content == "用户主用 Python，避免 Java"
    elif key == "docs/core.md::Short-term memory and the tier lifecycle":
        mem = scope["mem"]
        mem.flush()
        stored = [r.content for r in mem.list_memories(user_id="u1", memory_types=["long_term"])]
        assert "用户平时写 Python 比较多，不太想用 Java" in stored  # the scripted model classified it long-term (its
        # rewrite kept the first person: the fact is said of the user)
    elif key == "docs/langchain.md::Agents: `create_agent` + middleware + store":
        mem = scope["mem"]
        assert any("Hangzhou" in h.content for h in mem.search("Hangzhou", user_id="alice"))
        assert [i.key for i in scope["store"].search(("memories", "alice"), query="她主要用什么编程语言？", limit=1)] == [
            "lang"]
    elif key == "docs/llamaindex.md::Chat engine and agent with `HermesMemory`":
        roles = [m.role.value for m in scope["memory"].get_all()]
        assert roles.count("user") == 2  # the chat engine's turn and the agent's
    elif key == "docs/permissions.md::Who may read and write what":
        assert scope["hidden"] == [] and scope["seen"][0].content == "The user is allergic to penicillin"
    elif key == "docs/reliability-and-security.md::All of it in one example":
        from pydantic import SecretStr

        from hermes_memory_core import Caller

        # the snippet rotated the key (into ./new.key) and closed its store
        cfg = scope["cfg"].model_copy(update={"encryption_key": SecretStr(scope["new_key"].hex())})
        with MemoryProvider(cfg, caller=Caller.admin("check")) as app:
            tiers = {r.content: r.memory_type for r in app.list_memories(user_id="u1")}
        assert tiers["Account tier: VIP (billing API)"] is MemoryType.PERMANENT


@pytest.mark.real_model
def test_the_core_example_runs_twice_in_one_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        scope = run_section("docs/core.md::Using the core")
        close_stores(scope)
    assert (tmp_path / "hermes_data").is_dir() and (tmp_path / "elsewhere").is_dir()


def test_every_model_in_a_snippet_is_labelled_scripted_and_shows_the_real_one() -> None:
    labelled = 0
    for key, blocks in SECTIONS.items():
        for start, code in blocks:
            if any(name in code for name in MODEL_STAND_INS):
                assert "SCRIPTED" in code, f"{key}:{start}"
                assert re.search(r"^\s*#.*the real one", code, flags=re.M), f"{key}:{start}"
                labelled += 1
    assert labelled >= 5


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    first = re.search(r"```bash\n(.*?)```", text, flags=re.S)
    assert first is not None and text.index("```bash") < text.index("\n## ")
    lines = [line for line in first.group(1).splitlines() if line and not line.startswith("#")]
    assert lines[0].endswith("hermes-memory demo") and "pip install" in lines[0]
    assert lines[1] == "HF_HUB_OFFLINE=1 .venv/bin/python -m pytest -n 2"  # two workers (pytest-xdist, in [dev])
    assert re.search(r"about \d+ minutes", text) and '-m "not slow and' in text.replace("\n", " ")


def test_docs_has_a_page_for_each_topic() -> None:
    names = {p.stem for p in PAGES[1:]}
    assert {"core", "langchain", "llamaindex", "hermes-agent", "mcp", "cli", "configuration", "permissions",
            "benchmarks", "reliability-and-security", "design", "troubleshooting"} <= names
    benchmarks = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "## Through the chat surfaces" in benchmarks  # the place kept for benchmarks/chat_replay.py


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def test_every_link_between_the_pages_resolves() -> None:
    checked = 0
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.name}: {target}"
            if anchor:
                assert anchor in anchors(dest), f"{page.name}: {target}"
            checked += 1
    assert checked >= 30


def test_the_pages_cite_only_what_the_repository_holds() -> None:
    """No design notes, seeds, issues or sessions a reader cannot open; nothing beside the clone."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for outside in (r"\bDESIGN\b", r"\bseed \d", r"§", r"\bissue[ -]\d", r"\b[Ss]ession \d", r"\.\./shared",
                        r"shared/data", r"issue tracker"):
            assert not re.search(outside, text), (page.name, outside)
        for cited in re.findall(r"`((?:tests|benchmarks|notebooks|\.ci|storage|trust|retrieval|lifecycle)/[^`\s]*)`",
                                text):
            pattern = cited.replace(".../", "**/")
            found = [p for base in (ROOT, ROOT / "hermes_memory_core") for p in base.glob(pattern + "*")]
            assert found, (page.name, cited)


def test_code_cites_the_docs_and_every_cited_anchor_exists() -> None:
    """Comments and docstrings point to ``docs/<page>.md#<anchor>``, never to seeds, design notes or issues a reader
    cannot open; each cited page and anchor exists."""
    files = [p for pkg in ("hermes_memory_core", "langchain_hermes_memory", "llama_index_hermes_memory",
                           "hermes_memory_agents", "benchmarks", "tests") for p in (ROOT / pkg).rglob("*.py")]
    files += [ROOT / "pyproject.toml", ROOT / ".ci" / "run"]
    cited = 0
    for path in files:
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8")
        for outside in (r"\bseed \d", r"§", r"\bDESIGN\b", r"\b[Ii]ssues? \d"):
            assert not re.search(outside, text), (str(path.relative_to(ROOT)), outside)
        for page, anchor in re.findall(r"docs/([\w-]+\.md)(?:#([\w-]+))?", text):
            dest = ROOT / "docs" / page
            assert dest.exists(), (str(path.relative_to(ROOT)), page)
            assert not anchor or anchor in anchors(dest), (str(path.relative_to(ROOT)), page, anchor)
            cited += 1
    assert cited >= 15
