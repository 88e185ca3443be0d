"""Findings on rendered manifests land on files that exist: the values key that produced
the value (found by rendering again with marked values through the real helm), else the
template line of the field; one finding per problem across the values and rendered
readings, with the rendered reading's severity."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
from click.testing import Result
from report_lines import report_lines

from linter.helm.provenance import _template_position, mark

RunLine = Callable[..., Result]
FIXTURE = Path(__file__).parent / "fixtures" / "helm" / "tp-no-shm"
SCHEMA = Path(__file__).parent / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
TEAM_POLICIES = Path(__file__).parent / "fixtures" / "helm" / "policies"
SHM_ERROR = (
    "error shm/nccl-shm-transport-without-dev-shm tensor_parallel_size 2 on NVIDIA-L4 GPUs "
    "(no peer-to-peer) sends NCCL traffic through /dev/shm (vLLM 0.10.1.1 sets "
    "NCCL_CUMEM_ENABLE=0), and nothing is mounted there: the container has the runtime's 64 "
    "MiB and NCCL fails while vLLM starts (failed to extend /dev/shm/nccl-…); mount an emptyDir "
    "with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm (rendered "
    "templates/deployment.yaml:24:15)"
)


@pytest.fixture
def chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture chart, copied so a test may edit it; the working directory is its parent."""
    target = tmp_path / "llm"
    shutil.copytree(FIXTURE, target)
    monkeypatch.chdir(tmp_path)
    return target


def test_one_problem_is_one_finding_with_the_rendered_severity(
    run_line: RunLine, helm: str, chart: Path
) -> None:
    # Without helm (the pre-commit hook's reading) the templates, read without rendering,
    # prove that nothing mounts /dev/shm: the same finding, without the rendered line.
    hook = run_line(["lint", "--no-config", "llm/values.yaml"])
    hook_error = SHM_ERROR.removesuffix(" (rendered templates/deployment.yaml:24:15)")
    assert (hook.exit_code, report_lines(hook.output)) == (
        1,
        [f"llm/values.yaml:13:5: {hook_error}", "1 error, 0 warnings, 0 info in 1 file"],
    )
    rendered = run_line(["lint", "--no-config", "--chart", "llm", "--helm", helm])
    assert (rendered.exit_code, report_lines(rendered.output)) == (
        1,
        [f"llm/values.yaml:13:5: {SHM_ERROR}", "1 error, 0 warnings, 0 info in 2 files"],
    )


def _validator() -> jsonschema.Draft4Validator:
    checker = jsonschema.FormatChecker()
    assert "uri" in checker.checkers  # rfc3986-validator (test extra) checks format: uri
    return jsonschema.Draft4Validator(json.loads(SCHEMA.read_text("utf-8")), format_checker=checker)


def _artifacts(log: dict[str, Any], root: Path) -> list[tuple[str, int, bool]]:
    return [
        (
            unquote(loc["physicalLocation"]["artifactLocation"]["uri"]),
            loc["physicalLocation"]["region"]["startLine"],
            (root / unquote(loc["physicalLocation"]["artifactLocation"]["uri"])).is_file(),
        )
        for result in log["runs"][0]["results"]
        for loc in result["locations"]
    ]


def test_sarif_places_rendered_findings_on_files_that_exist(
    run_line: RunLine, helm: str, chart: Path
) -> None:
    # One replica written into the template itself: no values key gave it, so that
    # finding falls back to the template line of the field.
    template = chart / "templates" / "deployment.yaml"
    template.write_text(
        template.read_text().replace("replicas: {{ .Values.replicaCount }}", "replicas: 1")
    )
    result = run_line(
        [
            "lint",
            "--no-config",
            "--policy-dir",
            str(TEAM_POLICIES),
            "--chart",
            "llm",
            "--helm",
            helm,
            "--format",
            "sarif:out.sarif",
            "--format",
            "text",
        ]
    )
    assert (result.exit_code, report_lines(result.output)) == (
        1,
        [
            "llm/templates/deployment.yaml:10:3: warning rendered-replicas/min-replicas "
            "replicas is 1; one pod means downtime on every rollout (rendered "
            "templates/deployment.yaml:8:3)",
            # The template no longer reads replicaCount: Helm ignores the key.
            "llm/values.yaml:1:1: warning helm-values/unread-key replicaCount is set but no "
            "template of chart llm reads it, so Helm ignores it",
            f"llm/values.yaml:13:5: {SHM_ERROR}",
            "1 error, 2 warnings, 0 info in 2 files",
        ],
    )
    log = json.loads((chart.parent / "out.sarif").read_text("utf-8"))
    assert [e.message for e in _validator().iter_errors(log)] == []
    assert _artifacts(log, chart.parent) == [
        ("llm/templates/deployment.yaml", 10, True),
        ("llm/values.yaml", 1, True),
        ("llm/values.yaml", 13, True),
    ]


