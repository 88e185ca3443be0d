"""Flags with the names and meaning of peer linters: --disable/--enable, --exit-zero,
-q/--quiet, --color, rules --format json; explain and rules read lint's configuration."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

CORE = Path(__file__).parent / "fixtures" / "core"
POLICIES = ["--no-builtin", "--policy-dir", str(CORE / "policies")]
DEPLOY = str(CORE / "inputs" / "deploy.yaml")
MIN_REPLICAS = f"{DEPLOY}:7:3: error team-replicas/min-replicas needs at least two replicas, has 1"
LATEST = f"{DEPLOY}:12:11: warning team-replicas/no-latest-tag container server uses the latest tag"

RunLine = Callable[..., Result]


def test_disable_a_rule_on_the_command_line(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, "--disable", "team-replicas/min-replicas", DEPLOY])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [LATEST, "0 errors, 1 warning, 0 info in 1 file"],
    )


def test_disable_a_whole_policy_and_enable_one_of_its_rules(run_line: RunLine) -> None:
    off = run_line(["lint", *POLICIES, "--disable", "team-replicas", DEPLOY])
    assert (off.exit_code, off.output) == (0, "0 errors, 0 warnings, 0 info in 1 file\n")
    one = run_line(
        [
            "lint",
            *POLICIES,
            "--disable",
            "team-replicas",
            "--enable",
            "team-replicas/no-latest-tag",
            DEPLOY,
        ]
    )
    assert (one.exit_code, one.output.splitlines()) == (
        0,
        [LATEST, "0 errors, 1 warning, 0 info in 1 file"],
    )


def test_enable_wins_over_the_configuration_files_disable(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".servelint.yaml").write_text("disable: [team-replicas/min-replicas]\n")
    monkeypatch.chdir(tmp_path)
    quiet = run_line(["lint", *POLICIES, DEPLOY])
    assert (quiet.exit_code, quiet.output.splitlines()) == (
        0,
        [LATEST, "0 errors, 1 warning, 0 info in 1 file"],
    )
    back = run_line(["lint", *POLICIES, "--enable", "team-replicas/min-replicas", DEPLOY])
    assert (back.exit_code, back.output.splitlines()) == (
        1,
        [MIN_REPLICAS, LATEST, "1 error, 1 warning, 0 info in 1 file"],
    )


@pytest.mark.parametrize(
    ("flag", "name", "message"),
    [
        (
            "--disable",
            "team-replica/min-replicas",
            "Error: --disable team-replica/min-replicas: names no rule or policy of the "
            "loaded policies (see 'servelint rules')",
        ),
        (
            "--enable",
            "nope",
            "Error: --enable nope: names no rule or policy of the loaded policies "
            "(see 'servelint rules')",
        ),
        (
            "--disable",
            "syntax",
            "Error: --disable syntax: cannot be switched off: unchecked input is always reported",
        ),
    ],
    ids=["typo", "unknown-enable", "always-on"],
)
def test_a_rule_flag_that_names_nothing_is_a_usage_error(
    run_line: RunLine, flag: str, name: str, message: str
) -> None:
    result = run_line(["lint", *POLICIES, flag, name, DEPLOY])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == message


def test_exit_zero_reports_findings_and_exits_zero(run_line: RunLine, tmp_path: Path) -> None:
    result = run_line(["lint", *POLICIES, "--exit-zero", DEPLOY])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [MIN_REPLICAS, LATEST, "1 error, 1 warning, 0 info in 1 file"],
    )
    missing = run_line(["lint", *POLICIES, "--exit-zero", str(tmp_path / "gone.yaml")])
    assert missing.exit_code == 3  # a tool failure is not a finding


def test_quiet_prints_only_the_findings_that_count(run_line: RunLine, tmp_path: Path) -> None:
    manifest = tmp_path / "deploy.yaml"
    text = (CORE / "inputs" / "deploy.yaml").read_text()
    manifest.write_text(
        text.replace(
            "replicas: 1",
            'replicas: 1  # servelint: ignore[team-replicas/min-replicas] reason="canary"',
        )
    )
    assert "servelint: ignore" in manifest.read_text()
    loud = run_line(["lint", *POLICIES, str(manifest)])
    assert loud.output.splitlines()[-1] == "0 errors, 1 warning, 0 info, 1 suppressed in 1 file"
    quiet = run_line(["lint", *POLICIES, "-q", str(manifest)])
    assert (quiet.exit_code, quiet.output) == (
        0,
        f"{manifest}:12:11: warning team-replicas/no-latest-tag container server uses the "
        "latest tag\n",
    )
    clean = run_line(["lint", *POLICIES, "--quiet", str(CORE / "inputs" / "sub" / "good.yaml")])
    assert (clean.exit_code, clean.output) == (0, "")
    as_json = run_line(["lint", *POLICIES, "-q", "--format", "json", str(manifest)])
    assert len(json.loads(as_json.output)["findings"]) == 2  # machine output is unchanged


@pytest.mark.parametrize(
    ("flags", "no_color", "colored"),
    [
        (["--color", "always"], True, True),
        (["--color", "never"], False, False),
        ([], False, False),  # auto: CliRunner's output is not a terminal
        (["--color", "auto"], True, False),
    ],
    ids=["always-beats-NO_COLOR", "never", "default-auto", "auto-with-NO_COLOR"],
)
def test_color_flag(
    run_line: RunLine,
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    no_color: bool,
    colored: bool,
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    result = run_line(["lint", *POLICIES, *flags, DEPLOY])
    first = result.output.splitlines()[0]
    expected = (
        MIN_REPLICAS.replace(" error ", " \033[31merror\033[0m ") if colored else MIN_REPLICAS
    )
    assert first == expected


def test_color_auto_on_a_terminal_respects_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from linter.commands.common import use_color

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Terminal(), "auto") is True  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(Terminal(), "auto") is False  # type: ignore[arg-type]
    assert use_color(Terminal(), "always") is True  # type: ignore[arg-type]


def test_bad_color_value_is_a_usage_error(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, "--color", "sometimes", DEPLOY])
    assert result.exit_code == 2
    assert "'sometimes' is not one of 'auto', 'always', 'never'" in result.output


def test_rules_json_lists_every_rule_with_its_metadata(run_line: RunLine) -> None:
    result = run_line(["rules", *POLICIES, "--format", "json"])
    assert result.exit_code == 0
    listed = json.loads(result.output)
    ids = [rule["id"] for rule in listed]
    assert ids[-3:] == [
        "team-replicas/min-replicas",
        "team-replicas/no-latest-tag",
        "team-replicas/has-labels",
    ]
    rule = listed[-3]
    assert rule == {
        "id": "team-replicas/min-replicas",
        "severity": "error",
        "defaultSeverity": "error",
        "enabled": True,
        "title": "Serving Deployments run at least two replicas",
        "description": "One replica means every rollout or node drain is an outage.",
        "fix": rule["fix"],
        "autofix": "",
        "helpUri": "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/",
        "references": ["https://kubernetes.io/docs/concepts/workloads/controllers/deployment/"],
        "source": str(CORE / "policies" / "team-replicas.yaml"),
    }
    assert rule["fix"].startswith("spec:")


def _team_repo(tmp_path: Path) -> Path:
    """A repository whose .servelint.yaml brings its own policies and overrides."""
    (tmp_path / ".git").mkdir()
    policies = tmp_path / "team-policies"
    policies.mkdir()
    source = CORE / "policies" / "team-replicas.yaml"
    (policies / "team-replicas.yaml").write_text(source.read_text())
    (tmp_path / ".servelint.yaml").write_text(
        "policyDirs: [team-policies]\n"
        "builtin: false\n"
        "disable: [team-replicas/has-labels]\n"
        "severity: {team-replicas/no-latest-tag: error}\n"
    )
    return tmp_path


def test_rules_and_explain_read_the_configuration_like_lint(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_team_repo(tmp_path))
    explained = run_line(["explain", "team-replicas/min-replicas"])
    assert explained.exit_code == 0
    assert explained.output.splitlines()[0] == "team-replicas/min-replicas (error)"
    assert explained.output.splitlines()[-1] == "Defined in team-policies/team-replicas.yaml"
    raised = run_line(["explain", "team-replicas/no-latest-tag"])
    assert raised.output.splitlines()[0] == (
        "team-replicas/no-latest-tag (warning; reported as error by the configuration)"
    )
    listing = run_line(["rules", "--format", "json"])
    by_id = {rule["id"]: rule for rule in json.loads(listing.output)}
    assert "vllm/enforce-eager" not in by_id  # builtin: false
    assert (
        by_id["team-replicas/no-latest-tag"]["severity"],
        by_id["team-replicas/has-labels"]["enabled"],
    ) == ("error", False)
    text = run_line(["rules"]).output.splitlines()
    assert [line.split()[:2] for line in text if line.startswith("team-replicas/")] == [
        ["team-replicas/min-replicas", "error"],
        ["team-replicas/no-latest-tag", "error"],
        ["team-replicas/has-labels", "info"],
    ]
    assert text[-1].endswith("(disabled)")
    ignored = run_line(["explain", "--no-config", "team-replicas/min-replicas"])
    assert ignored.exit_code == 2  # without the file, the team rule does not exist


CHART = "examples/charts/vllm"


def test_env_files_resolve_in_the_chart_like_env_name(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(__file__).parent.parent)
    by_name = run_line(["lint", "--chart", CHART, "--env", "prod", "--no-render", "-q"])
    by_file = run_line(
        ["lint", "--chart", CHART, "--env", "prod=values-prod.yaml", "--no-render", "-q"]
    )
    assert by_name.exit_code == by_file.exit_code == 1
    assert by_file.output == by_name.output
    assert by_file.output.startswith(
        f"{CHART}/values-prod.yaml:42:7: error vllm-kv/one-sequence-does-not-fit "
    )
    # A path written from the working directory, as -f takes it, still works.
    from_cwd = run_line(
        ["lint", "--chart", CHART, "--env", f"prod={CHART}/values-prod.yaml", "--no-render", "-q"]
    )
    assert from_cwd.output == by_name.output
