"""The hook's reading (values in their chart's context, no helm) and ``lint --chart``
(rendered by the real helm) report one problem with the same rule and severity at the
same place, where the chart's templates, read without rendering, can tell.

Charts under fixtures/helm/parity: ``no-shm`` mounts nothing at /dev/shm; ``shm-switch``
mounts a memory-backed /dev/shm when ``.Values.shm.enabled``; ``shm-opaque`` mounts it
under ``or .Values.shm.enabled .Values.highThroughput``, which only rendering judges.
Every chart runs vLLM 0.10.1.1 (the last release that sets NCCL_CUMEM_ENABLE=0) with tensor
parallelism 2 on NVIDIA L4 GPUs (no peer-to-peer).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

RunLine = Callable[..., Result]
PARITY = Path(__file__).parent / "fixtures" / "helm" / "parity"
NCCL = "shm/nccl-shm-transport-without-dev-shm"
UNCERTAIN = "shm/tensor-parallel-without-dev-shm"
ERROR_MESSAGE = (
    "tensor_parallel_size 2 on NVIDIA-L4 GPUs (no peer-to-peer) sends NCCL traffic through "
    "/dev/shm (vLLM 0.10.1.1 sets NCCL_CUMEM_ENABLE=0), and nothing is mounted there: the "
    "container has the runtime's 64 MiB and NCCL fails while vLLM starts (failed to extend "
    "/dev/shm/nccl-…); mount an emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at "
    "/dev/shm"
)
WARNING_MESSAGE = (
    "tensor_parallel_size 2 without a memory-backed volume at /dev/shm: the container has the "
    "runtime's 64 MiB, which NCCL and the worker processes outgrow, usually under load "
    "(without peer-to-peer between the GPUs, NCCL fails at start-up); mount an emptyDir with "
    "medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm (the chart's volumes could not be "
    "seen without rendering: shm-opaque/templates/deployment.yaml:38 may add a /dev/shm "
    "mount; lint --chart renders them)"
)
Row = tuple[str, str, str, int, int]  # rule, severity, file, line, column


@pytest.fixture
def charts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for chart in PARITY.iterdir():
        shutil.copytree(chart, tmp_path / chart.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lint(run_line: RunLine, args: list[str]) -> tuple[int, list[dict[str, Any]]]:
    result = run_line(["lint", "--no-config", "--format", "json", *args])
    return result.exit_code, json.loads(result.output)["findings"]


def _rows(findings: list[dict[str, Any]]) -> list[Row]:
    return [(f["rule"], f["severity"], f["file"], f["line"], f["column"]) for f in findings]


def _both(
    run_line: RunLine, helm: str, chart: str, values: str
) -> tuple[tuple[int, list[dict[str, Any]]], tuple[int, list[dict[str, Any]]]]:
    hook = _lint(run_line, [f"{chart}/{values}"])
    if values == "values.yaml":
        hook = _default_environment(hook)
    extra = [] if values == "values.yaml" else ["-f", f"{chart}/{values}"]
    rendered = _lint(run_line, ["--chart", chart, "--helm", helm, *extra])
    return hook, rendered


def _default_environment(
    linted: tuple[int, list[dict[str, Any]]],
) -> tuple[int, list[dict[str, Any]]]:
    """A chart's values.yaml given alone judges every environment of the chart
    (run/dependents.py); the rendered chart's defaults are its default environment."""
    _, findings = linted
    mine = [f for f in findings if "default" in f.get("environments", ["default"])]
    failing = any(f["severity"] == "error" and not f["suppressed"] for f in mine)
    return int(failing), mine


@pytest.mark.parametrize(
    ("chart", "values", "expected"),
    [
        ("no-shm", "values.yaml", [(NCCL, "error", "no-shm/values.yaml", 9, 3)]),
        ("shm-switch", "values.yaml", []),
        ("shm-switch", "values-no-shm.yaml", [(NCCL, "error", "shm-switch/values.yaml", 9, 3)]),
    ],
    ids=["no-dev-shm-anywhere", "switch-on", "switch-off"],
)
def test_the_hook_reports_what_the_rendered_chart_reports(
    run_line: RunLine, helm: str, charts: Path, chart: str, values: str, expected: list[Row]
) -> None:
    (hook_code, hook), (rendered_code, rendered) = _both(run_line, helm, chart, values)
    code = 1 if expected else 0
    assert (hook_code, _rows(hook)) == (code, expected)
    assert (rendered_code, _rows(rendered)) == (code, expected)
    # The same message; the rendered one adds where in the output it was seen.
    for seen, placed in zip(hook, rendered, strict=True):
        assert (seen["message"], placed["message"]) == (
            ERROR_MESSAGE,
            f"{ERROR_MESSAGE} (rendered templates/deployment.yaml:24:15)",
        )


