"""What counts as a secret name or value, and how it is masked."""

from __future__ import annotations

import pytest

from linter.secrets.patterns import (
    MASK,
    is_secret_name,
    is_secret_path,
    is_secret_value,
    mask,
    mask_args,
    mask_text,
    mask_value,
)


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "OPENAI_API_KEY",
        "--api-key",
        "api_key",
        "apiKey",
        "password",
        "DB_PASSWORD",
        "clientSecret",
        "secret",
        "passphrase",
        "credentials",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name) is True


@pytest.mark.parametrize(
    "name",
    [
        "max_total_tokens",
        "max_batch_prefill_tokens",
        "tokenizer",
        "pad_token_id",
        "keepalive",
        "monkey",
        "secretKeyRef",
        "tokenSecretName",
        "sslKeyFile",
        "--ssl-keyfile-path",
        "PWD",
        "api_key_env",
        "key",
        "max_num_batched_token",
        "",
    ],
)
def test_names_that_are_not_secrets(name: str) -> None:
    assert is_secret_name(name) is False


def test_secret_values_whatever_the_key() -> None:
    assert is_secret_value("hf_" + "a" * 34) is True
    assert is_secret_value("sk-" + "b" * 40) is True
    assert is_secret_value("hf_short") is False
    assert is_secret_value(12345) is False


def test_paths() -> None:
    assert is_secret_path(("env", "HF_TOKEN", "value")) is True
    assert is_secret_path(("server", "config", "apiKey")) is True
    assert is_secret_path(("env", "HF_TOKEN", "valueFrom", "secretKeyRef", "key")) is False
    assert is_secret_path(("env", "LOG_LEVEL", "value")) is False
    assert is_secret_path((0, 1)) is False


def test_mask_reveals_nothing() -> None:
    assert mask("hf_abcdefghijklmnopqrstuvwxyz0123") == MASK == "****"
    assert mask("") == MASK


def test_mask_args() -> None:
    assert mask_args(
        [
            "serve",
            "m",
            "--api-key",
            "abc",
            "--api-key=def",
            "--port",
            "8000",
            "hf_" + "x" * 30,
            "--hf-token",
        ]
    ) == [
        "serve",
        "m",
        "--api-key",
        MASK,
        f"--api-key={MASK}",
        "--port",
        "8000",
        MASK,
        "--hf-token",
    ]


def test_mask_text() -> None:
    assert mask_text("HF_TOKEN=abc vllm serve m --api-key 'x y' --max-model-len 4096") == (
        f"HF_TOKEN={MASK} vllm serve m --api-key {MASK} --max-model-len 4096"
    )
    assert mask_text("plain") == "plain"


def test_mask_value_walks_trees() -> None:
    tree = {
        "env": {
            "HF_TOKEN": {"value": "abc"},
            "LEVEL": {"value": "INFO"},
            "T": {"valueFrom": {"secretKeyRef": {"name": "s", "key": "token"}}},
        },
        "args": ["--api-key", "abc"],
        "password": 1234,
        "enabled": True,
        "none": None,
    }
    assert mask_value((), tree) == {
        "env": {
            "HF_TOKEN": {"value": MASK},
            "LEVEL": {"value": "INFO"},
            "T": {"valueFrom": {"secretKeyRef": {"name": "s", "key": "token"}}},
        },
        "args": ["--api-key", MASK],
        "password": MASK,
        "enabled": True,
        "none": None,
    }
    assert mask_value(("apiKeys",), ["a", "b"]) == ["a", "b"]
    assert mask_value(("api_key",), ["a", "b"]) == [MASK, MASK]


def test_env_entries_are_masked_by_their_name() -> None:
    env = [
        {"name": "HF_TOKEN", "value": "hf_x"},
        {"name": "LOG", "value": "INFO"},
        {"name": "API_KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
    ]
    assert mask_value(("env",), env) == [
        {"name": "HF_TOKEN", "value": MASK},
        {"name": "LOG", "value": "INFO"},
        {"name": "API_KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
    ]
