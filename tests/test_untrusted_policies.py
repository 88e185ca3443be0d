"""Policies, configuration and inputs are data: they cannot run code, and a policy written
to burn CPU or memory is stopped and reported while the run completes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.parsing.documents import parse_yaml
from linter.policy import load_policies
from linter.policy.engine import document_subject, evaluate

HEADER = (
    "apiVersion: servelint/v1\nkind: Policy\nmetadata:\n  name: {name}\n"
    "  description: {description}\nspec:\n  target: document\n  rules:\n"
)


def _policy(folder: Path, name: str, expression: str, description: str = "d") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(
        HEADER.format(name=name, description=description)
        + f"    - id: r\n      severity: error\n      message: {name} fired\n"
        f"      expression: {json.dumps(expression)}\n"
    )
    return path


def _lint(cwd: Path, *args: str) -> tuple[int, str]:
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(
            cli, ["lint", *args], catch_exceptions=False, env={"NO_COLOR": "1"}
        )
    finally:
        os.chdir(previous)
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "tag",
    [
        '!!python/object/apply:os.system ["touch {marker}"]',
        "!!python/object/apply:subprocess.check_call [[touch, {marker}]]",
        "!!python/name:os.system",
        "!!python/module:os",
        '!!python/object/new:os.system ["touch {marker}"]',
    ],
)
def test_yaml_tags_are_plain_data_in_policies_configs_and_inputs(tmp_path: Path, tag: str) -> None:
    marker = tmp_path / "ran"
    text = tag.format(marker=marker)
    policies = tmp_path / "policies"
    _policy(policies, "p", "doc.kind != 'Bad'")
    # A second document made only of a tag: not a policy, and never constructed.
    with (policies / "p.yaml").open("a") as handle:
        handle.write(f"---\n{text}\n")
    (tmp_path / "in.yaml").write_text(f"kind: Bad\nspec: {text}\n")
    code, output = _lint(
        tmp_path, "--no-config", "--no-builtin", "--policy-dir", "policies", "in.yaml"
    )
    assert (code, output) == (
        1,
        "in.yaml:1:1: error p/r p fired\n1 error, 0 warnings, 0 info in 1 file\n",
    )
    (tmp_path / ".servelint.yaml").write_text(f"failLevel: {text}\n")
    code, output = _lint(tmp_path, "--no-builtin", "--policy-dir", "policies", "in.yaml")
    assert code == 3
    assert not marker.exists()
    (document,) = parse_yaml("in.yaml", f"kind: Bad\nspec: {text}\n").documents
    assert isinstance(document.data["spec"], (str, list))


def test_cel_has_no_functions_that_reach_outside(tmp_path: Path) -> None:
    for name, expression in [
        ("files", "open('/etc/passwd') == ''"),
        ("env", "env('HOME') == ''"),
        ("exec", "system('id') == 0"),
    ]:
        folder = tmp_path / name
        _policy(folder, "p", expression)
        (tmp_path / "a.yaml").write_text("a: 1\n")
        code, output = _lint(
            tmp_path, "--no-config", "--no-builtin", "--policy-dir", name, "a.yaml"
        )
        assert code == 3
        assert "undeclared reference to" in output


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("(" * 40 + "true" + ")" * 40, "Expression recursion limit exceeded. limit: 32"),
        (" + ".join(["1"] * 100) + " > 0", "Exceeded max recursion depth of 32 when parsing."),
        (
            "[" + ",".join(["1"] * 60_000) + "].size() > 0",
            "expression size exceeds codepoint limit. input size: 120012, limit: 100000",
        ),
    ],
)
def test_oversized_expressions_are_rejected_at_load(
    tmp_path: Path, expression: str, message: str
) -> None:
    _policy(tmp_path / "policies", "p", expression)
    (tmp_path / "a.yaml").write_text("a: 1\n")
    code, output = _lint(
        tmp_path, "--no-config", "--no-builtin", "--policy-dir", "policies", "a.yaml"
    )
    assert (code, output) == (
        3,
        "servelint: policies/p.yaml:12:7: spec.rules[0].expression: "
        "invalid CEL (expression line 1, column 1): "
        f"{message}\n",
    )


def _doubling(levels: int) -> str:
    """Each variable is ten copies of the one before: 10^(levels+1) characters."""
    inner = f"size(a{levels - 1}) > 0"
    for level in range(levels - 1, -1, -1):
        previous = "a" if level == 0 else f"a{level - 1}"
        inner = f"cel.bind(a{level}, {' + '.join([previous] * 10)}, {inner})"
    return f"cel.bind(a, 'xxxxxxxxxx', {inner})"


_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.monotonic()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({"code": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                  "seconds": time.monotonic() - start,
                  "peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""


def test_policy_that_builds_huge_values_is_stopped_and_the_run_completes(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    _policy(policies, "grow", _doubling(9))  # ten gigabytes if it were allowed
    _policy(policies, "replace", "'x'" + ".replace('x', 'xxxxxxxxxx')" * 10 + ".size() > 0")
    _policy(policies, "sane", "doc.kind != 'B'")
    (tmp_path / "a.yaml").write_text("kind: A\n")
    (tmp_path / "b.yaml").write_text("kind: B\n")
    command = [
        sys.executable,
        "-c",
        _WRAPPER,
        sys.executable,
        "-m",
        "linter",
        "lint",
        "--no-config",
        "--no-builtin",
        "--policy-dir",
        "policies",
        "a.yaml",
        "b.yaml",
    ]
    done = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,
    )
    run = json.loads(done.stdout)
    stop = (
        "policy '{0}' stopped: evaluation ran out of the memory allowed to policies (an "
        "expression that builds ever larger strings or lists?); it is not evaluated on "
        "this or any later input of the run (defined in policies/{0}.yaml:9)"
    )
    assert (run["code"], run["stdout"], run["stderr"]) == (
        1,
        (
            f"a.yaml:1:1: error grow/r {stop.format('grow')}\n"
            f"a.yaml:1:1: error replace/r {stop.format('replace')}\n"
            "b.yaml:1:1: error sane/r sane fired\n"
            "3 errors, 0 warnings, 0 info in 2 files\n"
        ),
        "",
    )
    # Hang and blow-up guards: the run takes about 0.5 s alone; a policy that
    # was not stopped would build gigabytes for minutes.
    assert run["seconds"] < 20.0
    assert run["peak"] < 500 * 2**20


def test_policy_over_its_time_budget_is_stopped_and_reported(tmp_path: Path) -> None:
    _policy(tmp_path / "policies", "slow", "doc.kind != 'X'")
    _policy(tmp_path / "policies", "fast", "doc.kind != 'X'")
    policies = load_policies([str(tmp_path / "policies")], builtin=False)
    slow = [p for p in policies if p.name == "slow"]
    fast = [p for p in policies if p.name == "fast"]
    documents = [d for i in range(3) for d in parse_yaml(f"d{i}.yaml", "kind: X\n").documents]
    subjects = [document_subject(d) for d in documents]
    # No time at all for 'slow': it is stopped after its first subject; 'fast' runs on.
    stopped = evaluate(slow, subjects, policy_seconds=0.0)
    assert [(f.file, f.rule_id, f.message) for f in stopped] == [
        ("d0.yaml", "slow/r", "slow fired"),
        (
            "d0.yaml",
            "slow/r",
            "policy 'slow' stopped: evaluation took more than 0 s in this "
            "run (the per-policy time budget); it is not evaluated on this "
            f"or any later input of the run (defined in {slow[0].source}:9)",
        ),
    ]
    assert [(f.file, f.rule_id) for f in evaluate(fast, subjects)] == [
        ("d0.yaml", "fast/r"),
        ("d1.yaml", "fast/r"),
        ("d2.yaml", "fast/r"),
    ]


def test_memory_limit_applies_only_during_evaluation(tmp_path: Path) -> None:
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    _policy(tmp_path / "policies", "grow", _doubling(7))  # 100 MB: over a 32 MB limit
    policies = load_policies([str(tmp_path / "policies")], builtin=False)
    subjects = [document_subject(d) for d in parse_yaml("a.yaml", "a: 1\n").documents]
    (finding,) = evaluate(policies, subjects, memory=32 * 2**20)
    assert finding.message.startswith("policy 'grow' stopped: evaluation ran out of the memory")
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    bytearray(256 * 2**20)  # the process is not left capped
