"""Which values lists a chart's templates visibly put into its container's args as written.

The values reading (no helm) judges the flags of a values key only where it is certain
the server's parser gets them as written (``linter/model/frontends/value_flags.py``). Here that is
read from the text of the chart's own templates, and only in the plainest case: a template
with one container, one ``image`` (from values; the caller checks that they name the
server's image), no ``command`` or a literal server command (``["vllm", "serve"]``) and one
``args:`` block whose actions print ``.Values.<key>`` with ``toYaml`` or ``range`` over it.
Anything else (a named template, a subchart, a shell command, several containers) is not
proof, and the key stays a coverage gap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from linter.positions import PathT

_ARGS = re.compile(r"^(\s*)(?:-\s+)?args:\s*(?:#.*)?$", re.M)
_KEY = re.compile(r"^\s*(?:-\s+)?(command|image|containers|initContainers):", re.M)
_COMMAND = re.compile(r"^\s*command:\s*\[([^\]{}]*)\]\s*$", re.M)
# Commands whose arguments reach the server's own parser as written.
_SERVER_COMMANDS = frozenset(
    {
        ("vllm", "serve"),
        ("python3", "-m", "vllm.entrypoints.openai.api_server"),
        ("python", "-m", "vllm.entrypoints.openai.api_server"),
        ("python3", "-m", "sglang.launch_server"),
        ("python", "-m", "sglang.launch_server"),
        ("text-generation-launcher",),
        ("tritonserver",),
    }
)
_IMAGE = re.compile(r"^\s*(?:-\s+)?image:(.*)$", re.M)
_ACTION = re.compile(r"\{\{-?(.*?)-?\}\}", re.S)
_VALUES_KEY = re.compile(r"\.Values(\.[A-Za-z_]\w*)+")


def args_keys(templates: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """The dotted values paths (``extraArgs``, ``server.extraArgs``) that some template
    prints as a list into the args of its only container, each with the values paths its
    ``image`` is built from."""
    found: dict[str, frozenset[str]] = {}
    for _name, text in templates:
        keys, images = _template_keys(text)
        found.update(dict.fromkeys(keys, images))
    return found


def dotted(path: PathT) -> str:
    """``path`` as a template writes it after ``.Values.``; "" for a path with an index."""
    return ".".join(map(str, path)) if all(isinstance(p, str) for p in path) else ""


def _template_keys(text: str) -> tuple[set[str], frozenset[str]]:
    counts = {"command": 0, "image": 0, "containers": 0, "initContainers": 0}
    for match in _KEY.finditer(text):
        counts[match.group(1)] += 1
    blocks = list(_ARGS.finditer(text))
    if counts["command"] and not _server_command(text):
        return set(), frozenset()
    if (counts["image"], counts["containers"], counts["initContainers"], len(blocks)) != (
        1,
        1,
        0,
        1,
    ):
        return set(), frozenset()
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
    line = image.group(1) if image else ""
    images = frozenset(m.group(0).removeprefix(".Values.") for m in _VALUES_KEY.finditer(line))
    return (keys, images) if images else (set(), frozenset())


def _server_command(text: str) -> bool:
    """One literal command that starts the server itself (no shell, no wrapper)."""
    found = _COMMAND.findall(text)
    if len(found) != 1:
        return False
    words = tuple(w.strip().strip("\"'") for w in found[0].split(","))
    return words in _SERVER_COMMANDS


def _block(text: str, start: int, indent: int) -> str:
    """The lines after ``args:`` up to the first YAML line indented no deeper than it."""
    lines = []
    for line in text[start:].splitlines()[1:]:
        stripped = line.lstrip()
        if stripped and not stripped.startswith("{{") and len(line) - len(stripped) <= indent:
            break
        lines.append(line)
    return "\n".join(lines)
