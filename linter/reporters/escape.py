"""Text from the inputs, made safe to print on a terminal or in a CI log.

File names, keys, pod names and quoted values come from repositories and clusters that
may be hostile: a raw ESC rewrites the terminal (or hides a finding), a carriage return
overwrites the line, and a line that starts with ``::error`` is a GitHub Actions
workflow command. Every human-readable format therefore shows control characters as
escapes (``\\x1b``), keeps each finding on one line, and never starts a line with
``::`` from input text (after white space too: the runner trims it before it looks for a
command).
"""

from __future__ import annotations

import functools
import re

from linter.lazyregex import lazy_compile

# C0 controls except tab, DEL, C1 controls, the Unicode line and paragraph separators
# and the bidirectional overrides (which reorder what a reader sees). Python counts every
# one of them as not printable: a printable text has none (``str.isprintable``, the
# common case, which then needs neither pattern compiled).
_CONTROLS = "\x00-\x08{newline}\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_COMMAND_START = lazy_compile(r"^([^\S\n]*)::", re.MULTILINE)


@functools.cache
def _control(keep_newlines: bool) -> re.Pattern[str]:
    return re.compile(f"[{_CONTROLS.format(newline='' if keep_newlines else chr(10))}]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_text(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with control characters written as escapes (newlines too, unless
    ``keep_newlines``) and no line starting with ``::``."""
    if text.isprintable():  # one line, nothing to escape
        if not text.lstrip(" ").startswith("::"):
            return text
    else:
        text = _control(keep_newlines).sub(_shown, text)
    return _COMMAND_START.sub(_inert_command, text)


def _inert_command(match: re.Match[str]) -> str:
    return f"{match.group(1)}\\x3a:"
