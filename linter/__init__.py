"""servelint: policy-as-code linter for LLM inference deployments."""

__version__ = "0.1.0"
