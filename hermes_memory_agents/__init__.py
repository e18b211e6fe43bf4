"""Hermes Memory where agents run: a Hermes Agent memory provider and an MCP server, on the same core and tools.

- :mod:`hermes_memory_agents.tools`: the three tools (``hermes_memory_search``, ``hermes_memory_remember``,
  ``hermes_memory_forget``), their JSON schemas, and :class:`MemoryTools` that runs them for one user.
- :mod:`hermes_memory_agents.hermes_agent`: :class:`HermesAgentProvider`, Hermes Agent's ``MemoryProvider``
  interface (``hermes_plugin`` subclasses Hermes' base class with it, and only Hermes imports that module);
  :mod:`hermes_memory_agents.hermes_install` writes the plugin folder Hermes Agent 0.19 loads.
- :mod:`hermes_memory_agents.mcp_server`: the MCP server (``pip install "hermes-memory-layer[mcp]"``).
- :mod:`hermes_memory_agents.cli`: ``hermes-memory mcp`` and ``hermes-memory hermes-agent``.

Nothing here imports Hermes Agent or the MCP library until it is used.
"""

from hermes_memory_agents.hermes_agent import HermesAgentProvider, ProviderSettings
from hermes_memory_agents.hermes_install import install_plugin, uninstall_plugin
from hermes_memory_agents.tools import TOOL_NAMES, TOOL_SCHEMAS, MemoryTools, ToolScope
from hermes_memory_core import __version__

__all__ = [
    "TOOL_NAMES",
    "TOOL_SCHEMAS",
    "HermesAgentProvider",
    "MemoryTools",
    "ProviderSettings",
    "ToolScope",
    "__version__",
    "install_plugin",
    "uninstall_plugin",
]
