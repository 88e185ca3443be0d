"""``servelint test``: policy tests as data, reported like a test runner."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

AUTHORING = Path(__file__).parent / "fixtures" / "authoring"
POLICIES = AUTHORING / "policies"


@pytest.fixture
def in_authoring(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(AUTHORING)
    return AUTHORING


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_passing_tests(in_authoring: Path, run_line: Callable[..., Result]) -> None:
    result = run_line(["test", "policies"])
    assert (result.exit_code, result.output) == (
        0,
        (
            "PASS policies/tests/images_test.yaml: a pinned image passes\n"
            "PASS policies/tests/images_test.yaml: latest and untagged images fail\n"
            "PASS policies/tests/probes_test.yaml: a server with a startupProbe passes\n"
            "PASS policies/tests/probes_test.yaml: containers without a startupProbe fail\n"
            "4 passed, 0 failed\n"
        ),
    )


def test_default_path_is_the_working_directory(
    in_authoring: Path, run_line: Callable[..., Result]
) -> None:
    result = run_line(["test"])
    assert (result.exit_code, result.output.splitlines()[-1]) == (0, "4 passed, 0 failed")


FAILING = f"""\
apiVersion: servelint/v1
kind: PolicyTest
metadata:
  name: images
spec:
  policies: [{POLICIES / "team-images.yaml"}]
  cases:
    - name: wrong line, and a failure nobody expected
      inputs: [latest.yaml]
      expect:
        - {{rule: team-images/no-latest, result: fail, line: 11}}
    - name: wrong message
      inputs: [latest.yaml]
      expect:
        - rule: team-images/no-latest
          result: fail
          line: 10
          message: uses latest
        - {{rule: team-images/no-latest, result: fail, line: 14}}
    - name: expected to pass
      inputs: [latest.yaml, pinned.yaml]
      expect:
        - {{rule: team-images/no-latest, result: pass, file: pinned.yaml}}
        - {{rule: team-images/no-latest, result: pass}}
    - name: expected to fail
      inputs: [pinned.yaml]
      expect:
        - {{rule: team-images/no-latest, result: fail, line: 10}}
    - name: broken input
      inputs: [broken.yaml]
      expect:
        - {{rule: team-images/no-latest, result: pass}}
"""


def test_failing_expectations_say_what_happened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("latest.yaml", "pinned.yaml"):
        (tmp_path / name).write_text((POLICIES / "tests" / "inputs" / name).read_text())
    (tmp_path / "broken.yaml").write_text("kind: [\n")
    _write(tmp_path / "images_test.yaml", FAILING)
    result = run_line(["test", "images_test.yaml"])
    assert (result.exit_code, result.output) == (
        1,
        (
            "FAIL images_test.yaml: wrong line, and a failure nobody expected\n"
            "     expected team-images/no-latest to fail at latest.yaml:11, but it did not fail "
            "there\n"
            "     unexpected team-images/no-latest failure at latest.yaml:10: container vllm uses the "
            "latest tag\n"
            "     unexpected team-images/no-latest failure at latest.yaml:14: container metrics uses "
            "the latest tag\n"
            "FAIL images_test.yaml: wrong message\n"
            "     expected team-images/no-latest at latest.yaml:10 to say 'uses latest', but it said "
            "'container vllm uses the latest tag'\n"
            "FAIL images_test.yaml: expected to pass\n"
            "     expected team-images/no-latest to pass, but it failed at latest.yaml:10: container "
            "vllm uses the latest tag\n"
            "     expected team-images/no-latest to pass, but it failed at latest.yaml:14: container "
            "metrics uses the latest tag\n"
            "FAIL images_test.yaml: expected to fail\n"
            "     expected team-images/no-latest to fail at pinned.yaml:10, but it passed\n"
            "FAIL images_test.yaml: broken input\n"
            "     input broken.yaml:2:1: invalid YAML: did not find expected node content while "
            "parsing a flow node\n"
            "0 passed, 5 failed\n"
        ),
    )


def test_a_rule_that_cannot_be_evaluated_fails_the_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(
        tmp_path / "p.yaml",
        """\
        apiVersion: servelint/v1
        kind: Policy
        metadata: {name: p}
        spec:
          target: document
          rules:
            - {id: r, severity: error, expression: "doc.spec.replicas >= 2", message: m}
        """,
    )
    _write(tmp_path / "in.yaml", "kind: Deployment\nmetadata: {name: x}\n")
    _write(
        tmp_path / "p_test.yaml",
        """\
        apiVersion: servelint/v1
        kind: PolicyTest
        metadata: {name: p}
        spec:
          policies: [p.yaml]
          cases:
            - name: replicas
              inputs: [in.yaml]
              expect: [{rule: p/r, result: fail, line: 1}]
        """,
    )
    result = run_line(["test", "."])
    assert (result.exit_code, result.output) == (
        1,
        (
            "FAIL p_test.yaml: replicas\n"
            "     rule p/r could not be evaluated at in.yaml:1: no such key 'spec' (guard it with "
            "has())\n"
            "     expected p/r to fail at in.yaml:1, but it passed\n"
            "0 passed, 1 failed\n"
        ),
    )


HEADER = f"""\
apiVersion: servelint/v1
kind: PolicyTest
metadata: {{name: t}}
spec:
  policies: [{POLICIES / "team-images.yaml"}]
