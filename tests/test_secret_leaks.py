"""No secret reaches any output: not through a policy that quotes a whole document, not
through a parser's error message, not in an escaped form; and secrets are recognised by
their shape (Bearer, Basic, AKIA, JWT, tokens, passwords in URLs) as well as by name."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from linter.cli import cli
from linter.secrets import patterns
from linter.secrets.redact import is_placeholder, scrub

LEAKS = Path(__file__).parent / "fixtures" / "security" / "leaks"
SECRETS = [
    "Sup3r'S3cr\\et-value",
    "decoded-secret-text",
    "ZGVjb2RlZC1zZWNyZXQtdGV4dA==",
    "Pw0rd-x9k2",
    "hunter2-correct-horse",
    "AKIAZ7Q4EXAMPLEK3Y9D",
    "Xyour9sampleTodo8f7e6d5c",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZXJ2ZWxpbnQifQ.c2lnbmF0dXJl",
    "Sup3rS3cretPbtxt",
]
FORMATS = ("json", "sarif", "junit", "github", "html")
ADVICE = (
    "anyone who can read the repository can use it; keep it in a Kubernetes Secret and "
    "reference it (env valueFrom.secretKeyRef, or the chart's existing-Secret setting); "
    "rotate the exposed value"
)


def _forms(secret: str) -> list[str]:
    """The secret as written and as JSON, Python and YAML would quote it."""
    return [secret, json.dumps(secret)[1:-1], repr(secret)[1:-1], secret.replace("'", "''")]


def _run(tmp_path: Path) -> tuple[int, dict[str, str]]:
    previous = Path.cwd()
    os.chdir(LEAKS)
    try:
        outputs = [f"--format={fmt}:{tmp_path / fmt}" for fmt in FORMATS]
        result = CliRunner().invoke(
            cli,
            [
                "lint",
                "--no-config",
                "--policy-dir",
                "policies",
                *outputs,
                "--format",
                "text",
                "secret.yaml",
                "deploy.yaml",
                "config.pbtxt",
            ],
            catch_exceptions=False,
            env={"NO_COLOR": "1"},
        )
    finally:
        os.chdir(previous)
    reports = {fmt: (tmp_path / fmt).read_text() for fmt in FORMATS}
    reports["text"] = result.output
    return result.exit_code, reports


def test_no_format_shows_a_secret_in_any_form(tmp_path: Path) -> None:
    code, reports = _run(tmp_path)
    assert code == 1
    for name, text in reports.items():
        for secret in SECRETS:
            for form in _forms(secret):
                assert form not in text, (name, form)
                assert html.escape(form) not in text, (name, form)
    lines = reports["text"].splitlines()
    # the policy that quotes whole documents still reports, masked
    assert "secret.yaml:1:1: info team-dump/quotes-everything saw {apiVersion: v1" in "\n".join(
        lines
    )
    # The two warnings: the deployment's server has no readiness probe and requests no GPU.
    assert lines[-1] == "8 errors, 2 warnings, 2 info in 3 files"


def test_secrets_are_found_by_shape_url_and_name(tmp_path: Path) -> None:
    _, reports = _run(tmp_path)
    found = [line for line in reports["text"].splitlines() if "literal" in line]
    assert found == [
        f"deploy.yaml:13:15: error secrets/literal-secret literal password in the URL of "
        f"'REDIS_URL' is committed: {ADVICE}",
        f"deploy.yaml:15:15: error secrets/literal-secret literal secret in 'DB_PASS' is "
        f"committed: {ADVICE}",
        f"deploy.yaml:17:15: error secrets/literal-secret literal secret in "
        f"'AWS_ACCESS_KEY_ID' is committed: {ADVICE}",
        f"deploy.yaml:19:15: error secrets/literal-secret literal secret in 'HF_TOKEN' is "
        f"committed: {ADVICE}",
        f"deploy.yaml:21:15: error secrets/literal-secret literal secret in "
        f"'UPSTREAM_HEADER' is committed: {ADVICE}",
        "secret.yaml:7:3: error secrets/literal-secret Secret manifest with literal "
        "stringData 'config' is committed (base64 is not encryption); create the Secret "
        "outside the repository or commit it encrypted (Sealed Secrets, SOPS, External "
        "Secrets)",
        "secret.yaml:9:3: error secrets/literal-secret Secret manifest with literal data "
        "'blob' is committed (base64 is not encryption); create the Secret outside the "
        "repository or commit it encrypted (Sealed Secrets, SOPS, External Secrets)",
    ]


def test_a_triton_syntax_error_does_not_quote_the_value(tmp_path: Path) -> None:
    _, reports = _run(tmp_path)
    [line] = [line for line in reports["text"].splitlines() if line.startswith("config.pbtxt")]
    assert line == (
        "config.pbtxt:3:56: error syntax invalid Triton model configuration: String missing "
        "ending quote: '(a string on that line)'"
    )


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Authorization: Bearer abcdef0123456789", "Authorization: Bearer ****"),
        (
            "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='",
            "curl -H 'Authorization: Basic ****'",
        ),
        ("key AKIAIOSFODNN7EXAMPLE in use", "key **** in use"),
        ("session ASIAZ7Q4EXAMPLEK3Y9D", "session ****"),
        ("hf_AbCdEfGhIjKlMnOpQrStUvWx12 and sk-Zq81kLmN0pQrStUvWxYz2345abcd", "**** and ****"),
        ("ghp_AbCdEfGhIjKlMnOpQrStUvWx12", "****"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig_part", "jwt ****"),
        ("redis://:pw@redis:6379", "redis://:****@redis:6379"),
        ("postgres://app:s3cr%40t@db:5432/app", "postgres://app:****@db:5432/app"),
        # not secrets
        ("basic authentication is off", "basic authentication is off"),
        ("Bearer tokens expire", "Bearer tokens expire"),
        ("http://example.com/a@b and user@host", "http://example.com/a@b and user@host"),
        ("AKIA is the prefix of an access key id", "AKIA is the prefix of an access key id"),
    ],
)
def test_shapes_are_masked_wherever_they_appear(text: str, masked: str) -> None:
    assert patterns.mask_shapes(text) == masked
    assert scrub(text, ()) == masked


@pytest.mark.parametrize(
    ("value", "placeholder"),
    [
        ("<your-token>", True),
        ("${HF_TOKEN}", True),
        ("$(HF_TOKEN)", True),
        ("{{ .Values.token }}", True),
        ("your-token-here", True),
        ("CHANGE_ME", True),
        ("REPLACE_WITH_YOUR_KEY", True),
        ("insert-your-huggingface-token-here", True),
        ("hf_xxxxxxxxxxxx", True),
        ("********", True),
        ("none", True),
        # real values that merely contain a placeholder word
        ("Xyour9sampleTodo8f7e6d5c", False),
        ("todo1234abcd", False),
        ("sample-7f8a9b", False),
        ("myexampletoken2024", False),
    ],
)
def test_a_placeholder_is_a_whole_value(value: str, placeholder: bool) -> None:
    assert is_placeholder(value) is placeholder


@pytest.mark.parametrize(
    ("name", "secret"),
    [("DB_PASS", True), ("db_pwd", True), ("PWD", False), ("pass", False), ("bypass", False)],
)
def test_password_names(name: str, secret: bool) -> None:
    assert patterns.is_secret_name(name) is secret


def test_escaped_forms_of_a_value_are_scrubbed() -> None:
    value = "Sup3r'S3cr\\et"
    for form in _forms(value):
        assert scrub(f"x {form} y", {value}) == "x **** y"


# Pieces of every shape the patterns know, so that generated texts hold near-misses and
# real matches alike.
_PIECES = st.sampled_from(
    [
        "hf_", "sk-", "ghp_", "gho_", "github_pat_", "AKIA", "ASIA", "eyJ", "://", ":", "@",
        "/", ".", "-", "_", " ", "Bearer ", "basic ", "Basic%20", "redis", "x", "Z", "9",
        "AbCdEfGhIjKlMnOpQrStUvWx12", "ABCDEFGHIJKLMNOP", "0123456789", "gh", "ey", "AK",
        "hf_AbCdEfGhIjKlMnOpQrStUvWx12", "sk-Zq81kLmN0pQrStUvWxYz2345abcd",
        "ghp_AbCdEfGhIjKlMnOpQrStUvWx12", "github_pat_AbCdEfGhIjKlMnOpQrStUvWx12",
        "AKIAIOSFODNN7EXAMPLE", "ASIAZ7Q4EXAMPLEK3Y9D",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig", "redis://:pw@redis",
        "postgres://app:s3cr%40t@db", "Bearer abcdef0123456789",
    ]
)  # fmt: skip


def _mask_by_patterns(text: str) -> str:
    """What ``mask_shapes`` computes, every pattern applied to every text."""
    text = patterns._TOKEN_IN_TEXT.sub(patterns.MASK, text)
    text = patterns._AUTH_SCHEME.sub(lambda m: f"{m['scheme']}{m['sep']}{patterns.MASK}", text)
    return patterns._URL_PASSWORD.sub(lambda m: f"{m['head']}{patterns.MASK}", text)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES | st.text(max_size=4), max_size=24).map("".join))
def test_the_literal_tests_before_the_patterns_change_no_result(text: str) -> None:
    # A text is searched for tokens only when it holds a token's literal start, and for
    # URL passwords only when it holds '://': the same result as every pattern everywhere.
    assert patterns.mask_shapes(text) == (_mask_by_patterns(text) if text else text)
    found = [m["value"] for m in patterns._URL_PASSWORD.finditer(text)]
    found += [m["value"] for m in patterns._AUTH_SCHEME.finditer(text)]
    found += [m.group(0) for m in patterns._TOKEN_IN_TEXT.finditer(text)]
    assert patterns.embedded_credentials(text) == list(dict.fromkeys(found))
