"""Live values that cannot be read as their setting's type: findings, never "in sync".

A start-up log that prints ``max_model_len='banana'`` or ``gpu_memory_utilization=sNaN``
(a patched server, a hand-edited capture, a log cut mid-value) says nothing comparable
about the setting; dropping the value would leave the setting "in sync" or "absent". It is
a difference of its own, ``drift/unreadable-live``, that names the value and the type the
setting needs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Protocol

from linter.drift.result import Target
from linter.findings import Finding, Severity
from linter.positions import Origin, PathT
from linter.secrets.patterns import is_secret_path, mask

UNREADABLE_RULE = "drift/unreadable-live"
# The kinds of the registry (model/engine/registry.py) whose values are read, and what they are.
_KINDS = {
    "int": "an integer",
    "hint": "an integer",
    "float": "a number",
    "bool": "a boolean",
    "vbool": "a boolean",
    "ints": "a list of integers",
    "csv": "a list of integers",
    "json": "a JSON object",
}


class _Located(Protocol):
    def locate(self, original: PathT) -> Origin: ...


def unreadable(server: str, printed: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """Printed values of typed settings that do not read as their type: setting name →
    (the value as printed, what the setting needs)."""
    from linter.model.engine import registry
    from linter.model.engine.args import convert

    out: dict[str, tuple[Any, str]] = {}
    for key, value in printed.items():
        setting = registry.by_key(server, str(key))
        if setting is None or value is None or setting.kind not in _KINDS:
            continue
        if isinstance(value, list) and len(value) == 1 and setting.kind not in ("ints", "csv"):
            value = value[0]
        converted = convert(setting.kind, value)
        if converted is None or (isinstance(converted, float) and not math.isfinite(converted)):
            out[setting.name] = (value, _KINDS[setting.kind])
    return out


def unreadable_findings(
    found: Mapping[str, tuple[Any, str]],
    desired: _Located,
    committed: Mapping[str, Any],
    target: Target,
) -> list[Finding]:
    """One error per unreadable value, at the committed line of its setting (``committed``:
    the committed settings, shown beside it)."""
    out = []
    for name, (value, needs) in sorted(found.items()):
        origin = desired.locate((name,))
        secret = is_secret_path((name,))
        shown = mask(value) if secret else value
        wanted = committed.get(name)
        if secret and wanted is not None:
            wanted = mask(wanted)
        text = shown if isinstance(shown, str) else repr(shown)
        out.append(
            Finding(
                UNREADABLE_RULE,
                Severity.ERROR,
                f"{name} is {text!r} in {target.source}, which is not {needs}: the value "
                "the server printed cannot be compared",
                origin.source,
                origin.line,
                origin.column,
                path=name,
                doc_index=origin.doc_index,
                extra={"desired": wanted, "live": text, "source": target.source},
            )
        )
    return out
