"""Log lines without what other tools put in front of them.

A start-up log reaches servelint through ``kubectl logs`` (``--timestamps``, ``--prefix``), Ray
(``(EngineCore_0 pid=123)``, ``(RayWorkerWrapper pid=9, ip=10.0.0.2)``), wrappers
(``vLLM STDOUT:``), colour codes and the servers' own logging prefixes
(``INFO 10-08 08:39:01 [utils.py:233]``, ``[2025-09-04 12:00:00] INFO engine.py:156:``,
``2024-08-16T12:07:56Z  INFO text_generation_launcher:``, ``I0717 23:01:28.501 300
server.cc:674]``). Each line keeps its number in the input and the process label, so
that several processes printing the same configuration can be told apart.
"""

from __future__ import annotations

import dataclasses
import json
import re

from linter.lightclass import frozen

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
# kubectl logs --timestamps: an RFC 3339 time and one space.
_KUBECTL_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) ")
# kubectl logs --prefix: "[pod/vllm-5d9c7-a2kq9/vllm] ".
_KUBECTL_PREFIX = re.compile(r"^\[(?P<label>pod/[^\]/ ]+/[^\] ]+)\] ")
# Ray's worker prefix: (Actor pid=123) or (Actor pid=123, ip=10.0.0.2) or (pid=123).
_RAY = re.compile(r"^\((?P<label>[\w.:-]*(?: ?pid=\d+)(?:, ip=[\w.:-]+)?)\) ")
_WRAPPERS = re.compile(r"^(?:vLLM STDOUT|vLLM STDERR|INFO:tgi-server|\[stdout\]|\[stderr\]):?\s*")
_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|TRACE)"
# vLLM: "INFO 10-08 08:39:01 [utils.py:233] " (also with a year, and without the file).
_VLLM = re.compile(
    rf"^{_LEVEL} \d\d-\d\d(?: \d{{4}})? \d\d:\d\d:\d\d(?:\.\d+)? (?:\[?[\w./-]+:\d+\] )?"
)
# SGLang: "[2025-09-04 12:00:00] INFO engine.py:156: " or "[2025-09-04 12:00:00 TP0] ".
_SGLANG = re.compile(
    rf"^\[\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d(?:[ \w]*)\] (?:{_LEVEL} [\w./-]+:\d+: )?"
)
# Python logging defaults: "2025-01-01 10:00:00,123 - name - INFO - ".
_PYLOG = re.compile(rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ - [\w.]+ - {_LEVEL} - ")
# TGI (tracing): "2024-08-16T12:07:56.411768Z  INFO text_generation_launcher: ".
_TRACING = re.compile(
    rf"^(?:\d{{4}}-\d\d-\d\dT[\d:.]+Z)?\s*{_LEVEL}\s+(?:[\w]+: )*(?:[\w:]+\s*:\s)"
)
# Triton (glog): "I0717 23:01:28.501008 300 server.cc:674] ".
_GLOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w./-]+:\d+\] ?")
_SERVER_PREFIXES = (_VLLM, _SGLANG, _PYLOG, _TRACING, _GLOG)
# SGLang prefixes its processes' lines with their rank: "[2025-.. TP0] ", "[.. DP1 TP2] ".
_SGLANG_RANK = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?P<rank>(?:[A-Z]+\d+ ?)+)\]")


# One pass of the prefixes above, in the order they nest, as one pattern: each optional
# group is tried where the one before it left off, exactly as matching them one after the
# other would (a group that does not match takes nothing, so none is taken back); SGLang's
# rank is only looked at. A line without any prefix (most lines, once their prefixes are
# gone) is done after one match instead of eleven.
def _group(pattern: re.Pattern[str], name: str | None = None) -> str:
    """``pattern`` without its anchor, its first named group renamed to ``name`` (or
    unnamed, as the others are)."""
    names = iter([f"(?P<{name}>"] if name else [])
    return re.sub(r"\(\?P<\w+>", lambda _: next(names, "("), pattern.pattern.removeprefix("^"))


