"""Scenario 4, an honest exception: suppressed with a reason until a date, then back."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

VLLM_POLICY = Path(__file__).parent / "fixtures" / "authoring" / "policies" / "vllm.yaml"
STAGING = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-staging
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          args:
            - --model=meta-llama/Llama-3.1-8B-Instruct
            # servelint: ignore[vllm/enforce-eager] reason="profiling INC-2231" until=2026-12-31
            - --enforce-eager
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "vllm.yaml").write_text(VLLM_POLICY.read_text())
    (tmp_path / ".servelint.yaml").write_text(
        textwrap.dedent("""\
        builtin: false
        policyDirs: [policies]
        """)
    )
    (tmp_path / "deploy" / "staging").mkdir(parents=True)
    (tmp_path / "deploy" / "staging" / "vllm.yaml").write_text(STAGING)
    return tmp_path


def test_before_the_date_the_finding_is_shown_as_suppressed(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    result = run_line(["lint", "--today", "2026-11-30", "deploy"])
    assert (result.exit_code, result.output) == (
        0,
        (
            "deploy/staging/vllm.yaml:14:15: error vllm/enforce-eager --enforce-eager disables CUDA "
            "graphs [suppressed (inline): profiling INC-2231, until 2026-12-31]\n"
            "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file\n"
        ),
    )
    result = run_line(["lint", "--today", "2026-12-31", "--format", "json", "deploy"])
    assert result.exit_code == 0
    [finding] = json.loads(result.output)["findings"]
    assert (finding["suppressed"], finding["suppression"]) == (
        True,
        {"reason": "profiling INC-2231", "until": "2026-12-31", "source": "inline"},
    )


def test_after_the_date_it_fires_again_and_the_expiry_is_reported(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    result = run_line(["lint", "--today", "2027-01-01", "deploy"])
    assert (result.exit_code, result.output) == (
        1,
        (
            "deploy/staging/vllm.yaml:13:13: warning suppression/expired suppression of "
            "'vllm/enforce-eager' expired on 2026-12-31 (profiling INC-2231); its findings count "
            "again\n"
            "deploy/staging/vllm.yaml:14:15: error vllm/enforce-eager --enforce-eager disables CUDA "
            "graphs\n"
            "1 error, 1 warning, 0 info in 1 file\n"
        ),
    )


def test_when_the_flag_goes_the_leftover_comment_is_reported(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    staging = repo / "deploy" / "staging" / "vllm.yaml"
    staging.write_text(STAGING.replace("--enforce-eager", "--max-model-len=8192"))
    result = run_line(["lint", "--today", "2026-11-30", "deploy"])
    assert (result.exit_code, result.output) == (
        0,
        (
            "deploy/staging/vllm.yaml:13:13: warning suppression/unused suppression of "
            "'vllm/enforce-eager' matches no finding; remove it\n"
            "0 errors, 1 warning, 0 info in 1 file\n"
        ),
    )
