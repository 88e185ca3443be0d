"""Download each release's wheel from PyPI and keep its Python sources under a cache folder.

Maintenance only: not imported by servelint, not run in CI. The wheels are read, never
installed, imported or run. Usage::

    python tools/flagtables/releases.py vllm 0.6.0 /tmp/flagtables
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# The wheel tags pip may pick without building anything (vLLM ships manylinux wheels only).
_PLATFORMS = (
    "manylinux1_x86_64",
    "manylinux2014_x86_64",
    "manylinux_2_28_x86_64",
    "manylinux_2_31_x86_64",
    "manylinux_2_35_x86_64",
    "any",
)


def release_sources(package: str, version: str, cache: Path) -> Path:
    """The folder holding ``package==version``'s ``.py`` files, downloading them once."""
    target = cache / f"{package}-{version}"
    if (target / ".complete").exists():
        return target
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        base = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:"]
        # The wheel for this interpreter first; else one for 3.12 on a common platform.
        wider = ["--python-version", "3.12"]
        wider += [arg for platform in _PLATFORMS for arg in ("--platform", platform)]
        for options in ([], wider):
            done = subprocess.run(
                [*base, *options, "-d", scratch, f"{package}=={version}"], capture_output=True
            )
            if done.returncode == 0:
                break
        else:
            raise RuntimeError(f"no wheel of {package}=={version}: {done.stderr.decode()[-500:]}")
        wheel = next(Path(scratch).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.endswith(".py") and name.startswith(package.replace("-", "_") + "/"):
                    archive.extract(name, target)
    (target / ".complete").write_text(version, encoding="utf-8")
    return target


def main(argv: list[str]) -> int:
    package, cache = argv[0], Path(argv[-1])
    cache.mkdir(parents=True, exist_ok=True)
    for version in argv[1:-1]:
        print(release_sources(package, version, cache))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
