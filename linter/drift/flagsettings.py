"""Settings only the server's flag table knows, and the settings compared only when set.

The serving model types the settings of its registry (``model/engine/registry.py``); a server
has hundreds more (``tool_call_parser``, ``tokenizer_mode``, ``reasoning_parser``,
``chat_template``, ...). Every flag the server's flag table (``model/engine/flagdata/``) accepts
at the release is comparable: the committed side as written on its command line, the live
side as printed, both normalised as any value is. ``host``, ``port``, ``seed``, the api
key and the like are compared only when the committed side sets them: the values side of
a chart never shows them, and a server prints them whatever it was given.
"""

from __future__ import annotations

import functools
from typing import Any

from linter.model.frontends.values_sections import GENERIC_SETTINGS
from linter.model.records.located import value_of
from linter.model.records.workload import Workload
from linter.positions import Origin

# Compared only when the committed side sets them.
WHEN_SET = GENERIC_SETTINGS | frozenset({"download_dir", "chat_template", "ssl_keyfile"})

# Settings whose differences have rule ids of their own (``drift/port``), so that a team
# can switch them off with --disable; and any setting whose value is a path.
CATEGORIES = {
    "host": "drift/host",
    "hostname": "drift/host",
    "port": "drift/port",
    "seed": "drift/seed",
    "random_seed": "drift/seed",
    "served_model_name": "drift/served-model-name",
}
PATH_RULE = "drift/path"


def category(setting: str, desired: Any, live: Any) -> str:
    """The rule id of a difference in ``setting`` with its own category, or ""."""
    if setting in CATEGORIES:
        return CATEGORIES[setting]
    if any(_is_path(value) for value in (desired, live)):
        return PATH_RULE
    return ""


def _is_path(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("/", "./", "../", "~/"))


@functools.cache
def table_settings(server: str, version: str = "") -> frozenset[str]:
    """The settings (argparse ``dest`` or clap field) the server's flag table knows at
    ``version``; at any release when the version is not in the table."""
    from linter.model.engine import flagtables

    table = flagtables.table(server)
    if table is None:
        return frozenset()
    index = table.index_of(version) if version else None
    return frozenset(
        entry.dest for entry in table.entries.values() if index is None or entry.accepts(index)
    )


def committed_extras(
    workload: Workload, known: set[str], excluded: frozenset[str]
) -> tuple[dict[str, Any], dict[str, Origin]]:
    """The flags of the committed command line that the flag table knows and the
    registry does not, as written, with where each was written."""
    from linter.model.engine import flagtables

    record = workload.record.engine
    flags = record.value.flags if record is not None else None
    if record is None or flags is None:
        return {}, {}
    engine = record.value
    server = str(value_of(engine.name) or "")
    table = flagtables.table(server)
    if table is None:
        return {}, {}
    values: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    for flag, written in flags.value.items():
        entry = table.entries.get(flag)
        if entry is None or entry.dest in known or entry.dest in excluded:
            continue
        values[entry.dest] = written.value
        origins[entry.dest] = written.origin or workload.anchor
    return values, origins


def live_extras(
    server: str, version: str, printed: dict[str, Any], known: set[str], excluded: frozenset[str]
) -> dict[str, Any]:
    """The printed settings the flag table knows and the registry does not."""
    dests = table_settings(server, version)
    return {
        key: value
        for key, value in printed.items()
        if key in dests and key not in known and key not in excluded and value is not None
    }