def test_a_value_set_on_the_command_line_points_at_that_set(
    run_line: RunLine, helm: str, chart: Path
) -> None:
    result = run_line(
        [
            "lint",
            "--no-config",
            "--chart",
            "llm",
            "--set",
            "vllm.engineArgs.tensorParallelSize=4",
            "--set",
            "resources.limits.nvidia\\.com/gpu=4",
            "--set",
            "resources.requests.nvidia\\.com/gpu=4",
            "--helm",
            helm,
            "-q",
        ]
    )
    # Issue 31: one finding per problem, on the --set that wrote the value (the first),
    # not a second one on the template.
    shm = [line for line in result.output.splitlines() if "shm/nccl-shm" in line]
    assert len(shm) == 1
    assert shm[0].startswith("<--set>:1:1: error shm/nccl-shm-transport-without-dev-shm ")
    assert shm[0].endswith("(rendered templates/deployment.yaml:24:15)")


def test_a_comment_in_the_values_file_suppresses_the_rendered_finding(
    run_line: RunLine, helm: str, chart: Path
) -> None:
    values = chart / "values.yaml"
    values.write_text(
        values.read_text().replace(
            "    tensorParallelSize: 2\n",
            '    # servelint: ignore[shm/*] reason="shm mounted by the cluster\'s webhook"\n'
            "    tensorParallelSize: 2\n",
        )
    )
    result = run_line(["lint", "--no-config", "--chart", "llm", "--helm", helm])
    assert (result.exit_code, report_lines(result.output)) == (
        0,
        [
            f"llm/values.yaml:14:5: {SHM_ERROR} [suppressed (inline): shm mounted by the "
            "cluster's webhook]",
            "0 errors, 0 warnings, 0 info, 1 suppressed in 2 files",
        ],
    )


def test_an_annotation_in_the_template_still_suppresses_the_placed_finding(
    run_line: RunLine, helm: str, chart: Path
) -> None:
    result = run_line(
        [
            "lint",
            "--no-config",
            "--chart",
            "llm",
            "--set",
            "ignore=shm/nccl-shm-transport-without-dev-shm=webhook adds /dev/shm",
            "--helm",
            helm,
        ]
    )
    assert (result.exit_code, report_lines(result.output)) == (
        0,
        [
            "llm/values.yaml:13:5: "
            + SHM_ERROR.replace("deployment.yaml:24:15", "deployment.yaml:26:15")
            + " [suppressed (annotation): webhook adds /dev/shm]",
            "0 errors, 0 warnings, 0 info, 1 suppressed in 2 files",
        ],
    )


def test_marks_replace_strings_and_numbers_but_not_booleans() -> None:
    marks = mark({"a": "x", "b": [8192, 0.9, True], "c": {"d": None}})
    assert marks.data == {"a": "slmk0z", "b": [60001, 0.600002, True], "c": {"d": None}}
    assert marks.paths == {0: ("a",), 1: ("b", 0), 2: ("b", 1)}
    assert marks.originals == {0: "x", 1: 8192, 2: 0.9}


def test_template_position_follows_the_path_from_its_document(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(
        "kind: ConfigMap\nmetadata:\n  name: a\n---\nkind: Job\nmetadata:\n"
        "  annotations:\n    'argocd.argoproj.io/hook': PreSync\nspec:\n  backoffLimit: 0\n"
    )
    assert [
        _template_position(str(template), path, doc)
        for path, doc in (
            (("metadata", "annotations", "argocd.argoproj.io/hook"), 1),
            (("spec", "backoffLimit"), 1),
            (("metadata", "name"), 0),
            (("spec", "template", "spec"), 1),
            (("nowhere",), 1),
        )
    ] == [(8, 5), (10, 3), (3, 3), (9, 1), (5, 1)]
