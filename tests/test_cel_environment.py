"""The CEL environment is made without protobuf's Python descriptor pool (it would import
protobuf's pure-Python message machinery on every run) and evaluates as one made with it."""

from __future__ import annotations

import importlib
import subprocess
import sys
from typing import Any

import pytest
from cel_expr_python import cel

from linter.policy import expr

SUBJECT: dict[str, Any] = {"workload": {"engine": {"max_model_len": 8192, "dtype": None}}}
EXPRESSIONS = [
    "duration('90s') > duration('1m')",
    "duration('1h30m')",
    "timestamp('2026-12-01T10:00:00Z')",
    "timestamp('2026-12-01T10:00:00Z') + duration('1h') > timestamp('2026-12-01T10:30:00Z')",
    "b'abc'",
    "{'a': [1, 2.5, 'x', null, true]}",
    "workload.engine.dtype == null",
    "type(workload.engine) == map",
    "workload.engine.max_model_len / 0",
    "workload.engine.no_such_key",
    "google.protobuf.Duration{seconds: 5}",
]


def _outcomes(environment: Any) -> list[str]:
    results = []
    for text in EXPRESSIONS:
        try:
            value = environment.compile(text).eval(data=SUBJECT)
            results.append(f"{value.type().name()}: {value.value()!r}")
        except RuntimeError as exc:
            results.append(f"refused: {exc}")
    return results


def test_the_environment_evaluates_as_one_with_protobufs_pool() -> None:
    with_pool = cel.NewEnv(variables={"workload": cel.Type.DYN})
    with expr._without_protobuf_pool():
        without_pool = cel.NewEnv(variables={"workload": cel.Type.DYN})
    assert _outcomes(without_pool) == _outcomes(with_pool)
    assert _outcomes(without_pool)[:3] == [
        "BOOL: True",
        "DURATION: datetime.timedelta(seconds=5400)",
        "TIMESTAMP: datetime.datetime(2026, 12, 1, 10, 0, tzinfo=datetime.timezone.utc)",
    ]


def test_a_run_never_imports_protobufs_python_pool() -> None:
    script = (
        "import sys\n"
        "from linter.policy import expr\n"
        'value = expr._environment().compile(\'duration("2m") > duration("90s")\').eval()\n'
        "print(value.value(), 'google.protobuf.descriptor_pool' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "True False\n", "")


def test_a_pool_imported_before_is_left_in_place() -> None:
    pool = importlib.import_module("google.protobuf.descriptor_pool")
    with expr._without_protobuf_pool(), pytest.raises(ImportError):
        importlib.import_module("google.protobuf.descriptor_pool")
    assert sys.modules["google.protobuf.descriptor_pool"] is pool
    assert importlib.import_module("google.protobuf.descriptor_pool") is pool
