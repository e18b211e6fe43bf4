"""The CLI a person can use: remember / recall / get, delete --hard, export --user, doctor, content from standard
input or a file, --log-level, "did you mean", a list that says when it cut, Ctrl-C, and the shared options table."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.cli import build_parser, main, options_table
from tests.conftest import TEST_KEY

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``--data-dir`` and the key of a new store; the hashing embedder keeps the tests fast."""
    from tests.fakes import HashingEmbedder

    monkeypatch.setattr("hermes_memory_core.engine.load_embedder", lambda *_a, **_k: HashingEmbedder())
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    return ["--data-dir", str(tmp_path / "d")]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_remember_recall_get(store: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["remember", "I mostly write Python and avoid Java", "--user", "u1", *store, "--json"], capsys)
    res = json.loads(out)
    assert code == 0 and res["action"] == "added" and res["memory_type"] == "long_term"
    assert res["content"] == "The user mostly writes Python and avoids Java"
    code, out, _ = run(["remember", "I mostly write Python and avoid Java!", "--user", "u1", *store, "--json"], capsys)
    assert json.loads(out)["action"] == "duplicate" and json.loads(out)["id"] == res["id"]
    code, out, _ = run(["recall", "Which language does the user write?", "--user", "u1", *store, "--json"], capsys)
    assert code == 0 and [h["id"] for h in json.loads(out)] == [res["id"]]
    code, out, _ = run(["recall", "thanks!", "--user", "u1", *store], capsys)
    assert code == 0 and out.startswith("(nothing to recall")
    code, out, _ = run(["get", res["id"], *store, "--json"], capsys)
    assert code == 0 and json.loads(out)["content"] == res["content"] and json.loads(out)["user_id"] == "u1"
    code, out, err = run(["get", res["id"], "--user", "someone-else", *store], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "NotFoundError" in err


def test_content_from_stdin_and_from_a_file(store: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("用户喜欢喝美式咖啡\n"))
    code, out, _ = run(["add", "-", "--user", "u1", *store, "--json"], capsys)
    first = json.loads(out)["id"]
    big = tmp_path / "note.txt"
    big.write_text("The user keeps a long design note.\n" * 200, encoding="utf-8")  # 7,000 characters, many lines
    code, out, _ = run(["add", "--file", str(big), "--user", "u1", *store, "--json"], capsys)
    second = json.loads(out)["id"]
    with MemoryProvider(MemoryConfig(data_dir=store[1], encryption_key=TEST_KEY), caller=Caller.admin("t")) as mem:
        assert mem.get(first).content == "用户喜欢喝美式咖啡"  # not "-"
        assert mem.get(second).content == big.read_text(encoding="utf-8")[:-1]  # the last line break dropped
    monkeypatch.setattr(sys, "stdin", io.StringIO("用户改喝茶了"))
    assert run(["update", first, "-", *store], capsys)[0] == 0
    code, _, err = run(["add", "text", "--file", str(big), "--user", "u1", *store], capsys)  # two sources
    assert code == 2 and "exactly one of them" in err and err.count("\n") == 1
    code, _, err = run(["add", "--file", str(tmp_path / "missing.txt"), "--user", "u1", *store], capsys)
    assert code == 2 and "cannot read --file" in err
    huge = tmp_path / "huge.txt"
    huge.write_text("x" * 2_000_000, encoding="utf-8")  # 2 MB: too long for a memory, said in one line
    code, _, err = run(["remember", "--file", str(huge), "--user", "u1", *store], capsys)
    assert code == 2 and "ContentTooLongError" in err and err.count("\n") == 1


def test_delete_hard_and_export_of_one_user(store: list[str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ids = {u: json.loads(run(["add", f"{u} keeps a marker word zebra{u}", "--user", u, *store, "--json"],
                             capsys)[1])["id"] for u in ("alice", "bob")}
    code, out, _ = run(["export", str(tmp_path / "b"), "--user", "alice", *store], capsys)
    assert code == 0 and "of user 'alice'" in out
    raw = b"".join(p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert b"zebraalice" in raw and b"zebrabob" not in raw
    code, out, _ = run(["delete", ids["bob"], "--hard", *store], capsys)
    assert code == 0 and out.startswith("erased")
    code, _, err = run(["history", ids["bob"], *store], capsys)
    assert code == 2 and "NotFoundError" in err  # gone with every version, unlike a soft delete
    code, out, _ = run(["delete", ids["alice"], *store], capsys)
    assert "--hard erases it" in out and run(["history", ids["alice"], *store], capsys)[0] == 0


def test_list_says_when_it_cut(store: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(3):
        run(["add", f"memory number {i}", "--user", "u1", *store], capsys)
    code, out, err = run(["list", "--user", "u1", "--limit", "2", *store, "--json"], capsys)
    assert code == 0 and len(json.loads(out)) == 2 and "there are more (--offset 2" in err
    code, out, err = run(["list", "--user", "u1", "--limit", "3", *store], capsys)
    assert len(out.splitlines()) == 3 and err == ""


def test_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["serach", "x"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "did you mean 'search'?" in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        build_parser().parse_args(["search", "x", "--user", "u", "--top_k", "3"])
    assert "did you mean '--top-k'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["zzzz"])
    err = capsys.readouterr().err
    assert "invalid choice: 'zzzz'" in err and "did you mean" not in err


def test_log_level(store: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    assert run(["add", "a memory", "--user", "u1", *store, "--log-level", "debug"], capsys)[0] == 0
    assert logging.getLogger("hermes_memory_core").level == logging.DEBUG
    assert run(["stats", *store, "--log-level", "error"], capsys)[0] == 0
    assert logging.getLogger("hermes_memory").level == logging.ERROR
    with pytest.raises(SystemExit):
        build_parser().parse_args(["stats", "--log-level", "loud"])


def test_doctor(store: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["doctor", *store], capsys)
    assert code == 1 and "FAIL  store: no Hermes Memory store" in out and "→" in out
    assert not Path(store[1]).exists()  # doctor creates nothing
    run(["add", "a fact", "--user", "u1", "--type", "permanent", *store], capsys)
    os.chmod(store[1], 0o755)
    code, out, _ = run(["doctor", *store, "--json"], capsys)
    report = json.loads(out)
    checks = {c["check"]: c for c in report["checks"]}
    assert code == 0 and report["ok"] is True
    assert checks["open"]["status"] == "ok" and checks["integrity"]["status"] == "ok"
    assert checks["folder permissions"]["status"] == "warn" and checks["folder permissions"]["fix"].startswith("chmod 700")
    assert "1 memories of 1 users" in checks["sizes"]["detail"]
    with MemoryProvider(MemoryConfig(data_dir=store[1], encryption_key=TEST_KEY)):  # this process holds it
        code, out, _ = run(["doctor", *store], capsys)
    assert code == 1 and "FAIL  open: StoreLockedError" in out and "already open in this process" in out


def test_the_options_table_of_the_docs_is_the_parsers(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    ours = importlib.metadata.EntryPoint("agents", "hermes_memory_agents.cli:register", "hermes_memory.cli")
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: [ours] if kw.get("group") == ours.group else [])
    table = options_table(build_parser())
    assert table in (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(" `"): line for line in table.splitlines()[2:]}
    assert rows["--json"].endswith("| all but `mcp` |")  # mcp speaks MCP, not JSON
    assert rows["--data-dir"].endswith("| all but `hermes-agent` |") and rows["--log-level"].endswith("| all |")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: The number of the read system call, where /proc/PID/syscall shows a process blocked on it.
_READ_SYSCALL = {"x86_64": "0", "aarch64": "63"}


def _wait_reading_stdin(proc: subprocess.Popen[str], limit: float = 300.0) -> None:
    """Wait until ``proc`` is blocked reading its standard input (Linux: ``/proc/PID/syscall`` shows ``read`` on
    descriptor 0), however long its imports take on a busy machine; elsewhere wait a generous fixed time."""
    syscall, number = Path(f"/proc/{proc.pid}/syscall"), _READ_SYSCALL.get(os.uname().machine)
    if number is None or not syscall.exists():
        time.sleep(15)
        return
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            fields = syscall.read_text().split()
        except OSError:  # not readable here (no ptrace access): the fixed wait
            time.sleep(15)
            return
        if fields[:2] == [number, "0x0"]:
            return
        time.sleep(0.1)
    raise AssertionError("the command never waited on standard input")


@pytest.mark.slow
def test_ctrl_c_is_one_line_and_130(tmp_path: Path) -> None:
    """Ctrl-C while a command waits (here: ``remember -`` reading standard input) is one line, exit status 130."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HERMES_MEMORY_ENCRYPTION_KEY": TEST_KEY,
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    argv = ["remember", "-", "--user", "u1", "--data-dir", str(tmp_path / "d")]
    # Ctrl-C as a terminal's foreground command gets it: a test run started in the background (`cmd &` in a
    # script) ignores SIGINT, and its children would inherit that
    proc = subprocess.Popen([sys.executable, "-m", "hermes_memory_core.cli", *argv], cwd=tmp_path, env=env,
                            preexec_fn=_default_sigint,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_reading_stdin(proc)  # imported and waiting on standard input (a Ctrl-C during the imports is Python's own)
    proc.send_signal(signal.SIGINT)
    try:  # standard input stays open until it exits: closing it now would race the signal with an end of input
        proc.wait(timeout=60)
    finally:
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.close()
        err = proc.stderr.read()
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and "interrupted during remember" in err and "Traceback" not in err


def test_config_prints_what_a_command_would_use_with_secrets_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    monkeypatch.setenv("HERMES_MEMORY_METADATA_URL", "postgresql://hermes:s3cret@db:5432/agents")
    monkeypatch.setenv("HERMES_MEMORY_QDRANT_URL", "http://user:pa55@qdrant:6333")
    toml = tmp_path / "hermes.toml"
    toml.write_text('[hermes_memory]\nhot_cache_size = 7\n', encoding="utf-8")
    code, out, _ = run(["config", "--config", str(toml), "--data-dir", str(tmp_path / "d"), "--json"], capsys)
    values = json.loads(out)
    assert code == 0 and values["hot_cache_size"] == 7 and values["data_dir"] == str(tmp_path / "d")
    assert values["encryption_key"] == values["metadata_url"] == "**********"
    assert values["qdrant_url"] == "http://user:****@qdrant:6333"
    assert TEST_KEY not in out and "s3cret" not in out and "pa55" not in out
    assert not (tmp_path / "d").exists()  # opens nothing
    code, out, _ = run(["config", "--data-dir", str(tmp_path / "d")], capsys)
    assert "hot_cache_size = 100    # " in out
