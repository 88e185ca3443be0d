"""One lint run: every provider's subjects go to the policy engine in one call, and
suppressions and the baseline are applied once, to everything (run/pipeline.py)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from linter.evaluate.providers import file_providers
from linter.evaluate.subjects import Batch, Contribution, evaluate
from linter.findings import Finding
from linter.parsing.documents import parse_yaml
from linter.policy import engine, load_policies
from linter.policy.model import Policy

Run = Callable[..., Result]
FIXTURES = Path(__file__).parent / "fixtures"
POLICY_DIR = FIXTURES / "helm" / "policies"
POLICIES = ["--no-config", "--no-builtin", "--policy-dir", str(POLICY_DIR)]
SUPPRESSION = '# servelint: ignore[workload-context/max-context] reason="long contracts, on H100"'


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The label of every subject of each call of the engine."""
    seen: list[list[str]] = []
    real = engine.evaluate_each

    def counting(policies: Sequence[Policy], subjects: Iterable[Any], **kw: Any) -> Any:
        subjects = list(subjects)
        seen.append([s.label for s in subjects])
        return real(policies, subjects, **kw)

    monkeypatch.setattr(engine, "evaluate_each", counting)
    return seen


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A chart whose values-prod.yaml suppresses its long context inline, and a plain
    manifest with the same problem; the working directory is their folder."""
    shutil.copytree(FIXTURES / "helm" / "chart" / "vllm", tmp_path / "chart")
    (tmp_path / "manifests").mkdir()
    shutil.copy(FIXTURES / "vllm" / "manifests" / "long-context.yaml", tmp_path / "manifests")
    prod = tmp_path / "chart" / "values-prod.yaml"
    text = prod.read_text(encoding="utf-8")
    prod.write_text(
        text.replace("  maxModelLen: 32768\n", f"  maxModelLen: 65536  {SUPPRESSION}\n"),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


INPUTS = ["chart/values.yaml", "chart/values-prod.yaml", "manifests"]
PROD = (
    "chart/values-prod.yaml:8:3: error workload-context/max-context max_model_len 65536 "
    "is above 32768 [prod]"
)
REPLICAS = (
    "manifests/long-context.yaml:7:3: warning rendered-replicas/min-replicas replicas is 1; "
    "one pod means downtime on every rollout"
)
CONTEXT = (
    "manifests/long-context.yaml:19:15: error workload-context/max-context max_model_len "
    "131072 is above 32768"
)


@pytest.mark.usefixtures("repo")
def test_chart_context_and_plain_manifests_go_to_the_engine_in_one_call(
    run_line: Run, calls: list[list[str]]
) -> None:
    result = run_line(["lint", *POLICIES, *INPUTS])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "note: environment default (chart/values.yaml): 0 errors, 0 warnings, 0 info",
        "note: environment prod (chart/values.yaml + chart/values-prod.yaml): 0 errors, "
        "0 warnings, 0 info, 1 suppressed",
        f"{PROD} [suppressed (inline): long contracts, on H100]",
        REPLICAS,
        CONTEXT,
        "coverage: 3 files, 3 workloads recognised (vllm 3)",
        "1 error, 1 warning, 0 info, 1 suppressed in 3 files",
    ]
    # One call: the documents of every input as written, the manifest's workload, and
    # the workloads of both environments of the chart's context.
    assert calls == [
        [
            "chart/values.yaml",
            "chart/values-prod.yaml",
            "manifests/long-context.yaml",
            "Deployment/default/long-context",
            "helm:chart@default",
            "helm:chart@prod",
        ]
    ]


@pytest.mark.usefixtures("repo")
def test_a_baseline_entry_is_matched_once(
    run_line: Run, calls: list[list[str]], tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    written = run_line(["lint", *POLICIES, *INPUTS, "--write-baseline", str(baseline)])
    assert written.exit_code == 0
    entries = json.loads(baseline.read_text(encoding="utf-8"))["findings"]
    # The suppressed finding is not recorded; the two active ones are, once each.
    assert [(e["file"], e["rule"], e["path"]) for e in entries] == [
        ("manifests/long-context.yaml", "rendered-replicas/min-replicas", "spec.replicas"),
        (
            "manifests/long-context.yaml",
            "workload-context/max-context",
            "spec.template.spec.containers[0].args[3]",
        ),
    ]
    # A second copy of one entry: the one finding takes one entry, the other is stale.
    doubled = {"version": 2, "findings": [*entries, entries[1]]}
    baseline.write_text(json.dumps(doubled), encoding="utf-8")
    calls.clear()
    result = run_line(["lint", *POLICIES, *INPUTS, "--baseline", str(baseline)])
    known = f"[suppressed (baseline): known finding, recorded in baseline {baseline}]"
    assert result.output.splitlines() == [
        f"note: baseline {baseline}: stale entry manifests/long-context.yaml: "
        "workload-context/max-context at spec.template.spec.containers[0].args[3] is no "
        f"longer found; refresh it with --write-baseline {baseline}",
        "note: environment default (chart/values.yaml): 0 errors, 0 warnings, 0 info",
        "note: environment prod (chart/values.yaml + chart/values-prod.yaml): 0 errors, "
        "0 warnings, 0 info, 1 suppressed",
        f"{PROD} [suppressed (inline): long contracts, on H100]",
        f"{REPLICAS} {known}",
        f"{CONTEXT} {known}",
        "coverage: 3 files, 3 workloads recognised (vllm 3)",
        "0 errors, 0 warnings, 0 info, 3 suppressed in 3 files",
    ]
    assert result.exit_code == 0
    assert len(calls) == 1


def test_a_suppression_used_by_a_rendered_finding_is_not_reported_unused(
    run_line: Run,
    helm: str,
    calls: list[list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chart's values.yaml is an input (chart context) and the chart is linted with
    ``--chart``: its suppression is used by the rendered Deployment's finding, placed on
    the values line; judged once, over both readings, it is used."""
    chart = tmp_path / "chart"
    shutil.copytree(FIXTURES / "helm" / "chart" / "vllm", chart)
    values = chart / "values.yaml"
    text = values.read_text(encoding="utf-8")
    values.write_text(
        text.replace(
            "replicaCount: 1\n",
            'replicaCount: 1  # servelint: ignore[rendered-replicas/min-replicas] reason="lab"\n',
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = run_line(
        [
            "lint",
            *POLICIES,
            "--fail-level",
            "warning",
            "--chart",
            "chart",
            "--helm",
            helm,
            "chart/values.yaml",
        ]
    )
    assert result.output.splitlines() == [
        "chart/values.yaml:4:1: warning rendered-replicas/min-replicas replicas is 1; one pod "
        "means downtime on every rollout (rendered templates/deployment.yaml:13:3) "
        "[suppressed (inline): lab]",
        "coverage: 3 files, 2 workloads recognised (vllm 2)",
        # values.yaml (an input and the chart's: one file) and two rendered templates.
        "0 errors, 0 warnings, 0 info, 1 suppressed in 3 files",
    ]
    assert result.exit_code == 0
    # The values file as written (twice: as an input and as the chart's), the release's
    # workload and its rendered manifests: one call. The chart context does not read the
    # release again: --chart lints it (helm/context.py ChartContext.without).
    assert calls == [
        [
            "chart/values.yaml",
            "chart/values.yaml",
            "helm:chart",
            "chart/templates/service.yaml (rendered)",
            "chart/templates/deployment.yaml (rendered)",
            "Deployment/default/vllm-vllm",
        ]
    ]


def test_write_baseline_with_chart_records_the_plain_inputs_too(
    run_line: Run, helm: str, repo: Path
) -> None:
    baseline = repo / "baseline.json"
    args = [*POLICIES, "--chart", "chart", "--helm", helm, "manifests"]
    written = run_line(["lint", *args, "--write-baseline", str(baseline)])
    assert written.output.splitlines()[0] == f"note: baseline {baseline}: recorded 3 findings"
    entries = json.loads(baseline.read_text(encoding="utf-8"))["findings"]
    assert [(e["file"], e["rule"]) for e in entries] == [
        ("chart/values.yaml", "rendered-replicas/min-replicas"),
        ("manifests/long-context.yaml", "rendered-replicas/min-replicas"),
        ("manifests/long-context.yaml", "workload-context/max-context"),
    ]
    again = run_line(["lint", *args, "--baseline", str(baseline)])
    assert again.exit_code == 0
    assert again.output.splitlines()[-1] == "0 errors, 0 warnings, 0 info, 3 suppressed in 4 files"


def test_lint_chart_and_show_chart_build_the_same_release(
    run_line: Run, monkeypatch: pytest.MonkeyPatch, calls: list[list[str]]
) -> None:
    """``show --chart`` shows the workload ``lint --chart`` evaluates: both go through
    ``helm/release.py`` ``ChartReleases``."""
    from linter.helm import release

    built: list[release.ChartReleases] = []

    class Recording(release.ChartReleases):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(release, "ChartReleases", Recording)
    chart = str(FIXTURES / "helm" / "chart" / "vllm")
    options = ["-f", f"{chart}/values-prod.yaml", "--set", "vllm.maxModelLen=65536"]
    linted = run_line(["lint", *POLICIES, "--chart", chart, "--no-render", *options])
    assert linted.output.splitlines() == [
        "note: rendering skipped (--no-render): templates were not checked",
        "<--set>:1:1: error workload-context/max-context max_model_len 65536 is above 32768",
        "coverage: 2 files, 1 workload recognised (vllm 1)",
        "1 error, 0 warnings, 0 info in 2 files",
    ]
    assert linted.exit_code == 1
    shown = run_line(
        ["show", "--no-config", "--format", "json", "--chart", chart, "--no-render", *options]
    )
    assert shown.exit_code == 0
    [lint_run, show_run] = built
    assert lint_run.request.chart == show_run.request.chart
    assert lint_run.request.environments == show_run.request.environments
    [evaluated] = lint_run.workloads()
    [displayed] = show_run.workloads()
    assert evaluated.name == displayed.name == f"helm:{chart}"
    assert evaluated.record == displayed.record
    assert evaluated.view() == displayed.view()
    [workload] = json.loads(shown.output)["workloads"]
    [setting] = [s for s in workload["settings"] if s["setting"] == "engine.max_model_len"]
    assert setting == {
        "setting": "engine.max_model_len",
        "value": 65536,
        "at": "<--set>:1:1",
        "writtenAs": "vllm.maxModelLen",
    }
    # show asks the engine nothing; lint asked it once.
    assert len(calls) == 1


class _Files:
    """A provider of two files' documents, one batch each."""

    def __init__(self, *texts: tuple[str, str]) -> None:
        self.parsed = [parse_yaml(name, text) for name, text in texts]
        self.found: list[list[Finding]] = []

    def batches(self) -> list[Batch]:
        return [Batch(documents=tuple(p.documents)) for p in self.parsed]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        self.found = list(found)
        return Contribution(tuple(f for batch in found for f in batch))

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        return []


DEPLOYMENT = "kind: Deployment\nspec:\n  replicas: {n}\n"


@pytest.mark.parametrize("builtin", [True, False], ids=["in-process", "sandboxed"])
def test_each_finding_goes_back_to_the_batch_of_its_subject(
    builtin: bool, calls: list[list[str]]
) -> None:
    """Repository policies are evaluated in a forked sandbox (policy/sandbox.py); the
    findings still find their batch."""
    import dataclasses

    policies = load_policies([str(POLICY_DIR)], builtin=False)
    policies = [dataclasses.replace(p, builtin=builtin) for p in policies]
    first = _Files(("a.yaml", DEPLOYMENT.format(n=1)), ("b.yaml", DEPLOYMENT.format(n=3)))
    second = _Files(("c.yaml", DEPLOYMENT.format(n=0)))
    [one, two] = evaluate(policies, [first, second])
    assert len(calls) == 1
    assert [[(f.file, f.line, f.message) for f in batch] for batch in first.found] == [
        [("a.yaml", 3, "replicas is 1; one pod means downtime on every rollout")],
        [],
    ]
    assert [[(f.file, f.line, f.message) for f in batch] for batch in second.found] == [
        [("c.yaml", 3, "replicas is 0; one pod means downtime on every rollout")],
    ]
    assert [f.file for f in (*one.findings, *two.findings)] == ["a.yaml", "c.yaml"]


def test_files_read_as_they_are_are_one_documents_and_one_workloads_batch() -> None:
    parsed = [parse_yaml("d.yaml", DEPLOYMENT.format(n=1))]
    documents, workloads = file_providers(load_policies(), parsed)
    assert [len(b.documents) for b in documents.batches()] == [1]
    assert [len(b.workloads) for b in workloads.batches()] == [0]


ECHO_POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {name: echo, description: Quotes the api key it finds.}
spec:
  target: document
  matchConditions:
    - name: has-key
      expression: "has(doc.apiKey)"
  rules:
    - id: key
      severity: warning
      expression: "false"
      messageExpression: "'apiKey is ' + doc.apiKey"
      fieldPath: apiKey
      references: ["https://kubernetes.io/docs/concepts/configuration/secret/"]
"""


def test_a_secret_of_the_charts_values_is_masked_in_lint_chart(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run scrubs every secret value any provider read, the chart's values included."""
    shutil.copytree(FIXTURES / "helm" / "chart" / "vllm", tmp_path / "chart")
    with (tmp_path / "chart" / "values.yaml").open("a", encoding="utf-8") as values:
        values.write("apiKey: plainvaluenotoken42\n")
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "echo.yaml").write_text(ECHO_POLICY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ["--no-config", "--no-builtin", "--policy-dir", "policies", "--no-render"]
    result = run_line(["lint", *args, "--chart", "chart"])
    assert result.output.splitlines() == [
        "note: rendering skipped (--no-render): templates were not checked",
        "chart/values.yaml:66:1: warning echo/key apiKey is ****",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
    assert result.exit_code == 0


def test_show_a_values_file_shows_the_workload_lint_evaluates(
    run_line: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A values file in its chart: ``show`` and ``lint`` build its release with the chart
    context's provider (``helm/context.py``), so they see the same workload."""
    from linter.helm import release

    built: list[release.ReleaseSubjects] = []
    real_init = release.ReleaseSubjects.__init__

    def recording(self: release.ReleaseSubjects, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(release.ReleaseSubjects, "__init__", recording)
    values = str(FIXTURES / "helm" / "chart" / "vllm" / "values-prod.yaml")
    assert run_line(["lint", "--no-config", values]).exit_code == 0
    shown = run_line(["show", "--no-config", "--format", "json", values])
    [lint_release, show_release] = built
    [evaluated] = lint_release.workloads
    [displayed] = show_release.workloads
    assert evaluated.record == displayed.record
    assert evaluated.view() == displayed.view()
    [workload] = json.loads(shown.output)["workloads"]
    assert (workload["name"], workload["environment"]) == (evaluated.name, "prod")
