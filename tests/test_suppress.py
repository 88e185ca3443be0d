"""Suppressions: inline comments, annotations, configuration; none fails silently."""

from __future__ import annotations

import datetime
import json
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.findings import Finding, Severity
from linter.model.records.workload import Workload
from linter.parsing.documents import parse_json, parse_yaml
from linter.positions import Origin
from linter.run.suppress import annotated, inline

POLICIES = Path(__file__).parent / "fixtures" / "authoring" / "policies"
TODAY = "2026-06-01"


def _scan(text: str) -> tuple[list[tuple[str, str, str | None, int, int]], list[str]]:
    directives, problems = inline.scan(parse_yaml("f.yaml", textwrap.dedent(text)))
    covered = [
        (
            d.rule,
            d.reason,
            d.until.isoformat() if d.until else None,
            d.line,
            next(
                (
                    n
                    for n in range(1, 30)
                    if d.covers(Finding("x", Severity.INFO, "", "f.yaml", n, 1))
                ),
                0,
            ),
        )
        for d in directives
    ]
    return covered, [f"{p.line}:{p.column}: {p.rule_id} {p.message}" for p in problems]


def test_a_trailing_comment_covers_its_own_line() -> None:
    assert _scan("""\
        a: 1
        b: 2  # servelint: ignore[p/r] reason="known" until=2026-12-31
        """) == ([("p/r", "known", "2026-12-31", 2, 2)], [])


def test_a_comment_alone_covers_the_next_line_with_content() -> None:
    assert _scan("""\
        # servelint: ignore[p/a, p/b] reason='two rules'
        # servelint: ignore[p/c] reason=bare-word

        # another comment
        key: value
        """) == (
        [
            ("p/a", "two rules", None, 1, 5),
            ("p/b", "two rules", None, 1, 5),
            ("p/c", "bare-word", None, 2, 5),
        ],
        [],
    )


def test_a_comment_at_the_end_covers_nothing() -> None:
    assert _scan("a: 1\n# servelint: ignore[p/r] reason=x\n") == ([("p/r", "x", None, 2, 0)], [])


def test_no_reason_is_kept_as_an_empty_reason() -> None:
    assert _scan("a: 1 # servelint: ignore[p/r]\n") == ([("p/r", "", None, 1, 1)], [])


@pytest.mark.parametrize(
    ("comment", "problem"),
    [
        (
            "# servelint: ignroe[p/r] reason=x",
            "expected 'ignore[rule-id] reason=\"...\"', found 'ignroe[p/r] reason=x'",
        ),
        (
            "# servelint: ignore reason=x",
            "name the rules: ignore[rule-id] or ignore[rule-a, rule-b]",
        ),
        ("# servelint: ignore[ , ] reason=x", "ignore[] names no rule"),
        ("# servelint: ignore[p/r] owner=me", "unknown option 'owner' (known: reason, until)"),
        (
            "# servelint: ignore[p/r] reason=x until=31.12.2026",
            "until=31.12.2026 is not a date (YYYY-MM-DD)",
        ),
        (
            "# servelint: ignore[p/r] reason=x until=2026-02-30",
            "until=2026-02-30 is not a date (YYYY-MM-DD)",
        ),
        (
            '# servelint: ignore[p/r] reason="x" because',
            "cannot read 'because'; write reason=\"...\" until=YYYY-MM-DD",
        ),
    ],
    ids=["verb", "no-ids", "empty-ids", "option", "date-format", "no-such-day", "junk"],
)
def test_a_comment_that_cannot_be_read_is_reported(comment: str, problem: str) -> None:
    assert _scan(f"a: 1\n  {comment}\n") == (
        [],
        [f"2:3: suppression/invalid cannot read suppression comment: {problem}"],
    )


def test_only_real_comments_count_and_json_is_not_scanned() -> None:
    assert _scan("url: http://x/#servelint: ignore[p/r]\n") == ([], [])
    assert inline.scan(parse_json("f.json", '{"a": "# servelint: ignore[p/r]"}')) == ([], [])


