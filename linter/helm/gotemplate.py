"""A parser for Go ``text/template`` source, as Helm charts write it, into a small tree.

Only what a static reading of ``.Values`` needs is kept: actions, ``if``/``with``/``range``
blocks, ``define``/``block``/``template``, and every pipeline with its commands and
operands. Text between actions is skipped. The grammar follows Go's own
(text/template/parse: lex.go and parse.go): ``{{-``/``-}}`` trim markers, ``/* */``
comments, raw and interpreted strings, variable declarations (``$x :=``, ``$i, $v :=``),
assignments (``$x =``), ``else if`` / ``else with`` chains and parenthesised pipelines
with trailing fields (``(pipeline).a.b``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from linter.lightclass import frozen


class TemplateSyntaxError(ValueError):
    """Template text this reader cannot parse; ``line`` is 1-based."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@frozen
class Field:
    """``.a.b`` (names after the dot); an empty tuple is the dot itself."""

    names: tuple[str, ...]


@frozen
class Variable:
    """``$`` or ``$name``, with trailing fields (``$v.a.b``)."""

    name: str
    names: tuple[str, ...] = ()


@frozen
class Identifier:
    """A function name (``toYaml``, ``include``)."""

    name: str


@frozen
class Literal:
    value: str | int | float | bool | None


@frozen
class SubPipe:
    """``(pipeline)`` with trailing fields."""

    pipe: Pipe
    names: tuple[str, ...] = ()


Operand = Field | Variable | Identifier | Literal | SubPipe


@frozen
class Command:
    args: tuple[Operand, ...]


@frozen
class Pipe:
    decl: tuple[str, ...]  # variable names declared or assigned, without "$"
    assign: bool  # "=" rather than ":="
    commands: tuple[Command, ...]


@frozen
class Action:
    pipe: Pipe


@frozen
class Branch:
    """``if``, ``with`` or ``range``: its pipeline, body and ``else`` body."""

    kind: str
    pipe: Pipe
    body: tuple[Node, ...]
    otherwise: tuple[Node, ...]


@frozen
class Call:
    """``template "name" pipeline`` (and the call a ``block`` makes)."""

    name: str
    pipe: Pipe | None


Node = Action | Branch | Call


