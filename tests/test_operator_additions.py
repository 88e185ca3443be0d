"""The one table of what each operator adds to its pods (linter/model/facts/operator_additions.py),
its page (docs/operators.md), and the coverage note for kinds whose operator was not read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from linter.model.facts.operator_additions import TABLE, additions_known, markdown_rows

ROOT = Path(__file__).parent.parent
RunLine = Callable[..., Result]


def test_the_page_prints_the_table() -> None:
    page = (ROOT / "docs" / "operators.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[1:] == markdown_rows()
    assert len(rows) - 1 == len(TABLE)


def test_every_row_names_its_source() -> None:
    assert [row for row in TABLE if not row.source.startswith("https://github.com/")] == []
    assert sorted({row.operator for row in TABLE}) == [
        "KAITO",
        "KServe",
        "KubeAI",
        "KubeRay",
        "LeaderWorkerSet",
        "NVIDIA Dynamo",
        "NVIDIA NIM Operator",
        "OME",
        "RoleBasedGroup",
        "kthena",
        "llmaz",
    ]


def test_which_kinds_have_known_additions() -> None:
    known = [
        "Deployment",
        "Workspace",
        "DynamoGraphDeployment",
        "NIMService",
        "RayService",
        "Service",
    ]
    assert [additions_known(kind) for kind in (*known, "StormService", "ModelBooster")] == [
        *([True] * len(known)),
        False,
        False,
    ]
    # OME and KServe share three kind names: OME's runners were read, KServe's pods not.
    assert [
        additions_known("ClusterServingRuntime", role)
        for role in ("engine", "decoder-leader", "", "worker")
    ] == [True, True, False, False]


def test_an_operator_not_read_is_named_in_coverage(run_line: RunLine, fixtures: Path) -> None:
    path = fixtures / "model" / "platforms" / "stormservice.yaml"
    result = run_line(["lint", "--no-config", "-v", str(path)])
    notes = [line for line in result.output.splitlines() if "operator additions" in line]
    note = (
        f"not checked: {path}:1:1: operator additions (the operator of StormService may add "
        "probes, /dev/shm or environment to its pods): 5 rules did not run "
        "(hub/gated-model-without-token, hub/token-is-unexpanded-variable, readiness/missing, "
        "readiness/readiness-after-start-up, readiness/tcp-only); fix: lint the pods the "
        "operator creates (kubectl get pod -o yaml) or a rendered manifest; docs/operators.md "
        "lists the operators whose additions are read"
    )
    assert (result.exit_code, notes) == (
        1,
        [
            "coverage: not checked for a missing fact: GPU memory on 2 workloads, operator "
            "additions on 2 workloads",
            note,
            note,
        ],
    )


def test_an_operator_that_was_read_has_no_such_note(run_line: RunLine) -> None:
    path = ROOT / "tests" / "fixtures" / "model" / "operators" / "kaito-inferenceset.yaml"
    result = run_line(["lint", "--no-config", "-v", str(path)])
    assert [line for line in result.output.splitlines() if "operator additions" in line] == []


def test_a_kserve_runtime_is_not_taken_for_omes(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / "runtime.yaml"
    path.write_text(
        "apiVersion: serving.kserve.io/v1alpha1\nkind: ClusterServingRuntime\n"
        "metadata: {name: vllm}\nspec:\n  containers:\n    - name: kserve-container\n"
        "      image: vllm/vllm-openai:v0.11.0\n"
        "      args: [--model, Qwen/Qwen3-8B]\n"
        "      resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    result = run_line(["lint", "--no-config", "-v", str(path)])
    assert [line for line in result.output.splitlines() if "operator additions (" in line] == [
        f"not checked: {path}:1:1: operator additions (the operator of ClusterServingRuntime "
        "may add probes, /dev/shm or environment to its pods): 5 rules did not run "
        "(hub/gated-model-without-token, hub/token-is-unexpanded-variable, readiness/missing, "
        "readiness/readiness-after-start-up, readiness/tcp-only); fix: lint "
        "the pods the operator creates (kubectl get pod -o yaml) or a rendered manifest; "
        "docs/operators.md lists the operators whose additions are read"
    ]


def test_an_ome_runtime_has_no_such_note(run_line: RunLine) -> None:
    path = ROOT / "tests" / "fixtures" / "model" / "operators" / "ome-runtime.yaml"
    result = run_line(["lint", "--no-config", "-v", str(path)])
    assert [line for line in result.output.splitlines() if "operator additions" in line] == []
