"""Flags on a command line: whether a string holds one, and a removed flag's successor,
taken only where the flag tables record a one-to-one successor."""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.nodes import ScalarNode, SequenceNode

from linter.fix.locate import Place, value_of
from linter.lightclass import frozen
from linter.model.engine import flagtables


@frozen
class Rename:
    old: str
    new: str
    # Both flags are switches (``--x``/``--no-x``): neither takes a value.
    switch: bool


def holds(text: str, flag: str) -> bool:
    """Whether ``text`` has ``flag`` as a word (``--flag 1``, ``--flag=1``)."""
    return re.search(rf"(?<![\w-]){re.escape(flag)}(?=$|[=\s])", text) is not None


def successor(value: Any) -> Rename:
    """The flag to write instead of the removed one: the table's successor of
    ``value["flag"]``, when the pinned release accepts it and both flags take a value or
    both are switches."""
    from linter.fix.edits import Refused

    if not isinstance(value, dict):
        raise Refused("the fix names no flag")
    old, new = str(value.get("flag", "")), str(value.get("to", ""))
    server, version = str(value.get("server", "")), str(value.get("version", ""))
    table = flagtables.table(server)
    if table is None or not old.startswith("--") or not new.startswith("--"):
        raise Refused("no one-to-one successor in the flag tables")
    index = table.index_of(version) if version else None
    old_entry, new_entry = table.entries.get(old), table.entries.get(new)
    if index is None or old_entry is None or new_entry is None:
        raise Refused("no one-to-one successor in the flag tables")
    if old_entry.replacement != new or not new_entry.accepts(index):
        raise Refused(f"{new} is not accepted by {server} {version}")
    switches = flagtables.switches(server)
    old_switch, new_switch = old in switches, new in switches
    if old_switch != new_switch:
        raise Refused(f"{new} does not take {old}'s place one to one")
    return Rename(old, new, old_switch)


def has_value(place: Place, after: int) -> bool:
    """Whether the flag that ends at ``after`` in the scalar's value is given a value:
    ``--flag=1``, ``--flag 1`` in a command string, or the next item of the args list."""
    rest = value_of(place.node)[after:]
    if rest.startswith("="):
        return True
    words = rest.split()
    if words:
        return not words[0].startswith("-")
    parent = place.parent
    if isinstance(parent, SequenceNode) and isinstance(place.path[-1], int):
        following = parent.value[place.path[-1] + 1 : place.path[-1] + 2]
        return (
            bool(following)
            and isinstance(following[0], ScalarNode)
            and not str(value_of(following[0])).startswith("-")
        )
    return False