"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "  cases:\n    - name: c\n      inputz: [a.yaml]\n      expect: [{rule: x, result: pass}]\n",
            "t_test.yaml:7:7: spec.cases[0]: 'inputs' is a required property\n"
            "INVALID t_test.yaml:8:7: spec.cases[0].inputz: unknown key 'inputz' (known keys: expect, "
            "inputs, name)",
        ),
        (
            "  cases:\n    - name: c\n      inputs: [a.yaml]\n"
            "      expect: [{rule: team-images/no-latest, result: fail}]\n",
            "t_test.yaml:9:16: spec.cases[0].expect[0]: 'line' is a required property",
        ),
        (
            "  cases:\n    - name: c\n      inputs: [a.yaml]\n"
            "      expect: [{rule: team-images/no-latest, result: pass, line: 3}]\n",
            "t_test.yaml:9:16: spec.cases[0].expect[0]: line and message belong to result: fail only",
        ),
        (
            "  cases:\n    - name: c\n      inputs: [a.yaml]\n"
            "      expect: [{rule: team-images/no-latets, result: pass}]\n",
            "t_test.yaml:9:16: rule 'team-images/no-latets' is not defined by the policies of this "
            "test (team-images/no-latest)",
        ),
        (
            "  cases:\n    - name: c\n      inputs: [a.yaml, missing.yaml]\n"
            "      expect: [{rule: team-images/no-latest, result: pass}]\n",
            "t_test.yaml:8:24: input file missing.yaml not found",
        ),
        (
            "  cases:\n    - name: c\n      inputs: [a.yaml, b.yaml]\n"
            "      expect: [{rule: team-images/no-latest, result: fail, line: 1}]\n",
            "t_test.yaml:9:16: the case has several inputs; say which file fails",
        ),
        (
            "  cases:\n    - name: c\n      inputs: [a.yaml]\n"
            "      expect: [{rule: team-images/no-latest, result: pass, file: b.yaml}]\n",
            "t_test.yaml:9:16: file b.yaml is not one of the case's inputs",
        ),
        (
            "  cases: [\n",
            "t_test.yaml:7:1: invalid YAML: did not find expected node content "
            "while parsing a flow node",
        ),
    ],
    ids=[
        "unknown-key",
        "fail-needs-line",
        "pass-has-line",
        "unknown-rule",
        "missing-input",
        "which-file",
        "file-not-an-input",
        "yaml",
    ],
)
def test_an_invalid_test_file_is_exit_3_with_file_and_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    run_line: Callable[..., Result],
    body: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text("a: 1\n")
    (tmp_path / "t_test.yaml").write_text(HEADER + body)
    result = run_line(["test", "t_test.yaml"])
    assert (result.exit_code, result.output) == (
        3,
        f"INVALID {message}\n0 passed, 0 failed, 1 invalid test file\n",
    )


