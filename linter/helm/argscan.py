"""Which values lists a chart's templates visibly put into its container's args as written.

The values reading (no helm) judges the flags of a values key only where it is certain
the server's parser gets them as written (``linter/model/value_flags.py``). Here that is
read from the text of the chart's own templates, and only in the plainest case: a template
with one container, one ``image``, no ``command`` (so the image's own entrypoint, the
server, reads the args) and one ``args:`` block whose actions print ``.Values.<key>`` with
``toYaml`` or ``range`` over it. Anything else (a named template, a subchart, a shell
command, several containers) is not proof, and the key stays a coverage gap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from linter.positions import PathT

_ARGS = re.compile(r"^(\s*)(?:-\s+)?args:\s*(?:#.*)?$", re.M)
_KEY = re.compile(r"^\s*(?:-\s+)?(command|image|containers|initContainers):", re.M)
_IMAGE = re.compile(r"^\s*(?:-\s+)?image:(.*)$", re.M)
_ACTION = re.compile(r"\{\{-?(.*?)-?\}\}", re.S)
_VALUES_KEY = re.compile(r"\.Values(\.[A-Za-z_]\w*)+")


def args_keys(templates: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The dotted values paths (``extraArgs``, ``server.extraArgs``) that some template
    prints as a list into the args of its only container."""
    found: set[str] = set()
    for _name, text in templates:
        found.update(_template_keys(text))
    return frozenset(found)


def reaches(keys: frozenset[str], path: PathT) -> bool:
    return all(isinstance(p, str) for p in path) and ".".join(map(str, path)) in keys


def _template_keys(text: str) -> set[str]:
    counts = {"command": 0, "image": 0, "containers": 0, "initContainers": 0}
    for match in _KEY.finditer(text):
        counts[match.group(1)] += 1
    blocks = list(_ARGS.finditer(text))
    if counts != {"command": 0, "image": 1, "containers": 1, "initContainers": 0}:
        return set()
    if len(blocks) != 1:
        return set()
    block = _block(text, blocks[0].end(), len(blocks[0].group(1)))
    # ``with .Values.x`` prints the list only through a ``toYaml .`` inside it.
    dot_yaml = re.search(r"\{\{-?\s*toYaml\s+\.\s", block) is not None
    printed = set()
    for action in _ACTION.findall(block):
        words = action.split()
        if len(words) >= 2 and words[0] == "toYaml":
            printed.add(words[1])
        elif words[:1] == ["range"]:
            printed.add(words[-1])
        elif words[:1] == ["with"] and len(words) == 2 and dot_yaml:
            printed.add(words[1])
    keys = {w.removeprefix(".Values.") for w in printed if _VALUES_KEY.fullmatch(w)}
    image = _IMAGE.search(text)
    images = image.group(1) if image else ""
    # The container is the server whose image the values beside the key name: the
    # image of ``extraArgs`` is ``.Values.image…``, of ``server.extraArgs``
    # ``.Values.server.image…``.
    return {k for k in keys if f".Values.{k.rpartition('.')[0]}.image".replace("..", ".") in images}


def _block(text: str, start: int, indent: int) -> str:
    """The lines after ``args:`` up to the first YAML line indented no deeper than it."""
    lines = []
    for line in text[start:].splitlines()[1:]:
        stripped = line.lstrip()
        if stripped and not stripped.startswith("{{") and len(line) - len(stripped) <= indent:
            break
        lines.append(line)
    return "\n".join(lines)