def test_annotation_entries() -> None:
    parsed = parse_yaml(
        "m.yaml",
        textwrap.dedent("""\
        apiVersion: v1
        kind: ConfigMap
        metadata:
          annotations:
            servelint.io/ignore: |
              p/a=pinned by digest until=2026-12-31
              p/b=two; p/c
        ---
        metadata:
          annotations: {servelint.io/ignore: 5}
        ---
        metadata:
          annotations: {servelint.io/ignore: "p/d=x until=tomorrow"}
        """),
    )
    directives, problems = annotated.scan(parsed)
    assert [(d.rule, d.reason, d.until, d.line) for d in directives] == [
        ("p/a", "pinned by digest", datetime.date(2026, 12, 31), 5),
        ("p/b", "two", None, 5),
        ("p/c", "", None, 5),
    ]
    assert [f"{p.line}: {p.message}" for p in problems] == [
        "10: servelint.io/ignore must be a string of 'rule-id=reason' entries",
        "13: servelint.io/ignore: until=tomorrow is not a date (YYYY-MM-DD)",
    ]
    covers = directives[0].covers
    assert [covers(Finding("p/a", Severity.INFO, "", "m.yaml", 1, 1, "", i)) for i in (0, 1)] == [
        True,
        False,
    ]


# --- through the command line ---------------------------------------------------------

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest{comment}
"""


def _lint(run_line: Callable[..., Result], tmp_path: Path, text: str, *args: str) -> Result:
    (tmp_path / "app.yaml").write_text(text)
    return run_line(
        [
            "lint",
            "--no-config",
            "--no-builtin",
            "--policy-dir",
            str(POLICIES / "team-images.yaml"),
            "--today",
            TODAY,
            *args,
            str(tmp_path / "app.yaml"),
        ]
    )


def test_suppressed_finding_is_shown_with_its_reason_and_does_not_fail(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    text = DEPLOYMENT.format(
        comment='  # servelint: ignore[team-images/no-latest] reason="mirror" until=2026-06-01'
    )
    result = _lint(run_line, tmp_path, text)
    assert (result.exit_code, result.output) == (
        0,
        (
            f"{tmp_path}/app.yaml:10:11: error team-images/no-latest container vllm uses the latest "
            "tag [suppressed (inline): mirror, until 2026-06-01]\n"
            "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file\n"
        ),
    )


def test_json_carries_the_suppression(run_line: Callable[..., Result], tmp_path: Path) -> None:
    text = DEPLOYMENT.format(comment="  # servelint: ignore[team-images/no-latest] reason=mirror")
    result = _lint(run_line, tmp_path, text, "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.output)["findings"] == [
        {
            "rule": "team-images/no-latest",
            "severity": "error",
            "message": "container vllm uses the latest tag",
            "file": f"{tmp_path}/app.yaml",
            "line": 10,
            "column": 11,
            "path": "spec.template.spec.containers[0].image",
            "suppressed": True,
            "suppression": {"reason": "mirror", "until": None, "source": "inline"},
        }
    ]


def test_past_its_date_it_stops_suppressing_and_says_so(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    text = DEPLOYMENT.format(
        comment='  # servelint: ignore[team-images/no-latest] reason="mirror" until=2026-05-31'
    )
    result = _lint(run_line, tmp_path, text)
    assert (result.exit_code, result.output) == (
        1,
        (
            f"{tmp_path}/app.yaml:10:11: error team-images/no-latest container vllm uses the latest "
            "tag\n"
            f"{tmp_path}/app.yaml:10:43: warning suppression/expired suppression of "
            "'team-images/no-latest' expired on 2026-05-31 (mirror); its findings count again\n"
            "1 error, 1 warning, 0 info in 1 file\n"
        ),
    )


def test_without_a_reason_it_does_not_apply(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    text = DEPLOYMENT.format(comment="  # servelint: ignore[team-images/no-latest]")
    result = _lint(run_line, tmp_path, text)
    assert (result.exit_code, result.output.splitlines()[1]) == (
        1,
        (
            f"{tmp_path}/app.yaml:10:43: warning suppression/missing-reason suppression of "
            "'team-images/no-latest' has no reason, so it is not applied; say why the finding is "
            "acceptable"
        ),
    )


def test_one_that_suppresses_nothing_is_reported(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    text = DEPLOYMENT.replace(":latest", ":v1").format(
        comment="  # servelint: ignore[team-images/no-latest, team-images/typo] reason=x"
    )
    result = _lint(run_line, tmp_path, text)
    assert (result.exit_code, result.output) == (
        0,
        (
            f"{tmp_path}/app.yaml:10:39: warning suppression/unused suppression of "
            "'team-images/no-latest' matches no finding; remove it\n"
            f"{tmp_path}/app.yaml:10:39: warning suppression/unused suppression of "
            "'team-images/typo' names no rule that ran; check the rule id (servelint rules)\n"
            "0 errors, 2 warnings, 0 info in 1 file\n"
        ),
    )


def test_reports_about_suppressions_obey_severity_and_disable(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    config = tmp_path / "strict.yaml"
    config.write_text("severity: {suppression/*: error}\n")
    text = DEPLOYMENT.replace(":latest", ":v1").format(
        comment="  # servelint: ignore[team-images/no-latest] reason=x"
    )
    (tmp_path / "app.yaml").write_text(text)
    args = [
        "lint",
        "--no-builtin",
        "--policy-dir",
        str(POLICIES / "team-images.yaml"),
        str(tmp_path / "app.yaml"),
    ]
    assert run_line([*args, "--config", str(config)]).exit_code == 1
    config.write_text("disable: [suppression/unused]\n")
    result = run_line([*args, "--config", str(config)])
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 info in 1 file\n")


ANNOTATED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
  annotations:
    servelint.io/ignore: "team-images/no-latest=image mirrored and pinned by digest"
spec:
  template:
    spec:
      containers:
        - {name: vllm, image: "vllm/vllm-openai:latest"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: other
spec:
  template:
    spec:
      containers:
        - {name: vllm, image: "vllm/vllm-openai:latest"}
"""


