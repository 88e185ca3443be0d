"""Values written as YAML inside a YAML string: an Argo CD Application's ``helm.values:
|``. The string's lines are the inner document; the fix is made to it as to a file and
its edit is moved back onto the file's lines, each new line indented as the block is.
Only a literal block (``|``) keeps its lines as written; any other string is refused."""

from __future__ import annotations

import dataclasses
from typing import Any

from ruamel.yaml.nodes import ScalarNode

from linter.findings import Finding, Fix
from linter.fix.edits import Edit, Refused, edit_for
from linter.fix.locate import Place, load, places, value_of
from linter.fix.locate import Unreadable as _Unreadable
from linter.fix.text import Source, line_end
from linter.fix.verify import applied, check


def edit(source: Source, all_places: list[Place], finding: Finding, fix: Fix) -> Edit:
    """The edit of ``fix``, inside a literal block when the finding points into one."""
    holder = _string_around(all_places, finding)
    if holder is None:
        return edit_for(source, all_places, finding, fix)
    if holder.node.style != "|":
        raise Refused("the value is inside a YAML string that is not a literal block (|)")
    return _inner_edit(source, holder, finding, fix)


def _string_around(all_places: list[Place], finding: Finding) -> Place | None:
    """The block scalar that holds the finding's position past its first line."""
    for place in all_places:
        node = place.node
        if not isinstance(node, ScalarNode) or node.style not in ("|", ">"):
            continue
        first, last = node.start_mark.line + 1, node.end_mark.line + 1
        if first < finding.line <= last:
            return place
    return None


@dataclasses.dataclass
class _Block:
    """The block's content lines: where each starts in the file, and the indentation."""

    starts: list[int]
    indent: int
    inner: str


def _block(source: Source, holder: Place) -> _Block:
    text = source.text
    header_end = line_end(text, holder.start)
    header = text[holder.start : header_end].strip()
    if any(c.isdigit() for c in header):
        raise Refused("the literal block has an indentation indicator")
    starts: list[int] = []
    offset = header_end
    while offset < holder.end:
        starts.append(offset)
        offset = line_end(text, offset)
    lines = [text[s : line_end(text, s)] for s in starts]
    indent = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    inner = "".join(line[indent:] if line.strip() else line.lstrip(" ") for line in lines)
    wanted = value_of(holder.node).rstrip("\n")
    if inner.replace("\r\n", "\n").rstrip("\n") != wanted:
        raise Refused("the literal block's lines do not read as its value")
    return _Block(starts, indent, inner)


def _inner_edit(source: Source, holder: Place, finding: Finding, fix: Fix) -> Edit:
    block = _block(source, holder)
    inner_source = Source(block.inner, False, source.newline)
    line = finding.line - (holder.node.start_mark.line + 1)
    column = finding.column - block.indent
    inner_finding = dataclasses.replace(finding, line=line, column=column)
    try:
        inner_places = places(block.inner)
        documents = load(block.inner)
    except _Unreadable as exc:
        raise Refused(f"the values in the string do not parse ({exc})") from exc
    inner = edit_for(inner_source, inner_places, inner_finding, fix)
    check(block.inner, documents, [inner])
    new_inner = applied(block.inner, [inner])
    start, new = _outer(source, block, inner)
    end = start + (inner.end - inner.start)
    old_value = value_of(holder.node)
    trailing = old_value[len(old_value.rstrip("\n")) :]
    expected = new_inner.replace("\r\n", "\n").rstrip("\n") + trailing

    def expect(_: Any) -> Any:
        return expected

    return Edit(start, end, new, holder.doc, holder.path, expect, inner.target)


def _outer(source: Source, block: _Block, inner: Edit) -> tuple[int, str]:
    """Where the inner edit starts in the file, and its text with every line it starts
    indented as the block."""
    line = block.inner.count("\n", 0, inner.start)
    line_start = block.inner.rfind("\n", 0, inner.start) + 1
    column = inner.start - line_start
    starts = block.starts
    base = starts[line] if line < len(starts) else len(source.text)
    pad = " " * block.indent
    at_line_start = column == 0
    offset = base if at_line_start else base + block.indent + column
    pieces = inner.new.split("\n")
    out = [(pad + pieces[0]) if at_line_start and pieces[0] else pieces[0]]
    out += [(pad + piece) if piece.strip() else piece for piece in pieces[1:]]
    return offset, "\n".join(out)
