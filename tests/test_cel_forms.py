"""``policy.cel_forms.slimmed``: a stored program without its type map and source positions
evaluates exactly as the program the compiler made (values and error texts), and bytes
that are not such a program are stored as they came."""

from __future__ import annotations

from typing import Any

import pytest

from linter.errors import ExpressionError
from linter.policy import cel_forms
from linter.policy.expr import CompiledExpr, _environment, activation

SUBJECT: dict[str, Any] = {
    "workload": {
        "engine": {"name": "vllm", "max_model_len": 8192, "flags": ["--a", "--b"]},
        "pod": {"containers": [{"name": "server", "gpus": 2}], "labels": {"app": "x"}},
        "capacity": {"kv_bytes": 2**40, "ratio": 0.9},
        "missing": None,
    }
}
EXPRESSIONS = [
    "workload.engine.max_model_len > 4096",
    "workload.engine.name == 'vllm' && size(workload.engine.flags) == 2",
    "workload.pod.containers.exists(c, c.gpus >= 2)",
    "workload.pod.containers.map(c, c.name + '-' + string(c.gpus))",
    "has(workload.model) ? workload.model.id : 'none'",
    "cel.bind(x, workload.capacity.kv_bytes, x / 1024 / 1024)",
    "workload.capacity.ratio * 2.0",
    "workload.missing == null",
    "'app' in workload.pod.labels && workload.pod.labels['app'].startsWith('x')",
    "math.greatest(1, 2, 3)",
    "workload.engine.flags.join(',')",
    # errors: their texts must not change either
    "workload.engine.no_such_key > 1",
    "workload.engine.max_model_len / 0",
    "workload.engine.name + 1",
    "workload.pod.containers[5].name",
    "int('x')",
]


def _outcome(compiled: Any) -> tuple[str, Any]:
    try:
        return "value", CompiledExpr._run(compiled, activation(SUBJECT))
    except ExpressionError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_a_slimmed_program_evaluates_as_the_compiled_one(text: str) -> None:
    environment = _environment()
    compiled = environment.compile(text)
    full = bytes(compiled.serialize())
    slim = cel_forms.slimmed(full)
    assert len(slim) < len(full)
    expected = _outcome(compiled)
    assert _outcome(environment.deserialize(full)) == expected
    assert _outcome(environment.deserialize(slim)) == expected
    assert cel_forms.slimmed(slim) == slim  # nothing left to take out


def test_what_is_taken_out_and_what_stays() -> None:
    full = bytes(_environment().compile("workload.engine.max_model_len > 4096").serialize())
    outer = {n: body for n, _, body in cel_forms._fields(full)}
    slim_outer = {n: body for n, _, body in cel_forms._fields(cel_forms.slimmed(full))}
    assert slim_outer[1] == outer[1] == b"type.googleapis.com/cel.expr.CheckedExpr"
    checked = {n for n, _, _ in cel_forms._fields(outer[2] or b"")}
    slim_checked = {n: body for n, _, body in cel_forms._fields(slim_outer[2] or b"")}
    assert {2, 3, 4, 5} <= checked  # references, types, expression, source info
    assert set(slim_checked) == checked - {3}
    source_info = {n for n, _, _ in cel_forms._fields(slim_checked[5] or b"")}
    assert not source_info & {3, 4}  # line offsets and positions


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff\xff\xff",  # an unterminated varint
        b"\x0a\x05ab",  # a length beyond the end
        b"\x0a\x03abc\x12\x00",  # an Any of another type
        b"\x0b\x0c",  # a group, which CEL's protos do not have
    ],
)
def test_bytes_that_are_not_a_checked_program_are_kept_as_they_are(data: bytes) -> None:
    assert cel_forms.slimmed(data) == data


def test_a_truncated_program_is_kept_as_it_is() -> None:
    full = bytes(_environment().compile("1 + 1 == 2").serialize())
    assert cel_forms.slimmed(full[:-3]) == full[:-3]
