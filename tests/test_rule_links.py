"""Rule sources are links: pinned upstream files with their lines, or documentation pages;
SARIF carries them (helpUri, help.markdown) valid under format checking; explain prints them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
from click.testing import Result

from linter.evaluate.result import RunResult
from linter.findings import Finding, Severity
from linter.policy import load_policies
from linter.reporters.sarif import as_sarif
from linter.run.rulemeta import PIPELINE_RULES, all_rules, is_link

SCHEMA = Path(__file__).parent / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
# Design notes and proposals are documents, versioned by their repository's main line.
DOCUMENT_SUFFIXES = (".md", ".pbtxt")

RunLine = Callable[..., Result]


def _validator() -> jsonschema.Draft4Validator:
    checker = jsonschema.FormatChecker()
    # Without a URI checker installed (rfc3986-validator, from the test extra) jsonschema
    # skips "format": "uri" silently, and this whole file would prove nothing.
    assert "uri" in checker.checkers
    return jsonschema.Draft4Validator(json.loads(SCHEMA.read_text("utf-8")), format_checker=checker)


def _pin_problem(url: str) -> str | None:
    """Why a reference is not a pinned source, or None."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc or " " in url:
        return "not an https URL"
    segments = parts.path.split("/")
    if parts.netloc != "github.com" or len(segments) < 6 or segments[3] != "blob":
        return None  # a documentation page, an issue or a pull request
    revision, path = segments[4], "/".join(segments[5:])
    if path.endswith(DOCUMENT_SUFFIXES):
        return None
    if revision in ("main", "master"):
        return "source file on a moving branch"
    if not parts.fragment.startswith("L"):
        return "source file without a line anchor"
    return None


def test_every_builtin_reference_is_a_pinned_link_or_a_page() -> None:
    problems = [
        (rule.id, ref, problem)
        for rule in all_rules(load_policies())
        for ref in rule.references
        if (problem := _pin_problem(ref)) is not None
    ]
    assert problems == []
    assert sum(len(rule.references) for rule in all_rules(load_policies())) > 250


def test_the_pin_check_rejects_what_the_references_used_to_be() -> None:
    assert [
        _pin_problem(ref)
        for ref in (
            "kubernetes/kubernetes:pkg/kubelet/prober/worker.go",
            "https://github.com/vllm-project/vllm/blob/main/vllm/config/cache.py#L50",
            "https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/config/cache.py",
            "https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/config/cache.py#L25",
            "https://docs.vllm.ai/en/stable/deployment/k8s.html",
        )
    ] == [
        "not an https URL",
        "source file on a moving branch",
        "source file without a line anchor",
        None,
        None,
    ]


def test_sarif_for_every_builtin_rule_is_valid_with_format_checking() -> None:
    policies = tuple(load_policies())
    findings = [
        Finding(meta.id, meta.severity, "m", "values.yaml", 1, 1) for meta in all_rules(policies)
    ]
    log = as_sarif(RunResult(findings, 1, policies=policies), Path.cwd())
    assert sorted(e.message for e in _validator().iter_errors(log)) == []
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert len(rules) == len(findings)
    assert all(is_link(rule["helpUri"]) for rule in rules)
    by_id = {rule["id"]: rule for rule in rules}
    kv = by_id["vllm-kv/one-sequence-does-not-fit"]
    assert kv["helpUri"].startswith("https://github.com/vllm-project/vllm/blob/v0.33.0/")
    assert (
        "- <https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/v1/core/kv_cache_utils.py"
        "#L678-L723>"
    ) in kv["help"]["markdown"].splitlines()


def test_format_checking_rejects_a_helpuri_that_is_not_a_url() -> None:
    log = as_sarif(
        RunResult([Finding("syntax", Severity.ERROR, "m", "a.yaml", 1, 1)], 1), Path.cwd()
    )
    assert list(_validator().iter_errors(log)) == []
    log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "vllm-project/vllm:x.py (L1)"
    assert [e.message for e in _validator().iter_errors(log)] == [
        "'vllm-project/vllm:x.py (L1)' is not a 'uri'"
    ]


def test_a_team_policy_citing_free_text_gets_no_helpuri(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "team.yaml").write_text(
        "apiVersion: servelint/v1\nkind: Policy\nmetadata: {name: team}\n"
        "spec:\n  target: document\n  rules:\n    - id: r\n      severity: info\n"
        "      expression: 'false'\n      message: m\n"
        "      references: ['our wiki, page Serving', 'https://example.com/serving']\n"
    )
    loaded = tuple(load_policies([str(policies)], builtin=False))
    log = as_sarif(
        RunResult([Finding("team/r", Severity.INFO, "m", "a.yaml", 1, 1)], 1, policies=loaded),
        Path.cwd(),
    )
    assert list(_validator().iter_errors(log)) == []
    rule = log["runs"][0]["tool"]["driver"]["rules"][0]
    assert (rule["helpUri"], rule["help"]["markdown"]) == (
        "https://example.com/serving",
        "**Sources:**\n\n- <https://example.com/serving>",
    )


def test_explain_prints_the_sources_as_links(run_line: RunLine) -> None:
    result = run_line(["explain", "--no-config", "tgi/input-tokens-and-input-length"])
    lines = result.output.splitlines()
    sources = lines[lines.index("Sources:") + 1 : lines.index("", lines.index("Sources:"))]
    assert (result.exit_code, sources) == (
        0,
        [
            "  https://github.com/huggingface/text-generation-inference/blob/db931fcf/"
            "launcher/src/main.rs#L2100-L2111",
            "  https://github.com/huggingface/text-generation-inference/blob/v2.0.0/"
            "launcher/src/main.rs#L1323",
        ],
    )


def test_pipeline_rules_link_to_the_readme_sections() -> None:
    assert {meta.help_uri for meta in PIPELINE_RULES.values()} >= {
        "https://github.com/servelint/servelint#findings-the-pipeline-itself-reports",
        "https://github.com/servelint/servelint#suppressions",
    }
