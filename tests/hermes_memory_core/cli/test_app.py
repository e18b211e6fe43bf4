"""Every CLI command is documented and works; the demo (the main job) runs end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_memory_core.cli import build_parser, main

COMMANDS = ["demo", "add", "remember", "recall", "get", "search", "list", "history", "update", "delete", "export",
            "restore", "reconcile", "forget", "rotate-key", "purge-user", "stats", "doctor", "config"]


def test_every_command_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    # the core's own commands; packages may add theirs through the hermes_memory.cli entry points
    assert set(COMMANDS) <= set(sub.choices)  # type: ignore[arg-type]
    for name, p in sub.choices.items():  # type: ignore[union-attr]
        assert p.description, name
        text = p.format_help()
        assert "--log-level" in text, name
        if name in COMMANDS:  # every core command works on a store and prints JSON on request
            assert "--data-dir" in text and "--json" in text, name


def test_help_exits_cleanly() -> None:
    res = subprocess.run([sys.executable, "-m", "hermes_memory_core.cli", "search", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "--top-k" in res.stdout


def test_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path / "d"), "--json"]
    assert main(["add", "我喜欢喝美式咖啡", "--user", "u", "--tag", "food", *d]) == 0
    mid = json.loads(capsys.readouterr().out)["id"]
    assert main(["search", "咖啡", "--user", "u", *d]) == 0
    assert json.loads(capsys.readouterr().out)[0]["id"] == mid
    assert main(["history", mid, *d]) == 0
    assert json.loads(capsys.readouterr().out)[0]["version"] == 1
    assert main(["stats", *d]) == 0
    assert json.loads(capsys.readouterr().out)["total_active"] == 1
    assert main(["forget", "--dry-run", *d]) == 0
    assert json.loads(capsys.readouterr().out)["dry_run"] is True
    assert main(["reconcile", *d]) == 0
    assert json.loads(capsys.readouterr().out)["vector_orphans_removed"] == 0
    assert main(["export", str(tmp_path / "b"), *d]) == 0
    capsys.readouterr()
    assert main(["restore", str(tmp_path / "b"), "--data-dir", str(tmp_path / "r"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total_active"] == 1


def test_errors_are_reported_not_raised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["add", "something", "--user", "u", "--data-dir", str(tmp_path / "d")]) == 0
    assert main(["history", "not-a-uuid", "--data-dir", str(tmp_path / "d")]) == 2
    assert "InvalidIdError" in capsys.readouterr().err


def test_demo_answers_every_question_right_in_both_languages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--data-dir", str(tmp_path / "demo"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {s["tier"] for s in out["stored"]} == {"short_term", "long_term", "permanent"}
    assert [v["version"] for v in out["versions"]] == [1, 2]
    assert out["wrong"] == 0 and all(r["same"] for r in out["restored_recall"])
    for row in out["recall"]:  # each question's first hit is the memory that answers it
        assert row["hits"][0]["content"] == row["expected"], row["question"]
    languages = {(has_cjk(r["question"]), has_cjk(r["expected"])) for r in out["recall"]}
    assert languages >= {(True, False), (False, True)}  # asked across languages, both ways
    assert (tmp_path / "demo" / "metadata.sqlite").exists()  # a folder the user named keeps the store


def test_demo_checks_every_answer_it_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """After the update, in a new chat session and after the restore: a wrong answer is counted and fails the demo."""
    import hermes_memory_core.cli.demo as demo

    assert main(["demo", "--data-dir", str(tmp_path / "ok"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    questions = [r["question"] for r in out["recall"]]
    assert demo._AFTER_UPDATE in questions and demo._CHAT_QUESTION in questions
    assert all(r["right"] and r["same"] for r in out["restored_recall"])
    monkeypatch.setattr(demo, "_AFTER_UPDATE", "What does the user like to drink?")  # answered by another memory
    assert main(["demo", "--data-dir", str(tmp_path / "bad"), "--json"]) == 1
    bad = json.loads(capsys.readouterr().out)
    assert bad["wrong"] == 2  # after the update, and the same question after the restore
    assert not bad["restored_recall"][0]["right"] and bad["restored_recall"][0]["same"]


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_demo_never_touches_an_existing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "hermes_data"
    assert main(["add", "keep me", "--user", "u", "--data-dir", str(store)]) == 0
    before = sorted((p.relative_to(store), p.stat().st_size) for p in store.rglob("*") if p.is_file())
    assert main(["demo", "--data-dir", str(store)]) == 2  # refused: not a new or empty folder
    assert "new or empty folder" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HERMES_MEMORY_DATA_DIR", str(store))
    assert main(["demo", "--json"]) == 0  # its own temporary folder, whatever the environment says
    assert json.loads(capsys.readouterr().out)["data_dir"] != str(store)
    after = sorted((p.relative_to(store), p.stat().st_size) for p in store.rglob("*") if p.is_file())
    assert [p for p, _ in after] == [p for p, _ in before]
    assert main(["search", "keep me", "--user", "u", "--data-dir", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["content"] == "keep me"
