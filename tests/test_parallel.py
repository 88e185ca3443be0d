"""Linting many files with worker processes gives exactly the single-process result."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from linter.cli import main
from linter.run import parallel

FIXTURES = Path(__file__).parent / "fixtures"
SECRET = "hf_abcdefghijklmnopqrstuvwxyz0123"


def _corpus(root: Path) -> Path:
    """Sixty inputs: fixture manifests and values copied many times, one with a literal
    token (redacted in every file's findings) and one that is not YAML."""
    sources = sorted(
        p
        for p in (FIXTURES / "vllm").rglob("*.yaml")
        if "templates" not in p.parts and p.name != "Chart.yaml"
    )
    assert sources
    for index in range(60):
        source = sources[index % len(sources)]
        shutil.copy(source, root / f"{index:02d}-{source.name}")
    (root / "60-token.yaml").write_text(
        "env:\n  - name: HF_TOKEN\n    value: " + SECRET + "\n", encoding="utf-8"
    )
    (root / "61-broken.yaml").write_text("a: [1, 2\n", encoding="utf-8")
    return root


def _lint(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["lint", "--no-config", "--format", "json", str(root), *extra])
    return code, capsys.readouterr().out


def test_workers_give_the_single_process_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _corpus(tmp_path)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    used: list[int] = []
    collect = parallel.collect
    monkeypatch.setattr(parallel, "collect", lambda *a: used.append(a[-1]) or collect(*a))
    in_workers = _lint(root, capsys)
    assert used == [2]
    monkeypatch.setattr(parallel, "MIN_FILES", 10_000)
    alone = _lint(root, capsys)
    assert in_workers == alone
    assert in_workers[0] == 1
    report = json.loads(in_workers[1])
    assert len(report["findings"]) > 60
    assert SECRET not in in_workers[1]
    assert any(f["rule"] == "syntax" for f in report["findings"])


def test_only_builtin_policies_without_chart_context_use_workers(tmp_path: Path) -> None:
    from linter.policy import load_policies

    builtin = load_policies()
    many = [object()] * 200
    assert parallel.workers_for(builtin, many[:10], False) == 0  # type: ignore[arg-type]
    assert parallel.workers_for(builtin, many, True) == 0  # type: ignore[arg-type]
    user = load_policies([str(FIXTURES / "helm" / "policies")], builtin=False)
    assert user and parallel.workers_for(user, many, False) == 0  # type: ignore[arg-type]


def test_standard_input_keeps_the_run_in_one_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    root = _corpus(tmp_path)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(
        "sys.stdin",
        io.TextIOWrapper(
            io.BytesIO(b"env:\n  - name: HF_TOKEN\n    value: " + SECRET.encode() + b"\n")
        ),
    )
    code = main(["lint", "--no-config", "--format", "json", str(root), "-"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert any(
        f["file"] == "<stdin>" and f["rule"] == "secrets/literal-secret" for f in report["findings"]
    )
