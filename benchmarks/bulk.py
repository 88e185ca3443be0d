"""Bulk: one ``servelint lint`` call over 1,000 generated values files and manifests,
against a floor: one Python process that only composes the same files with PyYAML's C
loader (``floor.py``).

    .venv/bin/python benchmarks/bulk.py [--runs 10] [--files 1000]

Target: servelint's median at most 2 × the floor's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import inputs

TARGET = 2.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="servelint-bench-") as tmp:
        root = Path(tmp) / "repo"
        paths = inputs.bulk_inputs(root, args.files)
        lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)
        load_before = harness.load()
        results = harness.alternate(
            {
                "servelint lint": ([harness.tool("servelint"), "lint", "repo"], Path(tmp)),
                "C-loader floor": (
                    [sys.executable, str(Path(__file__).with_name("floor.py")), "repo"],
                    Path(tmp),
                ),
            },
            args.runs,
        )
    servelint, floor = results["servelint lint"], results["C-loader floor"]
    ratio = servelint.median / floor.median
    print(
        f"bulk: {len(paths)} files ({lines} lines), {args.runs} runs each, alternated; "
        f"{harness.machine()}; load {load_before} before, {harness.load()} after"
    )
    print(
        harness.table(
            [
                ["command", "median", "min", "max"],
                harness.seconds_row(servelint),
                harness.seconds_row(floor),
            ]
        )
    )
    verdict = "met" if ratio <= TARGET else "not met"
    print(f"servelint / floor = {ratio:.2f} (target <= {TARGET}): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
