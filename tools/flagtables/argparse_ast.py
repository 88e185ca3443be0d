"""Read argparse option definitions from Python source with ``ast`` (never importing it).

Understood forms, as vLLM and SGLang write them:

- ``parser.add_argument("--flag", "-f", dest=..., action=...)`` with literal strings;
- ``group.add_argument("--max-model-len", **model_kwargs["max_model_len"])`` where
  ``model_kwargs = get_kwargs(ModelConfig)``: a boolean field gets ``--no-<flag>`` too
  (``argparse.BooleanOptionalAction``, set by vLLM's ``get_kwargs`` for ``bool`` fields);
- ``for key, value in kwargs.items(): group.add_argument(f"--{key.replace('_', '-')}", ...)``
  where ``kwargs = get_kwargs(SomeArgs)``: one flag per dataclass field (vLLM's
  ``FrontendArgs``), plus the extra flags set as ``kwargs["field"]["flags"] = [...]``.

Anything else that builds an option string at run time is reported as not understood, so
the table never claims to be complete where it is not.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

_USE_INSTEAD = re.compile(
    r"(?:[Uu]se|[Ii]nstead,? use|replaced by|renamed to)\s+[`'\"]?(--[a-z0-9-]+)"
)


@dataclasses.dataclass
class Option:
    """One argparse action: its option strings and what it stores."""

    strings: list[str]
    dest: str
    negatable: bool = False
    deprecated: bool = False
    replacement: str = ""
    where: str = ""  # file:line


@dataclasses.dataclass
class ClassInfo:
    name: str
    bases: list[str]
    fields: dict[str, str]  # field name -> annotation source


def class_index(files: Iterable[Path]) -> dict[str, ClassInfo]:
    """Every class in ``files`` with its annotated fields (first definition wins)."""
    index: dict[str, ClassInfo] = {}
    for path in files:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name not in index:
                fields = {
                    stmt.target.id: ast.unparse(stmt.annotation)
                    for stmt in node.body
                    if isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and "ClassVar" not in ast.unparse(stmt.annotation)
                    and "InitVar" not in ast.unparse(stmt.annotation)
                }
                bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                index[node.name] = ClassInfo(node.name, bases, fields)
    return index


def all_fields(
    name: str, index: dict[str, ClassInfo], seen: frozenset[str] = frozenset()
) -> dict[str, str]:
    info = index.get(name)
    if info is None or name in seen:
        return {}
    out: dict[str, str] = {}
    for base in info.bases:
        out.update(all_fields(base, index, seen | {name}))
    out.update(info.fields)
    return out


def _is_bool(annotation: str) -> bool:
    # Generous on purpose: a missed ``--no-`` form would become a false "not accepted".
    return bool(re.search(r"\bbool\b", annotation))


def _kwargs_sources(func: ast.AST) -> dict[str, str]:
    """``name = get_kwargs(Cls)`` (or ``get_kwargs(Cls)[...]``) assignments in a function."""
    out: dict[str, str] = {}
    for node in ast.walk(func):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name):
            continue
        value = node.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name | ast.Attribute)
            and ast.unparse(value.func).rsplit(".", 1)[-1] == "get_kwargs"
            and value.args
        ):
            out.setdefault(target.id, ast.unparse(value.args[0]))
    return out


def _extra_flags(tree: ast.AST) -> dict[str, list[str]]:
    """``kwargs["field"]["flags"] = ["-i"]`` assignments anywhere in the file."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Subscript)
            and isinstance(node.value, ast.List)
        ):
            target = node.targets[0]
            key = target.slice
            inner = target.value
            if (
                isinstance(key, ast.Constant)
                and key.value == "flags"
                and isinstance(inner, ast.Subscript)
                and isinstance(inner.slice, ast.Constant)
            ):
                out[str(inner.slice.value)] = [
                    e.value for e in node.value.elts if isinstance(e, ast.Constant)
                ]
    return out


def _subclasses(name: str, index: dict[str, ClassInfo]) -> list[str]:
    return [c.name for c in index.values() if name in c.bases]


def _dest_of(strings: list[str]) -> str:
    longs = [s for s in strings if s.startswith("--")]
    first = longs[0] if longs else strings[0]
    return first.lstrip("-").replace("-", "_")


def _help_text(call: ast.Call) -> str:
    for kw in call.keywords:
        if kw.arg == "help":
            try:
                return str(ast.literal_eval(kw.value))
            except ValueError:
                return " ".join(
                    str(n.value)
                    for n in ast.walk(kw.value)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                )
    return ""


