"""Scenarios 1 and 2 and the README's first command, on the bundled example chart with the
built-in policies: what a user of examples/charts/vllm sees.

Suppression end dates are judged as of a fixed day (``--today``), so the output does not
change when the calendar does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from report_lines import report_lines

ROOT = Path(__file__).resolve().parent.parent
CHART = "examples/charts/vllm"
BEFORE = ["--no-config", "--today", "2026-11-30"]
# Scenario 1, word for word up to the closing parenthesis.
KV = (
    f"{CHART}/values-prod.yaml:42:7: error vllm-kv/one-sequence-does-not-fit max_model_len "
    "131072 needs 16 GiB of KV cache (128 KiB per token); about 5.3 GiB are left after the "
    "weights (Llama-3.1-8B-Instruct, TP=1, NVIDIA L4, gpu_memory_utilization 0.90)"
)
KV_REST = (
    ", room for at most 43312 tokens even with nothing counted for activations and CUDA "
    "graphs: vLLM refuses to start (To serve at least one request with the model's max seq "
    "len (131072), 16.00 GiB KV cache is needed, which is larger than the available KV cache "
    "memory); lower max_model_len to about 35120, what fits once about 1 GiB is left for "
    "activations and CUDA graphs, or give the model more GPU memory"
)
EAGER = (
    f"{CHART}/values-staging.yaml:6:7: warning vllm/enforce-eager --enforce-eager "
    "switches CUDA graphs off: every decode step runs eagerly, which costs steady-state "
    "decode throughput and latency; drop it outside debugging [staging]"
)
DEBUG_LOG = (
    f"{CHART}/values-staging.yaml:10:7: info diagnostics/debug-logging --uvicorn-log-level "
    "debug logs the HTTP server at that level, with details of every request: far more log "
    "output from the process that serves requests, and details of requests in the log; leave "
    "it at the default level in production [staging]"
)
NOTES = [
    f"note: environment default ({CHART}/values.yaml): 0 errors, 0 warnings, 0 info",
    f"note: environment prod ({CHART}/values.yaml + {CHART}/values-prod.yaml): 1 error, "
    "0 warnings, 0 info",
]

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("SERVELINT_HELM", raising=False)


def test_scenario_1_the_prod_values_file_alone_fails_with_the_kv_finding(run_line: Run) -> None:
    result = run_line(["lint", *BEFORE, f"{CHART}/values-prod.yaml"])
    assert (result.exit_code, report_lines(result.output)) == (
        1,
        [
            KV + KV_REST,
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )
    explained = run_line(["explain", "vllm-kv/one-sequence-does-not-fit"])
    assert (explained.exit_code, explained.output.splitlines()[0]) == (
        0,
        "vllm-kv/one-sequence-does-not-fit (error)",
    )


def test_scenario_2_ci_gate_text_and_sarif_at_the_values_line(
    run_line: Run, helm: str, tmp_path: Path
) -> None:
    sarif = tmp_path / "servelint.sarif"
    result = run_line(
        [
            "lint",
            *BEFORE,
            "--chart",
            CHART,
            "-f",
            f"{CHART}/values-prod.yaml",
            "--helm",
            helm,
            "--format",
            "text",
            "--format",
            f"sarif:{sarif}",
        ]
    )
    assert (result.exit_code, report_lines(result.output)) == (
        1,
        [
            # The rendered Deployment sees the same problem: one finding, at the values line.
            KV + KV_REST + " (rendered templates/deployment.yaml:53:15)",
            "1 error, 0 warnings, 0 info in 4 files",
        ],
    )
    [run] = json.loads(sarif.read_text(encoding="utf-8"))["runs"]
    assert [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]) for r in run["results"]
    ] == [
        (
            "vllm-kv/one-sequence-does-not-fit",
            "error",
            {
                "artifactLocation": {"uri": f"{CHART}/values-prod.yaml", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 42, "startColumn": 7},
            },
        ),
    ]


def test_readme_first_command_shows_the_examples_findings(run_line: Run) -> None:
    result = run_line(["lint", *BEFORE, CHART])
    assert (result.exit_code, report_lines(result.output)) == (
        1,
        [
            *NOTES,
            f"note: environment staging ({CHART}/values.yaml + {CHART}/values-staging.yaml): "
            "0 errors, 0 warnings, 1 info, 1 suppressed",
            f"{KV}{KV_REST} [prod]",
            f"{EAGER} [suppressed (inline): profiling INC-2231, until 2026-12-31]",
            DEBUG_LOG,
            "1 error, 0 warnings, 1 info, 1 suppressed in 4 files",
        ],
    )


def test_after_the_end_date_the_staging_warning_counts_again(run_line: Run) -> None:
    result = run_line(["lint", "--no-config", "--today", "2027-01-01", CHART])
    assert (result.exit_code, report_lines(result.output)) == (
        1,
        [
            *NOTES,
            f"note: environment staging ({CHART}/values.yaml + {CHART}/values-staging.yaml): "
            "0 errors, 1 warning, 1 info",
            f"{KV}{KV_REST} [prod]",
            f"{CHART}/values-staging.yaml:5:7: warning suppression/expired suppression of "
            "'vllm/enforce-eager' expired on 2026-12-31 (profiling INC-2231); its findings count "
            "again",
            EAGER,
            DEBUG_LOG,
            "1 error, 2 warnings, 1 info in 4 files",
        ],
    )
