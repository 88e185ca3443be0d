"""The CEL environment is made without protobuf's Python descriptor pool (it would import
protobuf's pure-Python message machinery on every run) and evaluates as one made with it."""

from __future__ import annotations

import contextlib
import importlib
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


def test_a_pool_imported_before_is_left_in_place() -> None:
    pool = importlib.import_module("google.protobuf.descriptor_pool")
    with expr._without_protobuf_pool(), pytest.raises(ImportError):
        importlib.import_module("google.protobuf.descriptor_pool")
    assert sys.modules["google.protobuf.descriptor_pool"] is pool
    assert importlib.import_module("google.protobuf.descriptor_pool") is pool


def test_servelint_s_environment_evaluates_as_with_protobufs_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = expr._environment.__wrapped__()  # type: ignore[attr-defined]
    with monkeypatch.context() as patched:
        patched.setattr(expr, "_without_protobuf_pool", contextlib.nullcontext)
        with_pool = expr._environment.__wrapped__()  # type: ignore[attr-defined]
    texts = [
        *EXPRESSIONS,
        "quantity('16Gi') > quantity('1Gi')",
        "'a,b'.split(',').size() == 2 && math.greatest(1, 2) == 2",
    ]
    for text in texts:
        outcomes = []
        for environment in (shipped, with_pool):
            try:
                value = environment.compile(text).eval(data=SUBJECT)
                outcomes.append(f"{value.type().name()}: {value.value()!r}")
            except RuntimeError as exc:
                outcomes.append(f"refused: {exc}")
        assert outcomes[0] == outcomes[1], text


def test_a_runtime_that_needs_the_pool_gets_it(monkeypatch: pytest.MonkeyPatch) -> None:
    made = object()

    def new_env(**_: object) -> object:
        if sys.modules.get("google.protobuf.descriptor_pool", made) is None:
            raise ImportError("import of google.protobuf.descriptor_pool halted")
        return made

    monkeypatch.setattr(expr.cel, "NewEnv", new_env)
    assert expr._environment.__wrapped__() is made  # type: ignore[attr-defined]


@pytest.mark.parametrize("imported", [False, True])
def test_the_pool_is_set_aside_once_even_when_nested(
    monkeypatch: pytest.MonkeyPatch, imported: bool
) -> None:
    name = "google.protobuf.descriptor_pool"
    if imported:
        importlib.import_module(name)
    else:
        monkeypatch.delitem(sys.modules, name, raising=False)
    before = sys.modules.get(name)
    with expr._without_protobuf_pool(), expr._without_protobuf_pool():
        assert sys.modules[name] is None
    assert sys.modules.get(name) is before
    assert (name in sys.modules) is imported
