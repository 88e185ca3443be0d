"""Probes a values file switches off, where a chart profile knows the key that does it.

A chart renders a probe from a values key; the profile's ``probesOff`` names that key
for each probe, with the template line that proves it. A values file that writes the key
with a value the template reads as "off" gets a ``ProbeOff`` at that line: with no
``equals``, what Helm's ``if`` treats as empty (null, false, "", 0, an empty list; an
empty map merges with the chart's default and keeps the probe), else that value. A key
no profile names is never judged: a false finding is worse than a probe not seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.model.facts import quantities as q
from linter.model.frontends.profiles import MISSING, get_path
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.records import ProbeOff
from linter.positions import PathT, format_path, parse_path


def probes_off(
    spec: Mapping[str, Any], data: Any, entry: Any, path: PathT, locate: Locate
) -> list[Located[ProbeOff]]:
    """The probes of one profile entry that its values switch off."""
    found = []
    for probe, switch in spec.get("probesOff", {}).items():
        where, value = _written(switch, data, entry, path)
        if where is None or not _switches_off(value, switch):
            continue
        at = locate(where)
        off = ProbeOff(
            probe=Located(probe, at),
            key=Located(format_path(where), at),
            value=Located(_text(value), at),
            reference=Located(str(switch["source"]), at),
        )
        found.append(Located(off, at))
    return found


def _written(
    switch: Mapping[str, Any], data: Any, entry: Any, path: PathT
) -> tuple[PathT | None, Any]:
    if "key" in switch:
        value = get_path(entry, switch["key"])
        if value is not MISSING:
            return (*path, *parse_path(switch["key"])), value
    if "root" in switch:
        value = get_path(data, switch["root"])
        if value is not MISSING:
            return parse_path(switch["root"]), value
    return None, MISSING


def _switches_off(value: Any, switch: Mapping[str, Any]) -> bool:
    if "equals" in switch:
        expected = switch["equals"]
        if isinstance(expected, bool) or isinstance(value, bool):
            return q.to_bool(value) is not None and q.to_bool(value) == q.to_bool(expected)
        return str(value) == str(expected)
    # Helm's `if` (text/template truth): nil, false, 0, "" and empty collections are
    # false; a user {} is merged with the chart's default map, which is not empty.
    return value is None or value is False or value in ("", 0, [])


def _text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if value != "" else '""'
