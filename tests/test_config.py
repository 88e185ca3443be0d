"""The configuration file: discovery, validation with lines, and what it controls."""

from __future__ import annotations

import datetime
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.errors import ConfigError
from linter.findings import Severity
from linter.model.engine.settings import ModelSettings
from linter.parsing.documents import Limits
from linter.run.config import find_config, load_config, parse_duration, parse_quantity

POLICIES = Path(__file__).parent / "fixtures" / "authoring" / "policies"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository root (``.git`` bounds the upward search) as the working directory."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    # The configuration reads policies inside the repository only (issue 31).
    shutil.copytree(POLICIES, tmp_path / ".team-policies")  # hidden: not an input
    return tmp_path


# --- discovery -------------------------------------------------------------------------


def test_found_in_a_parent_folder(repo: Path) -> None:
    config = _write(repo / ".servelint.yaml", "failLevel: warning\n")
    (repo / "charts" / "vllm").mkdir(parents=True)
    assert find_config(repo / "charts" / "vllm") == config.resolve()


def test_search_stops_at_the_git_root(tmp_path: Path) -> None:
    _write(tmp_path / ".servelint.yaml", "failLevel: warning\n")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "sub").mkdir()
    assert find_config(tmp_path / "repo" / "sub") is None


def test_yaml_wins_over_pyproject_in_one_folder(repo: Path) -> None:
    _write(repo / "pyproject.toml", "[tool.servelint]\nfailLevel = 'info'\n")
    config = _write(repo / ".servelint.yml", "failLevel: warning\n")
    assert find_config(repo) == config.resolve()


