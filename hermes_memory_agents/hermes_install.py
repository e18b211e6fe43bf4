"""Install the Hermes Agent plugin folder: ``$HERMES_HOME/plugins/hermes_memory/`` (what
``hermes-memory hermes-agent install`` runs).

hermes-agent 0.19 finds external memory providers only as folders under ``$HERMES_HOME/plugins/`` whose
``__init__.py`` mentions ``MemoryProvider`` or ``register_memory_provider`` in its first 8 KB; it imports the file
and calls ``register(ctx)``. The folder written here holds:

- ``plugin.yaml``: name, version, description, and ``kind: exclusive`` (Hermes' general plugin loader leaves
  it to the memory-provider discovery);
- ``__init__.py``: imports :mod:`hermes_memory_agents.hermes_plugin` and re-exports its ``register`` and
  ``HermesMemoryProvider``. Hermes Memory should be installed in Hermes Agent's own environment
  (``python -m pip install <checkout or wheel>`` with Hermes' Python). When it is not importable there, the file
  adds the site-packages of the environment that ran the install command, provided the Python version is the
  same, appended after Hermes' own paths so that Hermes' pinned packages keep precedence. If that fails too, the
  file registers nothing and logs one warning saying how to install.

A folder that this module did not write is never overwritten.
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import hermes_memory_core
from hermes_memory_agents.hermes_settings import PROVIDER_NAME, default_hermes_home
from hermes_memory_core import ConfigError

__all__ = [
    "MARKER",
    "InstallResult",
    "install_plugin",
    "plugin_dir",
    "plugin_init_source",
    "plugin_yaml_source",
    "uninstall_plugin",
]

#: First line of every file this module writes; a folder without it is not ours.
MARKER = "# Written by `hermes-memory hermes-agent install` (Hermes Memory); re-run it to update."


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What an install did.

    Attributes:
        plugin_dir: The folder written.
        hermes_home: The Hermes home it was written under.
        replaced: A previous install was replaced.
    """

    plugin_dir: Path
    hermes_home: Path
    replaced: bool


def plugin_dir(hermes_home: str | Path | None = None) -> Path:
    """``<hermes_home>/plugins/hermes_memory`` (default home: ``$HERMES_HOME``, else ``~/.hermes``)."""
    home = Path(hermes_home).expanduser() if hermes_home else default_hermes_home()
    return home / "plugins" / PROVIDER_NAME


def _search_paths() -> list[str]:
    """Where this environment finds Hermes Memory: the folder above the package (a source checkout on
    ``PYTHONPATH``) and the environment's site-packages (``.pth`` files there cover editable installs)."""
    here = Path(__file__).resolve().parent.parent
    paths = [str(here)]
    for key in ("purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path and path not in paths:
            paths.append(path)
    return paths


def plugin_init_source(search_paths: list[str] | None = None) -> str:
    """The text of the plugin's ``__init__.py``."""
    paths = _search_paths() if search_paths is None else search_paths
    version = f"({sys.version_info[0]}, {sys.version_info[1]})"
    return f'''{MARKER}
"""Hermes Memory: tiered long-term memory as Hermes Agent's MemoryProvider ``{PROVIDER_NAME}``.

Activate it with ``hermes memory setup`` or ``memory: {{provider: {PROVIDER_NAME}}}`` in config.yaml.
``register(ctx)`` calls ``ctx.register_memory_provider(HermesMemoryProvider())``.
"""

from __future__ import annotations

import logging
import site
import sys

# Where Hermes Memory was installed when this file was written, and that environment's Python version.
_INSTALLED_AT = {paths!r}
_PYTHON = {version}

try:
    import hermes_memory_agents.hermes_plugin  # noqa: F401
except ImportError:
    if sys.version_info[:2] == _PYTHON:
        for _path in _INSTALLED_AT:
            site.addsitedir(_path)  # appended: Hermes' own packages keep precedence

try:
    from hermes_memory_agents.hermes_plugin import HermesMemoryProvider, register
except ImportError as _exc:
    _REASON = f"{{type(_exc).__name__}}: {{_exc}}"

    def register(ctx):  # noqa: D103 - registers nothing, says why
        logging.getLogger(__name__).warning(
            "hermes_memory is not available (%s). Install Hermes Memory into Hermes Agent's environment "
            "(Hermes' python -m pip install <hermes-memory checkout or wheel>) and re-run "
            "`hermes-memory hermes-agent install`.",
            _REASON,
        )

__all__ = ["HermesMemoryProvider", "register"]
'''


def plugin_yaml_source() -> str:
    """The text of the plugin's ``plugin.yaml``."""
    return (
        f"{MARKER}\n"
        f"name: {PROVIDER_NAME}\n"
        f"version: {hermes_memory_core.__version__}\n"
        'description: "Hermes Memory — tiered long-term memory (session, profile, permanent facts), hybrid '
        'keyword + vector recall in Chinese and English, local and offline."\n'
        "kind: exclusive\n"
    )


def _is_ours(folder: Path) -> bool:
    init = folder / "__init__.py"
    try:
        return init.read_text(encoding="utf-8").startswith(MARKER)
    except OSError:
        return False


def install_plugin(hermes_home: str | Path | None = None, *, force: bool = False) -> InstallResult:
    """Write (or update) the plugin folder.

    Args:
        hermes_home: Hermes' home (default ``$HERMES_HOME``, else ``~/.hermes``).
        force: Replace a folder of that name that this command did not write.

    Raises:
        ConfigError: The folder exists and is not ours (without ``force``), or cannot be written.
    """
    folder = plugin_dir(hermes_home)
    replaced = folder.exists()
    if replaced and not force and not _is_ours(folder):
        raise ConfigError(f"{folder} exists and was not written by hermes-memory; pass --force to replace it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in (("plugin.yaml", plugin_yaml_source()), ("__init__.py", plugin_init_source())):
            tmp = folder / f".{name}.tmp"
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(folder / name)
        cache = folder / "__pycache__"
        if cache.is_dir():
            shutil.rmtree(cache, ignore_errors=True)
    except OSError as exc:
        raise ConfigError(f"cannot write the plugin folder {folder}: {exc}") from exc
    return InstallResult(folder, folder.parent.parent, replaced)


def uninstall_plugin(hermes_home: str | Path | None = None) -> Path | None:
    """Remove the plugin folder if this command wrote it. Returns the folder removed, or None if there was none.

    Raises:
        ConfigError: The folder exists and is not ours.
    """
    folder = plugin_dir(hermes_home)
    if not folder.exists():
        return None
    if not _is_ours(folder):
        raise ConfigError(f"{folder} was not written by hermes-memory; remove it yourself if you mean to")
    shutil.rmtree(folder)
    return folder
