"""Hermes' ``config.yaml`` keeps its mode when the provider writes it (trust round 4, class 6: files keep their modes)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml

from hermes_memory_agents.hermes_agent import HermesAgentProvider
from hermes_memory_agents.hermes_settings import read_settings
from hermes_memory_core import ConfigError


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_save_config_keeps_an_existing_files_mode(tmp_path: Path, mode: int) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("model: local-llama\napi_key: sk-owner-only-9f2c\n", encoding="utf-8")
    os.chmod(config, mode)
    HermesAgentProvider().save_config({"prefetch_top_k": "4"}, str(tmp_path))
    assert _mode(config) == mode
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert data["api_key"] == "sk-owner-only-9f2c" and data["memory"]["hermes_memory"]["prefetch_top_k"] == 4


def test_a_new_config_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        HermesAgentProvider().save_config({"mirror_builtin_writes": "no"}, str(tmp_path / "fresh-home"))
    finally:
        os.umask(old)
    config = tmp_path / "fresh-home" / "config.yaml"
    assert _mode(config) == 0o600
    assert read_settings(tmp_path / "fresh-home").mirror_builtin_writes is False


def test_the_write_is_atomic_and_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("toolsets: [web, terminal]\n", encoding="utf-8")
    os.chmod(config, 0o600)
    before = config.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ConfigError, match="cannot write"):
        HermesAgentProvider().save_config({"prefetch_top_k": "9"}, str(tmp_path))
    monkeypatch.undo()
    assert config.read_bytes() == before and _mode(config) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]
    HermesAgentProvider().save_config({"prefetch_top_k": "9"}, str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]


def test_a_linked_config_is_written_through_the_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "hermes-config.yaml"
    real.write_text("display: compact\n", encoding="utf-8")
    os.chmod(real, 0o600)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").symlink_to(real)
    HermesAgentProvider().save_config({"prefetch_top_k": "3"}, str(home))
    assert (home / "config.yaml").is_symlink() and _mode(real) == 0o600
    assert yaml.safe_load(real.read_text(encoding="utf-8"))["memory"]["hermes_memory"]["prefetch_top_k"] == 3


def test_write_yaml_config_keeps_unicode_and_order(tmp_path: Path) -> None:
    from hermes_memory_agents.hermes_settings import write_yaml_config

    path = tmp_path / "c.yaml"
    write_yaml_config(path, {"名字": "小满", "b": 1, "a": [2, 3]})
    assert path.read_text(encoding="utf-8").splitlines()[0] == "名字: 小满"
    assert list(yaml.safe_load(path.read_text(encoding="utf-8"))) == ["名字", "b", "a"]
