"""The policy cache: keyed by the user's files' content (a built-in file's, and
servelint's own modules', size and time), safe against corrupted entries, and never
changing what the policies find."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import mmap
import os
import pickle
import types
from pathlib import Path
from typing import Any

import pytest

from linter import digests
from linter.errors import PolicyError
from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads
from linter.policy import cache, cache_read, load, load_policies
from linter.policy.engine import document_subject, evaluate, workload_subject
from linter.policy.load import _policy_texts

FIXTURES = Path(__file__).parent / "fixtures"
POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {{name: team-replicas}}
spec:
  target: document
  matchConditions:
    - {{name: deployments, expression: "doc.kind == 'Deployment'"}}
  variables:
    - {{name: replicas, expression: "has(doc.spec.replicas) ? doc.spec.replicas : 1"}}
  rules:
    - id: min-replicas
      severity: error
      expression: "variables.replicas >= {minimum}"
      messageExpression: "'needs ' + string({minimum}) + ', has ' + string(variables.replicas)"
"""
DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: 2}\n"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SERVELINT_NO_CACHE", raising=False)
    monkeypatch.delenv("SERVELINT_SYSTEM_CACHE", raising=False)
    return tmp_path / "cache" / "servelint"


def _messages(policy_dir: Path) -> list[str]:
    policies = load_policies([str(policy_dir)], builtin=False)
    parsed = parse("deploy.yaml", DEPLOYMENT)
    return [f.message for f in evaluate(policies, [document_subject(d) for d in parsed.documents])]


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("policies-*.entry"))


def test_an_entry_is_keyed_by_the_policy_text(tmp_path: Path, _own_cache: Path) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "team.yaml").write_text(POLICY.format(minimum=3), encoding="utf-8")
    assert _messages(policies) == ["needs 3, has 2"]
    assert len(_entries(_own_cache)) == 1
    assert _messages(policies) == ["needs 3, has 2"]  # read back from the cache
    (policies / "team.yaml").write_text(POLICY.format(minimum=2), encoding="utf-8")
    assert _messages(policies) == []  # the edited file is a new entry, not the stale one
    assert len(_entries(_own_cache)) == 2


