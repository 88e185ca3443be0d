"""What a pre-commit run does not load: protobuf's Python descriptor pool (the CEL
environment resolves only CEL's standard types, policy/expr.py), OpenSSL through hashlib
(the cache folder's digest is CPython's own BLAKE2b, linter/digests.py), ctypes (the
reference-count pin of ``None`` takes its one C type from ``_ctypes``), the modules of the
commands other than ``lint`` (linter/cli.py imports only the one that runs), the policy
cache's writer when its entry is found and, for a values file, the Kubernetes objects'
modules. Each costs milliseconds of every run; a new import of one is a regression."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from linter import digests

FIXTURES = Path(__file__).parent / "fixtures"
HEAVY = ("google.protobuf.descriptor_pool", "hashlib", "_hashlib", "ctypes")


def _fresh(script: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``script`` in a new interpreter (with its own cache folder when given one)."""
    environment = None
    if cache is not None:
        environment = {"XDG_CACHE_HOME": str(cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )


def _lint_and_list(path: Path, modules: tuple[str, ...]) -> str:
    """A script that lints ``path`` and prints its exit code and which of ``modules``
    it imported, as JSON on standard error."""
    return (
        "import json, sys\n"
        "from linter.cli import main\n"
        f"code = main(['lint', '--no-config', {str(path)!r}])\n"
        f"print(json.dumps([code, [m for m in {modules!r} if m in sys.modules]]), file=sys.stderr)\n"
    )


def _reported(done: subprocess.CompletedProcess[str]) -> object:
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_a_pre_commit_run_loads_neither_protobufs_pool_nor_openssl(tmp_path: Path) -> None:
    script = _lint_and_list(FIXTURES / "vllm" / "clean" / "llama-8b-l4.yaml", HEAVY)
    # The first run stores the policies in the cache folder, the second reads them back.
    for _ in range(2):
        assert _reported(_fresh(script, tmp_path / "cache")) == [0, []]
    assert list((tmp_path / "cache" / "servelint").glob("policies-*.entry"))


def test_the_policy_cache_s_writer_is_imported_only_to_store_an_entry(tmp_path: Path) -> None:
    script = _lint_and_list(
        FIXTURES / "vllm" / "clean" / "llama-8b-l4.yaml", ("linter.policy.cache_write",)
    )
    stored = _reported(_fresh(script, tmp_path / "cache"))  # a new cache folder: stored
    read_back = _reported(_fresh(script, tmp_path / "cache"))
    assert (stored, read_back) == ([0, ["linter.policy.cache_write"]], [0, []])


def test_a_values_file_alone_leaves_the_kubernetes_object_modules_out(tmp_path: Path) -> None:
    values = FIXTURES / "vllm" / "production-stack" / "values-memory.yaml"
    modules = (
        "linter.model.frontends.manifests",
        "linter.model.frontends.custom",
        "linter.model.frontends.platform_pods",
    )
    assert _reported(_fresh(_lint_and_list(values, modules), tmp_path / "cache")) == [1, []]


def test_lint_imports_its_own_command_s_module_and_none_of_the_others(tmp_path: Path) -> None:
    values = FIXTURES / "vllm" / "production-stack" / "values-memory.yaml"
    modules = (
        "linter.commands.lint",
        "linter.commands.drift",
        "linter.drift.options",
        "linter.commands.show",
        "linter.commands.rules",
        "linter.commands.explain",
        "linter.commands.test",
    )
    done = _fresh(_lint_and_list(values, modules), tmp_path / "cache")
    assert _reported(done) == [1, ["linter.commands.lint"]]


def test_the_digest_is_blake2b_of_32_bytes() -> None:
    import hashlib

    assert digests.digest(b"servelint") == hashlib.blake2b(b"servelint", digest_size=32).digest()
    assert digests.hexdigest(b"") == hashlib.blake2b(b"", digest_size=32).hexdigest()
    incremental = digests.new(b"serve")
    incremental.update(b"lint")
    assert incremental.digest() == digests.digest(b"servelint")


def test_a_python_without_blake2_digests_with_sha256() -> None:
    done = _fresh(
        "import hashlib, sys\n"
        "sys.modules['_blake2'] = None\n"
        "from linter import digests\n"
        "print(digests.digest(b'x') == hashlib.sha256(b'x').digest(), digests.SIZE)\n"
    )
    assert (done.returncode, done.stdout) == (0, "True 32\n")


def test_none_is_pinned_without_ctypes() -> None:
    done = _fresh(
        "import sys\n"
        "before = sys.getrefcount(None)\n"
        "import linter.policy.expr\n"
        "print(sys.getrefcount(None) - before >= 2**40, 'ctypes' in sys.modules)\n"
    )
    # Python 3.12 and later make None immortal: nothing to pin.
    pinned = sys.version_info < (3, 12)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{pinned} False\n", "")
