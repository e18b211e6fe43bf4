"""The CLI as a new user meets it: one-line errors, read-only commands that create nothing,
``--version``, ``list``/``update``/``delete``, a stats table, ``--key-file`` everywhere, a closed pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_memory_core.cli import build_parser, main
from hermes_memory_core.version import DISTRIBUTION, __version__

READ_ONLY = [
    ["search", "tea", "--user", "u"],
    ["stats"],
    ["history", "00000000-0000-4000-8000-000000000000"],
    ["list", "--user", "u"],
    ["update", "00000000-0000-4000-8000-000000000000", "new text"],
    ["delete", "00000000-0000-4000-8000-000000000000"],
]
REPO = Path(__file__).resolve().parents[3]


def _one_line_error(err: str, *needles: str) -> None:
    assert err.count("\n") == 1 and err.startswith("hermes-memory: ") and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert __version__ in out and DISTRIBUTION in out


@pytest.mark.parametrize("argv", [*READ_ONLY, ["export", "bundle"]], ids=lambda a: a[0])
def test_commands_that_need_a_store_create_nothing(argv: list[str], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    missing, empty = tmp_path / "missing", tmp_path / "empty"
    empty.mkdir()
    for folder in (missing, empty):
        assert main([*argv, "--data-dir", str(folder)]) == 2
        _one_line_error(capsys.readouterr().err, "no Hermes Memory store in", str(folder))
    assert not missing.exists() and list(empty.iterdir()) == []
    assert not (tmp_path / "bundle").exists()


@pytest.mark.parametrize("argv", [["add", "hello", "--user", "u"], *READ_ONLY], ids=lambda a: a[0])
def test_a_data_dir_that_is_a_file(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x")
    for where in (tmp_path / "afile", tmp_path / "afile" / "below"):
        assert main([*argv, "--data-dir", str(where)]) == 2
        _one_line_error(capsys.readouterr().err, "is a file, not a folder")
    assert (tmp_path / "afile").read_text() == "x"


def test_an_export_target_that_cannot_be_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--data-dir", str(tmp_path / "store")]
    assert main(["add", "The user likes green tea", "--user", "u", *store]) == 0
    (tmp_path / "afile").write_text("x")
    capsys.readouterr()
    assert main(["export", str(tmp_path / "afile" / "bundle"), *store]) == 2
    _one_line_error(capsys.readouterr().err, "export")


def test_list_update_delete_and_the_stats_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path / "store")]
    assert main(["add", "The user likes green tea", "--user", "u", "--tag", "food", *d, "--json"]) == 0
    mid = json.loads(capsys.readouterr().out)["id"]
    assert main(["add", "The user plays chess", "--user", "u", *d]) == 0
    assert main(["add", "Another user's memory", "--user", "v", *d]) == 0
    capsys.readouterr()

    assert main(["list", "--user", "u", *d, "--json"]) == 0
    listed = sorted(r["content"] for r in json.loads(capsys.readouterr().out))  # written in the same second
    assert listed == ["The user likes green tea", "The user plays chess"]
    assert main(["list", "--user", "u", "--tag", "food", *d]) == 0
    out = capsys.readouterr().out
    assert mid in out and "[long_term]" in out and "chess" not in out

    assert main(["update", mid, "The user likes oolong tea", "--note", "changed", *d]) == 0
    assert capsys.readouterr().out.strip() == f"{mid}: version 2"
    assert main(["update", mid, "not theirs", "--user", "v", *d]) == 2  # another user's memory is not found
    _one_line_error(capsys.readouterr().err, "NotFoundError")
    assert main(["history", mid, *d, "--json"]) == 0
    assert [v["content"] for v in json.loads(capsys.readouterr().out)] == ["The user likes green tea",
                                                                          "The user likes oolong tea"]

    assert main(["stats", *d]) == 0
    table = capsys.readouterr().out
    assert "long_term" in table and "all tiers" in table and "versions 4" in table
    lines = table.splitlines()
    assert any(line.split() == ["u", "2"] for line in lines) and any(line.split() == ["v", "1"] for line in lines)

    assert main(["delete", mid, "--reason", "asked", *d]) == 0
    assert "deleted" in capsys.readouterr().out
    assert main(["list", "--user", "u", *d, "--json"]) == 0
    assert [r["content"] for r in json.loads(capsys.readouterr().out)] == ["The user plays chess"]


def test_every_command_that_opens_a_store_takes_a_key_file() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():  # type: ignore[union-attr]
        opens_a_store = "--data-dir" in p.format_help()  # hermes-agent's store is set in Hermes' config.yaml
        assert opens_a_store == ("--key-file" in p.format_help()), name


def test_a_restored_store_keeps_the_key_it_was_restored_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("HERMES_MEMORY_ENCRYPTION_KEY", raising=False)
    a, b, c = (["--data-dir", str(tmp_path / n)] for n in "abc")
    assert main(["add", "The user's name is Lin Wei", "--user", "u", "--type", "permanent", *a]) == 0
    assert main(["export", str(tmp_path / "bundle"), *a]) == 0
    capsys.readouterr()

    assert main(["restore", str(tmp_path / "bundle"), *b]) == 2  # no key: refused, both ways to give one named
    _one_line_error(capsys.readouterr().err, "HERMES_MEMORY_ENCRYPTION_KEY", "--key-file")
    assert not (tmp_path / "b" / "metadata.sqlite").exists()

    key = str(tmp_path / "a" / "hermes.key")
    assert main(["restore", str(tmp_path / "bundle"), *b, "--key-file", key]) == 0
    assert (tmp_path / "b" / "hermes.key").read_bytes() == Path(key).read_bytes()
    capsys.readouterr()
    assert main(["search", "name", "--user", "u", "--type", "permanent", *b, "--json"]) == 0  # no key needed now
    assert json.loads(capsys.readouterr().out)[0]["content"] == "The user's name is Lin Wei"

    # the key file also works on any other command, e.g. a store whose key lives elsewhere
    assert main(["restore", str(tmp_path / "bundle"), *c, "--key-file", key]) == 0
    (tmp_path / "c" / "hermes.key").unlink()
    capsys.readouterr()
    assert main(["list", "--user", "u", *c]) == 2
    _one_line_error(capsys.readouterr().err, "EncryptionKeyError")
    assert main(["list", "--user", "u", *c, "--key-file", key, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["memory_type"] == "permanent"


@pytest.mark.real_model
def test_a_closed_pipe_ends_the_demo_quietly(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen([sys.executable, "-m", "hermes_memory_core.cli", "demo"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # like `hermes-memory demo | head -1`
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141
    assert first.startswith(b"Hermes Memory demo") and "Traceback" not in err and "BrokenPipe" not in err, err
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran (the demo uses a temporary folder)
