"""``hermes-memory mcp`` and ``hermes-memory hermes-agent``: registered through the core's entry-point hook,
declared in pyproject.toml, and the plugin folder they install."""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_memory_agents.cli import common_parent, main, register
from hermes_memory_agents.hermes_install import MARKER
from hermes_memory_core import cli as core_cli
from hermes_memory_core.version import DISTRIBUTION

ROOT = Path(__file__).resolve().parents[2]
OURS = importlib.metadata.EntryPoint(name="agents", value="hermes_memory_agents.cli:register", group="hermes_memory.cli")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if a.dest == "command")
    return dict(sub.choices)  # type: ignore[arg-type]


def _options(parser: argparse.ArgumentParser) -> dict[str, Any]:
    return {a.option_strings[0]: (a.default, a.help) for a in parser._actions if a.option_strings and a.dest != "help"}


def _with_entry_points(monkeypatch: pytest.MonkeyPatch, *eps: importlib.metadata.EntryPoint) -> None:
    def fake(**params: Any) -> list[importlib.metadata.EntryPoint]:
        return [ep for ep in eps if ep.group == params.get("group")]

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)


def test_our_commands_are_documented_and_take_the_common_options() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"), common_parent())
    commands = _subcommands(parser)
    assert sorted(commands) == ["hermes-agent", "mcp"]
    for name, p in commands.items():
        assert p.description, name
        assert "--log-level" in p.format_help(), name
    assert "--transport" in commands["mcp"].format_help() and "--hermes-home" in commands["hermes-agent"].format_help()


def test_help_offers_only_what_works() -> None:
    """mcp speaks MCP, not JSON; hermes-agent's data directory is set in Hermes' config.yaml."""
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    commands = _subcommands(parser)
    mcp, hermes = commands["mcp"].format_help(), commands["hermes-agent"].format_help()
    assert "--data-dir" in mcp and "--key-file" in mcp and "--json" not in mcp
    assert "--json" in hermes and "--data-dir" not in hermes and "--key-file" not in hermes
    assert "not used" not in hermes


