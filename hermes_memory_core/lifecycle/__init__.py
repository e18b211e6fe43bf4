"""Tier lifecycle: classification and normalisation, promotion, the recall gate, forgetting."""

from hermes_memory_core.lifecycle.classifier import Classification, LLMClassifier, RuleClassifier
from hermes_memory_core.lifecycle.forgetting import ForgetReport
from hermes_memory_core.lifecycle.gate import should_recall
from hermes_memory_core.lifecycle.promotion import RememberResult

__all__ = ["Classification", "ForgetReport", "LLMClassifier", "RememberResult", "RuleClassifier", "should_recall"]
