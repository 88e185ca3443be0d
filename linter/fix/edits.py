"""The text edit of each fix: the exact span of the original text to replace, its new
text, and the change to the document's data the edit must make (checked after it is
made, ``apply.py``). Only the span changes; the rest of the file is kept byte for byte."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from ruamel.yaml.nodes import MappingNode, ScalarNode

from linter.findings import Finding, Fix
from linter.fix import flags, render
from linter.fix.locate import PathPart, Place, at, pointed, value_of
from linter.fix.text import Source, line_end, line_start
from linter.lightclass import frozen


class Refused(Exception):
    """Why a fix is not applied (the finding stays, with this reason in the report)."""


@frozen
class Edit:
    """Replace ``text[start:end]`` with ``new``; the value at ``path`` of document ``doc``
    must then read as ``expect(value before)``."""

    start: int
    end: int
    new: str
    doc: int
    path: tuple[PathPart, ...]
    # Two edits are one when they make the same change (two findings, one fix).
    expect: Callable[[Any], Any] = dataclasses.field(compare=False, hash=False)
    # What an insertion adds (the keys), so that two additions to one mapping, each of
    # its own key, are not taken for two answers to one question.
    target: str = ""


def edit_for(source: Source, places: list[Place], finding: Finding, fix: Fix) -> Edit:
    if fix.action == "set":
        return _set(source, places, finding, fix)
    if fix.action == "rename-flag":
        return _rename(source, places, finding, fix)
    if fix.action == "add":
        return _add(source, places, finding, fix)
    return _secret_ref(source, places, finding, fix)


# A number as a server setting is written: 8192, 32k, 1.5.
_NUMBER = r"\d+(?:\.\d+)?[kKmMgG]?"


def _aligned(source: Source, start: int, end: int, new: str) -> tuple[int, str]:
    """The end of the span and its new text, padded so that a comment after the value
    on its line keeps its column (``maxModelLen: 131072   # why`` → ``35120    # why``)."""
    rest = source.text[end : line_end(source.text, end)]
    match = re.match(r"( +)#", rest)
    if match is None:
        return end, new
    spaces = len(match.group(1)) - (len(new) - (end - start))
    return end + len(match.group(1)), new + " " * max(spaces, 1)


def _scalar_at(places: list[Place], finding: Finding) -> Place:
    place = at(places, finding.line, finding.column, ScalarNode)
    if place is None:
        raise Refused("no value is written where the finding points")
    if place.node.anchor is not None:
        raise Refused("the value is an anchor other places share")
    return place


def _set(source: Source, places: list[Place], finding: Finding, fix: Fix) -> Edit:
    if isinstance(fix.value, bool) or not isinstance(fix.value, int):
        raise Refused("the fix's value is not a number")
    place = _scalar_at(places, finding)
    node = place.node
    if fix.flag and flags.holds(value_of(node), fix.flag):
        return _set_in_command(source, place, fix)
    if "\n" in value_of(node).rstrip("\n"):
        raise Refused("the value is inside a YAML string that is not a literal block (|)")
    if node.style in ("|", ">") or not re.fullmatch(rf"\s*{_NUMBER}\s*", value_of(node)):
        raise Refused("the value is not written as a number here")
    style = node.style if node.style in ('"', "'") else None
    new_value: Any = fix.value if style is None else str(fix.value)
    end, new = _aligned(source, place.start, place.end, render.scalar(fix.value, style))
    return Edit(place.start, end, new, place.doc, place.path, lambda _: new_value)


def _set_in_command(source: Source, place: Place, fix: Fix) -> Edit:
    """The number after ``--flag`` (``--flag 8192``, ``--flag=8192``) in a command line."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(fix.flag)}(?:=|[ \t]+)({_NUMBER})(?![\w.])")
    span = source.text[place.start : place.end]
    found = list(pattern.finditer(span))
    in_value = list(pattern.finditer(value_of(place.node)))
    if len(found) != 1 or len(in_value) != 1:
        raise Refused(f"{fix.flag} is not written once with a number here")
    match, number = found[0], str(fix.value)
    start, end = place.start + match.start(1), place.start + match.end(1)
    old = value_of(place.node)
    value_match = in_value[0]
    expected = old[: value_match.start(1)] + number + old[value_match.end(1) :]
    end, new = _aligned(source, start, end, number)
    return Edit(start, end, new, place.doc, place.path, lambda _: expected)


def _rename(source: Source, places: list[Place], finding: Finding, fix: Fix) -> Edit:
    rename = flags.successor(fix.value)
    place = _scalar_at(places, finding)
    pattern = re.compile(rf"(?<![\w-]){re.escape(rename.old)}(?=$|[=\s\"',\]])")
    span = source.text[place.start : place.end]
    found = list(pattern.finditer(span))
    in_value = list(pattern.finditer(value_of(place.node)))
    if len(found) != 1 or len(in_value) != 1:
        raise Refused(f"{rename.old} is not written once here")
    if not rename.switch and not flags.has_value(place, in_value[0].end()):
        raise Refused(f"{rename.old} is written without a value for {rename.new}")
    old = value_of(place.node)
    match = in_value[0]
    expected = old[: match.start()] + rename.new + old[match.end() :]
    start, end = place.start + found[0].start(), place.start + found[0].end()
    end, new = _aligned(source, start, end, rename.new)
    return Edit(start, end, new, place.doc, place.path, lambda _: expected)


def _mapping_at(places: list[Place], finding: Finding, under: str) -> Place:
    """The mapping to add to: at the finding, the one holding it (``..``), or the mapping
    value of key ``under`` of the one at the finding."""
    if under == "..":
        found = pointed(places, finding.line, finding.column)
        place = next((p for p in places if found is not None and p.node is found.parent), None)
    else:
        place = at(places, finding.line, finding.column, MappingNode)
        if place is not None and under:
            place = next(
                (p for p in places if p.parent is place.node and p.path[-1:] == (under,)),
                None,
            )
    if place is None or not isinstance(place.node, MappingNode):
        raise Refused("no mapping to add to is written where the finding points")
    if place.node.anchor is not None or any(k.value == "<<" for k, _ in place.node.value):
        raise Refused("the mapping is shared through an anchor or merge key")
    return place


def _add(source: Source, places: list[Place], finding: Finding, fix: Fix) -> Edit:
    if not isinstance(fix.value, dict) or not fix.value:
        raise Refused("the fix adds nothing")
    added: dict[str, Any] = fix.value
    place = _mapping_at(places, finding, fix.under)
    node = place.node
    present = [k.value for k, _ in node.value if k.value in added]
    if present:
        raise Refused(f"{present[0]} is already set")

    def expect(old: Any) -> Any:
        return {**old, **added} if isinstance(old, dict) else None

    if node.flow_style:
        edit = _add_flow(source, place, added, expect)
    else:
        edit = _add_block(source, place, added, expect)
    return dataclasses.replace(edit, target=",".join(sorted(added)))


def _add_flow(
    source: Source, place: Place, added: dict[str, Any], expect: Callable[[Any], Any]
) -> Edit:
    text = source.text
    close = place.end - 1
    if text[close] != "}":
        raise Refused("the flow mapping's end is not where YAML says")
    last = close
    while last > place.start and text[last - 1] in " \t\r\n":
        last -= 1
    entries = ", ".join(f"{k}: {render.flow(v)}" for k, v in render.ordered(added))
    new = entries if text[last - 1] == "{" else ", " + entries
    return Edit(last, last, new, place.doc, place.path, expect)


def _add_block(
    source: Source, place: Place, added: dict[str, Any], expect: Callable[[Any], Any]
) -> Edit:
    text = source.text
    node = place.node
    indent = " " * node.start_mark.column
    if text[line_start(text, place.start) : place.start].strip(" -") != "":
        raise Refused("the mapping does not start its line")
    _, last_value = node.value[-1]
    end = last_value.end_mark.index
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    at_offset = line_end(text, end - 1)
    lines = render.block(added, indent)
    if at_offset == len(text) and not text.endswith("\n"):
        return Edit(
            at_offset,
            at_offset,
            source.newline + source.lines(lines),
            place.doc,
            place.path,
            expect,
        )
    new = source.lines(lines) + source.newline
    return Edit(at_offset, at_offset, new, place.doc, place.path, expect)


def _secret_ref(source: Source, places: list[Place], finding: Finding, fix: Fix) -> Edit:
    ref = fix.value if isinstance(fix.value, dict) else {}
    name, key = ref.get("name"), ref.get("key")
    if not (isinstance(name, str) and isinstance(key, str) and name and key):
        raise Refused("the fix names no Secret")
    place = _scalar_at(places, finding)
    entry = place.parent
    in_env = len(place.path) >= 3 and place.path[-3] == "env" and isinstance(place.path[-2], int)
    if place.path[-1:] != ("value",) or not isinstance(entry, MappingNode) or not in_env:
        raise Refused("only an env entry's value can become a secretKeyRef")
    reference = {"secretKeyRef": {"name": name, "key": key}}
    start, end = place.key.start_mark.index, place.end
    if entry.flow_style:
        new = f"valueFrom: {render.flow(reference)}"
    else:
        indent = " " * place.key.start_mark.column
        lines = render.block({"valueFrom": reference}, indent)
        new = source.lines(lines)[len(indent) :]
    rest = source.text[end : line_end(source.text, end)].strip()
    if not entry.flow_style and rest and not rest.startswith("#"):
        raise Refused("the value is followed by more than a comment on its line")

    def expect(old: Any) -> Any:
        if not isinstance(old, dict):
            return None
        return {**{k: v for k, v in old.items() if k != "value"}, "valueFrom": reference}

    return Edit(start, end, new, place.doc, place.path[:-1], expect)
