"""Built-in checks written in Python, for what a CEL rule cannot say cleanly.

A check reads one document (with the secrets a shared scan found in it, see
``redact.scan``) and returns findings, like a ``target: document`` policy;
it runs with the built-in policies (not with ``--no-builtin``). One entry per check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from linter.findings import Finding
from linter.parsing.documents import Document
from linter.positions import PathT
from linter.secrets import literal as literal_secrets
from linter.secrets.redact import SecretsFound

Check = Callable[[Document, Sequence[tuple[PathT, str]]], list[Finding]]

CHECKS: dict[str, Check] = {
    literal_secrets.RULE_ID: literal_secrets.check,
}


def run(found: SecretsFound) -> list[Finding]:
    return [
        finding
        for document, secrets in found
        for check in CHECKS.values()
        for finding in check(document, secrets)
    ]
