"""Hostile and large inputs: how long servelint takes on the heavy cases of the test suite.

The tests (``tests/test_robustness.py``, ``tests/test_costs_bounded.py``) only bound these
runs an order of magnitude above what they take, to catch a hang or a blow-up on a busy
machine; the figures themselves are taken here, each case a fresh process, the cases
alternated, median of several runs:

    .venv/bin/python benchmarks/robustness.py [--runs 5]

The last line compares a Triton config's one long line at 100,000 and 200,000 values:
a reader that is linear in the line takes about twice as long for twice the values, a
quadratic one four times.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness

sys.path.insert(0, str(harness.ROOT))

from tests.robustness import generate

# The bound each case has in the test suite (seconds of wall time).
ROBUSTNESS_BOUND = 60.0
COSTS_BOUND = 60.0


# The probe policy alone (tests/test_robustness.py), or every built-in policy
# (tests/test_costs_bounded.py), as the test of each case runs it.
PROBE = ["--no-builtin", "--policy-dir", "policies"]


@dataclasses.dataclass(frozen=True)
class Case:
    name: str  # the heavy file, in the benchmark's folder
    write: Callable[[Path], None]
    args: list[str]  # what servelint lint is given besides --no-config
    bound: float  # the test suite's bound, seconds of wall time


def _text(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text)


def _chart(template: str) -> Callable[[Path], None]:
    """A chart around ``template``, written at ``c/templates/t.yaml``."""

    def write(path: Path) -> None:
        chart = path.parent.parent
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        (chart / "values.yaml").write_text("vllm:\n  image: vllm/vllm-openai:v0.10.0\n")
        path.write_text(template)

    return write


# The static reading of a chart's templates (tests/test_robustness_costs.py).
CHART = ["--no-render", "--chart", "c"]


def cases() -> dict[str, Case]:
    out = {
        case: Case(name, write, [*PROBE, name, "good.yaml"], ROBUSTNESS_BOUND)
        for case, (name, write) in generate.HEAVY.items()
        if case in ("alias-bomb", "hundred-megabytes", "long-line", "many-documents", "many-nodes")
    }
    out["stream of 5,000 Deployments"] = Case(
        "deployments.yaml",
        _text(generate.deployment_stream(5000)),
        ["deployments.yaml", "good.yaml"],
        COSTS_BOUND,
    )
    out["chart: 50,000 nested if"] = Case(
        "c/templates/t.yaml",
        _chart("{{ if .Values.a }}" * 50_000 + "x" + "{{ end }}" * 50_000),
        CHART,
        ROBUSTNESS_BOUND,
    )
    out["chart: 500,000 '{{'"] = Case(
        "c/templates/t.yaml", _chart("{{" * 500_000), CHART, ROBUSTNESS_BOUND
    )
    for values in (100_000, 200_000):
        name = f"m{values}/config.pbtxt"
        out[f"Triton dims, {values:,} values"] = Case(
            name, _text(generate.triton_pbtxt(values)), [name], COSTS_BOUND
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    table = cases()
    with tempfile.TemporaryDirectory(prefix="servelint-bench-") as tmp:
        folder = Path(tmp)
        generate.write_policy(folder)
        generate.write_good(folder)
        commands = {}
        for label, case in table.items():
            (folder / case.name).parent.mkdir(parents=True, exist_ok=True)
            case.write(folder / case.name)
            command = [sys.executable, "-m", "linter", "lint", "--no-config", *case.args]
            commands[label] = (command, folder)
        load_before = harness.load()
        results = harness.alternate(commands, args.runs)
    print(
        f"robustness: {len(table)} heavy inputs, {args.runs} runs each, alternated; "
        f"{harness.machine()}; load {load_before} before, {harness.load()} after"
    )
    rows = [["case", "median", "min", "max", "test bound", "bound / median"]]
    for label, summary in results.items():
        bound = table[label].bound
        rows.append(
            [*harness.seconds_row(summary), f"{bound:.0f} s", f"{bound / summary.median:.0f} x"]
        )
    print(harness.table(rows))
    small = results["Triton dims, 100,000 values"].median
    large = results["Triton dims, 200,000 values"].median
    print(
        f"Triton dims: twice the values took {large / small:.1f} times as long "
        "(linear: about 2, quadratic: about 4)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
