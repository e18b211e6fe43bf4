"""The public names, and what importing this package pulls in (never Hermes Agent, never MCP)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import hermes_memory_agents
from hermes_memory_agents import cli, cores, hermes_agent, hermes_hooks, hermes_install, mcp_server, tools

ROOT = Path(__file__).resolve().parents[2]


def test_all_is_pinned() -> None:
    assert set(hermes_memory_agents.__all__) == {
        "HermesAgentProvider", "MemoryTools", "ProviderSettings", "TOOL_NAMES", "TOOL_SCHEMAS", "ToolScope",
        "__version__", "install_plugin", "uninstall_plugin"}
    assert set(tools.__all__) == {"FORGET", "REMEMBER", "SEARCH", "TIERS", "TOOL_NAMES", "TOOL_SCHEMAS",
                                  "MemoryTools", "ToolScope", "normalize_words", "user_words_in"}
    assert set(hermes_agent.__all__) == {"DATA_DIR_NAME", "PROVIDER_NAME", "HermesAgentProvider", "ProviderSettings",
                                         "default_hermes_home", "load_yaml_config", "read_settings", "user_for"}
    assert set(hermes_install.__all__) == {"MARKER", "InstallResult", "install_plugin", "plugin_dir",
                                           "plugin_init_source", "plugin_yaml_source", "uninstall_plugin"}
    assert set(mcp_server.__all__) == {"INSTRUCTIONS", "SERVER_NAME", "BadMessageFilter", "DisconnectFilter",
                                       "bad_message_summary", "build_server", "mcp_missing", "quiet_bad_messages",
                                       "serve_stdio", "serve_streamable_http", "TOKEN_FILE", "load_or_create_token", "token_path"}
    assert set(cli.__all__) == {"LOGGERS", "MCP_OPTIONS", "STATUS_OPTIONS", "check_served_user", "cmd_hermes_agent",
                                "cmd_mcp", "common_parent", "main", "provider_active", "register"}
    assert set(cores.__all__) == {"acquire", "open_count", "release"}
    assert set(hermes_hooks.__all__) == {"CHECKPOINT_API_VERSION", "LABEL", "CheckpointLedger",
                                         "PreCompressCheckpointError", "RecallStatus", "config_schema", "conversation",
                                         "recall_status"}
    for module in (hermes_memory_agents, tools, hermes_agent, hermes_hooks, hermes_install, mcp_server, cli, cores):
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)


def test_importing_the_package_pulls_in_neither_hermes_agent_nor_mcp() -> None:
    code = (
        "import sys\n"
        "import hermes_memory_agents, hermes_memory_agents.cli, hermes_memory_agents.mcp_server\n"
        "bad = sorted(m for m in ('agent', 'plugins', 'hermes_constants', 'mcp', 'yaml') if m in sys.modules)\n"
        "print(bad)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_the_core_never_imports_this_package() -> None:
    sources = (ROOT / "hermes_memory_core").rglob("*.py")
    assert [p.name for p in sources if "hermes_memory_agents" in p.read_text(encoding="utf-8")] == []
