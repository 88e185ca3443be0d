"""The one predicate that decides which names hold secrets, for lint and drift alike."""

from __future__ import annotations

import pytest

from linter.secrets.patterns import is_secret_name


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "OPENAI_API_KEY",
        "--api-key",
        "apiKey",
        "password",
        "clientSecret",
        "token",
        "--hf-token",
        "AWS_SECRET_ACCESS_KEY",
        "private_key",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name) is True


@pytest.mark.parametrize(
    "name",
    [
        "max_total_tokens",
        "--max-num-batched-token",
        "max_new_token",
        "MAX_BATCH_PREFILL_TOKENS",
        "key",
        "secretKeyRef",
        "tokenSecretName",
        "HF_TOKEN_PATH",
        "keepalive_time_ms",
        "tokenizer",
        "--tokenizer-mode",
        "apiKeyFile",
        "max_input_length",
    ],
)
def test_not_secret_names(name: str) -> None:
    assert is_secret_name(name) is False
