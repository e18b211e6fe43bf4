"""Tier lifecycle: classification and normalisation, promotion, background work (it runs the ring's compaction), forgetting."""

from hermes_memory_core.lifecycle.classifier import Classification, Classifier, LLMClassifier, RuleClassifier
from hermes_memory_core.lifecycle.forgetting import ForgetReport
from hermes_memory_core.lifecycle.promotion import RememberResult

__all__ = ["Classification", "Classifier", "ForgetReport", "LLMClassifier", "RememberResult", "RuleClassifier"]