def test_pyproject_without_the_table_does_not_count(repo: Path) -> None:
    _write(repo / "sub" / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    pyproject = _write(repo / "pyproject.toml", "[tool.servelint]\nfailLevel = 'info'\n")
    assert find_config(repo / "sub") == pyproject.resolve()


# --- loading ---------------------------------------------------------------------------

FULL = """\
policyDirs: [policies]
builtin: false
disable: [vllm/enforce-eager]
severity:
  team-images/no-latest: warning
include: ["deploy/**"]
exclude: ["**/templates/**"]
failLevel: warning
baseline: servelint-baseline.json
limits: {maxBytes: 1000, maxNodes: 500, maxDepth: 20}
model:
  profileDirs: [profiles]
  presets:
    acme/model-7b: {num_hidden_layers: 32}
  modelConfigs:
    acme/model-7b: models/config.json
  gpuMemory: 80Gi
  gpuProduct: NVIDIA-L4
  modelLoadTime: 10m
  loadBandwidth: 500Mi
suppressions:
  - rules: [vllm/enforce-eager]
    paths: [deploy/staging/**]
    reason: profiling INC-2231
    until: 2026-12-31
"""


def test_every_key_is_read_and_paths_are_relative_to_the_file(repo: Path) -> None:
    config = load_config(_write(repo / "cfg" / ".servelint.yaml", FULL))
    root = (repo / "cfg").resolve()
    assert (config.source, config.root) == (str(Path("cfg/.servelint.yaml")), root)
    assert config.policy_dirs == ("policies",)
    assert config.builtin is False
    assert config.disable == ("vllm/enforce-eager",)
    assert config.severity == {"team-images/no-latest": Severity.WARNING}
    assert (config.include, config.exclude) == (("deploy/**",), ("**/templates/**",))
    assert (config.fail_level, config.baseline) == (Severity.WARNING, "servelint-baseline.json")
    assert config.limits == Limits(1000, 500, 20)
    assert config.model == ModelSettings(
        profile_dirs=(str(root / "profiles"),),
        presets={"acme/model-7b": {"num_hidden_layers": 32}},
        model_configs={"acme/model-7b": str(root / "models/config.json")},
        gpu_memory_bytes=80 * 2**30,
        gpu_product="NVIDIA-L4",
        model_load_seconds=600.0,
        load_bandwidth_bytes=500 * 2**20,
    )
    [entry] = config.suppressions
    assert (entry.rules, entry.paths, entry.reason, entry.until, entry.line) == (
        ("vllm/enforce-eager",),
        ("deploy/staging/**",),
        "profiling INC-2231",
        datetime.date(2026, 12, 31),
        22,
    )


def test_pyproject_table_reads_like_the_yaml_file(repo: Path) -> None:
    pyproject = _write(
        repo / "pyproject.toml",
        """\
        [project]
        name = "x"

        [tool.servelint]
        failLevel = "info"
        disable = ["vllm/*"]

        [tool.servelint.model]
        gpuMemory = 24000000000

        [[tool.servelint.suppressions]]
        rules = ["team-images/no-latest"]
        reason = "mirror pins by digest"
        until = 2027-01-31
        """,
    )
    config = load_config(pyproject)
    assert (config.fail_level, config.disable) == (Severity.INFO, ("vllm/*",))
    assert config.model.gpu_memory_bytes == 24_000_000_000
    [entry] = config.suppressions
    assert (entry.until, entry.line) == (datetime.date(2027, 1, 31), 11)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            ".servelint.yaml",
            "failLevel: warning\npolicy_dirs: [x]\n",
            ".servelint.yaml:2:1: policy_dirs: unknown key 'policy_dirs' (known keys: baseline, "
            "builtin, disable, exclude, failLevel, failOnUnchecked, include, limits, model, policyDirs, severity, "
            "suppressions)",
        ),
        (
            ".servelint.yaml",
            "severity:\n  a/b: fatal\n",
            ".servelint.yaml:2:3: severity.a/b: 'fatal' is not one of ['error', 'warning', 'info']",
        ),
        (
            ".servelint.yaml",
            "limits:\n  maxDepth: 0\n",
            ".servelint.yaml:2:3: limits.maxDepth: 0 is less than the minimum of 1",
        ),
        (
            ".servelint.yaml",
            "model:\n  gpuMemory: lots\n",
            ".servelint.yaml:2:3: model.gpuMemory: 'lots' is not valid: GPU memory when the "
            "manifest does not name the GPU: bytes, or a quantity such as 80Gi or 24GB.",
        ),
        (
            ".servelint.yaml",
            "suppressions:\n  - rules: [a/b]\n    reason: '  '\n",
            ".servelint.yaml:3:5: suppressions[0].reason: must not be empty",
        ),
        (
            ".servelint.yaml",
            "suppressions:\n  - rules: [a/b]\n",
            ".servelint.yaml:2:5: suppressions[0]: 'reason' is a required property",
        ),
        (
            ".servelint.yaml",
            "suppressions:\n  - rules: [a/b]\n    reason: x\n    until: 2026-02-30\n",
            ".servelint.yaml:4:5: suppressions[0].until: '2026-02-30' is not a date",
        ),
        (".servelint.yaml", "failLevel: [\n", ".servelint.yaml:2:1: invalid YAML: "),
        (
            ".servelint.yaml",
            "failLevel: info\n---\nfailLevel: info\n",
            ".servelint.yaml:3: a configuration file holds one YAML document",
        ),
        (
            "pyproject.toml",
            "[tool.servelint]\nfailLevel = 'info'\n\n[tool.servelint.model]\ngpu_memory = 1\n",
            "pyproject.toml:5:1: model.gpu_memory: unknown key 'gpu_memory' (known keys: gpuMemory, "
            "gpuProduct, gpus, instanceTypes, loadBandwidth, modelConfigs, modelLoadTime, presets, profileDirs)",
        ),
        (
            "pyproject.toml",
            "[tool.servelint]\nfailLevel = \n",
            "pyproject.toml: invalid TOML: Invalid value (at line 2, column 13)",
        ),
    ],
    ids=[
        "unknown-key",
        "bad-severity",
        "limit",
        "quantity",
        "blank-reason",
        "no-reason",
        "bad-date",
        "yaml-syntax",
        "two-documents",
        "toml-unknown-key",
        "toml-syntax",
    ],
)
def test_a_wrong_config_names_file_line_and_problem(
    repo: Path, name: str, text: str, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(_write(repo / name, text))
    assert info.value.format_message().startswith(message)
    if not message.endswith(": "):
        assert info.value.format_message() == message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (80, 80),
        ("80Gi", 80 * 2**30),
        ("24GB", 24 * 10**9),
        ("1.5Ti", int(1.5 * 2**40)),
        ("512Mi", 512 * 2**20),
        ("40G", 40 * 10**9),
    ],
)
def test_quantities(text: int | str, expected: int) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"), [(90, 90.0), ("90s", 90.0), ("10m", 600.0), ("1h30m", 5400.0), (2.5, 2.5)]
)
def test_durations(text: float | str, expected: float) -> None:
    assert parse_duration(text) == expected


# --- what it controls, through the command line ---------------------------------------

LATEST = POLICIES / "tests" / "inputs" / "latest.yaml"


def _lint(run_line: Callable[..., Result], *args: str) -> Result:
    return run_line(["lint", "--today", "2026-06-01", *args])


def test_policy_dirs_fail_level_and_severity_from_the_file(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    _write(
        repo / ".servelint.yaml",
        """\
        policyDirs: [.team-policies]
        builtin: false
        disable: [team-probes]
        severity:
          team-images/*: warning
        failLevel: warning
        """,
    )
    (repo / "app.yaml").write_text(LATEST.read_text())
    result = _lint(run_line, "app.yaml")
    assert (result.exit_code, result.output) == (
        1,
        (
            "app.yaml:10:11: warning team-images/no-latest container vllm uses the latest tag\n"
            "app.yaml:14:11: warning team-images/no-latest container metrics uses the latest tag\n"
            "0 errors, 2 warnings, 0 info in 1 file\n"
        ),
    )


def test_command_line_flags_win_over_the_file(repo: Path, run_line: Callable[..., Result]) -> None:
    _write(
        repo / ".servelint.yaml",
        """\
        policyDirs: [does-not-exist]
        builtin: false
        severity: {team-images/no-latest: warning}
        failLevel: warning
        """,
    )
    (repo / "app.yaml").write_text(LATEST.read_text())
    result = _lint(
        run_line,
        "--policy-dir",
        str(POLICIES / "team-images.yaml"),
        "--fail-level",
        "error",
        "app.yaml",
    )
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "0 errors, 2 warnings, 0 info in 1 file",
    )


