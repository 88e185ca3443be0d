"""Run servelint as a child process and measure it: exit code, output, wall time and the
peak RSS of the largest process of the run (helm included), from a small wrapper process
so that ``RUSAGE_CHILDREN`` sees only that one run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

# The child's own bound: a run that hangs is stopped here and fails on its measured time.
_KILL_AFTER = 180

_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.monotonic()
try:
    done = subprocess.run(sys.argv[2:], capture_output=True, text=True, errors="replace",
                          timeout=float(sys.argv[1]))
    code, out, err = done.returncode, done.stdout, done.stderr
except subprocess.TimeoutExpired:
    code, out, err = -9, "", "timed out"
elapsed = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"code": code, "stdout": out, "stderr": err, "seconds": elapsed,
                  "peak": peak}))
"""


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str
    seconds: float
    peak: int


def servelint(folder: Path, *args: str) -> Run:
    """``servelint ARGS`` run in ``folder``."""
    command = [sys.executable, "-c", _WRAPPER, str(_KILL_AFTER), sys.executable, "-m", "linter"]
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [*command, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=_KILL_AFTER + 60,
        check=True,
    )
    return Run(**json.loads(done.stdout))
