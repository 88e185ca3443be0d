"""What ``servelint lint --fix`` refuses to write (docs/fix.md): standard input, a file
reached through a symbolic link, a chart's template or Helm's output, a file the user did
not name, a fix that would write a secret value, and a value two inputs need to differ."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter import atomic_write
from linter.findings import RENDERED_KEY, Finding, Fix, Severity
from linter.fix import apply
from linter.fix.guard import Bounds, refusal

FIXTURES = Path(__file__).parent / "fixtures"
FIX = FIXTURES / "fix"

Run = Callable[..., Result]


def test_standard_input_is_not_fixed(run_line: Run) -> None:
    text = (FIX / "max-num-seqs.yaml").read_text(encoding="utf-8")
    result = run_line(["lint", "--no-config", "--fix", "-"], input=text)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "<stdin>:20:15: vllm-kv/max-num-seqs-exceeds-kv-cache: not fixable: standard input "
        "(fix the file itself)",
        "fixed 0, 5 left: 4 no unique fix, 1 not fixable",
    ]


def test_a_file_reached_through_a_link_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    real = tmp_path / "real.yaml"
    shutil.copyfile(FIX / "max-num-seqs.yaml", real)
    (tmp_path / "link.yaml").symlink_to(real)
    result = run_line(["lint", "--no-config", "--fix", "link.yaml"])
    assert result.stderr.splitlines() == [
        "link.yaml:20:15: vllm-kv/max-num-seqs-exceeds-kv-cache: not fixable: the file is "
        "reached through a symbolic link",
        "fixed 0, 5 left: 4 no unique fix, 1 not fixable",
    ]
    assert real.read_bytes() == (FIX / "max-num-seqs.yaml").read_bytes()
    assert (tmp_path / "link.yaml").is_symlink()


def test_a_folder_reached_through_a_link_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "real").mkdir()
    shutil.copyfile(FIX / "max-num-seqs.yaml", tmp_path / "real" / "seqs.yaml")
    (tmp_path / "deploy").symlink_to(tmp_path / "real")
    result = run_line(["lint", "--no-config", "--fix", "deploy/seqs.yaml"])
    assert "not fixable: the file is reached through a symbolic link" in result.stderr
    assert (tmp_path / "real" / "seqs.yaml").read_bytes() == (
        FIX / "max-num-seqs.yaml"
    ).read_bytes()


def _finding(file: str, fix: Fix, **extra: object) -> Finding:
    return Finding("r/x", Severity.ERROR, "m", file, 1, 1, "", 0, extra, fix=fix)


def test_a_chart_template_and_rendered_output_are_not_fixable(tmp_path: Path) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    template = chart / "templates" / "deployment.yaml"
    template.write_text("kind: Deployment\n")
    values = chart / "values.yaml"
    values.write_text("a: 1\n")
    bounds = Bounds.of([str(chart)], [str(template), str(values)])
    fix = Fix("set", 1)
    rendered = {RENDERED_KEY: {"file": str(template), "line": 1, "column": 1, "doc_index": 0}}
    assert refusal(_finding(str(template), fix), bounds) == (
        "not fixable: rendered (a chart template or Helm's output)"
    )
    assert refusal(_finding(str(values), fix, **rendered), bounds) == (
        "not fixable: rendered (a chart template or Helm's output)"
    )
    assert refusal(_finding(str(values), fix), bounds) is None


def test_a_fix_that_would_write_a_secret_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    target = tmp_path / "values.yaml"
    target.write_text("server:\n  env: {}\n", encoding="utf-8")
    token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    finding = Finding(
        "r/x", Severity.ERROR, "m", str(target), 2, 8, "", 0, fix=Fix("add", {"HF_TOKEN": token})
    )
    bounds = Bounds.of([str(target)], [str(target)])
    outcome = apply.plan([finding], bounds, frozenset({token}))
    assert (outcome.fixed, outcome.changes) == ((), ())
    assert outcome.refused == ((finding, "not fixable: it would write a secret value"),)
    clean = apply.plan([finding], bounds, frozenset())
    assert clean.changes[0].after == b"server:\n  env: {HF_TOKEN: " + token.encode() + b"}\n"


def test_a_value_inputs_need_different_and_files_not_named_are_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    (tmp_path / ".git").mkdir()
    shutil.copytree(FIXTURES / "helm" / "chart" / "vllm", tmp_path / "vllm")
    monkeypatch.chdir(tmp_path)
    before = {p.name: p.read_bytes() for p in (tmp_path / "vllm").glob("values*.yaml")}
    result = run_line(["lint", "--no-config", "--fix", "vllm/values.yaml"])
    assert result.stderr.splitlines() == [
        "vllm/values-prod.yaml:9:3: vllm-kv/max-num-seqs-exceeds-kv-cache: not fixable: "
        "outside the inputs",
        "vllm/values.yaml:20:3: vllm-kv/max-num-seqs-exceeds-kv-cache: not fixable: no "
        "unique fix (the inputs that share this value need different ones)",
        "vllm/values.yaml:20:3: vllm-kv/max-num-seqs-exceeds-kv-cache: not fixable: no "
        "unique fix (the inputs that share this value need different ones)",
        "fixed 0, 4 left: 1 no unique fix, 3 not fixable",
    ]
    assert {p.name: p.read_bytes() for p in (tmp_path / "vllm").glob("values*.yaml")} == before


def test_a_lint_without_fix_imports_neither_the_fixes_nor_ruamel() -> None:
    script = (
        "import json, sys\n"
        "from linter.cli import main\n"
        f"code = main(['lint', '--no-config', {str(FIX / 'max-num-seqs.yaml')!r}])\n"
        "print(json.dumps([code, [m for m in sys.modules if m.startswith(('linter.fix', "
        "'ruamel'))]]), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert json.loads(done.stderr.strip().splitlines()[-1]) == [1, []]


def test_a_file_that_cannot_be_written_is_reported_and_the_others_are_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(FIX / "max-num-seqs.yaml", tmp_path / "seqs.yaml")
    shutil.copyfile(FIX / "readiness.yaml", tmp_path / "readiness.yaml")
    real = atomic_write.replace_bytes

    def replace(path: str, data: bytes) -> None:
        if path == "seqs.yaml":  # a read-only folder, as the user running it sees it
            raise PermissionError(13, "Permission denied", path)
        real(path, data)

    monkeypatch.setattr(atomic_write, "replace_bytes", replace)
    result = run_line(["lint", "--no-config", "--fix", "seqs.yaml", "readiness.yaml"])
    assert result.stderr.splitlines() == [
        "readiness.yaml:10:9: fixed readiness/missing",
        "seqs.yaml:20:15: vllm-kv/max-num-seqs-exceeds-kv-cache: not fixable: the file "
        "could not be written (Permission denied)",
        "fixed 1, 6 left: 5 no unique fix, 1 not fixable",
    ]
    assert (tmp_path / "readiness.yaml").read_bytes() == (FIX / "readiness.fixed.yaml").read_bytes()
    assert (tmp_path / "seqs.yaml").read_bytes() == (FIX / "max-num-seqs.yaml").read_bytes()


def test_a_file_ruamel_cannot_load_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(FIX / "placeholder.yaml", tmp_path / "placeholder.yaml")
    result = run_line(["lint", "--no-config", "--fix", "placeholder.yaml"])
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            "placeholder.yaml:11:11: readiness/missing: not fixable: the file does not read "
            "as plain YAML (line 16: found unhashable key)",
            "fixed 0, 3 left: 2 no unique fix, 1 not fixable",
        ],
    )
    assert (tmp_path / "placeholder.yaml").read_bytes() == (FIX / "placeholder.yaml").read_bytes()
