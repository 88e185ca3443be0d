"""Read the options of a clap ``struct Args`` (TGI's launcher/src/main.rs) from Rust source.

Each field with ``#[clap(...)]`` (or ``#[arg(...)]``) naming ``long`` is ``--field-name``
(clap turns snake case into kebab case) or ``long = "name"``; ``short`` adds ``-f`` (the
field's first letter) or ``short = 'x'``; ``alias``/``aliases`` add more long names. clap
adds ``-h/--help`` and, with ``version`` on the command, ``-V/--version``. The launcher
does not enable ``infer_long_args``, so clap takes no abbreviations.
"""

from __future__ import annotations

import re

from argparse_ast import Option

_FIELD = re.compile(r"^\s*(?:pub\s+)?([a-z_][a-z0-9_]*)\s*:\s*(.+?),?\s*$")
_ATTRIBUTE = re.compile(r"^\s*#\[(?:clap|arg)\((.*)\)\]\s*$")


def _struct_body(source: str, name: str) -> list[tuple[int, str]]:
    start = re.search(rf"\bstruct\s+{name}\s*\{{", source)
    if start is None:
        return []
    depth = 0
    body: list[tuple[int, str]] = []
    line_no = source.count("\n", 0, start.start()) + 1
    for offset, line in enumerate(source[start.end() - 1 :].splitlines()):
        depth += line.count("{") - line.count("}")
        body.append((line_no + offset, line))
        if depth <= 0:
            break
    return body


def clap_options(source: str, rel: str, struct: str = "Args") -> list[Option]:
    options: list[Option] = []
    attributes: list[str] = []
    for line_no, line in _struct_body(source, struct):
        stripped = line.strip()
        if stripped.startswith("///") or not stripped:
            continue
        attribute = _ATTRIBUTE.match(line)
        if attribute:
            attributes.append(attribute.group(1))
            continue
        field = _FIELD.match(line)
        if field is None:
            if not stripped.startswith("#["):
                attributes = []
            continue
        name = field.group(1)
        spec = ", ".join(attributes)
        attributes = []
        strings: list[str] = []
        long_name = re.search(r'\blong\s*=\s*"([^"]+)"', spec)
        if long_name:
            strings.append("--" + long_name.group(1))
        elif re.search(r"\blong\b", spec):
            strings.append("--" + name.replace("_", "-"))
        short = re.search(r"\bshort\s*=\s*'(.)'", spec)
        if short:
            strings.append("-" + short.group(1))
        elif re.search(r"\bshort\b(?!\s*=)", spec):
            strings.append("-" + name[0])
        strings.extend("--" + a for a in re.findall(r'\b(?:visible_)?alias\s*=\s*"([^"]+)"', spec))
        for group in re.findall(r"\b(?:visible_)?aliases\s*=\s*\[([^\]]*)\]", spec):
            strings.extend("--" + a for a in re.findall(r'"([^"]+)"', group))
        if strings:
            options.append(Option(strings, name, False, False, "", f"{rel}:{line_no}"))
    return options


def command_has_version(source: str) -> bool:
    return bool(re.search(r"#\[(?:clap|command)\([^)]*\bversion\b", source))
