"""Server argument lists → flags with typed values, in every form users write them.

Handles ``--flag value``, ``--flag=value``, ``--no-flag`` (vLLM booleans), short aliases
(``-tp``), ``--a_b`` (vLLM rewrites it to ``--a-b``), ``nargs='+'`` lists, JSON-valued flags
and their dotted form (``-cc.cudagraph_mode=FULL``). Each flag keeps the origin of the
token that set it: the value token when it is separate, else the flag token.

Long flags resolve the way the server's own parser does at the given release
(``flagtables``): vLLM's and SGLang's argparse parsers take a unique prefix of a flag
(``--max-num-batched-token=32768`` sets ``max_num_batched_tokens``); every flag as written
is kept, with the parser's verdict, in ``ParsedArgs.written``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from linter.lazyregex import lazy_compile
from linter.lightclass import frozen, mutable
from linter.model.engine import flagtables, registry
from linter.model.engine.registry import Setting
from linter.model.facts import quantities as q
from linter.positions import Origin

_NEGATIVE_NUMBER = lazy_compile(r"^-\d+(\.\d+)?$")


class Token(NamedTuple):
    text: str
    origin: Origin
    # For a YAML literal block scalar (a shell script): its first content line and indent.
    block: tuple[int, int] | None = None


@frozen
class FlagValue:
    """One flag as written: the long flag name, its raw value and its typed value."""

    flag: str
    raw: str
    origin: Origin
    setting: Setting | None
    value: Any
    # The text as written when a switch was given a value (``--enforce-eager=true``).
    inline_bool: str | None = None
    # The dotted key of ``-cc.key=value`` (merged into the JSON setting).
    subkey: str | None = None


@frozen
class WrittenFlag:
    """A flag name as written (without its ``=value``) and how the server reads it."""

    name: str
    origin: Origin
    verdict: flagtables.Verdict


@mutable
class ParsedArgs:
    flags: list[FlagValue]
    positionals: list[Token]
    written: list[WrittenFlag] = dataclasses.field(default_factory=list)


# Text the parser never sees as written: a shell or Kubernetes variable, a Helm leftover.
_NOT_LITERAL = lazy_compile(r"[$`{}]")
_UNCHECKED = flagtables.Verdict("unchecked", "", "", "", "", "", (), "", "")


def written_verdict(server: str, version: str, name: str) -> flagtables.Verdict:
    """The server's verdict on a flag name; ``unchecked`` for what cannot be judged."""
    if _NOT_LITERAL.search(name):
        return _UNCHECKED
    if not name.startswith("--"):
        # Short options (``-tp``, vLLM's ``-O3``) are judged only when they match exactly.
        verdict = flagtables.judge(server, version, name)
        return verdict if verdict.status == "accepted" else _UNCHECKED
    # vLLM reads ``--json-flag.key=value`` as a key of ``--json-flag``: judge the flag.
    base = name.split(".", 1)[0] if server == "vllm" else name
    return flagtables.judge(server, version, base)


def parse_args(server: str, tokens: Sequence[Token], version: str = "") -> ParsedArgs:
    """Split ``tokens`` into flags and positionals using ``server``'s registry.

    ``version`` is the server release (empty when unknown): abbreviations resolve as that
    release's parser resolves them, or as every release in the table does when unknown.
    """
    flags: list[FlagValue] = []
    positionals: list[Token] = []
    written: list[WrittenFlag] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        text = token.text
        if text == "--":
            positionals.extend(tokens[i + 1 :])
            break
        if not text.startswith("-") or text == "-" or _NEGATIVE_NUMBER.match(text):
            positionals.append(token)
            i += 1
            continue
        name = registry.normalize_flag(server, text).partition("=")[0]
        verdict = written_verdict(server, version, name)
        written.append(WrittenFlag(name, token.origin, verdict))
        parsed, i = _parse_flag(server, tokens, i, verdict.flag if name.startswith("--") else "")
        flags.append(parsed)
    return ParsedArgs(flags, positionals, written)


