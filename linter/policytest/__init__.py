"""``servelint test``: policy tests written as data (kind ``PolicyTest``)."""

from linter.policytest.model import CaseResult, InvalidFile, Outcome
from linter.policytest.run import run_paths

__all__ = ["CaseResult", "InvalidFile", "Outcome", "run_paths"]
