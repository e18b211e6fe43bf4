"""The snippet of docs/reliability-and-security.md runs as a user would paste it, and does what its comments say."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.hermes_memory_core.trust.snapshots import all_bytes

README = Path(__file__).resolve().parents[3] / "docs" / "reliability-and-security.md"


def test_readme_security_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_embedder: Any) -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("\n## All of it in one example\n"):]
    snippets = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(snippets) == 1
    monkeypatch.chdir(tmp_path)  # the snippet uses ./hermes_data (the real model, as a user gets it)
    scope: dict[str, Any] = {}
    exec(compile(snippets[0], str(README), "exec"), scope)
    assert (tmp_path / "new.key").exists() and scope["new_key"]
    manifest = (tmp_path / "backup-u1" / "manifest.json").read_text()
    assert '"signature"' in manifest
    assert b"penicillin" not in all_bytes(tmp_path / "hermes_data") + all_bytes(tmp_path / "backup-u1")
    stored = all_bytes(tmp_path / "hermes_data")
    assert b"Account tier" not in stored and b"billing API" not in stored
    # "VIP" alone is three bytes, which ~25 KB of ciphertext holds by chance about once in 700 stores: what would
    # be plaintext is the word among readable text (the statement, a summary, a log line), so look for that.
    readable = re.findall(rb"[ -~]{3}VIP|VIP[ -~]{3}", stored)
    assert not readable, readable
