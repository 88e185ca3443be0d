"""What a pre-commit run does not load: protobuf's Python descriptor pool (the CEL
environment resolves only CEL's standard types, policy/expr.py) and OpenSSL through
hashlib (the cache folder's digest is CPython's own BLAKE2b, linter/digests.py). Both
cost milliseconds of every run; a new import of either is a regression."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from linter import digests

VALUES = Path(__file__).parent / "fixtures" / "vllm" / "clean" / "llama-8b-l4.yaml"
HEAVY = ("google.protobuf.descriptor_pool", "hashlib", "_hashlib")
SCRIPT = (
    "import json, sys\n"
    "from linter.cli import main\n"
    f"code = main(['lint', '--no-config', {str(VALUES)!r}])\n"
    f"print(json.dumps([code, [m for m in {HEAVY!r} if m in sys.modules]]), file=sys.stderr)\n"
)


def test_a_pre_commit_run_loads_neither_protobufs_pool_nor_openssl(tmp_path: Path) -> None:
    environment = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    # The first run stores the policies in the cache folder, the second reads them back.
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            capture_output=True,
            text=True,
            env=environment,
            check=False,
        )
        assert json.loads(done.stderr.strip().splitlines()[-1]) == [0, []]
    assert list((tmp_path / "cache" / "servelint").glob("policies-*.entry"))


def test_the_digest_is_blake2b_of_32_bytes() -> None:
    import hashlib

    assert digests.digest(b"servelint") == hashlib.blake2b(b"servelint", digest_size=32).digest()
    assert digests.hexdigest(b"") == hashlib.blake2b(b"", digest_size=32).hexdigest()
    incremental = digests.new(b"serve")
    incremental.update(b"lint")
    assert incremental.digest() == digests.digest(b"servelint")
