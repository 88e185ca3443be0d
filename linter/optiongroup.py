"""Several click options as one decorator (the option groups of ``lint``, ``drift`` and
the rule commands)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def apply_options(options: Sequence[Callable[[Any], Any]], command: F) -> F:
    """``command`` decorated with ``options``, which ``--help`` then lists in this order
    (decorators apply from the bottom up, so the last is applied first)."""
    for option in reversed(options):
        command = option(command)
    return command