def _builtin_messages(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from linter import _resources

    monkeypatch.setattr(_resources, "builtin_policies", lambda: root)
    policies = load_policies()
    parsed = parse("deploy.yaml", DEPLOYMENT)
    return [f.message for f in evaluate(policies, [document_subject(d) for d in parsed.documents])]


def test_a_builtin_file_is_keyed_by_its_size_and_time_and_not_read_when_stored(
    tmp_path: Path, _own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "builtin"
    root.mkdir()
    policy = root / "team.yaml"
    policy.write_text(POLICY.format(minimum=3), encoding="utf-8")
    os.utime(policy, ns=(10**18, 10**18))
    assert _builtin_messages(root, monkeypatch) == ["needs 3, has 2"]
    assert len(_entries(_own_cache)) == 1
    # Stored: the file is not read again, its stamp is the key.
    from linter.policy import load as policy_load

    def unread() -> None:
        raise AssertionError("a built-in file was read although its entry is stored")

    with monkeypatch.context() as patched:
        patched.setattr(policy_load, "_builtin_files", unread)
        assert _builtin_messages(root, monkeypatch) == ["needs 3, has 2"]
    # A new time (servelint reinstalled, a policy edited in a checkout): a new entry.
    policy.write_text(POLICY.format(minimum=1), encoding="utf-8")
    assert _builtin_messages(root, monkeypatch) == []
    assert len(_entries(_own_cache)) == 2


def test_servelint_s_modules_are_keyed_by_size_and_time(tmp_path: Path) -> None:
    package = tmp_path / "linter"
    (package / "policy" / "__pycache__").mkdir(parents=True)
    (package / "cli.py").write_text("x = 1\n")
    (package / "policy" / "expr.py").write_text("y = 2\n")
    (package / "policy" / "__pycache__" / "stale.py").write_text("")
    (package / "policy" / "notes.txt").write_text("")
    first = cache._module_stamps(package)
    expr = package / "policy" / "expr.py"
    found = expr.stat()
    assert first == (
        f"{package / 'cli.py'}:6:{(package / 'cli.py').stat().st_mtime_ns};"
        f"{expr}:6:{found.st_mtime_ns};"
    )
    os.utime(expr, ns=(found.st_atime_ns, found.st_mtime_ns + 1))
    assert cache._module_stamps(package) != first
    (package / "policy" / "split.py").write_text("")
    assert "split.py:0:" in cache._module_stamps(package)


def test_a_corrupted_or_truncated_entry_is_ignored_and_rewritten(
    tmp_path: Path, _own_cache: Path
) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "team.yaml").write_text(POLICY.format(minimum=3), encoding="utf-8")
    _messages(policies)
    [entry] = _entries(_own_cache)
    files = _policy_texts((str(policies),), False)
    assert files is not None and cache.load(files) is not None
    raw = entry.read_bytes()
    header_end = len(raw) - len(_opened(entry)[1])
    json_byte = header_end - 2  # inside the JSON, which the entry's checksum covers
    for damaged in (
        raw[: len(raw) // 2],
        raw[:json_byte] + bytes([raw[json_byte] ^ 0xFF]) + raw[json_byte + 1 :],
        b"",
        b"junk",
    ):
        entry.write_bytes(damaged)
        assert cache.load(files) is None
        assert _messages(policies) == ["needs 3, has 2"]
        assert cache.load(files) is not None  # rewritten whole


def test_an_entry_that_cannot_be_mapped_is_read(
    tmp_path: Path, _own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "team.yaml").write_text(POLICY.format(minimum=3), encoding="utf-8")
    _messages(policies)
    files = _policy_texts((str(policies),), False)
    assert files is not None
    mapped = cache.load(files)
    assert mapped is not None and type(mapped[0].rules[0].expression._saved[0]) is not bytes

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("mmap not supported")

    unmappable = types.SimpleNamespace(mmap=refuse, ACCESS_READ=mmap.ACCESS_READ)
    monkeypatch.setattr("linter.cachefolder.mmap", unmappable)
    read = cache.load(files)
    assert read is not None
    assert [r.id for p in read for r in p.rules] == [r.id for p in mapped for r in p.rules]
    assert _messages(policies) == ["needs 3, has 2"]


def test_a_damaged_expression_is_compiled_again_and_its_entry_rewritten(
    tmp_path: Path, _own_cache: Path
) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    raw = entry.read_bytes()
    stored, blob = _opened(entry)
    # The fused check is stored last; its digest in the JSON no longer matches its bytes.
    start, length, _ = stored[0]["fused"]["expr"]["forms"][0]
    assert start + length == len(blob)
    entry.write_bytes(raw[:-1] + bytes([raw[-1] ^ 0xFF]))
    policies = cache.load(files)
    assert policies is not None  # the JSON is intact: each expression is checked on use
    parsed = parse("deploy.yaml", DEPLOYMENT)
    found = evaluate(policies, [document_subject(d) for d in parsed.documents])
    assert [f.message for f in found] == ["needs 3, has 2"]
    assert not entry.exists()  # removed when the damage was found
    assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
    stored, blob = _opened(entry)  # stored again, whole
    start, length, digest = stored[0]["fused"]["expr"]["forms"][0]
    assert digests.hexdigest(blob[start : start + length])[:16] == digest
    assert cache.load(files) is not None


def test_switched_off_or_unwritable_the_policies_still_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _own_cache: Path
) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "team.yaml").write_text(POLICY.format(minimum=3), encoding="utf-8")
    monkeypatch.setenv("SERVELINT_NO_CACHE", "1")
    assert _messages(policies) == ["needs 3, has 2"]
    assert not _own_cache.exists()
    monkeypatch.delenv("SERVELINT_NO_CACHE")
    _own_cache.parent.mkdir(parents=True)
    _own_cache.write_text("a file where the folder should be", encoding="utf-8")
    assert _messages(policies) == ["needs 3, has 2"]