@frozen
class Template:
    """One file: what runs when it is rendered, and the templates it defines."""

    body: tuple[Node, ...]
    defines: tuple[tuple[str, tuple[Node, ...]], ...]


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<close>-?}})
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<char>'(?:[^'\\\n]|\\.)+')
  | (?P<num>[+-]?(?:0[xXoObB][0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?))
  | (?P<declare>:=)
  | (?P<assign>=)
  | (?P<var>\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<field>(?:\.[A-Za-z_][A-Za-z0-9_]*)+)
  | (?P<dot>\.)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[()|,])
    """,
    re.VERBOSE,
)
_OPEN = re.compile(r"{{(-\s)?\s*(/\*)?")
_COMMENT_END = re.compile(r"\*/\s*(-\s*)?}}", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r", "0": "\0"}


class _Token(NamedTuple):
    kind: str
    text: str
    spaced: bool  # whitespace before it: ".a .b" are two operands, ".a.b" one
    line: int


def parse_template(text: str) -> Template:
    """The tree of one template file; ``TemplateSyntaxError`` when it cannot be read."""
    actions = list(_actions(text))
    parser = _Parser(actions)
    try:
        body = parser.nodes(stop=())
    except RecursionError:
        raise TemplateSyntaxError("nested too deeply", _last_line(actions)) from None
    return Template(tuple(body), tuple(parser.defines))


def _actions(text: str) -> Iterator[list[_Token]]:
    """The tokens of every action, in order (comments dropped)."""
    pos = counted = 0
    line = 1
    while True:
        start = text.find("{{", pos)
        if start < 0:
            return
        opened = _OPEN.match(text, start)
        assert opened is not None  # "{{" always matches
        line += text.count("\n", counted, start)
        counted = start
        if opened.group(2):
            end = _COMMENT_END.search(text, opened.end())
            if end is None:
                raise TemplateSyntaxError("unclosed comment", line)
            pos = end.end()
            continue
        tokens, pos = _tokens(text, opened.end(), line)
        yield tokens


def _tokens(text: str, pos: int, line: int) -> tuple[list[_Token], int]:
    tokens: list[_Token] = []
    spaced = True
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise TemplateSyntaxError(f"unexpected {text[pos]!r} in action", line)
        kind = match.lastgroup or ""
        pos = match.end()
        if kind == "ws":
            line += match.group().count("\n")
            spaced = True
            continue
        if kind == "close":
            return tokens, pos
        tokens.append(_Token(kind, match.group(), spaced, line))
        line += match.group().count("\n")
        spaced = False
    raise TemplateSyntaxError("unclosed action", line)


class _Parser:
    def __init__(self, actions: list[list[_Token]]) -> None:
        self.actions = actions
        self.index = 0
        self.defines: list[tuple[str, tuple[Node, ...]]] = []

    def nodes(self, stop: tuple[str, ...]) -> list[Node]:
        """Nodes up to an action whose keyword is in ``stop`` (left unconsumed)."""
        out: list[Node] = []
        while self.index < len(self.actions):
            tokens = self.actions[self.index]
            keyword = _keyword(tokens)
            if keyword in stop:
                return out
            self.index += 1
            if keyword in ("end", "else"):
                raise TemplateSyntaxError(f"unexpected {{{{{keyword}}}}}", tokens[0].line)
            node = self._statement(keyword, tokens)
            if node is not None:
                out.append(node)
        if stop:
            raise TemplateSyntaxError(f"missing {{{{{stop[0]}}}}}", _last_line(self.actions))
        return out

    def _statement(self, keyword: str, tokens: list[_Token]) -> Node | None:
        if keyword in ("if", "with", "range"):
            return self._branch(keyword, tokens[1:])
        if keyword in ("define", "block"):
            name = _string(tokens, 1)
            body = self.nodes(stop=("end",))
            self.index += 1
            self.defines.append((name, tuple(body)))
            if keyword == "block":
                return Call(name, _PipeParser(tokens[2:]).pipe())
            return None
        if keyword == "template":
            name = _string(tokens, 1)
            return Call(name, _PipeParser(tokens[2:]).pipe() if len(tokens) > 2 else None)
        if keyword in ("break", "continue") or not tokens:
            return None
        return Action(_PipeParser(tokens).pipe())

    def _branch(self, kind: str, tokens: list[_Token]) -> Branch:
        pipe = _PipeParser(tokens).pipe()
        body = self.nodes(stop=("end", "else"))
        closing = self.actions[self.index]
        self.index += 1
        otherwise: list[Node] = []
        if _keyword(closing) == "else":
            if len(closing) > 1 and _keyword(closing[1:]) in ("if", "with"):
                # "else if" / "else with" continues the chain and shares its {{end}}.
                otherwise = [self._branch(_keyword(closing[1:]), closing[2:])]
                return Branch(kind, pipe, tuple(body), tuple(otherwise))
            otherwise = self.nodes(stop=("end",))
            self.index += 1
        return Branch(kind, pipe, tuple(body), tuple(otherwise))


_KEYWORDS = frozenset(
    ("if", "else", "end", "range", "with", "define", "template", "block", "break", "continue")
)


def _keyword(tokens: list[_Token]) -> str:
    if tokens and tokens[0].kind == "ident" and tokens[0].text in _KEYWORDS:
        return tokens[0].text
    return ""


def _string(tokens: list[_Token], index: int) -> str:
    if index >= len(tokens) or tokens[index].kind not in ("str", "raw"):
        line = tokens[0].line if tokens else 1
        raise TemplateSyntaxError("expected a template name in quotes", line)
    return str(_literal(tokens[index]).value)


def _last_line(actions: list[list[_Token]]) -> int:
    for tokens in reversed(actions):
        if tokens:
            return tokens[-1].line
    return 1


def _literal(token: _Token) -> Literal:
    text = token.text
    if token.kind == "raw":
        return Literal(text[1:-1])
    if token.kind in ("str", "char"):
        body = re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text[1:-1])
        return Literal(body)
    if token.kind == "num":
        cleaned = text.replace("_", "")
        try:
            return Literal(int(cleaned, 0))
        except ValueError:
            try:
                return Literal(float(cleaned))
            except ValueError:
                return Literal(cleaned)
    return Literal({"true": True, "false": False, "nil": None}[text])


class _PipeParser:
    """One pipeline: ``[decl] command { '|' command }``."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def pipe(self, *, nested: bool = False) -> Pipe:
        decl, assign = self._declaration()
        commands = [self._command()]
        while self._peek("|"):
            self.pos += 1
            commands.append(self._command())
        if not nested and self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            raise TemplateSyntaxError(f"unexpected {token.text!r}", token.line)
        return Pipe(tuple(decl), assign, tuple(commands))

    def _peek(self, text: str) -> bool:
        return self.pos < len(self.tokens) and self.tokens[self.pos].text == text

    def _declaration(self) -> tuple[list[str], bool]:
        names: list[str] = []
        pos = self.pos
        while pos < len(self.tokens) and self.tokens[pos].kind == "var":
            if "." in self.tokens[pos].text:
                return [], False
            names.append(self.tokens[pos].text[1:])
            pos += 1
            if pos < len(self.tokens) and self.tokens[pos].text == ",":
                pos += 1
                continue
            if pos < len(self.tokens) and self.tokens[pos].kind in ("declare", "assign"):
                self.pos = pos + 1
                return names, self.tokens[pos].kind == "assign"
            return [], False
        return [], False

    def _command(self) -> Command:
        args: list[Operand] = []
        while self.pos < len(self.tokens) and self.tokens[self.pos].text not in ("|", ")"):
            args.append(self._operand())
        if not args:
            line = self.tokens[self.pos - 1].line if self.tokens else 1
            raise TemplateSyntaxError("empty command", line)
        return Command(tuple(args))

    def _operand(self) -> Operand:
        token = self.tokens[self.pos]
        self.pos += 1
        kind = token.kind
        if kind == "punct" and token.text == "(":
            inner = self.pipe(nested=True)
            if not self._peek(")"):
                raise TemplateSyntaxError("unclosed '('", token.line)
            self.pos += 1
            return SubPipe(inner, self._trailing_fields())
        if kind == "field":
            return Field(tuple(token.text[1:].split(".")))
        if kind == "dot":
            return Field(())
        if kind == "var":
            name, *names = token.text[1:].split(".")
            return Variable(name, tuple(names))
        if kind == "ident" and token.text not in ("true", "false", "nil"):
            return Identifier(token.text)
        if kind in ("str", "raw", "char", "num", "ident"):
            return _literal(token)
        raise TemplateSyntaxError(f"unexpected {token.text!r}", token.line)

    def _trailing_fields(self) -> tuple[str, ...]:
        if self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            if token.kind == "field" and not token.spaced:
                self.pos += 1
                return tuple(token.text[1:].split("."))
        return ()