def test_annotation_covers_its_own_object_only(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    result = _lint(run_line, tmp_path, ANNOTATED)
    assert (result.exit_code, result.output) == (
        1,
        (
            f"{tmp_path}/app.yaml:11:24: error team-images/no-latest container vllm uses the latest "
            "tag [suppressed (annotation): image mirrored and pinned by digest]\n"
            f"{tmp_path}/app.yaml:21:24: error team-images/no-latest container vllm uses the latest "
            "tag\n"
            "1 error, 0 warnings, 0 info, 1 suppressed in 1 file\n"
        ),
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy" / "staging").mkdir(parents=True)
    (tmp_path / "deploy" / "prod").mkdir(parents=True)
    for env in ("staging", "prod"):
        (tmp_path / "deploy" / env / "app.yaml").write_text(DEPLOYMENT.format(comment=""))
    # The configuration reads policies inside the repository only (issue 31).
    shutil.copytree(POLICIES, tmp_path / "team-policies")
    return tmp_path


def _config(repo: Path, until: str, paths: str = "[deploy/staging/**]") -> None:
    (repo / ".servelint.yaml").write_text(
        textwrap.dedent(f"""\
        builtin: false
        policyDirs: [team-policies/team-images.yaml]
        suppressions:
          - rules: [team-images/no-latest]
            paths: {paths}
            reason: staging follows upstream nightly builds
            until: {until}
        """)
    )


def test_config_suppression_by_path_glob(repo: Path, run_line: Callable[..., Result]) -> None:
    _config(repo, "2026-06-30")
    result = run_line(["lint", "--today", TODAY, "deploy"])
    assert (result.exit_code, result.output) == (
        1,
        (
            "deploy/prod/app.yaml:10:11: error team-images/no-latest container vllm uses the latest "
            "tag\n"
            "deploy/staging/app.yaml:10:11: error team-images/no-latest container vllm uses the "
            "latest tag [suppressed (config): staging follows upstream nightly builds, until "
            "2026-06-30]\n"
            "1 error, 0 warnings, 0 info, 1 suppressed in 2 files\n"
        ),
    )


def test_config_suppression_expired_or_unused(repo: Path, run_line: Callable[..., Result]) -> None:
    _config(repo, "2026-05-01")
    result = run_line(["lint", "--today", TODAY, "deploy/staging"])
    assert (result.exit_code, result.output.splitlines()[:2]) == (
        1,
        [
            ".servelint.yaml:4:5: warning suppression/expired suppression of "
            "'team-images/no-latest' expired on 2026-05-01 (staging follows upstream nightly "
            "builds); its findings count again",
            "deploy/staging/app.yaml:10:11: error team-images/no-latest container vllm uses the "
            "latest tag",
        ],
    )
    _config(repo, "2026-06-30", paths="[deploy/dev/**, deploy/staging/**]")
    (repo / "deploy" / "staging" / "app.yaml").write_text(
        DEPLOYMENT.replace(":latest", ":v1").format(comment="")
    )
    result = run_line(["lint", "--today", TODAY, "deploy/staging"])
    assert (result.exit_code, result.output.splitlines()[0]) == (
        0,
        (
            ".servelint.yaml:4:5: warning suppression/unused suppression of "
            "'team-images/no-latest' matches no finding; remove it"
        ),
    )


def test_config_suppression_for_files_outside_the_run_is_not_unused(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    _config(repo, "2026-06-30")
    result = run_line(["lint", "--today", TODAY, "deploy/prod"])
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        1,
        "1 error, 0 warnings, 0 info in 1 file",
    )


WORKLOAD_POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {name: eager}
spec:
  target: workload
  rules:
    - id: enforce-eager
      severity: error
      expression: "!workload.eager"
      message: "--enforce-eager disables CUDA graphs"
      fieldPath: eager
"""
VALUES = """\
vllm:
  # servelint: ignore[eager/enforce-eager] reason="profiling INC-2231"
  enforceEager: true
"""
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
  annotations: {servelint.io/ignore: "eager/enforce-eager=not here"}
"""


def test_model_findings_are_suppressed_where_they_point(
    tmp_path: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workload lives in the manifest, but the setting (and the finding) in the values."""
    from linter.model.frontends import extract
    from linter.model.records.located import Located
    from linter.model.records.records import ServingModel

    values, manifest = tmp_path / "values.yaml", tmp_path / "deploy.yaml"

    def extractor(files: object, settings: object) -> list[Workload]:
        record = ServingModel(
            id=Located("llama"),
            kind=Located("Deployment"),
            name=Located("llama"),
            source=Located("manifest"),
            extra={"eager": Located(True, Origin(str(values), 3, 3, 0, "vllm.enforceEager"))},
        )
        return [Workload("llama", record, Origin(str(manifest), 4, 3))]

    monkeypatch.setattr(extract, "EXTRACTORS", [extractor])
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "eager.yaml").write_text(WORKLOAD_POLICY)
    values.write_text(VALUES)
    manifest.write_text(MANIFEST)
    result = run_line(
        [
            "lint",
            "--no-config",
            "--no-builtin",
            "--policy-dir",
            str(tmp_path / "policies"),
            str(manifest),
            str(values),
        ]
    )
    assert (result.exit_code, result.output) == (
        0,
        (
            f"{manifest}:5:17: warning suppression/unused suppression of 'eager/enforce-eager' "
            "matches no finding; remove it\n"
            f"{values}:3:3: error eager/enforce-eager --enforce-eager disables CUDA graphs "
            "[suppressed (inline): profiling INC-2231]\n"
            "coverage: 2 files, 1 workload recognised (pod with no known server 1)\n"
            "0 errors, 1 warning, 0 info, 1 suppressed in 2 files\n"
        ),
    )