def test_builtin_policies_from_the_cache_find_what_freshly_loaded_ones_find(
    monkeypatch: pytest.MonkeyPatch, _own_cache: Path
) -> None:
    inputs = [p for p in sorted((FIXTURES / "vllm").rglob("*.yaml")) if "templates" not in p.parts][
        :40
    ]
    parsed = [parse(str(p), p.read_text(encoding="utf-8")) for p in inputs]

    def findings() -> list[tuple[str, str, int]]:
        policies = load_policies()
        subjects = [document_subject(d) for f in parsed for d in f.documents]
        subjects += [workload_subject(w) for w in extract_workloads(parsed)]
        return sorted((f.rule_id, f.message, f.line) for f in evaluate(policies, subjects))

    monkeypatch.setenv("SERVELINT_NO_CACHE", "1")
    fresh = findings()
    monkeypatch.delenv("SERVELINT_NO_CACHE")
    stored = findings()  # compiled, serialised and stored
    assert _entries(_own_cache)
    loaded = findings()  # deserialised
    assert fresh and fresh == stored == loaded


def test_the_key_covers_names_and_builtin_flags() -> None:
    def key(*files: cache.PolicyFile) -> str:
        entry = cache._entry(files)
        assert entry is not None
        return entry.name

    assert key(("a.yaml", "x", False)) != key(("b.yaml", "x", False))
    assert key(("a.yaml", "x", False)) != key(("a.yaml", "x", True))
    assert key(("a.yaml", "xy", False), ("b", "", False)) != key(
        ("a.yaml", "x", False), ("yb", "", False)
    )


def test_only_the_newest_entries_are_kept(tmp_path: Path, _own_cache: Path) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    for minimum in range(cache.KEEP + 3):
        (policies / "team.yaml").write_text(POLICY.format(minimum=minimum), encoding="utf-8")
        _messages(policies)
    assert len(_entries(_own_cache)) == cache.KEEP
    assert _messages(policies) == ["needs 10, has 2"]


def test_the_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "servelint"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "servelint"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "")
    monkeypatch.setattr(cache.os.path, "expanduser", lambda path: path)
    assert cache.cache_dir() is None  # "~" unexpanded: no folder below the working one


def _stored_entry(tmp_path: Path, _own_cache: Path) -> tuple[Path, list[cache.PolicyFile]]:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "team.yaml").write_text(POLICY.format(minimum=3), encoding="utf-8")
    assert _messages(policies) == ["needs 3, has 2"]
    files = _policy_texts((str(policies),), False)
    assert files is not None
    [entry] = _entries(_own_cache)
    return entry, files


def _sealed(header: bytes, blob: bytes = b"") -> bytes:
    """An entry as the cache writes one: its checksum covers the JSON and its length."""
    head = len(header).to_bytes(8, "big") + header
    return cache._MAGIC + digests.digest(head) + head + blob


def _parts(entry: Path) -> tuple[dict[str, Any], list[str], bytes]:
    """An entry's policies JSON, its texts and the serialised CEL that follows them."""
    body = entry.read_bytes()[len(cache._MAGIC) + digests.SIZE :]
    size = int.from_bytes(body[:8], "big")
    header, blob = body[8 : 8 + size], body[8 + size :]
    first = int.from_bytes(header[:8], "big")
    texts_end = 16 + first + int.from_bytes(header[8 + first : 16 + first], "big")
    head, texts = json.loads(header[8 : 8 + first]), json.loads(header[16 + first : texts_end])
    rules = header[texts_end:]
    assert (head["forms_length"], head["texts"]) == (len(blob), len(texts))
    for policy in head["policies"]:  # each policy's rules: JSON text after the texts
        start, length = policy["rules"]
        policy["rules"] = json.loads(rules[start : start + length])
        assert policy["rule_ids"] == [rule["id"] for rule in policy["rules"]]
    return head, texts, blob


def _opened(entry: Path) -> tuple[list[dict[str, Any]], bytes]:
    """The policies in the JSON part of an entry and the serialised CEL that follows it."""
    head, _, blob = _parts(entry)
    return head["policies"], blob


def _header(policies_json: bytes, texts_json: bytes = b"[]", rules: bytes = b"") -> bytes:
    return (
        len(policies_json).to_bytes(8, "big")
        + policies_json
        + len(texts_json).to_bytes(8, "big")
        + texts_json
        + rules
    )


def _resealed(policies: list[dict[str, Any]], blob: bytes, texts: list[str]) -> bytes:
    """An entry of these policies, texts and serialised CEL, as the cache writes one."""
    rules = b""
    stored = []
    for policy in policies:
        text = json.dumps(policy["rules"]).encode()
        stored.append({**policy, "rules": [len(rules), len(text)]})
        rules += text
    head = {"forms_length": len(blob), "texts": len(texts), "policies": stored}
    return _sealed(_header(json.dumps(head).encode(), json.dumps(texts).encode(), rules), blob)


