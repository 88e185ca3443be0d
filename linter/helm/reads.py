"""Which values a chart's templates read, found by reading the templates, not rendering.

Every template is walked once with an abstract value for ``.`` and each variable: a
reference into the values (``.Values.a.b``), the root context, a ``dict``/``list`` built
in the template, or a string. Field access records a read (``with``, ``range``,
variables, ``index``/``get``/``dig``/``pluck``/``hasKey`` follow the same references);
a value printed or handed to a function that serialises it (``toYaml``, ``tpl``, an
unknown function) counts as read whole, with every key under it. Named templates are
followed with the value ``include``/``template`` passes them. Where the reading cannot be
sure it errs towards "read": a dynamic key reads every key at that level, ``.Values``
passed whole to a template the chart does not define reads everything, and a template
this reader cannot parse makes its chart's values read whole (with a note). Helm's
engine (pkg/engine/engine.go) renders every file of ``templates/`` except partials
(``_*``); subcharts see their values under their key, and ``.Values.global``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from linter.helm import gotemplate as gt
from linter.helm.keytree import ANY, KeyTree
from linter.helm.templatevalues import (
    EMPTY,
    Atom,
    DictOf,
    FileText,
    ListOf,
    Made,
    Path,
    Root,
    Text,
    Vals,
    Value,
    has_root,
    literal,
    texts_of,
)

_MAX_CALLS = 20_000  # distinct (template, argument) pairs before the reading gives up


# Functions whose result is (one of) their arguments: the reading follows it.
_PASS = frozenset(
    [
        "default",
        "required",
        "coalesce",
        "or",
        "and",
        "ternary",
        "deepCopy",
        "mustDeepCopy",
        "merge",
        "mergeOverwrite",
        "mustMerge",
        "mustMergeOverwrite",
        "omit",
        "pick",
        "set",
        "unset",
        "append",
        "mustAppend",
        "prepend",
        "mustPrepend",
        "concat",
        "compact",
        "mustCompact",
        "uniq",
        "mustUniq",
        "reverse",
        "mustReverse",
        "sortAlpha",
        "without",
        "mustWithout",
        "slice",
        "mustSlice",
        "initial",
        "mustInitial",
        "rest",
        "mustRest",
    ]
)
# Functions that only look at their arguments (a test, a length): nothing is read whole.
_INSPECT = frozenset(
    [
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "not",
        "empty",
        "len",
        "kindIs",
        "kindOf",
        "typeOf",
        "typeIs",
        "typeIsLike",
        "deepEqual",
        "has",
        "mustHas",
    ]
)
_ELEMENT = frozenset(["first", "mustFirst", "last", "mustLast", "values"])


class _Scope:
    __slots__ = ("parent", "variables")

    def __init__(self, parent: _Scope | None, variables: dict[str, Value] | None = None) -> None:
        self.parent = parent
        self.variables = variables or {}

    def get(self, name: str) -> Value:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.variables:
                return scope.variables[name]
            scope = scope.parent
        return EMPTY

    def assign(self, name: str, value: Value) -> None:
        # Flow-insensitive: a variable holds everything ever assigned to it.
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.variables:
                scope.variables[name] = scope.variables[name] | value
                return
            scope = scope.parent
        self.variables[name] = value


class TemplateReader:
    """Walks templates, recording every values path they read into ``tree``."""

    def __init__(
        self,
        defines: dict[str, list[tuple[gt.Node, ...]]],
        files: dict[Path, tuple[tuple[str, Callable[[], bytes]], ...]] | None = None,
    ) -> None:
        self.defines = defines
        self.files = files or {}  # each chart's other files, by where its values sit
        self.tree = KeyTree()
        self.renders_values = False  # tpl with the root context: values may be templates
        self._done: set[tuple[str, Value]] = set()

    def run(self, body: Sequence[gt.Node], dot: Value) -> None:
        self._nodes(body, dot, _Scope(None, {"": dot}))

    def _nodes(self, body: Iterable[gt.Node], dot: Value, scope: _Scope) -> None:
        for node in body:
            if isinstance(node, gt.Action):
                value = self._pipe(node.pipe, dot, scope)
                if not node.pipe.decl:
                    self._consume(value)
            elif isinstance(node, gt.Branch):
                self._branch(node, dot, scope)
            else:
                value = self._pipe(node.pipe, dot, scope) if node.pipe else EMPTY
                self._call(node.name, value)

    def _branch(self, node: gt.Branch, dot: Value, scope: _Scope) -> None:
        inner = _Scope(scope)
        value = self._pipe(node.pipe, dot, inner, bind=False)
        body_dot = dot
        if node.kind == "with":
            body_dot = value
        elif node.kind == "range":
            body_dot = self._elements(value)
        if node.pipe.decl:
            if node.kind == "range":
                *keys, last = node.pipe.decl
                for key in keys:
                    inner.variables[key] = EMPTY
                inner.variables[last] = body_dot
            else:
                inner.variables[node.pipe.decl[0]] = value
        self._nodes(node.body, body_dot, inner)
        self._nodes(node.otherwise, dot, _Scope(scope))

    def _pipe(self, pipe: gt.Pipe, dot: Value, scope: _Scope, *, bind: bool = True) -> Value:
        value: Value | None = None
        for command in pipe.commands:
            value = self._command(command, dot, scope, value)
        result = value if value is not None else EMPTY
        if bind and pipe.decl:
            for name in pipe.decl:
                if pipe.assign:
                    scope.assign(name, result)
                else:
                    scope.variables[name] = result
        return result

    def _command(
        self, command: gt.Command, dot: Value, scope: _Scope, piped: Value | None
    ) -> Value:
        first, rest = command.args[0], command.args[1:]
        if isinstance(first, gt.Identifier):
            args = [self._operand(arg, dot, scope) for arg in rest]
            if piped is not None:
                args.append(piped)
            return self._function(first.name, args)
        value = self._operand(first, dot, scope)
        if not rest and piped is None:
            return value
        # A method call (.Files.Get "x", .Capabilities.APIVersions.Has "y"): its
        # arguments are used as they are.
        args = [self._operand(arg, dot, scope) for arg in rest]
        if piped is not None:
            args.append(piped)
        for arg in args:
            self._consume(arg)
        files = [a for a in value if isinstance(a, FileText)]
        name = literal(args[0]) if len(args) == 1 else None
        if name is not None and _method(first) == "Get":
            return frozenset(FileText(f.base, (name,)) for f in files)
        return frozenset(files)

    def _operand(self, operand: gt.Operand, dot: Value, scope: _Scope) -> Value:
        if isinstance(operand, gt.Field):
            return self._fields(dot, operand.names)
        if isinstance(operand, gt.Variable):
            return self._fields(scope.get(operand.name), operand.names)
        if isinstance(operand, gt.SubPipe):
            return self._fields(self._pipe(operand.pipe, dot, _Scope(scope)), operand.names)
        if isinstance(operand, gt.Literal) and isinstance(operand.value, str):
            return frozenset((Text(operand.value),))
        return EMPTY  # numbers, booleans, nil; a bare function name is a call (above)

    def _fields(self, value: Value, names: Iterable[str]) -> Value:
        for name in names:
            value = self._field(value, name)
        return value

    def _field(self, value: Value, name: str) -> Value:
        out: set[Atom] = set()
        for atom in value:
            if isinstance(atom, Vals):
                out.add(self._read(atom, name))
            elif isinstance(atom, Root):
                if name == "Values":
                    out.add(Vals(atom.base, atom.base))
                elif name == "Files":
                    out.add(FileText(atom.base))
            elif isinstance(atom, DictOf):
                out.update(next((v for k, v in atom.items if k == name), EMPTY))
            elif isinstance(atom, FileText):
                out.add(atom)
        return frozenset(out)

    def _read(self, atom: Vals, key: str) -> Vals:
        if atom.path == atom.base and atom.base and key == "global":
            path: Path = ("global",)  # a subchart's .Values.global is the top chart's global
        else:
            path = (*atom.path, key)
        self.tree.add(path)
        return Vals(path, atom.base)

    def _elements(self, value: Value) -> Value:
        out: set[Atom] = set()
        for atom in value:
            if isinstance(atom, Vals):
                out.add(self._read(atom, ANY))
            elif isinstance(atom, DictOf):
                out.update(a for _, v in atom.items for a in v)
            elif isinstance(atom, ListOf):
                out.update(a for v in atom.items for a in v)
            elif isinstance(atom, FileText):
                out.add(atom)
        return frozenset(out)

    def _consume(self, value: Value, *, roots: bool = True) -> None:
        """``value`` is used whole: every key under it counts as read (and, with
        ``roots``, every value of a root context in it)."""
        for atom in value:
            if isinstance(atom, Vals) and not roots and atom.path == atom.base:
                continue  # a chart's .Values handed on as a root context (dict "Values" ...)
            if isinstance(atom, Vals):
                self.tree.add(atom.path, whole=True)
                if atom.path == atom.base and atom.base:
                    self.tree.add(("global",), whole=True)
            elif isinstance(atom, Root) and roots:
                self._consume(frozenset((Vals(atom.base, atom.base),)))
            elif isinstance(atom, DictOf):
                for _, item in atom.items:
                    self._consume(item, roots=roots)
            elif isinstance(atom, ListOf):
                for item in atom.items:
                    self._consume(item, roots=roots)

    def _function(self, name: str, args: list[Value]) -> Value:
        if name in _PASS:
            return frozenset(a for arg in args for a in arg)
        if name in _INSPECT:
            return EMPTY
        if name in _ELEMENT:
            return self._elements(frozenset(a for arg in args for a in arg))
        handler = _HANDLERS.get(name)
        if handler is not None:
            return handler(self, args)
        for arg in args:
            self._consume(arg)
        # A string made from a file (toString, trim, replace...) is still that file for
        # tpl; one made from literals (printf) may be a template the reading cannot see.
        atoms = [a for arg in args for a in arg]
        texts = [t for a in atoms for t in texts_of(a)]
        made = frozenset((Made(tuple(texts)),)) if texts else EMPTY
        return frozenset(a for a in atoms if isinstance(a, FileText)) | made

    def _call(self, name: str | None, value: Value) -> None:
        """``include``/``template``: the named template runs with ``value`` as its dot."""
        names = [name] if name is not None else list(self.defines)
        for each in names:
            bodies = self.defines.get(each)
            if not bodies:
                self._consume(value)  # a template the chart does not define: unknown use
                continue
            key = (each, value)
            if key in self._done:
                continue
            if len(self._done) >= _MAX_CALLS:
                self.tree.add((), whole=True)
                return
            self._done.add(key)
            for body in bodies:
                self._nodes(body, value, _Scope(None, {"": value}))

    # -- functions that navigate or build values --------------------------------------

    def _index(self, args: list[Value]) -> Value:
        if not args:
            return EMPTY
        value = args[0]
        for key in args[1:]:
            name = literal(key)
            value = self._field(value, name) if name is not None else self._elements(value)
        return value

    def _dig(self, args: list[Value]) -> Value:
        if len(args) < 2:
            return EMPTY
        *keys, default, source = args
        value = source
        for key in keys:
            name = literal(key)
            value = self._field(value, name) if name is not None else self._elements(value)
        return value | default

    def _pluck(self, args: list[Value]) -> Value:
        if not args:
            return EMPTY
        return self._index([frozenset(a for arg in args[1:] for a in arg), args[0]])

    def _has_key(self, args: list[Value]) -> Value:
        self._index(args[:2])
        return EMPTY

    def _keys(self, args: list[Value]) -> Value:
        for arg in args:
            for atom in arg:
                if isinstance(atom, Vals):
                    self._read(atom, ANY)
        return EMPTY

    def _dict(self, args: list[Value]) -> Value:
        items: list[tuple[str, Value]] = []
        for index in range(0, len(args) - 1, 2):
            key = literal(args[index])
            if key is None:
                self._consume(args[index + 1])
                continue
            items.append((key, args[index + 1]))
        if len(args) % 2:
            self._consume(args[-1])
        return frozenset((DictOf(tuple(items)),))

    def _list(self, args: list[Value]) -> Value:
        return frozenset((ListOf(tuple(args)),))

    def _include(self, args: list[Value]) -> Value:
        if not args:
            return EMPTY
        self._call(literal(args[0]), args[1] if len(args) > 1 else EMPTY)
        for extra in args[2:]:
            self._consume(extra)
        return EMPTY

    def _tpl(self, args: list[Value]) -> Value:
        if not args:
            return EMPTY
        source, context = args[0], (args[1] if len(args) > 1 else EMPTY)
        self._consume(source)
        if has_root(context):
            self.renders_values = True  # a values string may be a template itself
        if not all(isinstance(a, Text) for a in source):
            # Template text from values may read anything it is given besides the root
            # (whose reads come from the values strings themselves).
            self._consume(frozenset(a for a in context if not isinstance(a, Root)), roots=False)
        for atom in source:
            if isinstance(atom, Text):
                self.render_text(atom.text, context)
            elif isinstance(atom, FileText):
                self._render_files(atom, context)
            elif isinstance(atom, Made):
                self._render_made(atom.texts, context)
        return EMPTY

    def _render_made(self, texts: tuple[str, ...], context: Value) -> None:
        """``tpl (cat "{{- with $.x -}}" $value "{{- end }}") ...``: the literals put
        together are the template (the values in between are read as values strings)."""
        if not any("{{" in text for text in texts):
            return
        try:
            parsed = gt.parse_template(" ".join(texts))
        except gt.TemplateSyntaxError:
            if any(word in text for text in texts for word in _READING_WORDS):
                self._consume(context)  # a computed template that reads: cannot tell what
            return
        self.run(parsed.body, context)

    def _render_files(self, file: FileText, context: Value) -> None:
        """``tpl (.Files.Get name)``: the named file, or, when the name is computed, every
        file of the chart that holds template text, read as rendered with ``context``."""
        key = (f"files:{'/'.join(file.base)}:{file.names}", context)
        if key in self._done:
            return
        self._done.add(key)
        for name, reader in self.files.get(file.base, ()):
            if file.names is not None and name not in file.names:
                continue
            try:
                text = reader().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "{{" not in text:
                continue
            try:
                parsed = gt.parse_template(text)
            except gt.TemplateSyntaxError:
                continue  # not a template (a dashboard's {{legend}}): helm could not tpl it
            known = set(self.defines) | {name for name, _ in parsed.defines}
            if not _calls(parsed) <= known:
                continue  # calls a template nobody defines: helm could not tpl it either
            for name, body in parsed.defines:
                self.defines.setdefault(name, []).append(body)
            self.run(parsed.body, context)

    def render_text(self, text: str, context: Value) -> None:
        try:
            parsed = gt.parse_template(text)
        except gt.TemplateSyntaxError:
            self._consume(context)  # helm would fail; do not guess what it reads
            return
        for name, body in parsed.defines:
            self.defines.setdefault(name, []).append(body)
        self.run(parsed.body, context)


_HANDLERS = {
    "index": TemplateReader._index,
    "get": TemplateReader._index,
    "dig": TemplateReader._dig,
    "pluck": TemplateReader._pluck,
    "hasKey": TemplateReader._has_key,
    "keys": TemplateReader._keys,
    "dict": TemplateReader._dict,
    "list": TemplateReader._list,
    "tuple": TemplateReader._list,
    "include": TemplateReader._include,
    "template": TemplateReader._include,
    "tpl": TemplateReader._tpl,
}


_READING_WORDS = ("Values", "include", "template", "tpl")


def _calls(template: gt.Template) -> set[str]:
    """Names of the templates a file calls with a literal name."""
    names: set[str] = set()
    bodies = [template.body, *(body for _, body in template.defines)]
    while bodies:
        for node in bodies.pop():
            if isinstance(node, gt.Call):
                names.add(node.name)
            if isinstance(node, gt.Branch):
                bodies.extend((node.body, node.otherwise))
            pipes = [node.pipe] if node.pipe is not None else []
            while pipes:
                for command in pipes.pop().commands:
                    first = command.args[0]
                    if isinstance(first, gt.Identifier) and first.name in _INCLUDES:
                        literal = command.args[1] if len(command.args) > 1 else None
                        if isinstance(literal, gt.Literal) and isinstance(literal.value, str):
                            names.add(literal.value)
                    pipes.extend(a.pipe for a in command.args if isinstance(a, gt.SubPipe))
    return names


_INCLUDES = ("include", "template")


def _method(operand: gt.Operand) -> str | None:
    names = getattr(operand, "names", ())
    return names[-1] if names else None