def _parse_flag(
    server: str, tokens: Sequence[Token], i: int, resolved: str = ""
) -> tuple[FlagValue, int]:
    token = tokens[i]
    name, has_inline, inline = registry.normalize_flag(server, token.text).partition("=")
    inline_value = inline if has_inline else None
    base, _, subkey = name.partition(".") if not name.startswith("--no-") else (name, "", "")
    if resolved and resolved != base and "." not in name:
        name = base = resolved  # an abbreviation the server's parser resolves
    setting = registry.by_flag(server, base)
    negated = False
    if setting is None and name.startswith("--no-"):
        candidate = registry.by_flag(server, "--" + name[5:])
        if candidate is not None and candidate.kind == "bool":
            setting, negated = candidate, True
    long_flag = setting.flags[0] if setting is not None and not negated else name
    if setting is not None and not negated and base != name:
        long_flag = setting.flags[0] + "." + subkey
    kind = setting.kind if setting is not None else ""
    if kind == "bool":
        return _switch(server, tokens, i, long_flag, setting, negated, inline_value)
    if kind == "ints" and inline_value is None:
        return _list_values(tokens, i, long_flag, setting)
    if inline_value is not None:
        return _valued(long_flag, inline_value, token.origin, setting, subkey or None), i + 1
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is not None and (
        not nxt.text.startswith("-")
        or _NEGATIVE_NUMBER.match(nxt.text)
        or (setting is not None and nxt.text.startswith("-") and kind in ("str", "json"))
    ):
        return _valued(long_flag, nxt.text, nxt.origin, setting, subkey or None), i + 2
    # A valued flag with nothing after it, or an unknown switch.
    return FlagValue(
        long_flag,
        "true" if setting is None else "",
        token.origin,
        setting,
        True if setting is None else None,
    ), i + 1


def _switch(
    server: str,
    tokens: Sequence[Token],
    i: int,
    flag: str,
    setting: Setting | None,
    negated: bool,
    inline_value: str | None,
) -> tuple[FlagValue, int]:
    token = tokens[i]
    if inline_value is not None:
        parsed = q.to_bool(inline_value)
        value = None if parsed is None else parsed != negated
        return FlagValue(flag, inline_value, token.origin, setting, value, token.text), i + 1
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if (
        nxt is not None
        and q.to_bool(nxt.text) is not None
        and server != "tgi"
        and not nxt.text.isdigit()
    ):
        # argparse then fails with "unrecognized arguments: False".
        value = q.to_bool(nxt.text) != negated
        return FlagValue(
            flag, nxt.text, token.origin, setting, value, f"{token.text} {nxt.text}"
        ), i + 2
    return FlagValue(flag, "true", token.origin, setting, not negated), i + 1


def _list_values(
    tokens: Sequence[Token], i: int, flag: str, setting: Setting | None
) -> tuple[FlagValue, int]:
    j = i + 1
    while j < len(tokens) and (
        not tokens[j].text.startswith("-") or _NEGATIVE_NUMBER.match(tokens[j].text)
    ):
        j += 1
    items = tokens[i + 1 : j]
    raw = " ".join(t.text for t in items)
    origin = items[0].origin if items else tokens[i].origin
    return _valued(flag, raw, origin, setting, None), j


def _valued(
    flag: str, raw: str, origin: Origin, setting: Setting | None, subkey: str | None
) -> FlagValue:
    value = convert(setting.kind, raw) if setting is not None and subkey is None else raw
    if subkey is not None:
        value = _json_scalar(raw)
    return FlagValue(flag, raw, origin, setting, value, None, subkey)


def convert(kind: str, raw: object) -> Any:
    """The typed value of ``raw`` for a setting of ``kind``; None when it does not parse."""
    if kind == "int":
        return q.to_int(raw)
    if kind == "hint":
        return q.human_int(raw)
    if kind == "float":
        number = q.to_number(raw)
        return None if number is None else float(number)
    if kind in ("bool", "vbool"):
        return q.to_bool(raw)
    if kind == "json":
        return _json_object(raw)
    if kind in ("ints", "csv"):
        return _int_list(raw)
    if kind == "multi":
        return [str(raw)] if raw is not None else None
    if raw is None or isinstance(raw, dict | list):
        return None
    return str(raw) if not isinstance(raw, bool) else str(raw).lower()


def _json_object(raw: object) -> Any:
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return None
    try:
        loaded = json.loads(raw)
    except ValueError:
        return None
    if isinstance(loaded, int) and not isinstance(loaded, bool):
        return {"level": loaded}  # vLLM's older "-O3" / "--compilation-config 3" form
    return loaded if isinstance(loaded, dict) else None


def _json_scalar(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _int_list(raw: object) -> list[int] | None:
    if isinstance(raw, list):
        items: list[object] = list(raw)
    elif isinstance(raw, int) and not isinstance(raw, bool):
        items = [raw]
    elif isinstance(raw, str):
        text = raw.strip().strip("[]")
        items = [part for part in re.split(r"[,\s]+", text) if part]
    else:
        return None
    values = [q.to_int(item) for item in items]
    if not values or any(v is None for v in values):
        return None
    return [v for v in values if v is not None]