class _RunsCode:
    """A pickle that, when loaded, creates a file: what a forged entry used to do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def test_an_entry_is_data_only_and_a_forged_pickle_never_runs(
    tmp_path: Path, _own_cache: Path
) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    stored, blob = _opened(entry)
    assert stored[0]["name"] == "team-replicas"
    start, length, digest = stored[0]["rules"][0]["expression"]["forms"][0]
    assert blob[start : start + length].startswith(b"\n(type.googleapis.com/cel.expr.CheckedExpr")
    assert digest == digests.hexdigest(blob[start : start + length])[:16]
    assert stored[0]["rules"][0]["severity"] == "ERROR"
    marker = tmp_path / "pwned"
    forged = pickle.dumps([_RunsCode(marker)])
    # The forged pickle, checksummed as the former format wanted, under the current
    # name and under the former one.
    entry.write_bytes(_sealed(forged))
    (entry.parent / entry.name.replace(".entry", ".bin")).write_bytes(
        b"servelint-policies-1\n" + hashlib.sha256(forged).digest() + forged
    )
    assert cache.load(files) is None
    assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
    assert not marker.exists()
    assert not list(entry.parent.glob("*.bin"))  # the former format is removed


@pytest.mark.parametrize(
    "body",
    [
        b"{}",
        b"[{}]",  # the shape of an earlier format
        b'{"forms_length": 0, "texts": 0, "policies": [{}]}',
        b'{"forms_length": 0, "texts": 0, "policies": [{"name": 1}]}',
        b'{"forms_length": 0, "texts": 0, "policies": {}}',
        b'{"forms_length": "0", "texts": 0, "policies": []}',
        b'{"forms_length": 0, "policies": []}',  # the previous format: no count of texts
        b"[" * 100000 + b"]" * 100000,
        b"not json",
        b'{"forms_length": 12, "texts": 0, "policies": []}',  # truncated: fewer bytes follow
    ],
)
def test_an_entry_of_the_wrong_shape_is_ignored(
    tmp_path: Path, _own_cache: Path, body: bytes
) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    entry.write_bytes(_sealed(_header(body)))
    assert cache.load(files) is None
    assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
    assert cache.load(files) is not None


def test_damaged_serialised_cel_is_compiled_again_from_its_text(
    tmp_path: Path, _own_cache: Path
) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    head, texts, blob = _parts(entry)
    entry.write_bytes(_resealed(head["policies"], b"\xff" * len(blob), texts))
    policies = cache.load(files)
    assert policies is not None
    parsed = parse("deploy.yaml", DEPLOYMENT)
    found = evaluate(policies, [document_subject(d) for d in parsed.documents])
    assert [f.message for f in found] == ["needs 3, has 2"]


@pytest.mark.parametrize("form", [[0, 99999999], [0, 99999999, "digest"], [-1, 2, "x"], [0]])
def test_a_stored_form_out_of_bounds_is_compiled_again_from_its_text(
    tmp_path: Path, _own_cache: Path, form: list[Any]
) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    head, texts, blob = _parts(entry)
    stored = head["policies"]
    stored[0]["rules"][0]["expression"]["forms"][0] = form
    stored[0]["fused"]["expr"]["forms"][0] = form
    entry.write_bytes(_resealed(stored, blob, texts))
    policies = cache.load(files)
    assert policies is not None  # each stored form is checked when it is used
    parsed = parse("deploy.yaml", DEPLOYMENT)
    found = evaluate(policies, [document_subject(d) for d in parsed.documents])
    assert [f.message for f in found] == ["needs 3, has 2"]
    assert not entry.exists()  # removed when the damage was found: stored again next run


def test_a_folder_others_may_write_is_not_used(tmp_path: Path, _own_cache: Path) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    _own_cache.chmod(0o777)
    assert cache.load(files) is None  # a valid entry, in a folder anyone could have filled
    entry.unlink()
    assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
    assert not _entries(_own_cache)  # and nothing is stored there either
    _own_cache.chmod(0o700)
    assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
    [entry] = _entries(_own_cache)
    entry.chmod(0o666)
    assert cache.load(files) is None  # an entry others may write


def test_a_folder_or_entry_of_another_user_is_not_used(
    tmp_path: Path, _own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    assert cache.load(files) is not None
    if os.geteuid() == 0:  # really hand them to another user
        os.chown(_own_cache, 65534, 65534)
    else:  # seen from another user, the same folder and entry belong to someone else
        other = os.stat(entry).st_uid + 1
        monkeypatch.setattr(cache.os, "geteuid", lambda: other)
    assert cache.load(files) is None
    entry.unlink()
    assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
    assert not _entries(_own_cache)


def test_an_entry_missing_from_the_users_folder_is_read_from_the_system_cache(
    tmp_path: Path, _own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An image's read-only cache (issue 31): used when the user's own folder lacks the
    entry, never written; trusted when root's or the user's and writable by nobody else."""
    entry, files = _stored_entry(tmp_path, _own_cache)
    system = tmp_path / "system" / "servelint"
    system.mkdir(parents=True)
    entry.rename(system / entry.name)
    (system / entry.name).chmod(0o644)
    system.chmod(0o755)
    assert cache.load(files) is None
    monkeypatch.setenv("SERVELINT_SYSTEM_CACHE", str(tmp_path / "system"))
    assert cache.load(files) is not None
    assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
    assert _entries(_own_cache) == []  # loaded, so nothing compiled or stored
    system.chmod(0o775)
    assert cache.load(files) is None  # a folder its group may fill
    system.chmod(0o755)
    (system / entry.name).chmod(0o666)
    assert cache.load(files) is None  # an entry anyone may rewrite
    (system / entry.name).chmod(0o644)
    if os.geteuid() == 0:  # really root's, then another user's
        assert cache.load(files) is not None
        os.chown(system / entry.name, 65534, 65534)
    else:  # the same entry, seen from another user: neither its own nor root's
        other = os.stat(system / entry.name).st_uid + 1
        monkeypatch.setattr(cache.os, "geteuid", lambda: other)
    assert cache.load(files) is None


