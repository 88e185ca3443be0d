"""Secrets: a literal secret in an input is a finding, and no report ever shows one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from report_lines import report_lines

from linter.cli import cli

SECRETS = Path(__file__).parent / "fixtures" / "secrets"
TOKENS = [
    "sk-Zq81kLmN0pQrStUvWxYz2345abcd",
    "hf_AbCdEfGhIjKlMnOpQrStUvWx12",
    "local-dev-key-8842",
    "hf_ZyXwVuTsRqPoNmLkJiHgFeDc98",
    "hf_QwErTyUiOpAsDfGhJkLzXcVb55",
    "hf_MnBvCxZlKjHgFdSaPoIuYtRe77",
    "Tr0ub4dor-and-3",
]
ADVICE = (
    "is committed: anyone who can read the repository can use it; keep it in a "
    "Kubernetes Secret and reference it (env valueFrom.secretKeyRef, or the chart's "
    "existing-Secret setting); rotate the exposed value"
)


def _lint(cwd: Path, *args: str) -> tuple[int, str]:
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(
            cli, ["lint", "--no-config", *args], catch_exceptions=False, env={"NO_COLOR": "1"}
        )
    finally:
        os.chdir(previous)
    return result.exit_code, "".join(f"{line}\n" for line in report_lines(result.output))


def test_literal_secrets_are_flagged_and_references_and_placeholders_are_not() -> None:
    code, output = _lint(
        SECRETS, "fires.yaml", "values-fires.yaml", "quiet.yaml", "values-quiet.yaml"
    )
    rule = "error secrets/literal-secret literal secret in"
    assert (code, output) == (
        1,
        (
            "fires.yaml:9:11: warning readiness/missing the vLLM container vllm has no "
            "readinessProbe: Kubernetes counts it ready as soon as it starts, so the Service "
            "sends requests while the model is still loading (and after every restart), and "
            "they fail; add a readinessProbe with httpGet on /health port 8000\n"
            "fires.yaml:10:11: info diagnostics/prompts-logged-by-default vLLM 0.8.5 logs every "
            "request with its prompt unless --disable-log-requests is given (0.10.1 made it "
            "opt-in): user content reaches the log pipeline and whoever reads it; add "
            "--disable-log-requests\n"
            "fires.yaml:10:11: warning gpu/server-without-gpu container vllm runs a GPU build of "
            "vLLM but requests no GPU: on a node without one it fails to start, and on a GPU "
            "node with NVIDIA's default runtime it may take every GPU of the node unaccounted; "
            "request the GPUs it uses (nvidia.com/gpu)\n"
            f"fires.yaml:11:78: {rule} '--api-key' {ADVICE}\n"
            f"fires.yaml:14:15: {rule} 'HF_TOKEN' {ADVICE}\n"
            f"fires.yaml:16:15: {rule} 'OPENAI_API_KEY' {ADVICE}\n"
            f"fires.yaml:19:33: {rule} '--hf-token' {ADVICE}\n"
            f"fires.yaml:26:3: {rule} 'token' {ADVICE}\n"
            "quiet.yaml:9:11: warning readiness/missing the vLLM container vllm has no "
            "readinessProbe: Kubernetes counts it ready as soon as it starts, so the Service "
            "sends requests while the model is still loading (and after every restart), and "
            "they fail; add a readinessProbe with httpGet on /health port 8000\n"
            "quiet.yaml:10:11: info diagnostics/prompts-logged-by-default vLLM 0.8.5 logs every "
            "request with its prompt unless --disable-log-requests is given (0.10.1 made it "
            "opt-in): user content reaches the log pipeline and whoever reads it; add "
            "--disable-log-requests\n"
            "quiet.yaml:10:11: warning gpu/server-without-gpu container vllm runs a GPU build of "
            "vLLM but requests no GPU: on a node without one it fails to start, and on a GPU "
            "node with NVIDIA's default runtime it may take every GPU of the node unaccounted; "
            "request the GPUs it uses (nvidia.com/gpu)\n"
            "quiet.yaml:20:15: warning supply-chain/token-placeholder-in-env "
            "HUGGING_FACE_HUB_TOKEN is given as a plain value (a placeholder): whoever deploys "
            "this fills the real token into the file and into Git; take it from a Secret "
            "(valueFrom.secretKeyRef, or envFrom)\n"
            f"values-fires.yaml:2:3: {rule} 'hfToken' {ADVICE}\n"
            f"values-fires.yaml:4:3: {rule} 'password' {ADVICE}\n"
            "7 errors, 5 warnings, 2 info in 4 files\n"
        ),
    )
    assert not any(token in output for token in TOKENS)


def test_secret_manifest_with_literal_data_is_flagged(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\n"
        "data:\n  config.json: eyJwYXNzd29yZCI6Imh1bnRlcjIifQ==\n"
    )
    assert _lint(tmp_path, "s.yaml") == (
        1,
        (
            "s.yaml:5:3: error secrets/literal-secret Secret manifest with literal data "
            "'config.json' is committed (base64 is not encryption); create the Secret outside "
            "the repository or commit it encrypted (Sealed Secrets, SOPS, External Secrets)\n"
            "1 error, 0 warnings, 0 info in 1 file\n"
        ),
    )


def test_the_check_runs_with_the_builtin_policies_only() -> None:
    assert _lint(SECRETS, "--no-builtin", "fires.yaml") == (
        0,
        "0 errors, 0 warnings, 0 info in 1 file\n",
    )


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_no_format_shows_a_secret_value_even_when_a_rule_quotes_it(
    tmp_path: Path, fmt: str
) -> None:
    report = tmp_path / f"report.{fmt}"
    code, output = _lint(
        SECRETS,
        "--policy-dir",
        "policies",
        "--format",
        f"{fmt}:{report}",
        "fires.yaml",
        "values-fires.yaml",
    )
    text = report.read_text()
    assert code == 1
    assert "quote/env" in text or "quote" in text
    for token in TOKENS:
        assert token not in text
        assert token not in output
    # What the careless rule quoted is there, masked.
    assert "HF_TOKEN is ****" in text
    assert "--api-key **** / sh -c serve --hf-token=**** --port 8000" in text


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        # documentation examples: a vendor prefix with less than a token behind it
        ("nvapi-NVKEY", False),
        ("hf_TOKEN", False),
        ("sk-REPLACE", False),
        # filled in when rendered or applied: the committed text is a template
        ("ngc-api-${name}", False),
        ("$(NGC_API_KEY)", False),
        ("{{ .Values.apiKey }}", False),
        ("prefix-{{ .Values.apiKey }}", False),
        # Compose's required variable, split at its spaces by the argument reader
        ('${NVIDIA_API_KEY:?"NVIDIA_API_KEY', False),
        # real-looking credentials stay literal
        ("nvapi-" + "a1B2c3D4e5" * 6 + "Zz", True),
        ("hf_AbCdEfGhIjKlMnOpQrStUvWx12", True),
        ("Tr0ub4dor-and-3", True),
    ],
)
def test_examples_and_templates_are_not_literal_secrets(value: str, literal: bool) -> None:
    from linter.secrets.literal import is_literal

    assert is_literal(value) is literal


def test_nim_examples_draw_no_secret_finding(tmp_path: Path) -> None:
    """NGC keys written as documentation examples, and a Secret's name built by the
    deploy script, are not committed secrets (NVIDIA's NIM samples do both)."""
    (tmp_path / "nim.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nim}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: nim\n"
        "          image: nvcr.io/nim/google/gemma-3-27b-it:1.0.0\n"
        "          env:\n            - name: NGC_API_KEY\n              value: nvapi-NVKEY\n"
        "---\nimage: {repository: nvcr.io/nim/meta/llama3-8b-instruct, tag: 1.0.3}\n"
        "model:\n  ngcAPISecret: ngc-api-${name}\n  ngcAPIKey: ${ngc_api_key}\n"
    )
    code, output = _lint(tmp_path, "nim.yaml")
    assert "secrets/literal-secret" not in output
    assert code == 0


def test_a_compose_required_variable_is_not_a_literal_secret(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  nim:\n    image: nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3\n"
        "    environment:\n"
        '      - NGC_API_KEY=${NVIDIA_API_KEY:?"NVIDIA_API_KEY is required"}\n'
    )
    code, output = _lint(tmp_path, "docker-compose.yml")
    assert "secrets/" not in output
    assert code == 0


def test_a_common_password_in_a_url_is_weak_not_a_leaked_secret(tmp_path: Path) -> None:
    # A Compose stack's local database: postgres:postgres is guessed, not leaked.
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  app:\n    image: example/app:1.0\n    environment:\n"
        "      DATABASE_URL: postgresql://postgres:postgres@postgres:5432/app\n"
    )
    code, output = _lint(tmp_path, "docker-compose.yml")
    assert (code, output.splitlines()[0]) == (
        0,
        "docker-compose.yml:5:7: warning secrets/weak-secret weak secret password in the URL "
        "of 'DATABASE_URL' is committed: a value this short or common is guessed in a few "
        "tries, and reports do not mask it (masking it would garble every word that contains "
        "it); use a long random value, keep it in a Kubernetes Secret and reference it (env "
        "valueFrom.secretKeyRef, or the chart's existing-Secret setting)",
    )
