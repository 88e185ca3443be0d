"""The one masking every command applies to what it prints.

``lint`` (every format, through ``reporters/outputs.py``), ``drift`` (``drift/result.py``),
``show`` (text, JSON, YAML and ``--live``), ``rules``, ``explain`` and the error line of
any command (``cli.py``) build a ``Masker`` with the secret values their inputs hold and
pass their output through it. It masks those values and the runner's secrets
(``environment.py``) as whole tokens, and every secret recognisable by its shape
(``patterns.py``); values under a secret's name are masked where each command builds its
output (``patterns.mask_value``), before this last pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from linter.findings import Finding
from linter.lightclass import frozen
from linter.secrets import redact


@frozen
class Masker:
    # Secret values of the inputs and of the runner's environment.
    values: frozenset[str]

    def text(self, text: str) -> str:
        return redact.scrub(text, self.values)

    def data(self, value: Any) -> Any:
        """``value`` (JSON-like data) with every string masked; keys are kept."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {key: self.data(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(item) for item in value]
        return value

    def findings(self, items: Iterable[Finding]) -> list[Finding]:
        return redact.findings(items, self.values)


def masker(values: Iterable[str] = ()) -> Masker:
    """A masker for ``values`` found in the inputs, and the runner's secrets."""
    return Masker(frozenset(values) | redact.environment_values())
