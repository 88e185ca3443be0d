"""Drift at scale: ``servelint drift --kube`` over 500 pods through the loopback API
stand-in, 20 ms of latency added to every request, against the same scan made one pod
at a time (``--concurrency 1``).

    .venv/bin/python benchmarks/drift.py [--runs 10] [--pods 500] [--concurrency 16]

Target: the concurrent scan's median at most 1.5 s of wall time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness

TARGET_SECONDS = 1.5
FIXTURES = harness.ROOT / "tests" / "fixtures" / "drift"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pods", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="servelint-bench-") as tmp:
        standin = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).with_name("standin.py")),
                str(args.pods),
                str(args.latency),
                tmp,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert standin.stdout is not None
            standin.stdout.readline()  # the URL: the stand-in is serving
            load_before = harness.load()
            results = harness.alternate(
                {
                    f"concurrency {args.concurrency}": (_scan(tmp, args.concurrency), FIXTURES),
                    "concurrency 1": (_scan(tmp, 1), FIXTURES),
                },
                args.runs,
            )
        finally:
            standin.communicate("", timeout=30)
    fast = results[f"concurrency {args.concurrency}"]
    print(
        f"drift: {args.pods} pods over exec, {args.latency * 1000:.0f} ms added to every "
        f"request, {args.runs} runs each, alternated; {harness.machine()}; load "
        f"{load_before} before, {harness.load()} after"
    )
    print(
        harness.table(
            [
                ["scan", "median", "min", "max"],
                harness.seconds_row(fast),
                harness.seconds_row(results["concurrency 1"]),
            ]
        )
    )
    verdict = "met" if fast.median <= TARGET_SECONDS else "not met"
    print(f"concurrent scan median {fast.median:.2f} s (target <= {TARGET_SECONDS} s): {verdict}")
    return 0


def _scan(directory: str, concurrency: int) -> list[str]:
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    return [
        harness.tool("servelint"),
        "drift",
        "-f",
        "values.yaml",
        "-f",
        "values-prod.yaml",
        "--values-path",
        "server.config",
        "--kube",
        "--kubeconfig",
        str(Path(directory) / "kubeconfig"),
        "--selector",
        "app=vllm",
        "--source",
        "exec:/etc/vllm/config.json",
        "--concurrency",
        str(concurrency),
        "--format",
        "json",
    ]


if __name__ == "__main__":
    raise SystemExit(main())
