"""Loaded policies kept in the user's cache folder, keyed by their files.

Parsing the policy files and compiling their CEL costs more than linting a values file,
and a pre-commit hook pays it on every commit although the policies rarely change. So a
loaded policy set is stored, with every expression compiled and serialised by
cel-expr-python (deserialising is several times faster than compiling, and happens only
for the expressions a run evaluates), in ``$XDG_CACHE_HOME/servelint`` (default
``~/.cache/servelint``).

An entry is data only: JSON for the policies' names, texts, severities and messages,
followed by the serialised CEL of every expression (protocol buffers the CEL runtime
parses, never code), which the JSON points into by offset and length. Whoever can write
the folder can therefore change what a cached policy checks, but cannot run anything.
So the folder, and each entry, is used only when it belongs to the user running
servelint and nobody else may write it (``docs/security.md``).

The key covers everything the stored objects depend on: the name of every policy file,
whether it is built in, the text of a user's file, servelint's own files (installed
from a wheel, by the wheel's record of every file's digest: a file of the wheel edited
in place is therefore not seen; in a checkout, each module and built-in policy file by
its size and modification time: ``_resources.stamp``), the
declarations of the helper functions policies call (a compiled expression is only valid
with the declarations it was checked against), and the versions of Python and
cel-expr-python. Entries are written to a temporary file and renamed into place, so
concurrent runs never read half a file; an entry whose checksum does not match (a
truncated or corrupted file) or that does not have the expected shape is ignored and
rewritten; only the newest entries are kept. The checksum covers the JSON, which holds
a digest of every serialised expression, checked when that expression is first read: a
run reads a few hundred kilobytes of the megabytes stored, and a damaged expression is
compiled again from its text. Only policy sets that loaded without error are stored.
``SERVELINT_NO_CACHE=1`` switches the cache off.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from linter import digests
from linter._resources import schema_file, stamp, wheel_record
from linter.cachefolder import HEAD_LENGTH, cache_dir, read_checked, write_checked
from linter.policy.cache_read import Blob, Malformed, Texts, as_dict, as_int, as_list, read_policy
from linter.policy.expr import runtime_fingerprint
from linter.policy.helpers import declarations
from linter.policy.model import Policy, Rule

# (source, text or, for a built-in file, its stamp (``_resources.stamp``), built in)
PolicyFile = tuple[str, str, bool]
_MAGIC = b"servelint-policies-json-9\n"
_LENGTH = HEAD_LENGTH  # bytes of the JSON part's length, after the checksum
_SUFFIX = ".entry"
KEEP = 8  # entries kept: a few policy sets (repositories, --policy-dir) and versions
# A user's policy file is stored only once it validated against this schema.
_SCHEMA = "policy.schema.json"


def load(files: Sequence[PolicyFile]) -> list[Policy] | None:
    """The stored policies of ``files``, or None when there is no usable entry."""
    path = _entry(files)
    if path is None:
        return None
    # The checksum covers the JSON; each serialised form is checked when it is first
    # read (its digest is in the JSON), so a run hashes only the few it evaluates.
    body = read_checked(path, _MAGIC, head_only=True)
    if body is None:
        return None
    size = int.from_bytes(body[:_LENGTH], "big")
    header = body[_LENGTH : _LENGTH + size]
    first = int.from_bytes(header[:_LENGTH], "big")
    texts_at = _LENGTH + first + _LENGTH
    texts_end = texts_at + int.from_bytes(header[_LENGTH + first : texts_at], "big")
    try:
        if texts_end > len(header):
            raise Malformed
        data = as_dict(json.loads(bytes(header[_LENGTH : _LENGTH + first])))
        texts = Texts(header[texts_at:texts_end], as_int(data["texts"]))
        blob = Blob(body[_LENGTH + size :], path, texts, header[texts_end:])
        if as_int(data["forms_length"]) != len(blob.data):
            return None  # a truncated entry: rebuilt below
        recover = functools.partial(_rules_from_file, path)
        return [read_policy(p, blob, recover) for p in as_list(data["policies"])]
    except (ValueError, RecursionError, Malformed, KeyError, TypeError):
        return None  # written by code the key did not capture: rebuilt below


def _rules_from_file(entry: Path, name: str, source: str, builtin: bool) -> tuple[Rule, ...]:
    """The rules of policy ``name`` read from its file again, for an entry whose rules
    cannot be read; the entry is removed, so that the next run stores the policies anew."""
    from linter.policy.load import rules_from_file  # load.py imports this module

    with contextlib.suppress(OSError):
        entry.unlink()
    return rules_from_file(name, source, builtin)


def store(files: Sequence[PolicyFile], policies: Sequence[Policy]) -> None:
    """Compile every expression of ``policies`` and store them; a cache folder that
    cannot be written, or that others may write, only means the next run loads the
    policies again."""
    path = _entry(files)
    if path is None:
        return
    # Only when the policies changed: a run that finds its entry never imports the writer.
    from linter.policy.cache_write import Written, compile_all, policy_data

    for policy in policies:
        compile_all(policy)
    blob = Written()
    stored = [policy_data(p, blob) for p in policies]
    policies_json = _json({"forms_length": len(blob), "texts": len(blob.texts), "policies": stored})
    # The texts after the policies, in the part the checksum covers: parsed only when a
    # run first reads one (``Texts``).
    texts = _json(blob.texts)
    header = (
        len(policies_json).to_bytes(_LENGTH, "big")
        + policies_json
        + len(texts).to_bytes(_LENGTH, "big")
        + texts
        + bytes(blob.rules)
    )
    write_checked(path, _MAGIC, header, KEEP, rest=bytes(blob))


def _json(value: object) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def _entry(files: Sequence[PolicyFile]) -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    try:
        code = _code_key()
    except OSError:  # a folder of the package that cannot be listed: no cache, no failure
        return None
    digest = digests.new(code)
    for source, text, builtin in files:
        digest.update(f"{len(source)}:{source}:{builtin}:{len(text)}:".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
    return directory / f"policies-{digest.hexdigest()[:40]}{_SUFFIX}"


@functools.cache
def _code_key() -> bytes:
    digest = digests.new(sys.version.encode())
    digest.update(runtime_fingerprint().encode())
    digest.update(declarations().encode())
    digest.update(stamp(schema_file(_SCHEMA)).encode())
    # Every module of the package, not only those that build the stored objects: a module
    # split or moved (where the line of a rule is computed, say) must not leave stale
    # entries behind either. Installed from a wheel, by the wheel's record of every
    # file's digest; in a checkout, by each module's size and time, without importing it.
    record = wheel_record()
    if record is not None:
        digest.update(record)
    else:
        digest.update(_module_stamps(Path(__file__).resolve().parent.parent).encode())
    return digest.digest()


def _module_stamps(package: Path) -> str:
    stamps = []
    folders = [str(package)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    found = entry.stat()
                    stamps.append(f"{entry.path}:{found.st_size}:{found.st_mtime_ns};")
                elif entry.name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
    return "".join(sorted(stamps))
