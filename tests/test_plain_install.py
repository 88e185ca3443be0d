"""Every documented command in the default install (``pip install .``, no extras), run
through the installed ``servelint`` console script (issue 31: ``drift --live`` ended in
``No module named 'urllib3'``).

``.ci/run`` runs this module in a second virtual environment that holds the plain install
and pytest only. In the development environment, where the extras are installed, the
command runs with ``tests/fixtures/plain`` on PYTHONPATH, which hides the extras' modules,
so the same assertions hold in both.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "servelint"
HIDE_EXTRAS = ROOT / "tests" / "fixtures" / "plain"
DRIFT = "tests/fixtures/drift"
CHART = "examples/charts/vllm"
# The example's staging suppression runs until 2026-12-31: judge it on a fixed day.
TODAY = "--today=2026-12-01"
SEVERITIES = ("error", "warning", "info")
KV_FINDING = (
    "examples/charts/vllm/values-prod.yaml:42:7: error vllm-kv/one-sequence-does-not-fit "
    "max_model_len 131072 needs 16 GiB of KV cache"
)
INSTALL_HINT = (
    "servelint: servelint drift --kube needs the Kubernetes client, which is an optional "
    "extra: pip install 'servelint[kube]' (in the container image it is installed)\n"
)


def servelint(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1")
    env.pop("PYTHONPATH", None)
    if importlib.util.find_spec("kubernetes") is not None:
        env["PYTHONPATH"] = str(HIDE_EXTRAS)  # the development environment: hide the extras
    return subprocess.run(
        [str(SCRIPT), *args],
        input=stdin,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_lint_text() -> None:
    done = servelint("lint", TODAY, CHART)
    assert (done.returncode, done.stderr) == (1, "")
    lines = done.stdout.splitlines()
    assert [line for line in lines if any(f": {s} " in line for s in SEVERITIES)] == [
        line for line in lines if line.startswith("examples/")
    ]
    assert lines[3].startswith(KV_FINDING)
    assert lines[-2:] == [
        "coverage: 4 files, 3 workloads recognised (vllm 3)",
        "1 error, 0 warnings, 1 info, 1 suppressed in 4 files",
    ]


def test_lint_html() -> None:
    done = servelint("lint", TODAY, "--format", "html", CHART)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.startswith("<!DOCTYPE html>\n")
    # One bar of GPU memory per environment's workload.
    assert done.stdout.count('<svg class="memory"') == 3


def test_shell_completion() -> None:
    done = subprocess.run(
        [str(SCRIPT)],
        env=dict(
            os.environ,
            _SERVELINT_COMPLETE="bash_complete",
            COMP_WORDS="servelint li",
            COMP_CWORD="1",
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "plain,lint\n", "")


def test_lint_json() -> None:
    done = servelint("lint", TODAY, "--format", "json", CHART)
    assert (done.returncode, done.stderr) == (1, "")
    report = json.loads(done.stdout)
    assert [finding["rule"] for finding in report["findings"]] == [
        "vllm-kv/one-sequence-does-not-fit",
        "vllm/enforce-eager",
        "diagnostics/debug-logging",
    ]


def test_lint_sarif_and_junit_files(tmp_path: Path) -> None:
    sarif, junit = tmp_path / "servelint.sarif", tmp_path / "junit.xml"
    done = servelint(
        "lint", CHART, "--format", "github", f"--format=sarif:{sarif}", f"--format=junit:{junit}"
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.count("::error file=") == 1
    assert "::error file=examples/charts/vllm/values-prod.yaml,line=42,col=7," in done.stdout
    run = json.loads(sarif.read_text())["runs"][0]
    assert [result["ruleId"] for result in run["results"]] == [
        "vllm-kv/one-sequence-does-not-fit",
        "vllm/enforce-eager",
        "diagnostics/debug-logging",
    ]
    suite = ET.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "2", "1")


def test_lint_standard_input() -> None:
    values = (ROOT / CHART / "values-prod.yaml").read_text(encoding="utf-8")
    done = servelint("lint", "-", stdin=values)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == "0 errors, 0 warnings, 0 info in 1 file"


def test_lint_chart_environments() -> None:
    done = servelint(
        "lint", TODAY, "--chart", CHART, "--env", "prod", "--env", "staging", "--no-render"
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines()[-1] == "1 error, 0 warnings, 1 info, 1 suppressed in 3 files"


def test_baseline(tmp_path: Path) -> None:
    baseline = str(tmp_path / "baseline.json")
    written = servelint("lint", TODAY, "--write-baseline", baseline, CHART)
    assert (written.returncode, written.stderr) == (0, "")
    assert written.stdout.splitlines()[0] == f"note: baseline {baseline}: recorded 2 findings"
    done = servelint("lint", TODAY, "--baseline", baseline, CHART)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == "0 errors, 0 warnings, 0 info, 3 suppressed in 4 files"


def test_show() -> None:
    done = servelint("show", f"{CHART}/values-prod.yaml")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[1:4] == [
        "  server: vllm 0.11.0",
        "  model: meta-llama/Llama-3.1-8B-Instruct (architecture: catalogue)",
        "  gpu: NVIDIA-L4 × 1, told by manifest",
    ]
    shown = servelint("show", "--format", "json", f"{CHART}/values-prod.yaml")
    assert (shown.returncode, shown.stderr) == (0, "")
    assert len(json.loads(shown.stdout)["workloads"]) == 1
    chart = servelint(
        "show",
        "--chart",
        CHART,
        "-f",
        f"{CHART}/values-prod.yaml",
        "--set",
        "vllm.engineArgs.model.maxModelLen=8192",
    )
    assert (chart.returncode, chart.stderr) == (0, "")
    assert "    engine.max_model_len = 8192  (<--set>:1:1, vllm.engineArgs.model.maxModelLen)" in (
        chart.stdout.splitlines()
    )


def test_show_live() -> None:
    done = servelint("show", "--live", f"{DRIFT}/live/sglang-server-info.json")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[0] == (
        f"{DRIFT}/live/sglang-server-info.json: sglang 0.5.2rc1, model qwen/qwen2.5-0.5b-instruct"
    )


def test_rules_and_explain() -> None:
    listed = servelint("rules", "--format", "json")
    assert (listed.returncode, listed.stderr) == (0, "")
    ids = {rule["id"] for rule in json.loads(listed.stdout)}
    assert {"vllm/enforce-eager", "vllm-kv/one-sequence-does-not-fit"} <= ids
    text = servelint("rules")
    assert (text.returncode, text.stderr) == (0, "")
    assert "vllm/enforce-eager" in text.stdout
    explained = servelint("explain", "vllm/enforce-eager")
    assert (explained.returncode, explained.stderr) == (0, "")
    assert explained.stdout.splitlines()[0] == "vllm/enforce-eager (warning)"


def test_policy_tests() -> None:
    done = servelint("test", "tests/fixtures/authoring/policies")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == "4 passed, 0 failed"


@pytest.mark.parametrize(
    ("values", "live", "code", "summary"),
    [
        (
            "logs/vllm-values-drifted.yaml",
            "logs/vllm-0.11-dp2.log",
            1,
            "3 differences in 1 of 1 target, 0 in sync",
        ),
        (
            "logs/vllm-values.yaml",
            "logs/vllm-0.11-dp2.log",
            0,
            "0 differences in 0 of 1 target, 1 in sync",
        ),
        ("values.yaml", "live/vllm-config.json", 0, "0 differences in 0 of 1 target, 1 in sync"),
        # A committed manifest, read by lint's front ends (issue 30).
        (
            "captures/vllm-0.10.1-tool-calling.yaml",
            "captures/vllm-0.10.1-tool-calling.log",
            0,
            "0 differences in 0 of 1 target, 1 in sync",
        ),
    ],
    ids=["log-drifted", "log-in-sync", "json-capture", "manifest"],
)
def test_drift_live(values: str, live: str, code: int, summary: str) -> None:
    done = servelint("drift", "-f", f"{DRIFT}/{values}", "--live", f"{DRIFT}/{live}")
    assert (done.returncode, done.stderr) == (code, "")
    assert done.stdout.splitlines()[-1] == summary


def test_drift_live_formats() -> None:
    done = servelint(
        "drift",
        "-f",
        f"{DRIFT}/values.yaml",
        "-f",
        f"{DRIFT}/values-prod.yaml",
        "--live",
        f"{DRIFT}/live/vllm-config.json",
        "--format",
        "json",
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert json.loads(done.stdout)["summary"]["differences"] == 1
    metrics = servelint(
        "drift",
        "-f",
        f"{DRIFT}/values.yaml",
        "--live",
        f"{DRIFT}/live/vllm-config.json",
        "--format",
        "prometheus",
    )
    assert (metrics.returncode, metrics.stderr) == (0, "")
    assert "# TYPE " in metrics.stdout


def test_drift_kube_without_the_extra() -> None:
    done = servelint(
        "drift",
        "-f",
        f"{DRIFT}/values.yaml",
        "--kube",
        "--source",
        "logs",
        "--selector",
        "app=vllm",
        "--format",
        "json",
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "", INSTALL_HINT)


def test_lint_diff_shows_the_fix_and_writes_nothing() -> None:
    values = ROOT / CHART / "values-prod.yaml"
    before = values.read_bytes()
    done = servelint("lint", TODAY, "--diff", CHART)
    assert done.returncode == 1
    assert done.stdout == (
        "--- a/examples/charts/vllm/values-prod.yaml\n"
        "+++ b/examples/charts/vllm/values-prod.yaml\n"
        "@@ -39,6 +39,6 @@\n"
        "     model:\n"
        "       # The document-QA service sends whole contracts, up to 100k tokens: use the\n"
        "       # model's full context.\n"
        "-      maxModelLen: 131072\n"
        "+      maxModelLen: 35120\n"
        "     scheduler:\n"
        "       maxNumSeqs: 16\n"
    )
    assert done.stderr == (
        "examples/charts/vllm/values-prod.yaml:42:7: would fix "
        "vllm-kv/one-sequence-does-not-fit\n"
        "would fix 1, 1 left: 1 no unique fix\n"
    )
    assert values.read_bytes() == before