def test_a_mount_only_rendering_can_judge_stays_a_warning_that_says_so(
    run_line: RunLine, helm: str, charts: Path
) -> None:
    (hook_code, hook), (rendered_code, rendered) = _both(
        run_line, helm, "shm-opaque", "values.yaml"
    )
    assert (hook_code, _rows(hook), [f["message"] for f in hook]) == (
        0,
        [(UNCERTAIN, "warning", "shm-opaque/values.yaml", 9, 3)],
        [WARNING_MESSAGE],
    )
    assert (rendered_code, _rows(rendered)) == (
        1,
        [(NCCL, "error", "shm-opaque/values.yaml", 9, 3)],
    )


def test_the_template_sizelimit_reaches_the_values_reading(
    run_line: RunLine, helm: str, charts: Path
) -> None:
    values = charts / "shm-switch" / "values.yaml"
    values.write_text(values.read_text().replace("sizeLimit: 2Gi", "sizeLimit: 512Mi"))
    (hook_code, hook), (rendered_code, rendered) = _both(
        run_line, helm, "shm-switch", "values.yaml"
    )
    small = [("shm/dev-shm-too-small", "warning", "shm-switch/values.yaml", 26, 3)]
    assert (hook_code, _rows(hook)) == (0, small)
    assert (rendered_code, _rows(rendered)) == (0, small)


_RESOURCES = "          resources:\n"
_WITH_MOUNT = (
    "          {{- with .Values.sharedMemory }}\n"
    "          volumeMounts:\n"
    "            - {name: dshm, mountPath: /dev/shm}\n"
    "          {{- end }}\n"
)


def _edit(chart: Path, name: str, old: str, new: str) -> None:
    path = chart / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _mount_in_with(chart: Path) -> None:
    _edit(chart, "templates/deployment.yaml", _RESOURCES, _WITH_MOUNT + _RESOURCES)
    _edit(chart, "values.yaml", "nodeSelector:", "sharedMemory: {sizeLimit: 2Gi}\n\nnodeSelector:")


def _values_carry_a_mount(chart: Path) -> None:
    _edit(
        chart,
        "templates/deployment.yaml",
        _RESOURCES,
        "          {{- with .Values.sidecarMounts }}\n          volumeMounts:\n"
        "            {{- toYaml . | nindent 12 }}\n          {{- end }}\n" + _RESOURCES,
    )
    _edit(
        chart,
        "values.yaml",
        "nodeSelector:",
        "sidecarMounts:\n  - {name: dshm, mountPath: /dev/shm}\n\nnodeSelector:",
    )


def _host_ipc_from_values(chart: Path) -> None:
    _edit(
        chart,
        "templates/deployment.yaml",
        "      nodeSelector:",
        "      hostIPC: {{ .Values.shareHostIPC }}\n      nodeSelector:",
    )


def _tensor_parallel_not_read(chart: Path) -> None:
    _edit(
        chart,
        "templates/deployment.yaml",
        "--tensor-parallel-size={{ .Values.vllm.tensorParallelSize }}",
        "--tensor-parallel-size=1",
    )


def _subchart_mounts(chart: Path) -> None:
    sub = chart / "charts" / "sidecar"
    (sub / "templates").mkdir(parents=True)
    (sub / "Chart.yaml").write_text("apiVersion: v2\nname: sidecar\nversion: 0.1.0\n")
    (sub / "templates" / "_volumes.tpl").write_text(
        '{{- define "sidecar.shm" }}\n- {name: dshm, mountPath: /dev/shm}\n{{- end }}\n'
    )


def _file_read_through_files(chart: Path) -> None:
    (chart / "files").mkdir()
    (chart / "files" / "mounts.yaml").write_text("- {name: dshm, mountPath: /dev/shm}\n")
    _edit(
        chart,
        "templates/deployment.yaml",
        _RESOURCES,
        "          volumeMounts:\n"
        '            {{- .Files.Get "files/mounts.yaml" | nindent 12 }}\n' + _RESOURCES,
    )


