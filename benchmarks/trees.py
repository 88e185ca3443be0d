"""Several revisions of servelint side by side on the hook or the bulk input, to tell what
one change costs or saves when the machine's noise is larger than the change.

    .venv/bin/python benchmarks/trees.py --input bulk --runs 9 c9af33e 45d03c7 HEAD

Each revision is checked out in a temporary git worktree and run as ``python -m linter``
with that worktree first on ``PYTHONPATH`` (the same interpreter and dependencies for
all); the order of the revisions rotates every round. It prints the median wall time,
min and max, and the median CPU time of each (``ru_utime + ru_stime`` of the process and
its workers).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import inputs


def _checkout(revision: str, into: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(harness.ROOT), "worktree", "add", "--detach", str(into), revision],
        check=True,
        capture_output=True,
    )
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(into / "linter")], check=True)
    return into


def _remove(tree: Path) -> None:
    subprocess.run(
        ["git", "-C", str(harness.ROOT), "worktree", "remove", "--force", str(tree)],
        check=False,
        capture_output=True,
    )


def _run(tree: Path, args: Sequence[str], cwd: Path) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "linter", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions (HEAD, a commit, a branch)")
    parser.add_argument("--input", choices=("hook", "bulk"), default="hook")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="servelint-trees-") as tmp:
        base = Path(tmp)
        if args.input == "hook":
            path = inputs.hook_input(base / "input")
            lint, cwd = ["lint", path.name], path.parent
        else:
            inputs.bulk_inputs(base / "input", 1000)
            lint, cwd = ["lint", "--no-config", "input"], base
        trees = {
            revision: _checkout(revision, base / f"tree-{index}")
            for index, revision in enumerate(args.revisions)
        }
        try:
            load_before = harness.load()
            wall: dict[str, list[float]] = {name: [] for name in trees}
            cpu: dict[str, list[float]] = {name: [] for name in trees}
            names = list(trees)
            for round_ in range(args.runs + 1):  # the first round warms the caches, untimed
                shift = round_ % len(names)
                for name in names[shift:] + names[:shift]:
                    seconds, used = _run(trees[name], lint, cwd)
                    if round_:
                        wall[name].append(seconds)
                        cpu[name].append(used)
        finally:
            for tree in trees.values():
                _remove(tree)
    print(
        f"{args.input}: {args.runs} runs each, rotating; {harness.machine()}; "
        f"load {load_before} before, {harness.load()} after"
    )
    rows = [["revision", "median", "min", "max", "CPU median"]]
    rows.extend(
        [
            name,
            f"{statistics.median(wall[name]) * 1000:.0f} ms",
            f"{min(wall[name]) * 1000:.0f} ms",
            f"{max(wall[name]) * 1000:.0f} ms",
            f"{statistics.median(cpu[name]) * 1000:.0f} ms",
        ]
        for name in names
    )
    print(harness.table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
