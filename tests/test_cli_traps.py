"""CLI traps of issue 31: ``-o`` given a format name, an empty input set, inputs that are
not configurations, summary counts that disagree."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

RunLine = Callable[..., Result]
CLEAN = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\ndata: {a: b}\n"


@pytest.mark.parametrize(
    ("args", "fmt", "suffix"),
    [
        (["lint", "-o", "sarif", "x.yaml"], "sarif", "sarif"),
        (["lint", "--output", "JSON", "x.yaml"], "json", "json"),
        (["lint", "-o", "junitxml", "x.yaml"], "junit", "xml"),
        (["lint", "-o", "cli", "x.yaml"], "text", "txt"),
        (["drift", "-o", "prometheus", "--live", "x.yaml"], "prometheus", "prom"),
        (["test", "-o", "junit"], "junit", "xml"),
    ],
    ids=["sarif", "upper-case", "checkov-junitxml", "checkov-cli", "drift", "test"],
)
def test_a_format_name_given_to_o_is_a_usage_error(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    fmt: str,
    suffix: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.yaml").write_text(CLEAN)
    result = run_line(args)
    word = args[args.index("-o") + 1] if "-o" in args else args[args.index("--output") + 1]
    assert result.exit_code == 2
    assert result.output.splitlines()[-1].endswith(
        f"'{word}' is a format name, not a file: give the format with --format {fmt} (and "
        f"a file with -o, e.g. --format {fmt} -o servelint.{suffix}); to write a file named "
        f"'{word}', write ./{word}"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.yaml"]


def test_a_path_that_looks_like_a_format_is_a_file(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.yaml").write_text(CLEAN)
    result = run_line(["lint", "--no-config", "-o", "./sarif", "x.yaml"])
    assert (result.exit_code, result.output) == (0, "")
    assert (tmp_path / "sarif").read_text() == "0 errors, 0 warnings, 0 info in 1 file\n"


TRAPS = Path(__file__).parent / "fixtures" / "clitraps"


def test_a_chart_template_named_on_the_command_line_is_a_note(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 31: it was a syntax error (pre-commit passes every changed YAML file).
    # Without the chart context a template is a note, not a file to lint.
    monkeypatch.chdir(TRAPS)
    no_context = ["lint", "--no-config", "--no-chart-context"]
    result = run_line([*no_context, "chart/templates/deployment.yaml"])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            "note: chart/templates/deployment.yaml: a chart template: lint the chart "
            "(servelint lint --chart chart)",
            "note: no files to lint",
            "0 errors, 0 warnings, 0 info in 0 files",
        ],
    )
    monkeypatch.chdir(TRAPS / "chart" / "templates")
    inside = run_line([*no_context, "-q", "deployment.yaml"])
    assert (inside.exit_code, inside.output) == (0, "")
    note = run_line([*no_context, "deployment.yaml"]).output.splitlines()[0]
    assert note == (
        "note: deployment.yaml: a chart template: lint the chart (servelint lint --chart ..)"
    )


def test_a_template_outside_a_chart_is_a_note(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pre-commit hook passes templates/ files for charts' sake; one that no chart
    # holds is no configuration either, and its template actions are no syntax error.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "cm.yaml").write_text(
        "kind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n"
    )
    (tmp_path / "templates" / "plain.yaml").write_text(CLEAN)
    result = run_line(["lint", "--no-config", "templates/cm.yaml", "templates/plain.yaml"])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            "note: templates/cm.yaml: a template (Go template syntax in a templates/ folder "
            "with no Chart.yaml above it): not linted; render it and lint the output",
            "0 errors, 0 warnings, 0 info in 1 file",
        ],
    )


def test_a_changed_chart_template_judges_the_chart_s_environments(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 27: every environment inherits the template; it is judged as the chart's folder.
    monkeypatch.chdir(TRAPS)
    result = run_line(["lint", "--no-config", "chart/templates/deployment.yaml"])
    folder = run_line(["lint", "--no-config", "chart/"])
    assert (result.exit_code, result.output) == (folder.exit_code, folder.output)
    assert result.output.splitlines()[-1] == "0 errors, 0 warnings, 0 info in 4 files"


def test_a_log_named_on_the_command_line_is_a_note_and_the_rest_is_linted(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 31: a start-up log gave syntax and duplicate-key errors.
    monkeypatch.chdir(TRAPS)
    result = run_line(["lint", "--no-config", "startup.txt", "chart/values.yaml"])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            "note: startup.txt: not a configuration file (servelint lints .yaml, .yml, .json "
            "and .pbtxt files): not linted",
            # The chart's values.yaml alone brings in its folder: every environment that
            # inherits it is judged (issue 27).
            "note: environment default (chart/values.yaml): 0 errors, 0 warnings, 0 info",
            "note: environment prod (chart/values.yaml + chart/values-prod.yaml): 0 errors, "
            "0 warnings, 0 info",
            "coverage: 4 files, 2 workloads recognised (vllm 2)",
            "0 errors, 0 warnings, 0 info in 4 files",
        ],
    )


def test_a_helm_unittest_suite_is_not_a_deployment(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its tests set a vLLM image: it was "1 input not understood" (and failed
    # --fail-on-unchecked).
    monkeypatch.chdir(TRAPS)
    suite = run_line(["lint", "--no-config", "-v", "--fail-on-unchecked", "chart/tests"])
    assert (suite.exit_code, suite.output.splitlines()) == (
        0,
        ["coverage: 1 file, 0 workloads recognised", "0 errors, 0 warnings, 0 info in 1 file"],
    )
    chart = run_line(["lint", "--no-config", "-v", "--fail-on-unchecked", "chart"])
    assert (chart.exit_code, chart.output.splitlines()) == (
        0,
        [
            "note: environment default (chart/values.yaml): 0 errors, 0 warnings, 0 info",
            "note: environment prod (chart/values.yaml + chart/values-prod.yaml): 0 errors, "
            "0 warnings, 0 info",
            "coverage: 4 files, 2 workloads recognised (vllm 2)",
            "0 errors, 0 warnings, 0 info in 4 files",
        ],
    )


def test_no_files_to_lint_is_said_and_exits_zero(run_line: RunLine, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# not YAML\n")
    result = run_line(["lint", "--no-config", str(tmp_path)])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        ["note: no files to lint", "0 errors, 0 warnings, 0 info in 0 files"],
    )
    machine = run_line(["lint", "--no-config", "--format", "json", str(tmp_path)])
    assert (machine.exit_code, json.loads(machine.output)["notes"]) == (0, ["no files to lint"])


def test_every_count_of_files_counts_the_same_files(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch, helm: str
) -> None:
    # Issue 31: one run said "12 files" in its coverage line and "21 files" in its
    # summary: the summary added each provider's files, a values file given as input and
    # with --chart twice, a rendered template once per environment. Now every count is
    # the run's files, each once: Chart.yaml, values.yaml, values-prod.yaml, the
    # helm-unittest suite and the rendered Deployment.
    monkeypatch.chdir(TRAPS)
    args = ["lint", "--no-config", "--helm", helm, "--chart", "chart", "--env", "prod", "chart"]
    # The prod release is linted once, by --chart: the chart context of the input values
    # files keeps only the release --chart does not lint (default); it said prod twice.
    assert run_line(args).output.splitlines() == [
        "note: environment default (chart/values.yaml): 0 errors, 0 warnings, 0 info",
        "note: environment prod (chart/values.yaml + chart/values-prod.yaml): 0 errors, "
        "0 warnings, 0 info",
        "coverage: 5 files, 3 workloads recognised (vllm 3)",
        "0 errors, 0 warnings, 0 info in 5 files",
    ]
    report = json.loads(run_line([*args, "--format", "json"]).output)
    assert (report["summary"]["files"], report["coverage"]["summary"]["files"]) == (5, 5)
    assert [entry["file"] for entry in report["coverage"]["files"]] == [
        "chart/Chart.yaml",
        "chart/values-prod.yaml",
        "chart/values.yaml",
        "chart/tests/deployment_test.yaml",
        "chart/templates/deployment.yaml (rendered)",
    ]


def test_an_unreadable_input_is_one_of_the_files_counted(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text(CLEAN)
    (tmp_path / "b.yaml").symlink_to("nowhere.yaml")
    result = run_line(["lint", "--no-config", "-v", "."])
    assert (result.exit_code, result.output.splitlines()) == (
        3,
        [
            "b.yaml:1:1: error read-error cannot read: No such file or directory",
            "coverage: 2 files, 0 workloads recognised",
            "1 error, 0 warnings, 0 info in 2 files",
        ],
    )
    report = json.loads(run_line(["lint", "--no-config", "--format", "json", "."]).output)
    assert (report["summary"]["files"], report["coverage"]["summary"]["files"]) == (2, 2)


def test_a_problem_written_by_set_is_one_finding_on_that_set(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch, helm: str
) -> None:
    # Issue 31: the values reading (a warning on <--set>) and the rendered reading (an
    # error on the template line) of one problem were two findings.
    monkeypatch.chdir(TRAPS)
    result = run_line(
        [
            "lint",
            "--no-config",
            "--helm",
            helm,
            "--chart",
            "chart",
            "--set",
            "replicaCount=2",
            "--set",
            "vllm.engineArgs.tensorParallelSize=2",
            "-q",
        ]
    )
    assert (result.exit_code, result.output.splitlines()) == (
        1,
        [
            "<--set>:2:1: error gpu/world-size-above-gpus tensor_parallel_size 2 × "
            "pipeline_parallel_size 1 needs 2 GPUs, but the pod gets 1 (nvidia.com/gpu): vLLM "
            "fails at start-up (World size (2) is larger than the number of available GPUs (1) "
            "in this node); give the pod 2 GPUs or lower the parallelism (rendered "
            "templates/deployment.yaml:24:15)"
        ],
    )


def _shown(result: Result) -> list[tuple[str, str | None, str]]:
    return [
        (w["name"], w.get("environment"), w["at"]) for w in json.loads(result.output)["workloads"]
    ]


def test_show_chart_takes_the_chart_options_of_lint(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch, helm: str
) -> None:
    # Issue 31: show --chart refused --env, --helm and --no-render.
    from linter.commands.lint import lint
    from linter.commands.show import show

    chart_group = {"chart", "values_files", "set_values", "environments", "helm", "no_render"}
    chart_group.add("no_chart_context")
    options = {
        command.name: {p.name: (p.opts, p.help) for p in command.params if p.name in chart_group}
        for command in (lint, show)
    }
    assert options["show"] == options["lint"]
    assert set(options["show"]) == chart_group
    monkeypatch.chdir(TRAPS)
    base = ["show", "--no-config", "--format", "json", "--chart", "chart", "--env", "prod"]
    values_only = run_line([*base, "--no-render"])
    assert (values_only.exit_code, _shown(values_only)) == (
        0,
        [("helm:chart@prod", "prod", "chart/values.yaml:1:1")],
    )
    rendered = run_line([*base, "--helm", helm])
    assert (rendered.exit_code, _shown(rendered)) == (
        0,
        [
            ("helm:chart@prod", "prod", "chart/values.yaml:1:1"),
            ("Deployment/default/traps", "prod", "chart/templates/deployment.yaml (rendered):3:1"),
        ],
    )
    [setting] = [
        s
        for s in json.loads(rendered.output)["workloads"][0]["settings"]
        if s["setting"] == "engine.max_model_len"
    ]
    assert setting["at"] == "chart/values-prod.yaml:3:5"
    missing = run_line(["show", "--no-config", "--chart", "chart", "--env", "nope", "--no-render"])
    assert (missing.exit_code, missing.output) == (
        3,
        "servelint: chart: the chart's values could not be merged\n"
        "  chart/values-nope.yaml:1:1: cannot read: No such file or directory\n",
    )
    in_context = run_line(["show", "--no-config", "--format", "json", "chart/values-prod.yaml"])
    assert _shown(in_context) == [("helm:chart", "prod", "chart/values.yaml:1:1")]
    flag = ["show", "--no-config", "--format", "json", "--no-chart-context"]
    assert _shown(run_line([*flag, "chart/values-prod.yaml"])) == []
    alone = run_line(["show", "--no-config", "--env", "prod", "chart/values.yaml"])
    assert alone.exit_code == 2
    assert alone.output.splitlines()[-1] == "Error: -f/--values, --set and --env go with --chart"


def test_a_release_given_as_input_and_with_chart_is_one_finding(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helm: str
) -> None:
    # The values file's release was linted by its chart context and by --chart: the same
    # problem twice, once from the values alone and once from the rendered Deployment.
    shutil.copytree(TRAPS / "chart", tmp_path / "chart")
    (tmp_path / "chart" / "values-prod.yaml").write_text(
        "vllm:\n  engineArgs:\n    maxModelLen: 131072\n"
    )
    monkeypatch.chdir(tmp_path)
    args = ["lint", "--no-config", "--helm", helm, "--chart", "chart", "--env", "prod", "-q"]
    result = run_line([*args, "chart/values-prod.yaml"])
    assert [line.split(": about")[0] for line in result.output.splitlines()] == [
        "chart/values-prod.yaml:3:5: warning vllm-kv/one-sequence-may-not-fit max_model_len "
        "131072 needs 7 GiB of KV cache (56 KiB per token), more than the about 5.1 GiB vLLM "
        "can give it (6.1 GiB left after the weights on the NVIDIA L4 at "
        "gpu_memory_utilization 0.90, less about 1 GiB for activations and CUDA graphs)"
    ]
    assert result.output.rstrip().endswith("(rendered templates/deployment.yaml:23:15) [prod]")
