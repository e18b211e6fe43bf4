"""The Hermes Agent provider's settings: where Hermes' home is, and ``memory.hermes_memory`` in its ``config.yaml``.

Kept apart from :mod:`hermes_memory_agents.hermes_agent` (the provider's hooks) so the installer and the CLI read
settings without the provider.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from hermes_memory_core import ConfigError, MemoryConfig

__all__ = [
    "DATA_DIR_NAME",
    "PROVIDER_NAME",
    "ProviderSettings",
    "default_hermes_home",
    "load_yaml_config",
    "read_settings",
    "write_yaml_config",
]

#: The provider's name in Hermes (``memory.provider``) and its plugin folder's name.
PROVIDER_NAME = "hermes_memory"
#: The data directory under ``HERMES_HOME`` unless ``data_dir`` is configured.
DATA_DIR_NAME = "hermes_memory"


def default_hermes_home() -> Path:
    """Hermes' home: ``hermes_constants.get_hermes_home()`` inside Hermes, else ``$HERMES_HOME``, else
    ``~/.hermes``."""
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except ImportError:
        env = os.environ.get("HERMES_HOME", "").strip()
        return Path(env).expanduser() if env else Path.home() / ".hermes"


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """The provider's settings: ``memory.hermes_memory`` in ``config.yaml`` (what ``hermes memory setup`` writes).

    Attributes:
        data_dir: The store's directory; ``$HERMES_HOME`` and ``~`` expand, relative paths are under Hermes'
            home. None: ``data_dir`` of ``config_file`` or ``HERMES_MEMORY_DATA_DIR``, else
            ``<hermes_home>/hermes_memory``.
        config_file: A TOML file with a ``[hermes_memory]`` table for everything else (embedding model, server
            mode, ranking, ...); ``HERMES_MEMORY_*`` environment variables apply on top.
        prefetch_top_k: Memories recalled before each turn (1..20).
        mirror_builtin_writes: Mirror Hermes' built-in ``memory`` tool into long-term memory.
    """

    data_dir: str | None = None
    config_file: str | None = None
    prefetch_top_k: int = 5
    mirror_builtin_writes: bool = True

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> ProviderSettings:
        """Parse settings as ``config.yaml`` or ``hermes memory setup`` give them (numbers and booleans may be
        strings; empty strings mean "not set").

        Raises:
            ConfigError: An unknown key or a value of the wrong kind.
        """
        if values is None:
            return cls()
        if not isinstance(values, Mapping):
            raise ConfigError(f"memory.{PROVIDER_NAME} in config.yaml must be a mapping, got {type(values).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(f"unknown memory.{PROVIDER_NAME} setting(s) {', '.join(map(str, unknown))}; "
                              f"known: {', '.join(sorted(known))}")
        out: dict[str, Any] = {}
        for key in ("data_dir", "config_file"):
            raw = values.get(key)
            if raw is not None and str(raw).strip():
                out[key] = str(raw).strip()
        raw_k = values.get("prefetch_top_k")
        if raw_k is not None and str(raw_k).strip():
            try:
                k = int(str(raw_k).strip())
            except ValueError:
                raise ConfigError(f"memory.{PROVIDER_NAME}.prefetch_top_k must be an integer, got {raw_k!r}") from None
            if not 1 <= k <= 20:
                raise ConfigError(f"memory.{PROVIDER_NAME}.prefetch_top_k must be in 1..20, got {k}")
            out["prefetch_top_k"] = k
        raw_m = values.get("mirror_builtin_writes")
        if raw_m is not None and str(raw_m).strip():
            flag = str(raw_m).strip().lower()
            if flag not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                raise ConfigError(f"memory.{PROVIDER_NAME}.mirror_builtin_writes must be true or false, got {raw_m!r}")
            out["mirror_builtin_writes"] = flag in ("true", "yes", "1", "on")
        return cls(**out)

    def as_config_values(self) -> dict[str, Any]:
        """The settings as ``config.yaml`` holds them (unset ones left out)."""
        out: dict[str, Any] = {"prefetch_top_k": self.prefetch_top_k, "mirror_builtin_writes": self.mirror_builtin_writes}
        if self.data_dir:
            out["data_dir"] = self.data_dir
        if self.config_file:
            out["config_file"] = self.config_file
        return out

    def memory_config(self, hermes_home: Path) -> MemoryConfig:
        """The store's configuration: ``config_file`` and ``HERMES_MEMORY_*`` first, then ``data_dir``.

        Raises:
            ConfigError: The TOML file is missing or invalid.
        """
        path = _expand(self.config_file, hermes_home) if self.config_file else None
        config = MemoryConfig.load(path)
        if self.data_dir:
            return config.model_copy(update={"data_dir": _expand(self.data_dir, hermes_home)})
        if "data_dir" not in config.model_fields_set:
            return config.model_copy(update={"data_dir": hermes_home / DATA_DIR_NAME})
        return config


def _expand(value: str, hermes_home: Path) -> Path:
    text = value.replace("${HERMES_HOME}", str(hermes_home)).replace("$HERMES_HOME", str(hermes_home))
    path = Path(os.path.expandvars(text)).expanduser()
    return path if path.is_absolute() else hermes_home / path


def load_yaml_config(path: Path) -> dict[str, Any]:
    """A YAML file's top-level mapping (empty when the file does not exist).

    Raises:
        ConfigError: It cannot be read or parsed, or is not a mapping.
    """
    if not path.exists():
        return {}
    try:
        import yaml
    except ImportError as exc:  # pragma: no cover - Hermes Agent ships PyYAML
        raise ConfigError(f"reading {path} needs PyYAML (pip install pyyaml)") from exc
    try:
        with path.open(encoding="utf-8-sig") as fh:
            data = yaml.safe_load(fh) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping at the top level")
    return data


def write_yaml_config(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` as YAML to ``path`` atomically, keeping the file's mode.

    The text goes to a temporary file in the same folder (created ``0600``), is flushed to disk and renamed over
    ``path``, so a reader sees the old file or the new one, never a part. An existing file keeps its permission bits
    (a ``0600`` ``config.yaml`` stays ``0600``) and, where the process may, its owner; a new file is ``0600``. A
    ``path`` that is a symbolic link is written through: the file it names is replaced, the link stays.

    Raises:
        ConfigError: The folder or file cannot be written; ``path`` is left as it was.
    """
    import yaml

    target = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            old: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            old = None
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            if old is not None:
                with contextlib.suppress(OSError, AttributeError):  # not ours to give away: the mode still holds
                    os.fchown(fh.fileno(), old.st_uid, old.st_gid)
            os.fchmod(fh.fileno(), stat.S_IMODE(old.st_mode) if old is not None else 0o600)
            yaml.safe_dump(dict(data), fh, default_flow_style=False, allow_unicode=True, sort_keys=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise ConfigError(f"cannot write {path}: {exc}") from exc
    try:  # the rename itself survives a crash once the folder is synced
        dir_fd = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_settings(hermes_home: Path) -> ProviderSettings:
    """The provider's settings from ``<hermes_home>/config.yaml`` (defaults when absent).

    Raises:
        ConfigError: The file cannot be read or the settings are invalid.
    """
    memory = load_yaml_config(Path(hermes_home) / "config.yaml").get("memory") or {}
    if not isinstance(memory, dict):
        raise ConfigError("memory in config.yaml must be a mapping")
    return ProviderSettings.from_mapping(memory.get(PROVIDER_NAME))