def test_the_core_cli_adds_commands_from_the_entry_point_group(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    _with_entry_points(monkeypatch)
    assert "mcp" not in _subcommands(core_cli.build_parser())
    _with_entry_points(monkeypatch, OURS)
    commands = _subcommands(core_cli.build_parser())
    assert {"mcp", "hermes-agent", "demo", "search"} <= set(commands)
    assert core_cli.main(["hermes-agent", "status", "--hermes-home", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["installed"] is False


def test_a_broken_plugin_leaves_the_core_commands_working(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    broken = importlib.metadata.EntryPoint(name="broken", value="no_such_module:register", group="hermes_memory.cli")
    _with_entry_points(monkeypatch, broken, OURS)
    commands = _subcommands(core_cli.build_parser())
    assert {"mcp", "stats"} <= set(commands)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "skipped the commands of 'broken' (ModuleNotFoundError" in err


def test_our_common_options_are_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_entry_points(monkeypatch)
    core_stats = _subcommands(core_cli.build_parser())["stats"]
    mine = argparse.ArgumentParser(parents=[common_parent()], add_help=False)
    assert _options(mine) == _options(core_stats)


def test_pyproject_declares_the_extra_and_entry_points() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert extras["mcp"] == ["mcp>=1.24,<2"]
    assert project["name"] == DISTRIBUTION
    assert any(dep.startswith(f"{DISTRIBUTION}[") and "mcp" in dep for dep in extras["dev"])
    eps = project["entry-points"]
    assert eps["hermes_memory.cli"]["agents"] == "hermes_memory_agents.cli:register"
    assert importlib.metadata.EntryPoint("agents", eps["hermes_memory.cli"]["agents"], "hermes_memory.cli").load() is register
    assert eps["hermes_agent.memory_providers"] == {"hermes_memory": "hermes_memory_agents.hermes_plugin"}
    assert importlib.util.find_spec("hermes_memory_agents.hermes_plugin") is not None
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert "hermes_memory_agents*" in found["include"]


def test_installed_metadata_registers_our_commands() -> None:
    try:
        groups = {ep.group for ep in importlib.metadata.distribution(DISTRIBUTION).entry_points}
    except importlib.metadata.PackageNotFoundError:
        groups = set()
    if "hermes_memory.cli" not in groups:
        pytest.skip(f"no installed {DISTRIBUTION} metadata with the hermes_memory.cli entry points "
                    "(pip install -e . registers them)")
    assert {"mcp", "hermes-agent"} <= set(_subcommands(core_cli.build_parser()))


def test_install_status_uninstall(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "hermes"
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.delenv("HERMES_MEMORY_DATA_DIR", raising=False)

    def run(*argv: str) -> tuple[int, Any]:
        code = main([*argv, "--json"])
        out = capsys.readouterr().out
        return code, json.loads(out) if out.strip() else None

    assert run("hermes-agent", "status") == (0, {"plugin_dir": str(home / "plugins" / "hermes_memory"),
                                                 "installed": False, "data_dir": str(home / "hermes_memory"),
                                                 "active": False})
    code, out = run("hermes-agent", "install")  # the default home is $HERMES_HOME
    assert code == 0 and out["replaced"] is False and out["hermes_home"] == str(home)
    folder = home / "plugins" / "hermes_memory"
    init = (folder / "__init__.py").read_text()
    assert init.startswith(MARKER) and "MemoryProvider" in init[:8192] and "register_memory_provider" in init[:8192]
    compile(init, "__init__.py", "exec")
    meta = yaml.safe_load((folder / "plugin.yaml").read_text())
    assert meta["name"] == "hermes_memory" and meta["kind"] == "exclusive" and "Hermes Memory" in meta["description"]
    assert run("hermes-agent", "install")[1]["replaced"] is True
    (home / "config.yaml").write_text("memory:\n  provider: hermes_memory\n  hermes_memory:\n    data_dir: /srv/mem\n")
    code, out = run("hermes-agent", "status")
    assert out["installed"] and out["active"] and out["data_dir"] == "/srv/mem"
    assert run("hermes-agent", "uninstall") == (0, {"removed": str(folder)})
    assert not folder.exists() and run("hermes-agent", "uninstall") == (0, {"removed": None})

    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("# someone else's plugin\n")
    assert main(["hermes-agent", "install"]) == 2
    assert "not written by hermes-memory; pass --force" in capsys.readouterr().err
    assert main(["hermes-agent", "uninstall"]) == 2
    assert (folder / "__init__.py").read_text() == "# someone else's plugin\n"
    assert main(["hermes-agent", "install", "--force"]) == 0
    assert (folder / "__init__.py").read_text().startswith(MARKER)


def test_default_hermes_home_is_dot_hermes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("HERMES_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delitem(sys.modules, "hermes_constants", raising=False)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if "hermes-agent" not in p])
    assert main(["hermes-agent", "install", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plugin_dir"] == str(tmp_path / ".hermes" / "plugins" / "hermes_memory")


@pytest.mark.parametrize(("text", "active"), [
    ("memory:\n  provider: hermes_memory\n", True),
    ("model: x\nmemory:\n  # a comment\n  provider: 'hermes_memory'   # ours\n  hermes_memory:\n    prefetch_top_k: 3\n",
     True),
    ("memory: {provider: hermes_memory}\n", True),
    ("memory:\n  provider: honcho\n", False),
    ("other:\n  provider: hermes_memory\n", False),
])
def test_status_without_pyyaml_never_calls_an_active_provider_inactive(
    text: str, active: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    import builtins

    real_import = builtins.__import__

    def without_yaml(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] == "yaml":
            raise ImportError("No module named 'yaml'")
        return real_import(name, *args, **kwargs)

    (tmp_path / "config.yaml").write_text(text)
    monkeypatch.setattr(builtins, "__import__", without_yaml)
    assert main(["hermes-agent", "status", "--hermes-home", str(tmp_path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["active"] is active
    assert "PyYAML" in status["config_error"]  # the data directory needs the real reader, and says so


def test_ctrl_c_is_one_line_and_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import hermes_memory_agents.cli as agents_cli

    def interrupted(_args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(agents_cli, "cmd_hermes_agent", interrupted)
    assert main(["hermes-agent", "status"]) == 130
    err = capsys.readouterr().err
    assert err == "hermes-memory: interrupted during hermes-agent\n"


@pytest.mark.parametrize("user", ["", "   ", "langgraph.store"])
def test_mcp_refuses_a_user_no_call_could_use_at_start(user: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``--user ""`` used to start a server whose every call failed with 'user_id is empty'."""
    assert main(["mcp", "--data-dir", str(tmp_path / "d"), "--user", user]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hermes-memory: InvalidInputError: --user ") and "Traceback" not in err
    assert not (tmp_path / "d").exists()  # refused before the store opened


def _serve_nothing(monkeypatch: pytest.MonkeyPatch, embedder: Any) -> list[str]:
    """``hermes-memory mcp`` in this process on the test embedder, its stdio serving replaced by noting the user."""
    import hermes_memory_agents.mcp_server as mcp_server
    import hermes_memory_core

    served: list[str] = []

    async def serve(server: Any) -> None:
        served.append("served")

    real = hermes_memory_core.MemoryProvider
    monkeypatch.setattr(mcp_server, "serve_stdio", serve)
    monkeypatch.setattr(hermes_memory_core, "MemoryProvider",
                        lambda config, **kw: real(config, embedder=embedder, **kw))
    return served


def test_mcp_warns_of_a_user_id_that_differs_only_by_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str], embedder: Any) -> None:
    """``--user Alice`` where the store holds ``alice`` silently found nothing; now a warning names ``alice`` and
    the server still starts (a new user is legitimate)."""
    from hermes_memory_core import MemoryProvider
    from tests.conftest import TEST_KEY, make_config

    config = make_config(tmp_path / "d")
    with MemoryProvider(config, embedder=embedder) as mem:
        mem.add("The user grows tomatoes", user_id="alice")
        mem.add("The user keeps bees", user_id="alice")
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    served = _serve_nothing(monkeypatch, embedder)
    argv = ["mcp", "--data-dir", str(tmp_path / "d"), "--user"]
    assert main([*argv, "Alice"]) == 0 and served == ["served"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "WARNING" in err and "did you mean 'alice' (2 memories)?" in err, err
    for quiet in ("alice", "bob"):  # the user's own id, and a new user nothing resembles: no warning
        assert main([*argv, quiet]) == 0
        assert capsys.readouterr().err == ""
    assert main([*argv, "x" * 300]) == 2  # the store's own check of the id, at start
    assert capsys.readouterr().err.startswith("hermes-memory: InvalidInputError: ")
