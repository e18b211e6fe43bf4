"""Hermes Memory core: tiered, persistent, portable, searchable memory for LLM agents.

Imports no agent framework; the LangChain and LlamaIndex adapters build on this package.
"""

import importlib
from typing import TYPE_CHECKING, Any

import hermes_memory_core._startup  # noqa: F401 - first: Ctrl-C while the command starts is one line
from hermes_memory_core import errors
from hermes_memory_core.answering import answering, asearch_answers, search_answers
from hermes_memory_core.config import MemoryConfig, RankingConfig
from hermes_memory_core.context import TurnContext, aturn_context, says_something, turn_context
from hermes_memory_core.errors import *  # noqa: F403 - every error class is public (errors.__all__)
from hermes_memory_core.lifecycle.erasure import ErasureReport
from hermes_memory_core.lifecycle.forgetting import ForgetReport
from hermes_memory_core.lifecycle.promotion import RememberResult
from hermes_memory_core.llm import LLM, CallableLLM
from hermes_memory_core.provider import MemoryProvider
from hermes_memory_core.rendering import (
    MEMORY_BLOCK_END,
    MEMORY_BLOCK_START,
    WITHHELD_NOTE,
    memory_line,
    memory_lines,
    prompt_safe,
    prompt_safe_hits,
    prompt_safe_summary,
    render_memory_block,
    shown_hit,
)
from hermes_memory_core.retrieval.gate import needs_permanent, should_recall
from hermes_memory_core.retrieval.recall_policy import holds_no_answer
from hermes_memory_core.short_term.session import SessionMemory, SessionView
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, LLMSummarizer, Summarizer
from hermes_memory_core.trust.authority import others_words
from hermes_memory_core.trust.injection import WriteVerdict, check_memory_write
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.trust.redaction import RedactionResult, Redactor
from hermes_memory_core.types import (
    CONVERSATION_KIND,
    AccessAction,
    MemoryHit,
    MemoryItem,
    MemoryRecord,
    MemoryType,
    MemoryVersion,
    Message,
    ReconcileReport,
    RememberAction,
    StoreStats,
)
from hermes_memory_core.validation import is_reserved_user_id, reserved_user_ids
from hermes_memory_core.version import __version__

if TYPE_CHECKING:  # served lazily below
    from hermes_memory_core.cli.common import user_hint as cli_user_hint
    from hermes_memory_core.cli.options import cli_config, cli_parent

#: Public names served on first use (:func:`__getattr__`): the command-line helpers load argparse, which a library
#: user importing the package never needs.
_LAZY = {"cli_config": ("hermes_memory_core.cli.options", "cli_config"),
         "cli_parent": ("hermes_memory_core.cli.options", "cli_parent"),
         "cli_user_hint": ("hermes_memory_core.cli.common", "user_hint")}


def __getattr__(name: str) -> Any:
    """The command-line helpers (``cli_config``, ``cli_parent``, ``cli_user_hint``), imported when first asked for."""
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value

#: The public names: these, and every error class (:data:`hermes_memory_core.errors.__all__`).
__all__ = [
    "CONVERSATION_KIND",
    "LLM",
    "MEMORY_BLOCK_END",
    "MEMORY_BLOCK_START",
    "WITHHELD_NOTE",
    "AccessAction",
    "CallableLLM",
    "Caller",
    "ErasureReport",
    "ExtractiveSummarizer",
    "ForgetReport",
    "LLMSummarizer",
    "MemoryConfig",
    "MemoryHit",
    "MemoryItem",
    "MemoryProvider",
    "MemoryRecord",
    "MemoryType",
    "MemoryVersion",
    "Message",
    "RankingConfig",
    "ReconcileReport",
    "RedactionResult",
    "Redactor",
    "RememberAction",
    "RememberResult",
    "SessionMemory",
    "SessionView",
    "StoreStats",
    "Summarizer",
    "TurnContext",
    "WriteVerdict",
    "__version__",
    "answering",
    "asearch_answers",
    "aturn_context",
    "check_memory_write",
    "others_words",
    "is_reserved_user_id",
    "reserved_user_ids",
    "cli_config",
    "cli_parent",
    "cli_user_hint",
    "memory_line",
    "memory_lines",
    "holds_no_answer",
    "needs_permanent",
    "prompt_safe",
    "prompt_safe_hits",
    "prompt_safe_summary",
    "render_memory_block",
    "search_answers",
    "should_recall",
    "shown_hit",
    "says_something",
    "turn_context",
    *errors.__all__,
]
