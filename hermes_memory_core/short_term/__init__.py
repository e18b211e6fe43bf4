"""Short-term memory: the per-session ring buffer and its incremental summary (compaction: :mod:`.compaction`)."""

from hermes_memory_core.short_term.session import SessionMemory, Sessions, SessionView
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, LLMSummarizer
from hermes_memory_core.types import Message

__all__ = ["ExtractiveSummarizer", "LLMSummarizer", "Message", "SessionMemory", "SessionView", "Sessions"]