def test_a_symlinked_entry_or_folder_is_not_followed(tmp_path: Path, _own_cache: Path) -> None:
    entry, files = _stored_entry(tmp_path, _own_cache)
    elsewhere = tmp_path / "elsewhere.json"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert cache.load(files) is None
    folder = tmp_path / "real-folder"
    _own_cache.rename(folder)
    _own_cache.symlink_to(folder)
    (folder / entry.name).unlink()
    elsewhere.rename(folder / entry.name)
    assert cache.load(files) is None


def test_a_policy_that_matches_no_subject_never_reads_its_fused_program(
    tmp_path: Path, _own_cache: Path
) -> None:
    _, files = _stored_entry(tmp_path, _own_cache)
    stored = cache.load(files)
    assert stored is not None
    # Evaluated in this process, as built-in policies are (a user's run in a sandbox).
    policies = [dataclasses.replace(p, builtin=True) for p in stored]
    [policy] = policies
    assert policy.fused is not None and not policy.fused.loaded
    service = parse("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n")
    assert evaluate(policies, [document_subject(d) for d in service.documents]) == []
    assert not policy.fused.loaded  # its match condition said no: nothing deserialised
    parsed = parse("deploy.yaml", DEPLOYMENT)
    found = evaluate(policies, [document_subject(d) for d in parsed.documents])
    assert [f.message for f in found] == ["needs 3, has 2"]
    assert policy.fused.loaded


def test_a_wheel_install_is_known_by_its_record(tmp_path: Path) -> None:
    from linter import _resources

    package = tmp_path / "site-packages" / "linter"
    package.mkdir(parents=True)
    info = package.parent / "servelint-1.2.3.dist-info"
    info.mkdir()
    assert _resources.record_of(package, "1.2.3") is None  # no record at all
    # An editable install's record lists its link to the checkout, not the modules.
    (info / "RECORD").write_text("__editable__.servelint-1.2.3.pth,sha256=x,42\n")
    assert _resources.record_of(package, "1.2.3") is None
    wheel = "linter/__init__.py,sha256=abc,64\nlinter/_data/policies/a.yaml,sha256=def,9\n"
    (info / "RECORD").write_text(wheel)
    assert _resources.record_of(package, "1.2.3") == wheel.encode()
    assert _resources.record_of(package, "1.2.4") is None  # another version's folder


