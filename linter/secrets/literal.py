"""secrets/literal-secret: a token, key or password written into a committed file.

Public serving examples often put a Hugging Face token or an API key straight into
container args or env. Whoever can read the repository can then use it. A reference to a
Secret (``valueFrom.secretKeyRef``, ``existingSecret``, ``$(HF_TOKEN)``) is the fix and is
never flagged (README, "Security"); neither are placeholders (``<your-token>``, ``${HF_TOKEN}``)
or empty values. The value itself is never shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from linter.findings import Finding, Fix, Severity
from linter.lazyregex import lazy_compile
from linter.parsing.documents import Document
from linter.positions import PathT, format_path
from linter.secrets import patterns as secrets
from linter.secrets import redact, weak

RULE_ID = "secrets/literal-secret"
WEAK_RULE_ID = "secrets/weak-secret"
REFERENCES = (
    "https://kubernetes.io/docs/concepts/security/secrets-good-practices/",
    "https://kubernetes.io/docs/concepts/configuration/secret/",
    "https://huggingface.co/docs/hub/security-tokens",
)
TITLE = "A secret value is committed in a values file or manifest"
DESCRIPTION = (
    "A token, API key or password written into container args, env or a values "
    "file can be used by anyone who can read the repository or its history. A "
    "reference to a Kubernetes Secret is the fix and is never flagged; neither are "
    "placeholders and empty values. The value itself is never shown."
)
FIX = (
    "keep it in a Kubernetes Secret and reference it (env valueFrom.secretKeyRef, or the "
    "chart's existing-Secret setting); rotate the exposed value"
)
# What ``servelint lint --fix`` does (docs/fix.md).
AUTOFIX = (
    "replaces the literal value of a container's env entry in a Kubernetes manifest with "
    "valueFrom.secretKeyRef to a Secret named after the variable, and prints the Secret "
    "to create (the value is never written or printed)"
)

WEAK_REFERENCES = (
    "https://pages.nist.gov/800-63-3/sp800-63b.html#memsecretver",
    "https://cwe.mitre.org/data/definitions/521.html",
    "https://kubernetes.io/docs/concepts/security/secrets-good-practices/",
)
WEAK_TITLE = "A short or common value is committed as a secret"
WEAK_DESCRIPTION = (
    "A password, token or key shorter than eight characters, a well-known default "
    "(changeme, admin, test) or a single dictionary word is guessed in a few tries, "
    "wherever it is kept. Reports do not mask such a value (masking 'test' would garble "
    "'latest' and every path that holds it): this finding names the setting instead. "
    "The value itself is not shown."
)
WEAK_FIX = (
    "use a long random value, keep it in a Kubernetes Secret and reference it (env "
    "valueFrom.secretKeyRef, or the chart's existing-Secret setting)"
)

# Words that make a name a count or a pointer, not a secret: max_num_batched_token,
# pad_token, existingSecret, token_ttl.
_NOT_SECRET = frozenset(
    {
        "max",
        "min",
        "num",
        "number",
        "batched",
        "batch",
        "count",
        "threshold",
        "length",
        "len",
        "limit",
        "size",
        "budget",
        "ttl",
        "timeout",
        "id",
        "ids",
        "type",
        "range",
        "pad",
        "bos",
        "eos",
        "unk",
        "sep",
        "cls",
        "mask",
        "special",
        "sink",
        "per",
        "total",
        "rate",
        "existing",
        "expiry",
        "expiration",
        "name",
        "ref",
        "path",
        "file",
    }
)
_SECRET_LAST = frozenset({"token", "password", "passwd", "pwd", "pass", "passphrase", "apikey"})
_KEY_KINDS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "auth",
        "signing",
        "encryption",
        "master",
        "license",
        "account",
    }
)
_SECRET_KINDS = frozenset(
    {"client", "shared", "webhook", "jwt", "hmac", "app", "api", "signing", "session"}
)


def names_a_secret(name: str) -> bool:
    """Stricter than ``secrets.is_secret_name``: a finding must be certain."""
    words = secrets.words(name)
    if not words or any(w in _NOT_SECRET for w in words):
        return False
    last, before = words[-1], (words[-2] if len(words) > 1 else "")
    if last in ("key", "keys"):
        return before in _KEY_KINDS
    if last == "secret":
        return before in _SECRET_KINDS or before == ""
    return last in _SECRET_LAST


def names_a_reference(value: str) -> bool:
    """``VLLM_API_KEY``, ``hf-token``, ``my-secret``: the name of a Secret or of a key in
    one, which is what a reference holds, not the secret itself."""
    words = secrets.words(value)
    return (
        bool(_IDENTIFIER.match(value))
        and bool(words)
        and (
            words[-1] in ("token", "secret", "key", "password", "apikey", "credentials")
            or (value.isupper() and secrets.is_secret_name(value))
        )
    )


# Filled in when the manifest is rendered or applied (``ngc-api-${name}``, ``$(TOKEN)``,
# ``{{ .Values.key }}``): the value committed is a template, not the secret. A word of a
# longer text may hold only the start of one (Compose's ``${KEY:?"KEY is required"}``
# split at its spaces).
_SUBSTITUTED = lazy_compile(r"\$\{|\$\([A-Za-z_]|\{\{")


def is_weak_literal(value: str) -> bool:
    """A value written as a secret that is too short or too common to be one (``test``,
    ``charts``, ``changeme``, ``1234``): not a reference, template, placeholder phrase,
    vendor example or boolean."""
    value = value.strip()
    if not value or any(c.isspace() for c in value) or value.lower() in ("true", "false"):
        return False
    if names_a_reference(value) or _SUBSTITUTED.search(value):
        return False
    if secrets.is_truncated_token(value) or secrets.is_secret_value(value):
        return False
    if weak.is_common(value):
        return True  # "changeme" reads as a placeholder, and deployments keep it
    return weak.is_weak(value) and not redact.is_placeholder(value)


# A Kubernetes object's name (RFC 1123 label): what ``imagePullSecret: regcred`` or NIM's
# ``ngcAPISecret: ngc-api`` hold, the Secret to read, not the secret.
_OBJECT_NAME = lazy_compile(r"^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$")


def _names_a_secret_object(name: str | None, value: str) -> bool:
    return (
        name is not None
        and secrets.words(name)[-1:] == ["secret"]
        and _OBJECT_NAME.match(value) is not None
    )


def is_literal(value: str) -> bool:
    value = value.strip()
    if secrets.is_secret_value(value):
        return True
    if names_a_reference(value) or _SUBSTITUTED.search(value):
        return False
    if secrets.is_truncated_token(value):
        return False  # a vendor prefix with less than a token behind it: an example
    return (
        len(value) >= 8
        and not any(c.isspace() for c in value)
        and not redact.is_placeholder(value)
        and not value.replace(".", "", 1).isdigit()
    )


_IDENTIFIER = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _embedded(data: Any, where: PathT, value: str) -> str | None:
    """What ``value`` is when it is a real credential inside the longer text at ``where``
    (a URL's password, an ``Authorization`` header's credential, a token): the words for
    the finding; None otherwise (a placeholder, a ``$(VAR)`` reference, or no text)."""
    try:
        text = _at(data, where)
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(text, str) or text.strip() == value or "$" in value:
        return None
    if ":" in text or "=" in text:  # JSON or YAML in a string: {"api_key": "..."}
        keys = [key for key, found in secrets.keyed_pairs(text) if found == value]
        if keys and (is_weak_literal(value) or not redact.is_placeholder(value)):
            return f"secret '{keys[0]}' in"  # the caller tells weak from strong
    if redact.is_placeholder(value):
        return None
    if value in secrets.url_passwords(text):
        return "password in the URL of"
    if value in secrets.embedded_credentials(text):
        return "credential in"
    return None


def _in_reference(data: Any, path: PathT) -> bool:
    """True when the value sits beside a ``secretName`` (``{secretName, secretKey}``)."""
    parent = _at(data, path[:-1]) if path else None
    return isinstance(parent, dict) and any(
        isinstance(key, str)
        and secrets.words(key)[-1:] == ["name"]
        and "secret" in secrets.words(key)
        for key in parent
    )


def check(document: Document, secret_values: Sequence[tuple[PathT, str]]) -> list[Finding]:
    """Findings for the literal ones among ``secret_values`` (``redact.secret_values`` of
    the document, computed once per run)."""
    findings: list[Finding] = []
    data = document.data
    seen: set[PathT] = set()
    for path, value in secret_values:
        name, where = _name_and_location(data, path)
        if where in seen or _in_reference(data, where):
            continue
        finding = _literal(document, where, name, value)
        if finding is not None:
            seen.add(where)
            findings.append(_with_reference_fix(finding, data, where))
    if isinstance(data, dict) and data.get("kind") == "Secret":
        findings.extend(_secret_manifest(document, data, seen))
    return findings


def _literal(document: Document, where: PathT, name: str | None, value: str) -> Finding | None:
    """The finding for one secret value at ``where``: literal, weak, or none."""
    setting = name or format_path(where)
    by_name = secrets.is_secret_value(value) or bool(name and names_a_secret(name))
    if by_name and is_weak_literal(value) and not _names_a_secret_object(name, value):
        return _weak(document, where, f"in '{setting}'")
    if by_name and is_literal(value):
        return _finding(
            document,
            where,
            f"literal secret in '{setting}' is committed: anyone who can read the "
            f"repository can use it; {FIX}",
        )
    embedded = _embedded(document.data, where, value)
    if embedded is None:
        return None
    # A short or common value inside the text (a URL's password "postgres", a secret-named
    # key of embedded JSON) is weak wherever it sits.
    if is_weak_literal(value):
        return _weak(document, where, f"{embedded.removeprefix('secret ')} '{setting}'")
    if embedded.startswith("secret '") and not is_literal(value):
        return None
    return _finding(
        document,
        where,
        f"literal {embedded} '{setting}' is committed: anyone who can read the repository "
        f"can use it; {FIX}",
    )


def _with_reference_fix(finding: Finding, data: Any, where: PathT) -> Finding:
    """A literal value of a container's env entry in a Kubernetes manifest gets the fix of
    a ``secretKeyRef`` to a Secret named after the variable (``HF_TOKEN`` → Secret
    ``hf-token``, key ``HF_TOKEN``). Not in a values file: a chart may render its env
    entries key by key and drop ``valueFrom``."""
    kubernetes = isinstance(data, dict) and "apiVersion" in data and "kind" in data
    in_env = (
        len(where) >= 4
        and where[-1] == "value"
        and where[-3] == "env"
        and isinstance(where[-2], int)
        and any(part in ("containers", "initContainers") for part in where)
    )
    if finding.rule_id != RULE_ID or not kubernetes or not in_env:
        return finding
    entry = _at(data, where[:-1])
    name = entry.get("name") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not _ENV_NAME.match(name):
        return finding
    secret = name.lower().replace("_", "-").strip("-.")
    reference = Fix("secret-ref", {"name": secret, "key": name})
    return dataclasses.replace(finding, fix=reference)


_ENV_NAME = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _secret_manifest(document: Document, data: dict[str, Any], seen: set[PathT]) -> list[Finding]:
    """Every literal value of a Secret manifest's ``stringData`` and ``data``."""
    findings: list[Finding] = []
    for field in ("stringData", "data"):
        entries = data.get(field)
        if not isinstance(entries, dict):
            continue
        for key, value in entries.items():
            where = (field, key)
            if (
                isinstance(value, str)
                and value.strip()
                and not redact.is_placeholder(value)
                and where not in seen
            ):
                seen.add(where)
                findings.append(
                    _finding(
                        document,
                        where,
                        f"Secret manifest with literal {field} '{key}' "
                        "is committed (base64 is not encryption); "
                        "create the Secret outside the repository or "
                        "commit it encrypted (Sealed Secrets, SOPS, "
                        "External Secrets)",
                    )
                )
    return findings


