"""Flags handed to the server through a values key, judged without helm (issue 27, item 5).

Fixtures under fixtures/valueflags, each with ``--swap-space`` (removed in vLLM 0.18.0) in
a values list: ``stack`` is production-stack values (the chart profile passes
``vllmConfig.extraArgs`` into ``vllm serve``); ``passes`` is a chart whose template prints
``.Values.extraArgs`` into the only container's args; ``shell`` is a chart that runs the
server through ``/bin/sh -c`` (no proof); ``bare`` is the same values with no chart.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from linter.helm.argscan import args_keys

RunLine = Callable[..., Result]
FIXTURES = Path(__file__).parent / "fixtures" / "valueflags"
REMOVED = (
    "--swap-space is not a flag of vLLM 0.18.0: removed in vLLM 0.18.0 (accepted in "
    "0.6.0–0.17.1); vllm serve exits at once (unrecognized arguments: --swap-space); delete it"
)
GAP = (
    "command-line flags (flags in extraArgs are not judged without rendering): 2 rules "
    "(1 error-level) did not judge them (vllm/flag-not-accepted, "
    "vllm/flag-not-accepted-version-unknown); fix: lint the chart with --chart so that helm "
    "renders it, or use a chart profile that names the key (docs/coverage.md)"
)
Row = tuple[str, str, str, int, int]  # rule, severity, file, line, column


@pytest.fixture(autouse=True)
def _in_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(FIXTURES, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)


def _lint(run_line: RunLine, *args: str) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    result = run_line(["lint", "--no-config", "--format", "json", *args])
    report = json.loads(result.output)
    return result.exit_code, report["findings"], report["coverage"]


def _rows(findings: list[dict[str, Any]]) -> list[Row]:
    return [(f["rule"], f["severity"], f["file"], f["line"], f["column"]) for f in findings]


def _flag_gaps(coverage: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [
        (gap["file"], gap["line"], gap["column"])
        for file in coverage["files"]
        for workload in file["workloads"]
        for gap in workload["gaps"]
        if gap["fact"] == "command-line flags"
    ]


def test_a_profile_key_is_judged_on_its_values_line(run_line: RunLine) -> None:
    code, findings, coverage = _lint(run_line, "stack/values.yaml")
    assert (code, _rows(findings)) == (
        1,
        [("vllm/flag-not-accepted", "error", "stack/values.yaml", 18, 13)],
    )
    assert findings[0]["message"] == REMOVED
    assert _flag_gaps(coverage) == []


def test_an_unpinned_image_makes_it_a_warning_as_for_manifests(run_line: RunLine) -> None:
    code, findings, _ = _lint(run_line, "stack/values-latest.yaml")
    assert (code, _rows(findings)) == (
        0,
        [
            ("images/unpinned-server-image", "warning", "stack/values-latest.yaml", 7, 7),
            (
                "vllm/flag-not-accepted-version-unknown",
                "warning",
                "stack/values-latest.yaml",
                18,
                13,
            ),
        ],
    )


def test_a_key_the_templates_pass_into_the_args_is_judged(run_line: RunLine) -> None:
    code, findings, coverage = _lint(run_line, "passes/values.yaml")
    assert (code, _rows(findings)) == (
        1,
        [("vllm/flag-not-accepted", "error", "passes/values.yaml", 6, 5)],
    )
    assert findings[0]["message"] == REMOVED
    assert _flag_gaps(coverage) == []


@pytest.mark.parametrize(
    "values", ["bare/values.yaml", "shell/values.yaml"], ids=["no-chart", "shell"]
)
def test_a_key_not_shown_to_reach_the_server_is_a_gap(run_line: RunLine, values: str) -> None:
    code, findings, coverage = _lint(run_line, values)
    assert (code, findings, _flag_gaps(coverage)) == (0, [], [(values, 5, 1)])


@pytest.mark.parametrize(
    "values", ["bare/values.yaml", "shell/values.yaml"], ids=["no-chart", "shell"]
)
def test_the_gate_fails_on_the_gap(run_line: RunLine, values: str) -> None:
    result = run_line(["lint", "--no-config", "--fail-on-unchecked", "-q", values])
    assert (result.exit_code, result.output.splitlines()) == (
        1,
        [f"{values}:5:1: error unchecked not checked: {GAP} (--fail-on-unchecked)"],
    )


def test_the_gap_says_so_in_the_verbose_report(run_line: RunLine) -> None:
    result = run_line(["lint", "--no-config", "-v", "bare/values.yaml"])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            "coverage: 1 file, 1 workload recognised (vllm 1)",
            "coverage: not checked for a missing fact: command-line flags on 1 workload",
            f"not checked: bare/values.yaml:5:1: {GAP}",
            "0 errors, 0 warnings, 0 info in 1 file",
        ],
    )


@pytest.mark.parametrize("chart", ["passes", "shell"])
def test_the_hook_and_the_rendered_chart_agree(run_line: RunLine, helm: str, chart: str) -> None:
    """Where the templates show it, the hook reports what helm's rendering reports; where
    they do not, the hook names the key and the rendered chart judges it (no gap left)."""
    expected = [("vllm/flag-not-accepted", "error", f"{chart}/values.yaml", 6, 5)]
    hook_code, hook, hook_coverage = _lint(run_line, f"{chart}/values.yaml")
    code, rendered, coverage = _lint(run_line, "--chart", chart, "--helm", helm)
    assert (code, _rows(rendered), _flag_gaps(coverage)) == (1, expected, [])
    if chart == "passes":
        assert (hook_code, _rows(hook), _flag_gaps(hook_coverage)) == (1, expected, [])
    else:
        assert (hook_code, hook, _flag_gaps(hook_coverage)) == (
            0,
            [],
            [(f"{chart}/values.yaml", 5, 1)],
        )


def _pod(image: str) -> str:
    return f"      containers:\n        - image: {image}\n"


def _args(key: str) -> str:
    return "          args:\n            {{- toYaml .Values.KEY | nindent 12 }}\n".replace(
        "KEY", key
    )


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (
            _pod('"{{ .Values.server.image.repository }}:{{ .Values.server.image.tag }}"')
            + _args("server.extraArgs"),
            {"server.extraArgs": {"server.image.repository", "server.image.tag"}},
        ),
        (
            _pod("{{ .Values.image }}") + "          args:\n            {{- range .Values.args }}\n"
            "            - {{ . | quote }}\n            {{- end }}\n",
            {"args": {"image"}},
        ),
        (
            _pod("{{ .Values.image }}")
            + "          command: [vllm, serve, --model]\n"
            + _args("args"),
            {},
        ),
        (
            _pod("{{ .Values.image }}")
            + '          args:\n            {{- include "chart.args" . | nindent 12 }}\n',
            {},
        ),
        (
            _pod("{{ .Values.image }}")
            + "          args: []\n        - image: {{ .Values.image }}\n"
            + _args("args"),
            {},
        ),
        (
            _pod("{{ .Values.image }}")
            + "          args:\n            - a\n"
            + "          env:\n            {{- toYaml .Values.args | nindent 12 }}\n",
            {},
        ),
        (_pod("{{ .Values.proxy.image }}") + _args("extraArgs"), {"extraArgs": {"proxy.image"}}),
        (
            _pod("{{ .Values.image }}") + '          command: ["/bin/sh", "-c"]\n' + _args("args"),
            {},
        ),
        (
            _pod("{{ .Values.image }}") + '          command: ["vllm", "serve"]\n' + _args("args"),
            {"args": {"image"}},
        ),
    ],
    ids=[
        "toyaml",
        "range",
        "another-command",
        "named-template",
        "two-containers",
        "outside-args",
        "image-of-another-key",
        "shell-command",
        "server-command",
    ],
)
def test_only_the_plainest_templates_are_proof(
    template: str, expected: dict[str, set[str]]
) -> None:
    """Each key the template prints into its container's args, with the values its image
    is built from (``valueflags.py`` checks that they name the server's image)."""
    assert args_keys([("t.yaml", template)]) == {k: frozenset(v) for k, v in expected.items()}
