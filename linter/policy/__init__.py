"""Declarative policies: model, loading and validation."""

from linter.policy.load import load_policies
from linter.policy.model import NamedExpr, Policy, Rule

__all__ = ["NamedExpr", "Policy", "Rule", "load_policies"]
