"""SARIF 2.1.0 output: valid against the official OASIS schema, exact fields."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import Result

from linter import __version__
from linter.evaluate.result import RunResult
from linter.findings import Finding, Severity, Suppression
from linter.policy import load_policies
from linter.reporters.sarif import SarifReporter, as_sarif, fingerprint

FIXTURES = Path(__file__).parent / "fixtures"
REPORTERS = FIXTURES / "reporters"
POLICIES = ["--no-config", "--no-builtin", "--policy-dir", "policies"]
SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
CORE_HELP = "https://github.com/servelint/servelint#findings-the-pipeline-itself-reports"

RunLine = Callable[..., Result]


@functools.cache
def _validator() -> jsonschema.Draft4Validator:
    schema = json.loads((FIXTURES / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def schema_errors(log: dict[str, Any]) -> list[str]:
    return sorted(f"{list(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(log))


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


def _location(uri: str, line: int, column: int, path: str = "") -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": line, "startColumn": column},
        }
    }
    if path:
        location["logicalLocations"] = [{"fullyQualifiedName": path, "kind": "member"}]
    return location


@pytest.fixture
def fixture_log(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> dict[str, Any]:
    """``servelint lint`` of the reporter fixtures, run from their folder, as SARIF."""
    monkeypatch.chdir(REPORTERS)
    out = tmp_path / "out.sarif"
    result = run_line(["lint", *POLICIES, "--format", f"sarif:{out}", "inputs"])
    assert (result.exit_code, result.output) == (1, "")
    log: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return log


def test_cli_sarif_is_valid_against_the_official_schema(fixture_log: dict[str, Any]) -> None:
    assert schema_errors(fixture_log) == []
    assert (fixture_log["$schema"], fixture_log["version"], len(fixture_log["runs"])) == (
        SCHEMA_URI,
        "2.1.0",
        1,
    )


def test_the_schema_check_can_fail(fixture_log: dict[str, Any]) -> None:
    broken = copy.deepcopy(fixture_log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    del broken["runs"][0]["tool"]["driver"]["name"]
    assert schema_errors(broken) == [
        "['runs', 0, 'results', 0, 'level']: 'fatal' is not one of "
        "['none', 'note', 'warning', 'error']",
        "['runs', 0, 'tool', 'driver']: 'name' is a required property",
    ]


def test_driver_and_rule_metadata(fixture_log: dict[str, Any]) -> None:
    run = fixture_log["runs"][0]
    assert run["tool"]["driver"] == {
        "name": "servelint",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": "https://github.com/servelint/servelint",
        "rules": [
            {
                "id": "duplicate-key",
                "shortDescription": {"text": "A mapping repeats a key"},
                "fullDescription": {
                    "text": "Helm and Kubernetes keep the last value of a "
                    "repeated key without a warning, so the first "
                    "value is silently ignored."
                },
                "helpUri": CORE_HELP,
                "help": {
                    "text": "Keep one of the two keys.",
                    "markdown": "**Fix:** Keep one of the two keys.",
                },
                "defaultConfiguration": {"level": "error"},
            },
            {
                "id": "syntax",
                "shortDescription": {"text": "Input is not valid YAML or JSON"},
                "fullDescription": {
                    "text": "The file could not be parsed, so no other rule "
                    "could check it. The finding points at the line "
                    "and column where the parser stopped."
                },
                "helpUri": CORE_HELP,
                "help": {
                    "text": "Fix the syntax at the reported position.",
                    "markdown": "**Fix:** Fix the syntax at the reported position.",
                },
                "defaultConfiguration": {"level": "error"},
            },
            {
                "id": "team/has-labels",
                "shortDescription": {"text": "team/has-labels"},
                "defaultConfiguration": {"level": "note"},
            },
            {
                "id": "team/min-replicas",
                "shortDescription": {"text": "Serving Deployments run at least two replicas"},
                "fullDescription": {
                    "text": "One replica means every rollout or node drain is an outage."
                },
                "helpUri": "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/",
                "help": {
                    "text": "spec:\n  replicas: 2\n\nSources: "
                    "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/ "
                    "https://kubernetes.io/docs/concepts/workloads/pods/disruptions/",
                    "markdown": "**Fix:**\n\n```\nspec:\n  replicas: 2\n```\n\n**Sources:**\n\n"
                    "- <https://kubernetes.io/docs/concepts/workloads/controllers/deployment/>\n"
                    "- <https://kubernetes.io/docs/concepts/workloads/pods/disruptions/>",
                },
                "defaultConfiguration": {"level": "error"},
            },
            {
                "id": "team/no-latest-tag",
                "shortDescription": {"text": "Images are pinned"},
                "defaultConfiguration": {"level": "warning"},
            },
        ],
    }
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": REPORTERS.as_uri() + "/"}}
    assert (run["columnKind"], run["invocations"]) == (
        "unicodeCodePoints",
        [
            {
                "executionSuccessful": True,
                "properties": {
                    "coverage": {
                        "version": 1,
                        "summary": {
                            "files": 3,
                            "workloads": 0,
                            "notUnderstood": 0,
                            "gaps": 0,
                            "unchecked": False,
                        },
                        "files": [
                            {"file": f, "workloads": [], "notUnderstood": []}
                            for f in (
                                "inputs/broken.yaml",
                                "inputs/deploy.yaml",
                                "inputs/values.yaml",
                            )
                        ],
                    }
                },
            }
        ],
    )


def test_results_have_rule_level_message_and_region(fixture_log: dict[str, Any]) -> None:
    results = fixture_log["runs"][0]["results"]
    assert [
        (r["ruleId"], r["ruleIndex"], r["level"], r["message"]["text"], r["locations"])
        for r in results
    ] == [
        (
            "syntax",
            1,
            "error",
            "invalid YAML: did not find expected ',' or ']' while parsing "
            "a flow sequence started at line 1, column 9",
            [_location("inputs/broken.yaml", 2, 1)],
        ),
        (
            "team/has-labels",
            2,
            "note",
            "add labels",
            [_location("inputs/deploy.yaml", 5, 3, "metadata.labels")],
        ),
        (
            "team/min-replicas",
            3,
            "error",
            "needs at least two replicas, has 1",
            [_location("inputs/deploy.yaml", 7, 3, "spec.replicas")],
        ),
        (
            "team/no-latest-tag",
            4,
            "warning",
            "container server uses vllm/vllm-openai:latest",
            [_location("inputs/deploy.yaml", 12, 11, "spec.template.spec.containers[0].image")],
        ),
        (
            "team/no-latest-tag",
            4,
            "warning",
            "container sidecar uses busybox:latest",
            [_location("inputs/deploy.yaml", 14, 11, "spec.template.spec.containers[1].image")],
        ),
        (
            "duplicate-key",
            0,
            "error",
            "duplicate key 'maxModelLen' (first at line 2); Helm and "
            "Kubernetes silently keep the last value",
            [_location("inputs/values.yaml", 3, 3, "server.maxModelLen")],
        ),
    ]
    assert [r["partialFingerprints"] for r in results] == [
        {"servelint/v1": _key("syntax", "inputs/broken.yaml", "0", "line 2")},
        {"servelint/v1": _key("team/has-labels", "inputs/deploy.yaml", "0", "metadata.labels")},
        {"servelint/v1": _key("team/min-replicas", "inputs/deploy.yaml", "0", "spec.replicas")},
        {
            "servelint/v1": _key(
                "team/no-latest-tag",
                "inputs/deploy.yaml",
                "0",
                "spec.template.spec.containers[0].image",
            )
        },
        {
            "servelint/v1": _key(
                "team/no-latest-tag",
                "inputs/deploy.yaml",
                "0",
                "spec.template.spec.containers[1].image",
            )
        },
        {"servelint/v1": _key("duplicate-key", "inputs/values.yaml", "0", "server.maxModelLen")},
    ]
    assert not any("suppressions" in r for r in results)


def test_fingerprint_survives_moved_lines_and_how_the_file_was_named() -> None:
    finding = Finding("team/x", Severity.ERROR, "m", "charts/values.yaml", 4, 3, "a.b")
    moved = Finding("team/x", Severity.ERROR, "m", "/abs/charts/values.yaml", 9, 1, "a.b")
    other = Finding("team/x", Severity.ERROR, "m", "charts/values.yaml", 4, 3, "a.c")
    assert fingerprint(finding, "charts/values.yaml") == fingerprint(moved, "charts/values.yaml")
    assert fingerprint(finding, "charts/values.yaml") != fingerprint(other, "charts/values.yaml")


def _result(findings: list[Finding], **extra: Any) -> RunResult:
    policies = tuple(load_policies([str(REPORTERS / "policies")], builtin=False))
    return RunResult(findings, 1, policies=policies, **extra)


def test_suppressed_findings_are_results_with_suppressions(tmp_path: Path) -> None:
    inline = Suppression("profiling INC-2231", "2026-12-31", "inline")
    config = Suppression("accepted for staging", None, "config")
    findings = [
        Finding(
            "team/min-replicas",
            Severity.ERROR,
            "needs two",
            "values.yaml",
            3,
            5,
            "spec.replicas",
            suppression=inline,
        ),
        Finding(
            "team/no-latest-tag",
            Severity.WARNING,
            "latest",
            "values.yaml",
            9,
            7,
            suppression=config,
        ),
        Finding("team/has-labels", Severity.INFO, "add labels", "values.yaml", 12, 1),
    ]
    log = as_sarif(_result(findings), tmp_path)
    assert schema_errors(log) == []
    results = log["runs"][0]["results"]
    assert [r.get("suppressions") for r in results] == [
        [
            {
                "kind": "inSource",
                "status": "accepted",
                "justification": "profiling INC-2231",
                "properties": {"source": "inline", "until": "2026-12-31"},
            }
        ],
        [
            {
                "kind": "external",
                "status": "accepted",
                "justification": "accepted for staging",
                "properties": {"source": "config"},
            }
        ],
        None,
    ]
    assert [r["level"] for r in results] == ["error", "warning", "note"]


def test_paths_outside_the_working_directory_and_stdin(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    findings = [
        Finding("syntax", Severity.ERROR, "bad", str(tmp_path / "elsewhere" / "a b.yaml"), 1, 1),
        Finding("syntax", Severity.ERROR, "bad", str(root / "charts" / "v.yaml"), 2, 1),
        Finding("syntax", Severity.ERROR, "bad", "<stdin>", 3, 1),
        Finding("syntax", Severity.ERROR, "bad", "../repo/x.yaml", 4, 1),
    ]
    log = as_sarif(_result(findings), root)
    assert schema_errors(log) == []
    assert [
        r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]
    ] == [
        {"uri": (tmp_path / "elsewhere" / "a b.yaml").as_uri()},
        {"uri": "charts/v.yaml", "uriBaseId": "%SRCROOT%"},
        {"uri": "%3Cstdin%3E", "uriBaseId": "%SRCROOT%"},
        {"uri": "x.yaml", "uriBaseId": "%SRCROOT%"},
    ]


def test_unknown_rule_ids_notes_and_read_failures(tmp_path: Path) -> None:
    findings = [
        Finding(
            "drift/changed",
            Severity.WARNING,
            "differs",
            "v.yaml",
            1,
            1,
            extra={"desired": 256, "live": 128, "environments": ["prod"]},
        ),
        Finding("read-error", Severity.ERROR, "not UTF-8", "bin.yaml", 1, 1),
    ]
    log = as_sarif(_result(findings, read_failures=1, notes=["helm not found"]), tmp_path)
    assert schema_errors(log) == []
    run = log["runs"][0]
    assert [
        (r["id"], r["shortDescription"], r["defaultConfiguration"])
        for r in run["tool"]["driver"]["rules"]
    ] == [
        ("drift/changed", {"text": "drift/changed"}, {"level": "warning"}),
        ("read-error", {"text": "Input could not be read"}, {"level": "error"}),
    ]
    assert run["invocations"] == [
        {
            "executionSuccessful": False,
            "toolExecutionNotifications": [
                {"level": "note", "message": {"text": "helm not found"}}
            ],
            "properties": {
                "coverage": {
                    "version": 1,
                    "summary": {
                        "files": 0,
                        "workloads": 0,
                        "notUnderstood": 0,
                        "gaps": 0,
                        "unchecked": False,
                    },
                    "files": [],
                }
            },
        }
    ]
    assert [r.get("properties") for r in run["results"]] == [
        {"desired": 256, "live": 128, "environments": ["prod"]},
        None,
    ]


def test_clean_run_is_an_empty_valid_log(tmp_path: Path) -> None:
    log = as_sarif(RunResult([], 2), tmp_path)
    assert schema_errors(log) == []
    assert (log["runs"][0]["tool"]["driver"]["rules"], log["runs"][0]["results"]) == ([], [])


def test_reporter_writes_json_with_a_final_newline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    stream = tmp_path / "out.sarif"
    with stream.open("w", encoding="utf-8") as handle:
        SarifReporter().report(RunResult([], 0), handle)
    text = stream.read_text("utf-8")
    assert (text.endswith("}\n"), json.loads(text)["runs"][0]["results"]) == (True, [])


def test_findings_without_a_policy_have_built_in_metadata(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(REPORTERS)
    out = tmp_path / "out.sarif"
    result = run_line(["lint", *POLICIES, "--format", f"sarif:{out}", "suppressed/unused.yaml"])
    log = json.loads(out.read_text("utf-8"))
    assert (result.exit_code, schema_errors(log)) == (0, [])
    assert log["runs"][0]["tool"]["driver"]["rules"] == [
        {
            "id": "suppression/unused",
            "shortDescription": {"text": "A suppression matches no finding"},
            "fullDescription": {
                "text": "A stale suppression would silently hide a future finding of the same rule."
            },
            "helpUri": "https://github.com/servelint/servelint#suppressions",
            "help": {
                "text": "Remove the suppression.",
                "markdown": "**Fix:** Remove the suppression.",
            },
            "defaultConfiguration": {"level": "warning"},
        }
    ]


def test_every_built_in_rule_is_fully_described() -> None:
    from linter.reporters.meta import CORE_RULES

    incomplete = [
        rule_id
        for rule_id, meta in CORE_RULES.items()
        if meta.id != rule_id
        or not (meta.title and meta.description and meta.fix)
        or not (meta.help_uri or "").startswith("https://")
    ]
    assert (incomplete, sorted(CORE_RULES)) == (
        [],
        [
            "duplicate-key",
            "helm-template",
            "helm-values",
            "helm-values/unread-key",
            "input-limit",
            "number-range",
            "read-error",
            "secrets/literal-secret",
            "secrets/weak-secret",
            "suppression/expired",
            "suppression/invalid",
            "suppression/missing-reason",
            "suppression/unused",
            "syntax",
        ],
    )