def test_explicit_config_and_no_config(repo: Path, run_line: Callable[..., Result]) -> None:
    _write(repo / ".servelint.yaml", "failLevel: [broken\n")
    _write(
        repo / "other.yaml",
        "policyDirs: [.team-policies]\nbuiltin: false\ndisable: [vllm]\n"
        "severity: {team-probes/startup-probe: info}\n",
    )
    (repo / "d").mkdir()
    (repo / "d" / "app.yaml").write_text(LATEST.read_text())
    result = _lint(run_line, "--config", "other.yaml", "d")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        1,
        "2 errors, 0 warnings, 3 info in 1 file",
    )
    result = _lint(run_line, "--no-config", "--no-builtin", "d")
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 info in 1 file\n")
    result = _lint(run_line, "d")
    assert result.exit_code == 3


def test_include_and_exclude_relative_to_the_file(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    _write(
        repo / ".servelint.yaml",
        """\
        policyDirs: [.team-policies]
        builtin: false
        include: [deploy]
        exclude: ["templates/", "*-old.yaml"]
        """,
    )
    for name in ("deploy/a.yaml", "deploy/templates/b.yaml", "deploy/c-old.yaml", "notes.yaml"):
        _write(repo / name, LATEST.read_text())
    result = _lint(run_line, ".")
    assert (
        result.output.splitlines()[0] == "note: .servelint.yaml: 3 inputs skipped by "
        "include/exclude"
    )
    assert {line.split(":")[0] for line in result.output.splitlines()[1:-1]} == {"deploy/a.yaml"}


def test_unknown_rule_ids_in_disable_and_severity_are_noted(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    _write(
        repo / ".servelint.yaml",
        """\
        policyDirs: [.team-policies]
        builtin: false
        disable: [team-images/no-latets, syntax]
        severity: {team-prob/*: info}
        """,
    )
    _write(repo / "ok.yaml", "a: 1\n")
    result = _lint(run_line, "ok.yaml")
    assert (result.exit_code, result.output) == (
        0,
        (
            "note: .servelint.yaml:3: disable: 'team-images/no-latets' names no rule of the loaded "
            "policies\n"
            "note: .servelint.yaml:3: 'syntax' cannot be switched off: unchecked input is always "
            "reported\n"
            "note: .servelint.yaml:4: severity: 'team-prob/*' names no rule of the loaded policies\n"
            "0 errors, 0 warnings, 0 info in 1 file\n"
        ),
    )


def test_input_limits_from_the_file(repo: Path, run_line: Callable[..., Result]) -> None:
    _write(repo / ".servelint.yaml", "builtin: false\nlimits: {maxDepth: 3}\n")
    _write(repo / "deep.yaml", "a:\n  b:\n    c:\n      d:\n        e: 1\n")
    result = _lint(run_line, "deep.yaml")
    assert (result.exit_code, result.output) == (
        1,
        (
            "deep.yaml:5:9: error input-limit nesting deeper than 3 levels\n"
            "1 error, 0 warnings, 0 info in 1 file\n"
        ),
    )


def test_model_settings_reach_the_extractors(
    repo: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    from linter.model.frontends import extract

    seen: list[ModelSettings] = []
    monkeypatch.setattr(
        extract, "EXTRACTORS", [lambda files, settings: seen.append(settings) or []]
    )
    _write(
        repo / ".servelint.yaml",
        """\
        builtin: false
        policyDirs: [policies]
        model: {gpuMemory: 24GB, gpuProduct: NVIDIA-L4, modelLoadTime: 1h}
        """,
    )
    _write(
        repo / "policies" / "w.yaml",
        """\
        apiVersion: servelint/v1
        kind: Policy
        metadata: {name: w}
        spec:
          target: workload
          rules:
            - {id: r, severity: info, expression: "true", message: m}
        """,
    )
    _write(repo / "a.yaml", "a: 1\n")
    assert _lint(run_line, "a.yaml").exit_code == 0
    assert seen == [
        ModelSettings(
            gpu_memory_bytes=24 * 10**9, gpu_product="NVIDIA-L4", model_load_seconds=3600.0
        )
    ]


def test_config_error_is_exit_3_with_the_line(repo: Path, run_line: Callable[..., Result]) -> None:
    _write(repo / ".servelint.yaml", "failLevel: warning\nexlude: [x]\n")
    _write(repo / "a.yaml", "a: 1\n")
    result = _lint(run_line, "a.yaml")
    assert (result.exit_code, result.output) == (
        3,
        (
            "servelint: .servelint.yaml:2:1: exlude: unknown key 'exlude' (known keys: baseline, "
            "builtin, disable, exclude, failLevel, failOnUnchecked, include, limits, model, policyDirs, severity, "
            "suppressions)\n"
        ),
    )
