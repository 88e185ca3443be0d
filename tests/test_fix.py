"""``servelint lint --fix`` and ``--diff`` (docs/fix.md): each fix against a byte-exact
expected file (tests/fixtures/fix/<case>.fixed.yaml), a second run changing nothing, the
diff, the exit code of what remains, and the Secret printed but never its value."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from gitops_repo import checkout

FIX = Path(__file__).parent / "fixtures" / "fix"
GITOPS = Path(__file__).parent / "fixtures" / "gitops" / "repo"

Run = Callable[..., Result]

# (case, exit code after --fix, the report's lines on standard error)
CASES = [
    (
        "max-model-len-values",
        0,
        [
            "max-model-len-values.yaml:14:9: fixed vllm-kv/one-sequence-does-not-fit",
            "fixed 1, 1 left: 1 no unique fix",
        ],
    ),
    (
        "max-model-len-crlf",
        0,
        [
            "max-model-len-crlf.yaml:16:11: fixed vllm-kv/one-sequence-does-not-fit",
            "fixed 1, 2 left: 2 no unique fix",
        ],
    ),
    (
        "max-model-len-shell",
        0,
        [
            "max-model-len-shell.yaml:13:38: fixed vllm-kv/one-sequence-does-not-fit",
            "fixed 1, 2 left: 2 no unique fix",
        ],
    ),
    (
        "max-num-seqs",
        0,
        [
            "max-num-seqs.yaml:20:15: fixed vllm-kv/max-num-seqs-exceeds-kv-cache",
            "fixed 1, 2 left: 2 no unique fix",
        ],
    ),
    (
        "flag-rename",
        1,
        [
            "flag-rename.yaml:12:46: fixed vllm/flag-not-accepted",
            "flag-rename.yaml:19:15: fixed vllm/flag-not-accepted",
            "flag-rename.yaml:19:15: vllm/flag-not-accepted: not fixable: --reasoning-parser "
            "does not take --enable-reasoning's place one to one",
            "fixed 2, 5 left: 4 no unique fix, 1 not fixable",
        ],
    ),
    (
        "sglang-flag",
        0,
        [
            "sglang-flag.yaml:12:96: fixed sglang/flag-not-accepted",
            "fixed 1, 1 left: 1 no unique fix",
        ],
    ),
    (
        "size-limit",
        0,
        [
            "size-limit.yaml:21:11: fixed kubernetes-memory/memory-volume-without-size-limit",
            "size-limit.yaml:23:11: fixed kubernetes-memory/memory-volume-without-size-limit",
            "fixed 2, 1 left: 1 no unique fix",
        ],
    ),
    (
        "readiness",
        0,
        ["readiness.yaml:10:9: fixed readiness/missing", "fixed 1, 1 left: 1 no unique fix"],
    ),
    (
        "startup",
        0,
        [
            "startup.yaml:15:11: fixed probes/liveness-budget-below-load-time",
            "fixed 1, 3 left: 3 no unique fix",
        ],
    ),
    (
        "secret",
        0,
        [
            "secret.yaml:16:15: fixed secrets/literal-secret",
            "secret.yaml:17:36: fixed secrets/literal-secret",
            "create the Secret hf-token with the key HF_TOKEN before applying (the value is "
            "never written: kubectl create secret generic hf-token --from-literal=HF_TOKEN=...)",
            "create the Secret vllm-api-key with the key VLLM_API_KEY before applying (the "
            "value is never written: kubectl create secret generic vllm-api-key "
            "--from-literal=VLLM_API_KEY=...)",
            "fixed 2, 1 left: 1 no unique fix",
        ],
    ),
]


def _copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    target = tmp_path / f"{case}.yaml"
    shutil.copyfile(FIX / f"{case}.yaml", target)
    return target


@pytest.mark.parametrize(("case", "code", "report"), CASES, ids=[c[0] for c in CASES])
def test_fix_writes_the_expected_bytes_and_a_second_run_changes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    run_line: Run,
    case: str,
    code: int,
    report: list[str],
) -> None:
    target = _copy(tmp_path, monkeypatch, case)
    result = run_line(["lint", "--no-config", "--fix", target.name])
    assert (result.exit_code, result.stderr.splitlines()) == (code, report)
    assert target.read_bytes() == (FIX / f"{case}.fixed.yaml").read_bytes()
    again = run_line(["lint", "--no-config", "--fix", target.name])
    assert target.read_bytes() == (FIX / f"{case}.fixed.yaml").read_bytes()
    assert again.exit_code == code
    assert again.stderr.splitlines()[-1] == report[-1].replace(report[-1].split(",")[0], "fixed 0")


def test_the_secret_s_value_is_in_no_output_and_not_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    target = _copy(tmp_path, monkeypatch, "secret")
    token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    assert token in target.read_text(encoding="utf-8")
    shown = run_line(["lint", "--no-config", "--diff", target.name])
    result = run_line(["lint", "--no-config", "--fix", target.name])
    assert result.exit_code == 0
    assert token not in shown.stdout + shown.stderr + result.stdout + result.stderr
    assert "-              value: ****   # copied from the UI\n" in shown.stdout
    assert token not in target.read_text(encoding="utf-8")


def test_diff_prints_the_unified_diff_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    target = _copy(tmp_path, monkeypatch, "max-model-len-values")
    os.utime(target, (1_000_000_000, 1_000_000_000))
    before = target.read_bytes()
    result = run_line(["lint", "--no-config", "--diff", target.name])
    assert result.exit_code == 1  # nothing written: the error is still there
    assert result.stdout == (
        "--- a/max-model-len-values.yaml\n"
        "+++ b/max-model-len-values.yaml\n"
        "@@ -11,5 +11,5 @@\n"
        "         - matchExpressions:\n"
        "             - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L4]}\n"
        "       vllmConfig:\n"
        '-        maxModelLen: 131072        # "as long as the model allows"\n'
        '+        maxModelLen: 35120         # "as long as the model allows"\n'
        "         gpuMemoryUtilization: 0.90\n"
    )
    assert result.stderr.splitlines() == [
        "max-model-len-values.yaml:14:9: would fix vllm-kv/one-sequence-does-not-fit",
        "would fix 1, 1 left: 1 no unique fix",
    ]
    assert target.read_bytes() == before
    assert os.stat(target).st_mtime == 1_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", target.name]


def test_diff_marks_a_last_line_without_newline_as_diff_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    target = _copy(tmp_path, monkeypatch, "readiness")
    result = run_line(["lint", "--no-config", "--diff", target.name])
    assert result.stdout.endswith(
        "-            nvidia.com/gpu: 1\n"
        "\\ No newline at end of file\n"
        "+            nvidia.com/gpu: 1\n"
        "+        readinessProbe:\n"
        "+          httpGet:\n"
        "+            path: /health\n"
        "+            port: 8080\n"
        "+          periodSeconds: 5\n"
        "\\ No newline at end of file\n"
    )


def test_fix_keeps_the_file_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    target = _copy(tmp_path, monkeypatch, "max-num-seqs")
    target.chmod(0o640)
    assert run_line(["lint", "--no-config", "--fix", target.name]).exit_code == 0
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", target.name]


def test_the_exit_code_is_that_of_what_remains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    target = _copy(tmp_path, monkeypatch, "max-model-len-shell")
    before = run_line(["lint", "--no-config", target.name])
    assert before.exit_code == 1
    assert run_line(["lint", "--no-config", "--fix", target.name]).exit_code == 0
    assert run_line(["lint", "--no-config", target.name]).exit_code == 0


def test_fix_and_diff_exclude_each_other(run_line: Run) -> None:
    result = run_line(["lint", "--fix", "--diff", str(FIX / "readiness.yaml")])
    assert result.exit_code == 2
    assert "--fix writes the fixes and --diff only shows them: give one" in result.stderr


@pytest.mark.parametrize(
    ("case", "report"),
    [
        (
            "helmrelease",
            [
                "fix/helmrelease.yaml:15:7: fixed vllm-kv/one-sequence-does-not-fit",
                "fixed 1, 2 left: 2 no unique fix",
            ],
        ),
        (
            "application",
            [
                "fix/application.yaml:18:11: fixed vllm-kv/one-sequence-does-not-fit",
                "fixed 1, 2 left: 2 no unique fix",
            ],
        ),
    ],
    ids=["flux-helmrelease-values", "argo-application-literal-block"],
)
def test_inline_values_of_gitops_wrappers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run, case: str, report: list[str]
) -> None:
    root = checkout(tmp_path, monkeypatch, GITOPS)
    (root / "fix").mkdir()
    shutil.copyfile(FIX / "gitops" / f"{case}.yaml", root / "fix" / f"{case}.yaml")
    result = run_line(["lint", "--no-config", "--fix", f"fix/{case}.yaml"])
    assert (result.exit_code, result.stderr.splitlines()) == (0, report)
    fixed = (root / "fix" / f"{case}.yaml").read_bytes()
    assert fixed == (FIX / "gitops" / f"{case}.fixed.yaml").read_bytes()


def test_values_in_a_folded_string_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    root = checkout(tmp_path, monkeypatch, GITOPS)
    (root / "fix").mkdir()
    source = FIX / "gitops" / "application-folded.yaml"
    shutil.copyfile(source, root / "fix" / source.name)
    result = run_line(["lint", "--no-config", "--fix", f"fix/{source.name}"])
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            "fix/application-folded.yaml:15:7: vllm-kv/one-sequence-does-not-fit: not "
            "fixable: the value is inside a YAML string that is not a literal block (|)",
            "fixed 0, 2 left: 1 no unique fix, 1 not fixable",
        ],
    )
    assert (root / "fix" / source.name).read_bytes() == source.read_bytes()


def test_a_kustomize_patch_is_fixed_where_it_sets_the_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    (tmp_path / ".git").mkdir()
    shutil.copytree(FIX / "kustomize", tmp_path / "kustomize")
    monkeypatch.chdir(tmp_path / "kustomize")
    base = Path("base/deployment.yaml").read_bytes()
    result = run_line(["lint", "--no-config", "--fix", "overlays/long"])
    assert (result.exit_code, result.stderr.splitlines()) == (
        0,
        [
            "overlays/long/context.yaml:13:15: fixed vllm-kv/one-sequence-does-not-fit",
            "fixed 1, 3 left: 3 no unique fix",
        ],
    )
    patched = Path("overlays/long/context.yaml").read_bytes()
    assert patched == (FIX / "kustomize-context.fixed.yaml").read_bytes()
    assert Path("base/deployment.yaml").read_bytes() == base


@pytest.mark.parametrize("case", [c[0] for c in CASES if c[0] != "max-model-len-crlf"])
def test_every_fix_keeps_crlf_line_endings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run, case: str
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    target = tmp_path / f"{case}.yaml"
    target.write_bytes((FIX / f"{case}.yaml").read_bytes().replace(b"\n", b"\r\n"))
    run_line(["lint", "--no-config", "--fix", target.name])
    expected = (FIX / f"{case}.fixed.yaml").read_bytes().replace(b"\n", b"\r\n")
    assert target.read_bytes() == expected


def test_max_model_len_is_the_number_the_message_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Run
) -> None:
    target = _copy(tmp_path, monkeypatch, "max-model-len-values")
    report = run_line(["lint", "--no-config", "--format", "json", target.name])
    [finding] = [
        f
        for f in json.loads(report.stdout)["findings"]
        if f["rule"] == "vllm-kv/one-sequence-does-not-fit"
    ]
    assert "lower max_model_len to about 35120, what fits" in finding["message"]
    run_line(["lint", "--no-config", "--fix", target.name])
    assert b"        maxModelLen: 35120 " in target.read_bytes()