def test_policy_problems_make_the_test_invalid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(
        tmp_path / "bad.yaml",
        """\
        apiVersion: servelint/v1
        kind: Policy
        metadata: {name: bad}
        spec:
          target: document
          rules: [{id: r, severity: fatal, expression: "true", message: m}]
        """,
    )
    (tmp_path / "a.yaml").write_text("a: 1\n")
    body = "  cases: [{name: c, inputs: [a.yaml], expect: [{rule: bad/r, result: pass}]}]\n"
    _write(
        tmp_path / "bad_test.yaml",
        HEADER.replace(str(POLICIES / "team-images.yaml"), "bad.yaml") + body,
    )
    _write(
        tmp_path / "gone_test.yaml",
        HEADER.replace(str(POLICIES / "team-images.yaml"), "gone.yaml") + body,
    )
    result = run_line(["test", "."])
    assert (result.exit_code, result.output) == (
        3,
        (
            "INVALID bad_test.yaml:5:3: bad.yaml:6:19: spec.rules[0].severity: 'fatal' is not one "
            "of ['error', 'warning', 'info']\n"
            "INVALID gone_test.yaml:5:14: policy file or folder gone.yaml not found\n"
            "0 passed, 0 failed, 2 invalid test files\n"
        ),
    )


def test_discovery_skips_other_tools_files_but_not_servelint_mistakes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(
        tmp_path / "chart" / "templates" / "connection_test.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\n",
    )
    _write(tmp_path / ".hidden" / "x_test.yaml", "apiVersion: servelint/v1\n")
    _write(
        tmp_path / "policies" / "typo_test.yml",
        "apiVersion: servelint/v1\nkind: PolicyTset\nmetadata: {name: t}\n"
        "spec: {policies: [x], cases: []}\n",
    )
    result = run_line(["test"])
    assert (result.exit_code, result.output) == (
        3,
        (
            "INVALID policies/typo_test.yml:2:1: kind: 'PolicyTest' was expected\n"
            "INVALID policies/typo_test.yml:4:23: spec.cases: [] should be non-empty\n"
            "0 passed, 0 failed, 1 invalid test file\n"
        ),
    )
    result = run_line(["test", "chart/templates/connection_test.yaml"])
    assert (result.exit_code, result.output.splitlines()[0]) == (
        3,
        "INVALID chart/templates/connection_test.yaml:1:1: (top level): 'spec' is a required "
        "property",
    )


def test_no_tests_is_a_failure_not_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_line(["test"])
    assert (result.exit_code, result.output) == (
        3,
        "servelint: no policy tests (*_test.yaml, kind PolicyTest) in .\n",
    )
    result = run_line(["test", "nowhere"])
    assert (result.exit_code, result.output) == (
        3,
        "servelint: nowhere: no such file or directory\n",
    )


