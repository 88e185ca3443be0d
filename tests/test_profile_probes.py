"""Probes switched off by values keys a chart profile names (linter/model/frontends/profile_probes.py)."""

from __future__ import annotations

from typing import Any

import pytest

from linter.model.frontends.profile_probes import probes_off
from linter.positions import Origin, PathT, format_path

_SOURCE = "https://example.invalid/templates/deployment.yaml#L10"


def _locate(path: PathT) -> Origin:
    return Origin("values.yaml", len(path), 1, 0, format_path(path))


def _off(
    spec: dict[str, Any], data: Any, entry: Any, path: PathT = ()
) -> list[tuple[str, str, str]]:
    return [
        (o.value.probe.value, o.value.key.value, o.value.value.value)
        for o in probes_off(spec, data, entry, path, _locate)
    ]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (None, [("readinessProbe", "probe", "null")]),
        (False, [("readinessProbe", "probe", "false")]),
        ("", [("readinessProbe", "probe", '""')]),
        (0, [("readinessProbe", "probe", "0")]),
        ([], [("readinessProbe", "probe", "[]")]),
        ({}, []),  # merged with the chart's default: the probe stays
        ({"periodSeconds": 5}, []),
        (True, []),
    ],
    ids=["null", "false", "empty-string", "zero", "empty-list", "empty-map", "map", "true"],
)
def test_a_root_key_is_off_when_helm_if_reads_it_empty(
    written: Any, expected: list[tuple[str, str, str]]
) -> None:
    spec = {"probesOff": {"readinessProbe": {"root": "probe", "source": _SOURCE}}}
    assert _off(spec, {"probe": written}, {}) == expected


def test_an_absent_key_switches_nothing_off() -> None:
    spec = {"probesOff": {"livenessProbe": {"root": "probe", "source": _SOURCE}}}
    assert _off(spec, {"other": False}, {}) == []


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (False, [("livenessProbe", "servers[0].liveness.enabled", "false")]),
        ("false", [("livenessProbe", "servers[0].liveness.enabled", "false")]),
        (True, []),
        (None, []),
    ],
    ids=["false", "false-text", "true", "null"],
)
def test_an_entry_key_with_equals_is_off_only_at_that_value(
    written: Any, expected: list[tuple[str, str, str]]
) -> None:
    spec = {
        "probesOff": {
            "livenessProbe": {"key": "liveness.enabled", "equals": False, "source": _SOURCE}
        }
    }
    entry = {"liveness": {"enabled": written}}
    assert _off(spec, {"servers": [entry]}, entry, ("servers", 0)) == expected


def test_the_finding_is_at_the_values_line_with_the_template_line() -> None:
    spec = {"probesOff": {"startupProbe": {"root": "a.probe", "source": _SOURCE}}}
    (found,) = probes_off(spec, {"a": {"probe": None}}, {}, (), _locate)
    assert found.origin == Origin("values.yaml", 2, 1, 0, "a.probe")
    assert found.value.reference.value == _SOURCE
