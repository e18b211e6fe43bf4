"""Trust: PII redaction, encryption at rest, permissions and the memory-injection defense."""

from hermes_memory_core.trust.at_rest import SealingCodec
from hermes_memory_core.trust.encryption import ContentCipher, generate_key
from hermes_memory_core.trust.injection import (
    Finding,
    WriteVerdict,
    check_memory_write,
    find_injection,
    sanitize_summary,
)
from hermes_memory_core.trust.keys import KeyManager
from hermes_memory_core.trust.permissions import ANONYMOUS, LIFECYCLE, Caller
from hermes_memory_core.trust.redaction import RedactionResult, Redactor

__all__ = [
    "ANONYMOUS",
    "LIFECYCLE",
    "Caller",
    "ContentCipher",
    "Finding",
    "KeyManager",
    "RedactionResult",
    "Redactor",
    "SealingCodec",
    "WriteVerdict",
    "check_memory_write",
    "find_injection",
    "generate_key",
    "sanitize_summary",
]
