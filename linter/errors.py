"""Operational failures. Every one of them ends the run with exit code 3."""

from __future__ import annotations

from typing import ClassVar


class LinterError(Exception):
    """The tool could not do its job (as opposed to: the input has findings)."""

    exit_code: ClassVar[int] = 3

    def format_message(self) -> str:
        return str(self)


class PolicyError(LinterError):
    """A policy file is invalid: schema violation, CEL compile error, duplicate id."""


class ConfigError(LinterError):
    """The servelint configuration file is invalid."""


class SourceError(LinterError):
    """An input could not be read at all (missing path, cluster unreachable)."""


class ExpressionError(Exception):
    """A CEL expression failed to compile (at load) or to evaluate (at run time)."""
