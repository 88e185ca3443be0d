"""Drift at scale: ``servelint drift --kube`` over 500 pods through the loopback API
stand-in, 20 ms of latency added to every request, against the same scan made one pod
at a time (``--concurrency 1``), for each live source: the config file read over exec
and the start-up log read through the Pod log API (``--source logs``).

    .venv/bin/python benchmarks/drift.py [--runs 10] [--pods 500] [--concurrency 16]
                                         [--source exec|logs|both]

Target: the concurrent scan's median at most 1.5 s of wall time, with either source.
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
EXEC = "exec:/etc/vllm/config.json"
SOURCES = {"exec": [EXEC], "logs": ["logs"], "both": [EXEC, "logs"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pods", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--source", choices=sorted(SOURCES), default="both")
    args = parser.parse_args()
    sources = SOURCES[args.source]
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
            commands = {
                _name(source, concurrency): (_scan(tmp, source, concurrency), FIXTURES)
                for source in sources
                for concurrency in (args.concurrency, 1)
            }
            results = harness.alternate(commands, args.runs)
        finally:
            standin.communicate("", timeout=30)
    print(
        f"drift: {args.pods} pods ({', '.join(sources)}), {args.latency * 1000:.0f} ms added "
        f"to every request, {args.runs} runs each, alternated; {harness.machine()}; load "
        f"{load_before} before, {harness.load()} after"
    )
    print(
        harness.table(
            [["scan", "median", "min", "max"]]
            + [harness.seconds_row(results[name]) for name in commands]
        )
    )
    for source in sources:
        fast = results[_name(source, args.concurrency)]
        verdict = "met" if fast.median <= TARGET_SECONDS else "not met"
        print(
            f"{source}: concurrent scan median {fast.median:.2f} s "
            f"(target <= {TARGET_SECONDS} s): {verdict}"
        )
    return 0


def _name(source: str, concurrency: int) -> str:
    return f"{source.split(':')[0]}, concurrency {concurrency}"


def _scan(directory: str, source: str, concurrency: int) -> list[str]:
    """The scan, as a user runs it."""
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
        source,
        "--concurrency",
        str(concurrency),
        "--format",
        "json",
    ]


if __name__ == "__main__":
    raise SystemExit(main())