class FileReader(ast.NodeVisitor):
    """Collects the options one source file defines with ``add_argument``."""

    def __init__(self, path: Path, rel: str, index: dict[str, ClassInfo]) -> None:
        self.path = path
        self.rel = rel
        self.index = index
        self.options: list[Option] = []
        self.not_understood: list[str] = []
        self._class: list[str] = []
        self._func: list[ast.AST] = []
        self._loops: list[ast.For] = []
        self._extra: dict[str, list[str]] = {}

    def read(self) -> None:
        tree = ast.parse(self.path.read_text(encoding="utf-8"))
        self._extra = _extra_flags(tree)
        self.visit(tree)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._class.append(node.name)
        self.generic_visit(node)
        self._class.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._func.append(node)
        self.generic_visit(node)
        self._func.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_For(self, node: ast.For) -> None:
        self._loops.append(node)
        self.generic_visit(node)
        self._loops.pop()

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            return
        where = f"{self.rel}:{node.lineno}"
        literal = [
            a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        dynamic = [a for a in node.args if not isinstance(a, ast.Constant)]
        if literal and not literal[0].startswith("-"):
            return  # a positional argument
        if dynamic:
            expanded = self._loop_options(node, dynamic, literal, where)
            if expanded is None:
                self.not_understood.append(f"{where}: {ast.unparse(node)[:120]}")
            else:
                self.options.extend(expanded)
            return
        if not literal:
            return
        self.options.append(self._option(node, literal, where, self._field_is_bool(node)))

    def _option(self, node: ast.Call, strings: list[str], where: str, field_bool: bool) -> Option:
        dest = ""
        action = ""
        replacement = ""
        for kw in node.keywords:
            if kw.arg == "dest" and isinstance(kw.value, ast.Constant):
                dest = str(kw.value.value)
            elif kw.arg == "action":
                action = ast.unparse(kw.value)
            elif kw.arg == "new_flag" and isinstance(kw.value, ast.Constant):
                replacement = str(kw.value.value)
        help_text = _help_text(node)
        deprecated = "Deprecated" in action or "deprecated" in help_text.lower()
        if deprecated and not replacement:
            found = _USE_INSTEAD.search(help_text)
            replacement = found.group(1) if found else ""
        negatable = "BooleanOptionalAction" in action or (field_bool and not action)
        return Option(
            list(strings), dest or _dest_of(strings), negatable, deprecated, replacement, where
        )

    def _field_is_bool(self, node: ast.Call) -> bool:
        """``**kwargs_var["field"]`` where ``kwargs_var = get_kwargs(Cls)`` and the field is bool."""
        if not self._func:
            return False
        sources = _kwargs_sources(self._func[0])
        for kw in node.keywords:
            if kw.arg is not None:
                continue
            # ``**kwargs["f"]`` or ``**{**kwargs["f"], "default": None}``
            for value in ast.walk(kw.value):
                if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
                    continue
                cls = sources.get(value.value.id)
                if cls is None or not isinstance(value.slice, ast.Constant):
                    continue
                fields = all_fields(cls.rsplit(".", 1)[-1], self.index)
                return _is_bool(fields.get(str(value.slice.value), ""))
        return False

    def _loop_options(
        self, node: ast.Call, dynamic: list[ast.expr], literal: list[str], where: str
    ) -> list[Option] | None:
        """``for key, value in kwargs.items(): add_argument(*extra, f"--{key...}", **value)``."""
        if not self._loops or not self._func:
            return None
        loop = self._loops[-1]
        listed = _literal_loop(loop, dynamic)
        if listed is not None:
            return [self._option(node, [*literal, text], where, False) for text in listed]
        target = loop.target
        key_name = (
            target.elts[0].id
            if isinstance(target, ast.Tuple) and isinstance(target.elts[0], ast.Name)
            else target.id
            if isinstance(target, ast.Name)
            else None
        )
        iterated = loop.iter
        if (
            key_name is None
            or not isinstance(iterated, ast.Call)
            or not isinstance(iterated.func, ast.Attribute)
            or not isinstance(iterated.func.value, ast.Name)
        ):
            return None
        cls_expr = _kwargs_sources(self._func[0]).get(iterated.func.value.id)
        if cls_expr is None:
            return None
        for arg in dynamic:
            text = ast.unparse(arg)
            if isinstance(arg, ast.Starred):
                continue  # the extra flags, read from the file's ``["flags"]`` assignments
            if not (isinstance(arg, ast.JoinedStr) and key_name in text and "replace" in text):
                return None
        classes = (
            [self._class[-1], *_subclasses(self._class[-1], self.index)]
            if cls_expr == "cls" and self._class
            else [cls_expr.rsplit(".", 1)[-1]]
        )
        fields: dict[str, str] = {}
        for name in classes:
            fields.update(all_fields(name, self.index))
        if not fields:
            return None
        options = []
        for field, annotation in fields.items():
            strings = [*self._extra.get(field, []), *literal, "--" + field.replace("_", "-")]
            option = Option(strings, field, _is_bool(annotation), False, "", where)
            options.append(option)
        return options


def _literal_loop(loop: ast.For, dynamic: list[ast.expr]) -> list[str] | None:
    """``for arg, type in [("--a", str), ...]: add_argument(arg, ...)``: the listed flags."""
    if len(dynamic) != 1 or not isinstance(dynamic[0], ast.Name):
        return None
    name = dynamic[0].id
    target = loop.target
    position = None
    if isinstance(target, ast.Name) and target.id == name:
        position = -1
    elif isinstance(target, ast.Tuple):
        names = [e.id if isinstance(e, ast.Name) else "" for e in target.elts]
        position = names.index(name) if name in names else None
    if position is None or not isinstance(loop.iter, ast.List | ast.Tuple):
        return None
    out: list[str] = []
    for element in loop.iter.elts:
        item = (
            element
            if position == -1
            else (element.elts[position] if isinstance(element, ast.Tuple) else None)
        )
        if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
            return None
        out.append(item.value)
    return out


def read_options(
    root: Path, rel_paths: Iterable[str], class_files: Iterable[Path]
) -> tuple[list[Option], list[str]]:
    """The options defined in ``rel_paths`` (relative to ``root``), and what was not understood."""
    index = class_index(class_files)
    options: list[Option] = []
    unknown: list[str] = []
    for rel in rel_paths:
        path = root / rel
        if not path.exists():
            continue
        reader = FileReader(path, rel, index)
        reader.read()
        options.extend(reader.options)
        unknown.extend(reader.not_understood)
    return options, unknown


def option_strings(options: Iterable[Option]) -> Iterator[tuple[str, Option]]:
    """Every option string an option accepts, with ``--no-`` forms for negatable ones."""
    for option in options:
        for text in option.strings:
            yield text, option
            if option.negatable and text.startswith("--"):
                yield "--no-" + text[2:], option


def annotated_field_options(path: Path, rel: str) -> list[Option]:
    """SGLang's ``field: A[T, "help"]`` / ``A[T, Arg(cli_name=..., aliases=[...])]`` fields.

    ``add_cli_args_from_dataclass`` (sglang/srt/arg_groups/arg_utils.py) registers each as
    ``--field-name`` (or ``cli_name``) plus ``aliases``; ``no_cli=True`` skips it; a
    ``bool`` field is ``store_true`` (no ``--no-`` form).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    options: list[Option] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if not (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(stmt.annotation, ast.Subscript)
                and ast.unparse(stmt.annotation.value) in ("A", "Annotated", "typing.Annotated")
                and isinstance(stmt.annotation.slice, ast.Tuple)
                and len(stmt.annotation.slice.elts) >= 2
            ):
                continue
            # The first str or Arg(...) after the type, as _unwrap_annotated takes it.
            meta = next(
                (
                    e
                    for e in stmt.annotation.slice.elts[1:]
                    if (isinstance(e, ast.Constant) and isinstance(e.value, str))
                    or (isinstance(e, ast.Call) and ast.unparse(e.func) == "Arg")
                ),
                None,
            )
            if meta is None:
                continue
            field = stmt.target.id
            name = "--" + field.replace("_", "-")
            aliases: list[str] = []
            help_text = ""
            if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
                help_text = meta.value
            elif isinstance(meta, ast.Call) and ast.unparse(meta.func) == "Arg":
                skip = False
                for kw in meta.keywords:
                    if kw.arg == "no_cli" and isinstance(kw.value, ast.Constant):
                        skip = bool(kw.value.value)
                    elif kw.arg == "cli_name" and isinstance(kw.value, ast.Constant):
                        name = str(kw.value.value)
                    elif kw.arg == "aliases" and isinstance(kw.value, ast.List):
                        aliases = [
                            str(e.value) for e in kw.value.elts if isinstance(e, ast.Constant)
                        ]
                    elif kw.arg == "help":
                        help_text = " ".join(
                            str(n.value)
                            for n in ast.walk(kw.value)
                            if isinstance(n, ast.Constant) and isinstance(n.value, str)
                        )
                if skip:
                    continue
            else:
                continue
            deprecated = "deprecated" in help_text.lower()
            found = _USE_INSTEAD.search(help_text) if deprecated else None
            options.append(
                Option(
                    [name, *aliases],
                    field,
                    False,
                    deprecated,
                    found.group(1) if found else "",
                    f"{rel}:{stmt.lineno}",
                )
            )
    return options
