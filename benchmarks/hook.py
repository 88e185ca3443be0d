"""Hook latency: ``servelint lint`` (all built-in policies) against ``yamllint`` on one
~400-line production-stack values file, as a pre-commit hook runs them on every commit.

    .venv/bin/python benchmarks/hook.py [--runs 20]

Target: servelint's median at most 1.2 × yamllint's (goal 1.0).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import inputs

TARGET = 1.2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="servelint-bench-") as tmp:
        path = inputs.hook_input(Path(tmp))
        lines = len(path.read_text(encoding="utf-8").splitlines())
        load_before = harness.load()
        results = harness.alternate(
            {
                "servelint lint": ([harness.tool("servelint"), "lint", path.name], path.parent),
                "yamllint": ([harness.tool("yamllint"), path.name], path.parent),
            },
            args.runs,
        )
    servelint, yamllint = results["servelint lint"], results["yamllint"]
    ratio = servelint.median / yamllint.median
    print(
        f"hook latency: one values file of {lines} lines, {args.runs} runs each, "
        f"alternated; {harness.machine()}; load {load_before} before, "
        f"{harness.load()} after"
    )
    print(
        harness.table(
            [
                ["command", "median", "min", "max"],
                harness.seconds_row(servelint),
                harness.seconds_row(yamllint),
            ]
        )
    )
    verdict = "met" if ratio <= TARGET else "not met"
    print(f"servelint / yamllint = {ratio:.2f} (target <= {TARGET}): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
