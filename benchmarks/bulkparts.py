"""Where a bulk run's CPU goes, stage by stage, and the least wall time its design allows.

    .venv/bin/python benchmarks/bulkparts.py [--runs 5] [--files 1000]

Each run is a fresh process (``--stages DIR``) that first composes every input with
PyYAML's C loader (the work of the bulk floor, ``floor.py``), then lints the same files
in that one process, without workers, with the CPU time of each stage measured around
the function that does it: reading and parsing with positions, the serving model, the
conversion of each workload to what CEL sees, CEL's evaluations, and the secret scan.
The stages are found by the names the pipeline looks them up by; a stage renamed in the
package, or no longer called through that name, fails the run instead of being left out.
The timer's own cost per call (about half a microsecond, 67,070 times for CEL) is
measured and taken out of each stage and of the whole.

From the medians it prints the least wall time a run could take on this machine's cores
if every stage were free except the two no design of servelint can drop: parsing every
file (counted at the C loader's cost, less than servelint's parse with positions) and
evaluating the built-in policies' CEL on every subject, plus the start-up of a lint run.
``bulk.py``'s target is 2 × the floor's wall time.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import floor
import harness
import inputs

TARGET = 2.0
# (label, module, attribute): each stage's function, patched where the pipeline looks it up.
STAGES = (
    ("parse with positions", "linter.run.pipeline", "read_inputs"),
    ("serving model", "linter.evaluate.providers", "extract_workloads"),
    ("conversion to CEL data", "linter.model.records.workload", "cel_data"),
    ("CEL evaluations", "linter.policy.expr", "CompiledExpr._run"),
    ("secret scan", "linter.secrets.redact", "scan"),
)


def stages(root: Path) -> dict[str, dict[str, float]]:
    """CPU seconds and calls of the floor's compose, each stage and the whole lint, in
    this process."""
    import importlib

    found: dict[str, dict[str, float]] = {}
    start = time.process_time()
    files, _ = floor.compose_inputs(root)
    found["C-loader compose (the floor's work)"] = {
        "cpu": time.process_time() - start,
        "calls": files,
    }
    from linter.run import parallel

    parallel.MIN_FILES = sys.maxsize  # one process: each stage's CPU is this process's
    for label, module_name, attribute in STAGES:
        module = importlib.import_module(module_name)
        owner_name, _, name = attribute.rpartition(".")
        owner: Any = getattr(module, owner_name) if owner_name else module
        static = isinstance(inspect.getattr_static(owner, name), staticmethod)
        timed = _timed(found.setdefault(label, {"cpu": 0.0, "calls": 0}), getattr(owner, name))
        setattr(owner, name, staticmethod(timed) if static else timed)
    from linter.cli import main as lint_main

    # As this process's own command line: the garbage collector is set as a run sets it
    # (commands/startup.py), not left as a call from Python leaves it.
    sys.argv = ["servelint", "lint", "--no-config", "--format", "json", "--output", os.devnull]
    sys.argv.append(str(root))
    start = time.process_time()
    code = lint_main()
    found["whole lint (one process)"] = {"cpu": time.process_time() - start, "calls": 1}
    if code not in (0, 1):
        raise SystemExit(f"servelint lint exited {code}")
    unused = [label for label, _, _ in STAGES if not found[label]["calls"]]
    if unused:  # renamed or no longer called through that name: not measured
        raise SystemExit(f"stages never called: {', '.join(unused)}")
    # The timer itself, counted in each stage and in the whole once per call: taken out.
    cost = _timer_cost()
    for label, _, _ in STAGES:
        found[label]["cpu"] -= cost * found[label]["calls"]
    found["whole lint (one process)"]["cpu"] -= cost * sum(
        found[label]["calls"] for label, _, _ in STAGES
    )
    return found


def _timer_cost(calls: int = 200_000) -> float:
    """CPU seconds one call through ``_timed`` adds to a call of the function itself."""

    def nothing() -> None:
        return None

    timed = _timed({"cpu": 0.0, "calls": 0}, nothing)
    start = time.process_time()
    for _ in range(calls):
        nothing()
    plain = time.process_time() - start
    start = time.process_time()
    for _ in range(calls):
        timed()
    return max(0.0, (time.process_time() - start - plain) / calls)


def _timed(into: dict[str, float], function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            into["cpu"] += time.process_time() - start
            into["calls"] += 1

    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--stages", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stages is not None:
        print(json.dumps(stages(args.stages)))
        return 0
    with tempfile.TemporaryDirectory(prefix="servelint-bench-") as tmp:
        root = Path(tmp) / "repo"
        paths = inputs.bulk_inputs(root, args.files)
        # Round by round, so that a slower minute of the machine weighs on all three alike.
        runs, floor_walls, start_up = [], [], []
        for _ in range(args.runs):
            runs.append(_stage_run(root))
            floor_py = str(Path(__file__).with_name("floor.py"))
            floor_run = harness.run_once([sys.executable, floor_py, "repo"], Path(tmp))
            floor_walls.append(floor_run.seconds)
            one_file = [harness.tool("servelint"), "lint", "--no-config", str(paths[0])]
            start_up.append(harness.run_once(one_file, Path(tmp)).seconds)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    medians = {label: statistics.median(run[label]["cpu"] for run in runs) for label in runs[0]}
    rows = [["stage", "CPU (median)", "per file", "calls"]]
    for label, cpu in medians.items():
        calls = int(runs[0][label]["calls"])
        rows.append(
            [label, f"{cpu * 1000:.0f} ms", f"{cpu * 1000 / len(paths):.2f} ms", str(calls)]
        )
    print(
        f"bulk stages: {len(paths)} files, {args.runs} runs; {harness.machine()}; "
        f"load {harness.load()}"
    )
    print(harness.table(rows))
    floor_wall = statistics.median(floor_walls)
    compose = medians["C-loader compose (the floor's work)"]
    least = statistics.median(start_up) + (compose + medians["CEL evaluations"]) / cores
    print(
        f"floor.py wall {floor_wall * 1000:.0f} ms: target {TARGET * floor_wall * 1000:.0f} ms. "
        f"Least wall time with every stage free but the compose and CEL "
        f"(start-up of a one-file lint {statistics.median(start_up) * 1000:.0f} ms + "
        f"(compose + CEL) / {cores} cores): {least * 1000:.0f} ms, "
        f"{least / floor_wall:.2f} × the floor; left for everything else: "
        f"{(TARGET * floor_wall - least) * cores * 1000:.0f} ms of CPU."
    )
    return 0


def _stage_run(root: Path) -> dict[str, dict[str, float]]:
    done = subprocess.run(
        [sys.executable, __file__, "--stages", str(root)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, dict[str, float]] = json.loads(done.stdout.splitlines()[-1])
    return result


if __name__ == "__main__":
    raise SystemExit(main())
