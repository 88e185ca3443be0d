"""Peak resident memory of the hook run (one values file) and of the bulk run (1,000
files), with the peer of each benchmark beside it.

    .venv/bin/python benchmarks/memory.py [--runs 10] [--files 1000]

Two figures per command: the largest resident set of any one process (``ru_maxrss``
from wait4) and the largest sum over the process tree, sampled every 2 ms (the bulk run
forks one worker per core, and each has its own resident set; pages they share with the
parent are counted once per process, so the sum is an upper bound).
Targets: at most 64 MB for one file, 200 MB for 1,000 files.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import inputs

MB = 10**6
TARGETS = {"hook": 64 * MB, "bulk": 200 * MB}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    rows = [
        [
            "run",
            "command",
            "max RSS, one process (median / max)",
            "max RSS, process tree (median / max)",
            "target",
            "met",
        ]
    ]
    with tempfile.TemporaryDirectory(prefix="servelint-bench-") as tmp:
        hook = inputs.hook_input(Path(tmp) / "hook")
        inputs.bulk_inputs(Path(tmp) / "repo", args.files)
        load_before = harness.load()
        hook_runs = harness.alternate(
            {
                "servelint lint": ([harness.tool("servelint"), "lint", hook.name], hook.parent),
                "yamllint": ([harness.tool("yamllint"), hook.name], hook.parent),
            },
            args.runs,
            sample_tree=True,
        )
        bulk_runs = harness.alternate(
            {
                "servelint lint": ([harness.tool("servelint"), "lint", "repo"], Path(tmp)),
                "C-loader floor": (
                    [sys.executable, str(Path(__file__).with_name("floor.py")), "repo"],
                    Path(tmp),
                ),
            },
            args.runs,
            sample_tree=True,
        )
    for label, runs in (("hook (1 file)", hook_runs), (f"bulk ({args.files} files)", bulk_runs)):
        target = TARGETS["hook" if label.startswith("hook") else "bulk"]
        for name, summary in runs.items():
            own = sorted(r.peak_rss for r in summary.runs)
            tree = sorted(r.tree_rss for r in summary.runs)
            servelint = name.startswith("servelint")
            met = max(max(own), max(tree)) <= target
            rows.append(
                [
                    label,
                    name,
                    f"{_mb(own[len(own) // 2])} / {_mb(own[-1])}",
                    f"{_mb(tree[len(tree) // 2])} / {_mb(tree[-1])}",
                    f"<= {target // MB} MB" if servelint else "",
                    ("met" if met else "not met") if servelint else "",
                ]
            )
    print(
        f"memory: {args.runs} runs each, alternated; {harness.machine()}; load "
        f"{load_before} before, {harness.load()} after"
    )
    print(harness.table(rows))
    return 0


def _mb(value: int) -> str:
    return f"{value / MB:.1f} MB"


if __name__ == "__main__":
    raise SystemExit(main())