_PASS = re.compile(
    "^"
    f"(?:{_group(_KUBECTL_PREFIX, 'prefix')})?"
    f"(?:{_group(_KUBECTL_TIME)})?"
    f"(?:{_group(_RAY, 'ray')})?"
    f"(?:{_group(_WRAPPERS)})?"
    f"(?=(?:{_group(_SGLANG_RANK, 'rank')})?)"
    f"(?:{'|'.join(f'(?:{_group(pattern)})' for pattern in _SERVER_PREFIXES)})?"
)


@frozen
class Line:
    number: int  # 1-based, in the input
    text: str  # the message, prefixes removed
    process: str  # "EngineCore_0 pid=12", "TP1", or ""
    logged: bool  # the line had a logging prefix (a log, not a document)


def clean(text: str) -> list[Line]:
    out: list[Line] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        _append(out, _clean(number, raw))
    return out


def clean_marked(text: str, marks: tuple[str, ...]) -> list[Line]:
    """The lines of ``clean(text)`` that can hold one of ``marks``, with their numbers in
    the input: all that a parser acting only on lines with those marks reads. Most of a
    server's log is its work (access lines, throughput), and cleaning every line costs
    more than the parse. Cleaning removes prefixes, colour codes and carriage returns and
    reads JSON-quoted messages, so a line gains a mark only through a colour code, a
    carriage return or a JSON escape: such lines are cleaned too."""
    out: list[Line] = []
    number, start = 1, 0  # the line ``start`` begins, counted from the previous one
    for position in _positions(text, (*marks, "\x1b", "\r", "\\")):
        if position < start:
            continue  # a second mark on a line already taken
        line_start = text.rfind("\n", start, position) + 1 or start
        number += text.count("\n", start, line_start)
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        _append(out, _clean(number, text[line_start:end]))
        number, start = number + 1, end + 1
    return out


def _positions(text: str, needles: tuple[str, ...]) -> list[int]:
    """Where each needle occurs in ``text``, in order (``str.find`` is many times faster
    than one pattern of alternatives over a long text)."""
    found: list[int] = []
    for needle in needles:
        position = text.find(needle)
        while position >= 0:
            found.append(position)
            position = text.find(needle, position + 1)
    return sorted(found)


def _append(out: list[Line], line: Line) -> None:
    text = line.text
    if line.logged and len(text) > 1 and text[0] == '"' and text[-1] == '"':
        out.extend(_unquoted(line))
    else:
        out.append(line)


def _unquoted(line: Line) -> list[Line]:
    """Triton (24.x and later) logs each message as a JSON string: ``"model
    configuration:\\n{\\n ...}"``; its lines are the message's lines. ``line`` is a
    logged line whose text is quoted."""
    text = line.text
    try:
        message = json.loads(text)
    except ValueError:
        return [line]
    if not isinstance(message, str):
        return [line]
    return [dataclasses.replace(line, text=part) for part in message.split("\n")]


def _clean(number: int, raw: str) -> Line:
    text = _ANSI.sub("", raw) if "\x1b" in raw or "\r" in raw else raw
    logged = False
    process = ""
    for _ in range(4):  # prefixes nest: kubectl time, Ray label, wrapper, server prefix
        found = _PASS.match(text)  # every part is optional: it always matches
        if found is None or found.end() == 0:
            if found is not None and found["rank"]:
                process = process or found["rank"].strip()
            break
        if found["prefix"] is not None:
            process = found["prefix"]
        if found["ray"] is not None:
            process = f"{process} {found['ray']}".strip()
        if found["rank"]:
            process = process or found["rank"].strip()
        # Every group but the rank takes text, and each marks a logging prefix.
        text, logged = text[found.end() :], True
    return Line(number, text.rstrip(), process, logged)


def looks_like_log(lines: list[Line]) -> bool:
    """Most non-blank lines carry a logging prefix: a log, never a YAML document."""
    filled = [line for line in lines if line.text.strip()]
    prefixed = sum(1 for line in filled if line.logged)
    return bool(filled) and prefixed * 3 >= len(filled)
