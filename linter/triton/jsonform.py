"""The JSON form of a model configuration, with 64-bit integers as Triton prints them.

protobuf's JSON printer writes every 64-bit integer as a string. Triton's
``ModelConfigToJson`` (core:src/model_config_utils.cc) turns some of them back into
numbers and leaves the others as strings; ``normalize`` does the same, so a
``config.pbtxt``, a JSON file written by hand and the server's answer all read alike.

Converted to numbers: ``input/output[].dims`` and ``reshape.shape``,
``version_policy.specific.versions``, ``dynamic_batching.max_queue_delay_microseconds``,
``priority_levels``, ``default_priority_level`` and every ``default_timeout_microseconds``,
``sequence_batching.max_sequence_idle_microseconds``, ``oldest/direct
.max_queue_delay_microseconds`` and ``state[].dims``, ``ensemble_scheduling.step[]
.model_version``, ``model_warmup[].inputs.*.dims``. Left as strings: the
``graph_spec`` and ``graph_lower_bound`` input ``dim`` lists,
``instance_group[].secondary_devices[].device_id`` and ``state[].initial_state[].dims``
(Triton's fix-up looks for ``initial_state`` one level too high, so it never converts them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Fix = Callable[[Any], Any]


def normalize(config: dict[str, Any]) -> dict[str, Any]:
    """Apply Triton's number/string choices in place; return ``config``."""
    for io in _dicts(config.get("input")) + _dicts(config.get("output")):
        _fix(io, "dims", _ints)
        _fix(_dict(io.get("reshape")), "shape", _ints)
    _fix(_dict(_dict(config.get("version_policy")).get("specific")), "versions", _ints)
    _dynamic_batching(_dict(config.get("dynamic_batching")))
    _sequence_batching(_dict(config.get("sequence_batching")))
    for step in _dicts(_dict(config.get("ensemble_scheduling")).get("step")):
        _fix(step, "model_version", _int)
    for warmup in _dicts(config.get("model_warmup")):
        for tensor in _dict(warmup.get("inputs")).values():
            _fix(_dict(tensor), "dims", _ints)
    _cuda_graph_specs(_dict(_dict(config.get("optimization")).get("cuda")))
    for group in _dicts(config.get("instance_group")):
        for device in _dicts(group.get("secondary_devices")):
            _fix(device, "device_id", _string)
    return config


def _dynamic_batching(batching: dict[str, Any]) -> None:
    for key in ("max_queue_delay_microseconds", "priority_levels", "default_priority_level"):
        _fix(batching, key, _int)
    _fix(_dict(batching.get("default_queue_policy")), "default_timeout_microseconds", _int)
    for policy in _dict(batching.get("priority_queue_policy")).values():
        _fix(_dict(policy), "default_timeout_microseconds", _int)


def _sequence_batching(batching: dict[str, Any]) -> None:
    _fix(batching, "max_sequence_idle_microseconds", _int)
    for strategy in ("oldest", "direct"):
        _fix(_dict(batching.get(strategy)), "max_queue_delay_microseconds", _int)
    for state in _dicts(batching.get("state")):
        _fix(state, "dims", _ints)
        for initial in _dicts(state.get("initial_state")):
            _fix(initial, "dims", _strings)


def _cuda_graph_specs(cuda: dict[str, Any]) -> None:
    for spec in _dicts(cuda.get("graph_spec")):
        for holder in (spec, _dict(spec.get("graph_lower_bound"))):
            for tensor in _dict(holder.get("input")).values():
                _fix(_dict(tensor), "dim", _strings)


def _fix(holder: dict[str, Any], key: str, fix: Fix) -> None:
    if key in holder:
        holder[key] = fix(holder[key])


def _int(value: Any) -> Any:
    # Only well-formed integer strings: a "${placeholder}" stays as written.
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return value


def _ints(values: Any) -> Any:
    return [_int(v) for v in values] if isinstance(values, list) else values


def _string(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _strings(values: Any) -> Any:
    return [_string(v) for v in values] if isinstance(values, list) else values


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    items: Iterable[Any] = value if isinstance(value, list) else ()
    return [item for item in items if isinstance(item, dict)]
