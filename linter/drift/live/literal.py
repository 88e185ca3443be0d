"""Values as servers print them: Python reprs and Rust ``Debug`` output, one parser.

vLLM and SGLang print Python objects (``{'max_model_len': 4096}``, ``Namespace(a=1)``,
``ServerArgs(tp_size=2)``, ``<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>``,
``torch.bfloat16``, ``LoadFormat.AUTO``), sometimes with JSON inside (``{"level":3}``);
TGI's launcher prints Rust ``Debug`` (``Args { quantize: Some(Gptq), api_key: None }``).
Nothing here evaluates code: the text is tokenised and read as data.

- ``Name(k=v, ...)`` and ``Name { k: v, ... }`` are maps; ``Some(x)`` is ``x``;
- ``None``/``null`` are ``None``; ``True``/``true`` and ``False``/``false`` booleans;
- ``<Enum.MEMBER: 'value'>`` is ``'value'``, ``<Enum.MEMBER: 3>`` is ``'MEMBER'``;
- a dotted name (``torch.bfloat16``, ``LoadFormat.AUTO``) is its last part, lower-cased
  for enum members written in capitals; a bare Rust enum variant (``Gptq``, ``On``) is
  spelled as the launcher's command line spells it (``--quantize gptq``,
  ``BitsandbytesNF4`` = ``bitsandbytes-nf4``);
- ``<function f at 0x..>`` and other ``<...>`` reprs are kept as their text.
"""

from __future__ import annotations

import re
from typing import Any