def _notes_mention_it(chart: Path) -> None:
    (chart / "templates" / "NOTES.txt").write_text(
        "Tensor parallel servers need shared memory:\nmount an emptyDir at /dev/shm.\n"
    )
    _edit(
        chart,
        "templates/deployment.yaml",
        _RESOURCES,
        _RESOURCES.replace("resources:", "volumeMounts: [{name: cache, mountPath: /cache}]")
        + _RESOURCES,
    )
    _edit(
        chart,
        "templates/deployment.yaml",
        "      nodeSelector:",
        "      volumes:\n        - name: cache\n          emptyDir:\n"
        "            medium: Memory\n            sizeLimit: 1Gi\n      nodeSelector:",
    )


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (_mount_in_with, "no-shm/templates/deployment.yaml:35 may add a /dev/shm mount"),
        (
            _values_carry_a_mount,
            "the values set sidecarMounts[0].name to 'dshm'",
        ),
        (_host_ipc_from_values, "no-shm/templates/deployment.yaml:13 may set hostIPC"),
        (_tensor_parallel_not_read, "no template reads vllm.tensorParallelSize"),
        (
            _subchart_mounts,
            "no-shm/charts/sidecar/templates/_volumes.tpl:1 may add a /dev/shm mount",
        ),
        (_notes_mention_it, "no-shm/templates/NOTES.txt:2 may add a /dev/shm mount"),
        (
            _file_read_through_files,
            "its templates read chart files through .Files, and Chart.yaml, "
            "files/mounts.yaml mention shared memory",
        ),
    ],
    ids=[
        "mount-in-with",
        "values-carry",
        "host-ipc",
        "tp-not-read",
        "subchart",
        "notes",
        "files-get",
    ],
)
def test_the_hook_stays_uncertain_where_the_templates_cannot_tell(
    run_line: RunLine, charts: Path, change: Callable[[Path], None], why: str
) -> None:
    change(charts / "no-shm")
    code, findings = _lint(run_line, ["no-shm/values.yaml"])
    shm = [f for f in findings if f["rule"].startswith("shm/")]
    assert (code, _rows(shm)) == (0, [(UNCERTAIN, "warning", "no-shm/values.yaml", 9, 3)])
    assert shm[0]["message"].endswith(
        f"(the chart's volumes could not be seen without rendering: {why}; "
        "lint --chart renders them)"
    )


def test_a_template_volume_without_a_size_is_reported_at_its_template_line(
    run_line: RunLine, helm: str, charts: Path
) -> None:
    _edit(
        charts / "shm-switch",
        "templates/deployment.yaml",
        "            sizeLimit: {{ .Values.shm.sizeLimit }}\n",
        "",
    )
    (hook_code, hook), (rendered_code, rendered) = _both(
        run_line, helm, "shm-switch", "values.yaml"
    )
    unsized = [
        (
            "kubernetes-memory/memory-volume-without-size-limit",
            "warning",
            "shm-switch/templates/deployment.yaml",
            41,
            7,
        ),
        # The template no longer reads shm.sizeLimit.
        ("helm-values/unread-key", "warning", "shm-switch/values.yaml", 26, 3),
    ]
    assert (hook_code, _rows(hook)) == (0, unsized)
    assert (rendered_code, _rows(rendered)) == (0, unsized)


@pytest.mark.parametrize(
    ("chart", "fact", "mounts"),
    [
        ("no-shm", {"proven": True}, []),
        ("shm-switch", {"proven": True}, [{"name": "dshm", "mount_path": "/dev/shm"}]),
        (
            "shm-opaque",
            {
                "proven": False,
                "unseen": "shm-opaque/templates/deployment.yaml:38 may add a /dev/shm mount",
            },
            [],
        ),
    ],
)
def test_the_chart_pod_fact_matches_the_workload_schema(
    charts: Path, chart: str, fact: dict[str, Any], mounts: list[dict[str, str]]
) -> None:
    import jsonschema

    from linter import _resources
    from linter.helm.chart import values_workloads
    from linter.helm.podfacts import add_chart_pod
    from linter.helm.values import load_values, merge_values
    from linter.model.engine.settings import DEFAULT_SETTINGS

    merged = merge_values(load_values(f"{chart}/values.yaml"), [], (), label=f"helm:{chart}")
    workloads = values_workloads(merged, DEFAULT_SETTINGS)
    add_chart_pod(workloads, chart, merged)
    validator = jsonschema.Draft202012Validator(_resources.load_schema("workload.schema.json"))
    assert [
        (
            w.view().data["chart_pod"],
            w.view().data["container"]["mounts"],
            list(validator.iter_errors(w.view().data)),
        )
        for w in workloads
    ] == [(fact, mounts, [])]
