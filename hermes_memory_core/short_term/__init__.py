"""Short-term memory: the per-session ring buffer, its incremental summary and the background worker."""

from hermes_memory_core.short_term.session import SessionMemory, SessionView
from hermes_memory_core.short_term.store import Message
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, LLMSummarizer

__all__ = ["ExtractiveSummarizer", "LLMSummarizer", "Message", "SessionMemory", "SessionView"]