def test_junit_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pinned.yaml").write_text(
        (POLICIES / "tests" / "inputs" / "pinned.yaml").read_text()
    )
    _write(
        tmp_path / "ok_test.yaml",
        HEADER
        + """\
          cases:
            - name: pinned passes
              inputs: [pinned.yaml]
              expect: [{rule: team-images/no-latest, result: pass}]
            - name: pinned <fails>
              inputs: [pinned.yaml]
              expect: [{rule: team-images/no-latest, result: fail, line: 10}]
        """.replace("          ", "  ", 1).replace("\n          ", "\n  "),
    )
    _write(tmp_path / "bad_test.yaml", HEADER + "  cases: []\n")
    result = run_line(["test", "--format", "junit", "-o", "report.xml", "."])
    assert (result.exit_code, result.output) == (3, "")
    assert (tmp_path / "report.xml").read_text() == textwrap.dedent("""\
        <?xml version="1.0" encoding="utf-8"?>
        <testsuites name="servelint test" tests="3" failures="1" errors="1">
          <testsuite name="ok_test.yaml" tests="2" failures="1" errors="0">
            <testcase classname="t" name="pinned passes" />
            <testcase classname="t" name="pinned &lt;fails&gt;">
              <failure message="expected team-images/no-latest to fail at pinned.yaml:10, but it passed">expected team-images/no-latest to fail at pinned.yaml:10, but it passed</failure>
            </testcase>
          </testsuite>
          <testsuite name="bad_test.yaml" tests="1" failures="0" errors="1">
            <testcase classname="bad_test.yaml" name="load test file">
              <error message="bad_test.yaml:6:3: spec.cases: [] should be non-empty">bad_test.yaml:6:3: spec.cases: [] should be non-empty</error>
            </testcase>
          </testsuite>
        </testsuites>
        """)


def test_builtin_loader_ignores_the_tests_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linter import _resources
    from linter.policy import load_policies

    root = tmp_path / "policies"
    (root / "tests" / "inputs").mkdir(parents=True)
    (root / "team-images.yaml").write_text((POLICIES / "team-images.yaml").read_text())
    (root / "tests" / "images_test.yaml").write_text(
        (POLICIES / "tests" / "images_test.yaml").read_text()
    )
    (root / "tests" / "inputs" / "broken.yaml").write_text("kind: [\n")
    monkeypatch.setattr(_resources, "builtin_policies", lambda: root)
    assert [p.name for p in load_policies()] == ["team-images"]


def test_model_settings_of_a_test_reach_workload_policies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    from linter.model.engine.settings import ModelSettings
    from linter.model.frontends import extract
    from linter.model.records.located import Located
    from linter.model.records.records import ServingModel
    from linter.model.records.workload import Workload
    from linter.positions import Origin

    def extractor(files: object, settings: ModelSettings) -> list[Workload]:
        record = ServingModel(
            id=Located("w"),
            kind=Located("Test"),
            name=Located("w"),
            source=Located("manifest"),
            extra={"gpu_memory": Located(settings.gpu_memory_bytes or 0)},
        )
        return [Workload("w", record, Origin("in.yaml", 1, 1))]

    monkeypatch.setattr(extract, "EXTRACTORS", [extractor])
    monkeypatch.chdir(tmp_path)
    _write(
        tmp_path / "gpu.yaml",
        """\
        apiVersion: servelint/v1
        kind: Policy
        metadata: {name: gpu}
        spec:
          target: workload
          rules:
            - {id: big, severity: error, expression: "workload.gpu_memory >= 40000000000",
               message: needs a 40 GB GPU}
        """,
    )
    _write(tmp_path / "in.yaml", "kind: Deployment\n")
    _write(
        tmp_path / "gpu_test.yaml",
        """\
        apiVersion: servelint/v1
        kind: PolicyTest
        metadata: {name: gpu}
        spec:
          policies: [gpu.yaml]
          model: {gpuMemory: 80Gi}
          cases:
            - name: an 80 GiB GPU is big enough
              inputs: [in.yaml]
              expect: [{rule: gpu/big, result: pass}]
        """,
    )
    result = run_line(["test"])
    assert (result.exit_code, result.output) == (
        0,
        ("PASS gpu_test.yaml: an 80 GiB GPU is big enough\n1 passed, 0 failed\n"),
    )
    (tmp_path / "gpu_test.yaml").write_text(
        (tmp_path / "gpu_test.yaml").read_text().replace("80Gi", "24GB")
    )
    result = run_line(["test"])
    assert (result.exit_code, result.output) == (
        1,
        (
            "FAIL gpu_test.yaml: an 80 GiB GPU is big enough\n"
            "     expected gpu/big to pass, but it failed at in.yaml:1: needs a 40 GB GPU\n"
            "0 passed, 1 failed\n"
        ),
    )