def test_installed_from_a_wheel_the_key_is_its_record_and_no_module_is_stat(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from linter import _resources

    def unused(*_: object) -> str:
        raise AssertionError("a file was looked at although the wheel's record identifies it")

    record = b"linter/__init__.py,sha256=abc,64\n"
    monkeypatch.setattr(cache, "wheel_record", lambda: record)
    monkeypatch.setattr(_resources, "wheel_record", lambda: record)
    monkeypatch.setattr(cache, "_module_stamps", unused)
    cache._code_key.cache_clear()
    try:
        first = cache._code_key()
        assert _resources.stamp(tmp_path / "missing.yaml") == "in the wheel's record"
        record = b"linter/__init__.py,sha256=abd,64\n"  # another file's digest
        cache._code_key.cache_clear()
        assert cache._code_key() != first
    finally:
        cache._code_key.cache_clear()


def test_a_package_folder_that_cannot_be_listed_means_no_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unlistable(_: Path) -> str:
        raise PermissionError("listing the package")

    monkeypatch.setattr(cache, "wheel_record", lambda: None)
    monkeypatch.setattr(cache, "_module_stamps", unlistable)
    cache._code_key.cache_clear()
    try:
        assert cache._entry([("a.yaml", "x", False)]) is None
    finally:
        cache._code_key.cache_clear()


def test_the_texts_are_read_when_first_needed(
    tmp_path: Path, _own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, files = _stored_entry(tmp_path, _own_cache)
    read: list[int] = []
    real_text = cache_read.Texts.text

    def counted(texts: Any, number: int) -> str:
        read.append(number)
        return real_text(texts, number)

    monkeypatch.setattr(cache_read.Texts, "text", counted)
    policies = cache.load(files)
    assert policies is not None
    found = evaluate(policies, [document_subject(d) for d in parse("d.yaml", DEPLOYMENT).documents])
    assert [f.message for f in found] == ["needs 3, has 2"]
    assert read == []  # loaded and evaluated from the stored forms: no text read
    assert policies[0].rules[0].expression.text == "variables.replicas >= 3"
    assert policies[0].match_conditions[0].expr.text == "doc.kind == 'Deployment'"
    assert policies[0].rules[0].expression.text == "variables.replicas >= 3"
    assert len(read) == 2  # each read once


def test_rules_the_entry_cannot_give_are_read_from_their_policy_file(
    tmp_path: Path, _own_cache: Path
) -> None:
    # A policy's rules are read from the entry when a run first needs them; the checksum
    # makes a bad entry a bug, and the rules then come from the policy file itself.
    entry, files = _stored_entry(tmp_path, _own_cache)
    head, texts, blob = _parts(entry)
    damaged: list[dict[str, Any]] = []
    for number in (len(texts), -1, "0"):
        policy = json.loads(json.dumps(head["policies"][0]))
        policy["rules"][0]["expression"]["text"] = number
        damaged.append(policy)
    renamed = json.loads(json.dumps(head["policies"][0]))
    renamed["rule_ids"] = ["team-replicas/other"]
    damaged.append(renamed)
    for policy in damaged:
        entry.write_bytes(_resealed([policy, *head["policies"][1:]], blob, texts))
        policies = cache.load(files)
        assert policies is not None
        assert policies[0].rule_ids == tuple(policy["rule_ids"])
        found = evaluate(
            policies, [document_subject(d) for d in parse("d.yaml", DEPLOYMENT).documents]
        )
        assert [f.message for f in found] == ["needs 3, has 2"]
        assert [r.id for r in policies[0].rules] == ["team-replicas/min-replicas"]
        assert not entry.exists()  # removed: the next run stores the policies anew
        assert _messages(tmp_path / "policies") == ["needs 3, has 2"]
        assert entry.exists()


def test_a_built_in_policys_rules_are_read_again_from_its_file() -> None:
    rules = load.rules_from_file("vllm", "<builtin>/policies/vllm.yaml", True)
    [vllm] = [p for p in load_policies() if p.name == "vllm"]
    assert tuple(r.id for r in rules) == vllm.rule_ids
    assert len(rules) > 1  # the whole file, not its first rule
    with pytest.raises(PolicyError, match="policy 'nope' is no longer in this file"):
        load.rules_from_file("nope", "<builtin>/policies/vllm.yaml", True)