def _weak(document: Document, path: PathT, where: str) -> Finding:
    """A weak secret: reported here, on its own line, rather than masked in every text."""
    return _finding(
        document,
        path,
        f"weak secret {where} is committed: a value this short or common is guessed in a "
        f"few tries, and reports do not mask it (masking it would garble every word that "
        f"contains it); {WEAK_FIX}",
        WEAK_RULE_ID,
        Severity.WARNING,
    )


def _finding(
    document: Document,
    path: PathT,
    message: str,
    rule_id: str = RULE_ID,
    severity: Severity = Severity.ERROR,
) -> Finding:
    span = document.span(path)
    return Finding(
        rule_id,
        severity,
        message,
        document.source,
        span.line,
        span.column,
        format_path(path),
        document.index,
    )


def _name_and_location(data: Any, path: PathT) -> tuple[str | None, PathT]:
    """The setting's name (key, env name or flag) and the deepest real path to point at."""
    node = data
    for depth, part in enumerate(path):
        if isinstance(node, str):
            # The path continues into a shell string, split on spaces.
            words = node.split()
            return _arg_name(words, int(part)), path[:depth]
        node = node[part]
    last = path[-1] if path else None
    parent = _at(data, path[:-1])
    if last == "value" and isinstance(parent, dict) and isinstance(parent.get("name"), str):
        return parent["name"], path
    if isinstance(last, str):
        return last, path
    if isinstance(last, int) and isinstance(parent, list):
        return _arg_name([str(a) for a in parent], last), path
    return None, path


def _arg_name(args: list[str], index: int) -> str | None:
    arg = args[index]
    if "=" in arg:
        return arg.split("=", 1)[0]
    return args[index - 1] if index > 0 else None


def _at(data: Any, path: PathT) -> Any:
    for part in path:
        data = data[part]
    return data