from linter.lazyregex import lazy_compile

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<number>[+-]?(?>\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|nan)(?![\w.]))
  | (?P<name>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)
  | (?P<punct>[{}\[\]()<>:,=])
  | (?P<other>\S)
    """,
    re.VERBOSE,
)
# What follows an opening quote up to where its string would close (issue 31).
_STRING_BODY = {quote: re.compile(rf"(?:[^{quote}\\]|\\.)*") for quote in "'\""}
_DIGITS = re.compile(r"\d[\d_]*")
_KEYWORDS: dict[str, Any] = {
    "None": None,
    "null": None,
    "True": True,
    "true": True,
    "False": False,
    "false": False,
}


# No server prints a configuration nested this deep; hostile text must not exhaust the stack.
MAX_DEPTH = 100
# Python reads integers of at most 4300 digits (sys.get_int_max_str_digits); no server
# prints a longer number, and a longer one is an error at its place, not a failed comparison.
MAX_NUMBER = 4300


class LiteralError(ValueError):
    """The text is not a value in one of the printed forms (with the offset)."""


def tokens(text: str) -> list[tuple[str, str, int]]:
    """The tokens of ``text`` in one pass: linear in its length whatever it holds.

    A number is read atomically (``(?>...)``): when what follows it is a letter or a dot,
    no shorter reading of the same digits could be followed by anything else, so trying
    them (cubic in a run of digits) cannot change the outcome. A quote whose string never
    closes, or a digit whose number is refused, makes the quotes of that kind (and the
    digits) up to where that reading stopped fail the same way: each of them is inside the
    reading that failed and would repeat its end, so they are single characters without
    being read again (quadratic in 100,000 escaped quotes otherwise).
    """
    out = []
    position, end = 0, len(text)
    unclosed = dict.fromkeys(_STRING_BODY, -1)  # quotes before this cannot open a string
    refused = -1  # digits before this cannot start a number
    while position < end:
        char = text[position]
        if position < unclosed.get(char, -1) or (position < refused and char != "_"):
            out.append(("other", char, position))
            position += 1
            continue
        match = _TOKEN.match(text, position)
        assert match is not None  # every character is a space or some token
        kind = match.lastgroup or "other"
        if kind == "other" and char in _STRING_BODY:
            stop = _STRING_BODY[char].match(text, position + 1)
            unclosed[char] = stop.end() if stop else position
        elif kind == "other" and _DIGITS.match(char):
            stop = _DIGITS.match(text, position)
            refused = stop.end() if stop else position
        if kind != "space":
            out.append((kind, match.group(), position))
        position = match.end()
    return out


def parse(text: str) -> Any:
    """The one value ``text`` holds; ``LiteralError`` when it holds anything else."""
    reader = _Reader(text, tokens(text))
    value = reader.value()
    if reader.index < len(reader.items):
        raise reader.error("unexpected text after the value")
    return value


def parse_prefix(text: str) -> tuple[Any, int]:
    """The value at the start of ``text`` and where it ends (for a line that goes on)."""
    reader = _Reader(text, tokens(text))
    value = reader.value()
    end = reader.items[reader.index - 1]
    return value, end[2] + len(end[1])


def unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return body


class _Reader:
    def __init__(self, text: str, items: list[tuple[str, str, int]]) -> None:
        self.text = text
        self.items = items
        self.index = 0
        self.depth = 0

    def error(self, message: str) -> LiteralError:
        at = self.items[self.index][2] if self.index < len(self.items) else len(self.text)
        return LiteralError(f"{message} at character {at + 1}")

    def peek(self, offset: int = 0) -> tuple[str, str, int] | None:
        at = self.index + offset
        return self.items[at] if at < len(self.items) else None

    def take(self, expected: str | None = None) -> tuple[str, str, int]:
        item = self.peek()
        if item is None:
            raise self.error("the text ends too early")
        if expected is not None and item[1] != expected:
            raise self.error(f"expected '{expected}'")
        self.index += 1
        return item

    def value(self) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise self.error(f"nested deeper than {MAX_DEPTH} levels")
            return self._value()
        finally:
            self.depth -= 1

    def _value(self) -> Any:
        kind, text, _ = self.take()
        if kind == "string":
            return unquote(text)
        if kind == "number":
            if len(text) > MAX_NUMBER:
                self.index -= 1
                raise self.error(f"a number longer than {MAX_NUMBER} characters")
            return _number(text)
        if text == "{":
            return self._mapping("}")
        if text == "[":
            return self._sequence("]")
        if text == "(":
            items = self._sequence(")")
            return items[0] if len(items) == 1 and not self._trailing_comma else items
        if text == "<":
            return self._angle()
        if kind == "name":
            return self._named(text)
        if text == "-":
            raise self.error("unexpected '-'")
        raise self.error(f"unexpected '{text}'")

    _trailing_comma = False

    def _mapping(self, close: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while True:
            item = self.peek()
            if item is None:
                raise self.error(f"missing '{close}'")
            if item[1] == close:
                self.index += 1
                return out
            key = self.value()
            separator = self.take()
            if separator[1] not in (":", "="):
                self.index -= 1
                raise self.error("expected ':' after a key")
            out[str(key)] = self.value()
            self._comma(close)

    def _sequence(self, close: str) -> list[Any]:
        out: list[Any] = []
        self._trailing_comma = False
        while True:
            item = self.peek()
            if item is None:
                raise self.error(f"missing '{close}'")
            if item[1] == close:
                self.index += 1
                return out
            out.append(self.value())
            self._trailing_comma = self._comma(close)

    def _comma(self, close: str) -> bool:
        item = self.peek()
        if item is not None and item[1] == ",":
            self.index += 1
            return True
        if item is None or item[1] != close:
            raise self.error(f"expected ',' or '{close}'")
        return False

    def _named(self, name: str) -> Any:
        if name in _KEYWORDS:
            return _KEYWORDS[name]
        following = self.peek()
        if following is not None and following[1] == "(":
            self.index += 1
            return self._call(name)
        if following is not None and following[1] == "{" and "." not in name:
            self.index += 1  # a Rust struct: Args { ... }
            return self._mapping("}")
        return _bare(name)

    def _call(self, name: str) -> Any:
        """``Some(x)``, ``Name(k=v, ...)`` (a map), ``Name(x)`` (its one argument)."""
        first, second = self.peek(), self.peek(1)
        if first is not None and first[0] == "name" and second is not None and second[1] == "=":
            return self._mapping(")")
        items = self._sequence(")")
        if name == "Some" or len(items) == 1:
            return items[0] if items else None
        return items

    def _angle(self) -> Any:
        """``<Enum.MEMBER: value>``; any other ``<...>`` repr is kept as its text."""
        start = self.index - 1
        first, second = self.peek(), self.peek(1)
        if first is not None and first[0] == "name" and second is not None and second[1] == ":":
            self.index += 2
            value = self.value()
            self.take(">")
            member = first[1].rpartition(".")[2]
            return value if isinstance(value, str) else member
        depth = 1
        while depth:
            item = self.take()
            depth += item[1] == "<"
            depth -= item[1] == ">"
        begin = self.items[start][2]
        end = self.items[self.index - 1][2] + 1
        return self.text[begin:end]


def _number(text: str) -> Any:
    if text in ("inf", "nan", "+inf", "-inf"):
        return float(text)
    cleaned = text.replace("_", "")
    if re.fullmatch(r"[+-]?\d+", cleaned):
        return int(cleaned)
    return float(cleaned)


def _bare(name: str) -> str:
    """``torch.bfloat16`` → ``bfloat16``; ``LoadFormat.AUTO`` → ``auto``; ``Gptq`` → ``gptq``."""
    last = name.rpartition(".")[2]
    if "." in name:
        return last.lower() if last.isupper() else last
    if not last[:1].isupper():
        return last
    # A Rust enum variant as clap spells it on the command line (kebab-case):
    # BitsandbytesNF4 → bitsandbytes-nf4, Gptq → gptq.
    return _CAMEL.sub("-", last).lower()


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def parse_cut(text: str) -> tuple[Any, str]:
    """The value ``text`` holds and "", or, for a map cut before its end (a log line cut
    when it was pasted or by a size limit), the map of its complete fields before the
    cut and the name of the last of them. ``LiteralError`` when the text is not a value
    in a printed form, or is wrong before it ends."""
    try:
        return parse(text), ""
    except LiteralError as error:
        boundaries = _top_level_commas(text)
        if boundaries is None:
            raise  # closed before its end, or no map: not a cut
        opener, commas = boundaries
        for comma in reversed(commas[-3:]):  # the last complete field, a few tries at most
            try:
                value = parse(text[:comma] + _CLOSERS[opener])
            except LiteralError:
                continue
            if isinstance(value, dict) and value:
                return value, str(list(value)[-1])
        raise error


_CLOSERS = {"{": "}", "(": ")"}


def _top_level_commas(text: str) -> tuple[str, list[int]] | None:
    """The opening bracket of the outer map and the offsets of its field separators, when
    the text ends inside it (brackets still open or a string not closed); None when the
    outer value closes before the end or there is no map."""
    depth, quote, opener = 0, "", ""
    commas: list[int] = []
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "{[(":
            if depth == 0:
                if char == "[":
                    return None
                opener = char
            depth += 1
        elif char in "}])":
            depth -= 1
            if depth <= 0:
                return None
        elif char == "," and depth == 1:
            commas.append(index)
        index += 1
    return (opener, commas) if depth > 0 and opener else None


def ends_open(text: str) -> bool:
    """The text ends inside brackets or a string (it was cut)."""
    # The strings first, by pattern (an engine line holds a compilation config of many
    # kilobytes for every pod a scan reads); then only the brackets, one by one.
    depth = 0
    for match in _BRACKET_OR_QUOTE.finditer(_QUOTED.sub("", text)):
        char = match.group()
        if char in "'\"":
            return True  # a string that does not close before the end
        if char in "{[(":
            depth += 1
        else:
            depth = max(depth - 1, 0)
    return depth > 0


# A whole quoted string, escapes included; an opening quote left without its close
# after these are removed opens a string that runs to the end.
_QUOTED = lazy_compile("'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"", re.DOTALL)
_BRACKET_OR_QUOTE = lazy_compile(r"""[{}\[\]()'"]""")
