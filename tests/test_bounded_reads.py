"""Every file servelint reads goes through one bounded reader: a FIFO or a device named
like a configuration, policy, baseline, values or live file is refused at once with a
message naming it, never read until the machine runs out of time or memory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from linter.parsing import bounded

NOT_REGULAR = "not a regular file (a pipe, socket or device); not read"
GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n"


# A FIFO that is read waits for a writer forever: each run below takes about 0.25 s
# alone, so a bound of 30 s (over a hundred times that) fails a hang, never a busy machine.
MAX_SECONDS = 30


def _servelint(folder: Path, *args: str) -> tuple[int, str, str, float]:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "linter", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "policies").mkdir()
    os.mkfifo(tmp_path / "policies" / "team.yaml")
    for name in ("config.yaml", "baseline.json", "values.yaml"):
        os.mkfifo(tmp_path / name)
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "desired.yaml").write_text("replicas: 1\n")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (
            ("lint", "--config", "config.yaml", "good.yaml"),
            f"servelint: config.yaml: cannot read configuration file: {NOT_REGULAR}\n",
        ),
        (
            ("lint", "--config", "/dev/zero", "good.yaml"),
            f"servelint: /dev/zero: cannot read configuration file: {NOT_REGULAR}\n",
        ),
        (
            ("lint", "--no-config", "--policy-dir", "policies", "good.yaml"),
            f"servelint: policies/team.yaml: cannot read policy file: {NOT_REGULAR}\n",
        ),
        (
            ("lint", "--no-config", "--baseline", "baseline.json", "good.yaml"),
            f"servelint: baseline.json: cannot read baseline: {NOT_REGULAR}\n",
        ),
        (
            ("drift", "--values", "values.yaml", "--live", "desired.yaml"),
            f"servelint: values.yaml: cannot read committed file: {NOT_REGULAR}\n",
        ),
    ],
)
def test_a_special_file_is_refused_at_once(
    folder: Path, args: tuple[str, ...], stderr: str
) -> None:
    code, _, err, seconds = _servelint(folder, *args)
    assert (code, err) == (3, stderr)
    assert seconds < MAX_SECONDS


@pytest.mark.parametrize("live", ["values.yaml", "/dev/zero"])
def test_a_special_live_file_is_one_unreadable_target(folder: Path, live: str) -> None:
    code, out, _, seconds = _servelint(folder, "drift", "--values", "desired.yaml", "--live", live)
    assert code == 3
    assert f"{live}: error (unreadable): {live}: {NOT_REGULAR}" in out.splitlines()
    assert seconds < MAX_SECONDS


def test_the_reader_never_reads_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a" * 1001)
    with pytest.raises(bounded.InputRefused) as refused:
        bounded.read_bytes(path, 1000)
    assert refused.value.too_large
    assert bounded.read_bytes(path, 1001) == b"a" * 1001
    with pytest.raises(bounded.InputRefused, match="is a directory"):
        bounded.read_bytes(tmp_path)
