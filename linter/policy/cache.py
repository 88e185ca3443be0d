"""Loaded policies kept in the user's cache folder, keyed by their files' content.

Parsing the policy files and compiling their CEL costs more than linting a values file,
and a pre-commit hook pays it on every commit although the policies rarely
change. So a loaded policy set is stored, with every expression compiled and serialised
by cel-expr-python (deserialising is several times faster than compiling, and happens
only for the expressions a run evaluates), in ``$XDG_CACHE_HOME/servelint`` (default
``~/.cache/servelint``).

The key covers everything the stored objects depend on: the text and name of every
policy file, whether it is built in, servelint's own modules that define or build the
stored objects (the helper functions policies call among them: a compiled expression is
only valid with the declarations it was checked against), and the versions of Python and cel-expr-python. Entries are written to a
temporary file and renamed into place, so concurrent runs never read half a file; an
entry whose checksum does not match (a truncated or corrupted file) is ignored and
rewritten; only the newest entries are kept. Only policy sets that loaded without error
are stored. ``SERVELINT_NO_CACHE=1`` switches the cache off.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path

from linter._resources import schema_file
from linter.policy.expr import runtime_fingerprint
from linter.policy.helpers import declarations
from linter.policy.model import Policy

PolicyFile = tuple[str, str, bool]  # (source, text, built in)
_MAGIC = b"servelint-policies-1\n"
_DIGEST = hashlib.sha256().digest_size
KEEP = 8  # entries kept: a few policy sets (repositories, --policy-dir) and versions
# The modules whose classes are pickled, or whose code decides what is stored.
_CODE = (
    "linter.policy.expr",
    "linter.policy.helpers",
    "linter.policy.template",
    "linter.model.quantities",
    "linter.findings",
    "linter.policy.model",
    "linter.policy.fused",
    "linter.policy.load",
    "linter.policy.cache",
    "linter.policy.schema",
    "linter.parsing.documents",
    "linter.parsing.yaml_events",
    "linter.positions",
    "linter.errors",
)
# A user's policy file is stored only once it validated against this schema.
_SCHEMA = "policy.schema.json"


def cache_dir() -> Path | None:
    if os.environ.get("SERVELINT_NO_CACHE", "") not in ("", "0"):
        return None
    home = os.path.join(os.path.expanduser("~"), ".cache")
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG specification ignores relative paths
        base = home
    if not os.path.isabs(base):
        return None  # no home (a bare container): never a folder below the working one
    return Path(base) / "servelint"


def load(files: Sequence[PolicyFile]) -> list[Policy] | None:
    """The stored policies of ``files``, or None when there is no usable entry."""
    path = _entry(files)
    if path is None:
        return None
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    body = memoryview(raw)[len(_MAGIC) + _DIGEST :]  # not a copy: entries are megabytes
    if (
        not raw.startswith(_MAGIC)
        or raw[len(_MAGIC) : len(_MAGIC) + _DIGEST] != hashlib.sha256(body).digest()
    ):
        return None
    try:
        policies = pickle.loads(body)
    except (
        pickle.UnpicklingError,
        EOFError,
        AttributeError,
        ImportError,
        IndexError,
        TypeError,
        ValueError,
    ):
        return None  # written by code the key did not capture: rebuilt below
    if not isinstance(policies, list) or not all(isinstance(p, Policy) for p in policies):
        return None
    return policies


def store(files: Sequence[PolicyFile], policies: Sequence[Policy]) -> None:
    """Compile every expression of ``policies`` and store them; a cache folder that
    cannot be written only means the next run loads the policies again."""
    path = _entry(files)
    if path is None:
        return
    import tempfile  # only on a miss: with shutil, it costs every run its import

    for policy in policies:
        _compile_all(policy)
    body = pickle.dumps(list(policies), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(_MAGIC + hashlib.sha256(body).digest() + body)
            os.replace(temporary, path)
        except OSError:
            os.unlink(temporary)
            raise
        _prune(path.parent)
    except OSError:
        return


def _prune(directory: Path) -> None:
    """Keep the newest entries only: each edit of a policy (or upgrade) writes a new one."""
    entries = []
    for entry in directory.glob("policies-*.bin"):
        try:
            entries.append((entry.stat().st_mtime, entry))
        except OSError:
            continue  # removed by a concurrent run
    for _, entry in sorted(entries, reverse=True)[KEEP:]:
        try:
            entry.unlink()
        except OSError:
            continue


def _entry(files: Sequence[PolicyFile]) -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    digest = hashlib.sha256(_code_key())
    for source, text, builtin in files:
        digest.update(f"{len(source)}:{source}:{builtin}:{len(text)}:".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
    return directory / f"policies-{digest.hexdigest()[:40]}.bin"


@functools.cache
def _code_key() -> bytes:
    digest = hashlib.sha256(sys.version.encode())
    digest.update(runtime_fingerprint().encode())
    digest.update(declarations().encode())
    digest.update(schema_file(_SCHEMA).read_bytes())
    for name in _CODE:
        source = getattr(importlib.import_module(name), "__file__", None)
        digest.update(Path(source).read_bytes() if source else name.encode())
    # Any other module of the package, by size and time: a module split or moved (where
    # the line of a rule is computed, say) must not leave stale entries behind.
    package = Path(__file__).resolve().parent.parent
    for folder, _, names in sorted(os.walk(package)):
        for name in sorted(n for n in names if n.endswith(".py")):
            found = os.stat(os.path.join(folder, name))
            digest.update(f"{folder}/{name}:{found.st_size}:{found.st_mtime_ns};".encode())
    return digest.digest()


def _compile_all(policy: Policy) -> None:
    expressions = [c.expr for c in policy.match_conditions]
    expressions += [v.expr for v in policy.variables]
    for rule in policy.rules:
        expressions += [
            e
            for e in (
                rule.expression,
                rule.message_expression,
                rule.field_path_expression,
                rule.for_each,
            )
            if e is not None
        ]
        if rule.message_template is not None:
            expressions += rule.message_template.expressions
    for expression in expressions:
        expression.prepare()
    if policy.fused is not None:
        policy.fused.prepare()
