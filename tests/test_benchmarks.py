"""The benchmark scripts' inputs (benchmarks/README.md): seeded, realistic, and lintable.
Only what they generate is tested here; timings are measured by the scripts, never by
tests."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from kube_standin.fixtures import isolate, running

from linter.cli import main
from linter.drift.live import read_capture
from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import drift
import harness
import inputs
import podlogs
import robustness
import standin

DRIFT = Path(__file__).parent / "fixtures" / "drift"


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_the_hook_input_is_a_400_line_production_stack_values_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = inputs.hook_input(tmp_path / "a")
    again = inputs.hook_input(tmp_path / "b")
    assert path.read_bytes() == again.read_bytes()
    assert 380 <= len(path.read_text(encoding="utf-8").splitlines()) <= 420
    assert main(["lint", "--no-config", "--format", "json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    parsed = parse(str(path), path.read_text(encoding="utf-8"))
    workloads = extract_workloads([parsed])
    assert [w.view().data["engine"]["name"] for w in workloads] == ["vllm"] * 6


def test_bulk_inputs_are_seeded_and_varied(tmp_path: Path) -> None:
    first = inputs.bulk_inputs(tmp_path / "a", 60)
    inputs.bulk_inputs(tmp_path / "b", 60)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert len(first) == 60
    assert {p.name.split("-")[0] for p in first} == {"values", "deploy", "server"}


def test_the_bulk_stages_are_each_measured_once_per_call(tmp_path: Path) -> None:
    # The stages are patched by the names the pipeline looks them up by: a stage renamed
    # in the package must fail here, not silently drop out of the figures.
    paths = inputs.bulk_inputs(tmp_path / "repo", 12)
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bulkparts.py"

    def measured() -> dict[str, dict[str, float]]:
        done = subprocess.run(
            [sys.executable, str(script), "--stages", str(tmp_path / "repo")],
            check=True,
            capture_output=True,
            text=True,
        )
        result: dict[str, dict[str, float]] = json.loads(done.stdout)
        return result

    first, second = measured(), measured()
    calls = {label: int(stage["calls"]) for label, stage in first.items()}
    parsed = [parse(str(p), p.read_text(encoding="utf-8")) for p in paths]
    assert calls == {
        "C-loader compose (the floor's work)": 12,
        "parse with positions": 1,
        "serving model": 1,
        "conversion to CEL data": len(extract_workloads(parsed)),
        "CEL evaluations": calls["CEL evaluations"],
        "secret scan": 1,
        "whole lint (one process)": 1,
    }
    assert calls["CEL evaluations"] == int(second["CEL evaluations"]["calls"])
    assert calls["CEL evaluations"] > calls["conversion to CEL data"]
    assert all(stage["cpu"] >= 0 for stage in first.values())


def test_the_table_lines_up() -> None:
    assert harness.table([["a", "bb"], ["ccc", "d"]]).splitlines() == [
        "a    bb",
        "---  --",
        "ccc  d",
    ]


def test_a_pod_log_is_a_seeded_vllm_0_11_start_up_log(tmp_path: Path) -> None:
    log = podlogs.start_log(random.Random(8), 256)
    assert log == podlogs.start_log(random.Random(8), 256)
    assert log != podlogs.start_log(random.Random(9), 256)  # times and ids of its own
    capture = read_capture(log.decode())
    assert capture is not None
    assert (capture.server, capture.version, capture.formats) == (
        "vllm",
        "0.11.0",
        ("non-default args", "scheduler defaults", "V1 engine config"),
    )
    assert {k: capture.settings[k] for k in ("max_num_seqs", "max_model_len")} == {
        "max_num_seqs": 256,
        "max_model_len": 32768,
    }
    assert capture.settings["tensor_parallel_size"] == 2
    hotfixed = read_capture(podlogs.start_log(random.Random(8), 128).decode())
    assert hotfixed is not None and hotfixed.settings["max_num_seqs"] == 128


Run = Callable[..., Result]
# 40 pods of the benchmark's seed: these are hot-fixed (max_num_seqs 128), one is not Ready.
HOTFIXED = ["0002", "0007", "0008", "0012", "0024", "0029", "0032"]
NOT_READY = "0039"


@pytest.mark.parametrize("source", ["exec:/etc/vllm/config.json", "logs"])
def test_the_drift_scan_over_the_benchmark_cluster_reports_the_hot_fixed_pods(
    run_line: Run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
) -> None:
    isolate(monkeypatch)
    monkeypatch.chdir(DRIFT)
    cluster = standin.cluster(40, 0.0)
    with running(cluster, tmp_path) as api:
        command = drift._scan(str(tmp_path), source, 16)
        assert Path(command[0]).name == "servelint"
        assert str(tmp_path / "kubeconfig") == str(api.kubeconfig)
        result = run_line(command[1:])
    assert result.exit_code == 1
    report = json.loads(result.output)
    found = [
        (f["rule"], f["source"].split()[0], f.get("path"), f.get("desired"), f.get("live"))
        for f in report["findings"]
    ]
    drifted = [
        (
            "drift/changed",
            f"kube://llm/vllm-5d9c7-{index}/vllm",
            "server.config.maxNumSeqs",
            256,
            128,
        )
        for index in HOTFIXED
    ]
    not_ready = ("drift/not-ready", f"kube://llm/vllm-5d9c7-{NOT_READY}/vllm", "", None, None)
    assert found == (drifted if source == "logs" else [not_ready, *drifted])
    outcomes = {t["pod"]: t["outcome"] for t in report["targets"]}
    # A server prints its configuration before it is Ready: its log is read; its config
    # file over exec is not.
    assert outcomes[f"vllm-5d9c7-{NOT_READY}"] == ("compared" if source == "logs" else "not-ready")
    summary = report["summary"]
    assert (summary["targets"], summary["differences"], summary["in_sync"]) == (
        40,
        7,
        33 if source == "logs" else 32,
    )


def test_the_robustness_cases_are_the_tests_heavy_inputs(tmp_path: Path) -> None:
    cases = robustness.cases()
    assert list(cases) == [
        "alias-bomb",
        "hundred-megabytes",
        "long-line",
        "many-documents",
        "many-nodes",
        "stream of 5,000 Deployments",
        "chart: 50,000 nested if",
        "chart: 500,000 '{{'",
        "Triton dims, 100,000 values",
        "Triton dims, 200,000 values",
    ]
    triton = cases["Triton dims, 100,000 values"]
    triton.write(tmp_path / "config.pbtxt")
    assert (tmp_path / "config.pbtxt").read_text().count(", 1") == 99_999
    assert cases["many-documents"].args == [*robustness.PROBE, "stream.yaml", "good.yaml"]
    nested = cases["chart: 50,000 nested if"]
    (tmp_path / "c" / "templates").mkdir(parents=True)
    nested.write(tmp_path / nested.name)
    assert (nested.args, sorted(p.name for p in (tmp_path / "c").rglob("*.yaml"))) == (
        ["--no-render", "--chart", "c"],
        ["Chart.yaml", "t.yaml", "values.yaml"],
    )
