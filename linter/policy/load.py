"""Discover policy files, validate them, build the model and compile every expression.

Any problem here is a PolicyError (exit 3) and nothing is evaluated: a half-loaded
policy set would let a broken rule pass silently.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linter import _resources
from linter.errors import ExpressionError, PolicyError
from linter.findings import Severity
from linter.parsing import bounded
from linter.parsing.documents import Document, parse_yaml
from linter.policy import cache as policy_cache
from linter.policy.expr import (
    CompiledExpr,
    CompileError,
    compile_expression,
    deferred_expression,
    variable_references,
)
from linter.policy.fused import fuse
from linter.policy.model import NamedExpr, Policy, Rule
from linter.policy.template import MessageTemplate, Placeholder, TemplateError, has_placeholders
from linter.policy.template import parse as parse_template
from linter.positions import PathT, format_path
from linter.sources import repository

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

POLICY_API_VERSION = "servelint/v1"


def load_policies(user_dirs: Iterable[str] = (), *, builtin: bool = True) -> list[Policy]:
    """Built-in policies (unless ``builtin`` is false) plus those in ``user_dirs``."""
    user_dirs = tuple(user_dirs)
    files = _policy_texts(user_dirs, builtin)
    if files is not None:
        cached = policy_cache.load(files)
        if cached is not None:
            return cached
    policies = _load(user_dirs, builtin)
    if files is not None:
        policy_cache.store(files, policies)
    return policies


def rules_from_file(name: str, source: str, builtin: bool) -> tuple[Rule, ...]:
    """The rules of policy ``name`` read again from its file ``source`` (a policy cache
    entry whose rules cannot be read: policy/cache.py)."""
    if builtin:
        text = next((t for n, t in _builtin_files() if n == source), None)
        if text is None:
            raise PolicyError(f"{source}: built-in policy file not found")
    else:
        try:
            text = bounded.read_text(Path(source), encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PolicyError(f"{source}: cannot read policy file: {exc}") from exc
    for policy in _policies_from_text(source, text, builtin=builtin):
        if policy.name == name:
            return tuple(policy.rules)
    raise PolicyError(f"{source}: policy '{name}' is no longer in this file")


def _policy_texts(
    user_dirs: tuple[str, ...], builtin: bool
) -> list[policy_cache.PolicyFile] | None:
    """Every policy file's name and what the cache key takes of it: a built-in file's
    stamp (size and time: it changes only with servelint), a user's file's text; None when
    one cannot be read (``_load`` then reports it, in the order it always has)."""
    if policy_cache.cache_dir() is None:
        return None
    files = [(name, stamp, True) for name, stamp in _builtin_stamps()] if builtin else []
    try:
        for directory in user_dirs:
            files.extend(
                (str(path), bounded.read_text(path, encoding="utf-8"), False)
                for path in _policy_files(Path(directory))
            )
    except (PolicyError, OSError, UnicodeDecodeError):
        return None
    return files


def _load(user_dirs: tuple[str, ...], builtin: bool) -> list[Policy]:
    policies: list[Policy] = []
    if builtin:
        for name, text in _builtin_files():
            policies.extend(_policies_from_text(name, text, builtin=True))
    for directory in user_dirs:
        for path in _policy_files(Path(directory)):
            try:
                text = bounded.read_text(path, encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise PolicyError(f"{path}: cannot read policy file: {exc}") from exc
            policies.extend(_policies_from_text(str(path), text, builtin=False))
    _check_unique(policies)
    return policies


def _builtin_files() -> Iterator[tuple[str, str]]:
    for name, entry in _builtin_entries():
        yield name, entry.read_text(encoding="utf-8")


def _builtin_stamps() -> Iterator[tuple[str, str]]:
    for name, entry in _builtin_entries():
        yield name, _resources.stamp(entry)


def _builtin_entries() -> Iterator[tuple[str, Traversable]]:
    root = _resources.builtin_policies()
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".yaml", ".yml")) and entry.is_file():
            yield f"<builtin>/policies/{entry.name}", entry


def _policy_files(directory: Path) -> list[Path]:
    if directory.is_file() and directory.suffix in (".yaml", ".yml"):
        return [directory]  # one policy file: policy tests name the files they test
    if not directory.is_dir():
        raise PolicyError(f"{directory}: policy directory not found")
    found = sorted(
        p
        for p in directory.rglob("*")
        if p.suffix in (".yaml", ".yml")
        # not is_file(): a FIFO or device named *.yaml is refused by the reader, not skipped
        and not p.is_dir()
        and not any(part.startswith(".") for part in p.relative_to(directory).parts)
    )
    # A policy file linked out of the folder and its repository is not read (issue 31).
    allowed = (repository.root_of(str(directory)), os.path.realpath(directory))
    for path in found:
        if path.is_symlink() and not repository.inside(str(path), allowed):
            raise PolicyError(f"{path}: {repository.refusal(allowed[0])}; not read")
    return found


def _policies_from_text(source: str, text: str, *, builtin: bool) -> list[Policy]:
    parsed = parse_yaml(source, text)
    if parsed.problems:
        problem = parsed.problems[0]
        raise PolicyError(f"{source}:{problem.line}:{problem.column}: {problem.message}")
    policies = []
    for document in parsed.documents:
        if not _is_policy(document):
            continue
        if not builtin:
            from linter.policy.schema import schema_errors  # built-in files are tested

            errors = schema_errors(document, "policy.schema.json")
            if errors:
                raise PolicyError("\n".join(f"{source}:{error}" for error in errors))
        policies.append(_build(document, builtin))
    return policies


def _is_policy(document: Document) -> bool:
    data = document.data
    # Only servelint's own API group: another tool's `kind: Policy` (Kyverno, OPA) is not
    # ours, and other servelint kinds (policy tests, profiles) may share the directory.
    if not isinstance(data, dict):
        return False
    api_version = data.get("apiVersion")
    return (
        isinstance(api_version, str)
        and api_version.startswith("servelint/")
        and data.get("kind") not in ("PolicyTest", "Profile", "ModelPreset")
    )


_RULE_EXPRESSIONS = ("expression", "messageExpression", "fieldPathExpression", "forEach")


def _build(document: Document, builtin: bool) -> Policy:
    data: dict[str, Any] = document.data
    spec = data["spec"]
    name = data["metadata"]["name"]
    compile_ = _deferred if builtin else _compile
    variables = tuple(
        NamedExpr(
            v["name"], compile_(document, ("spec", "variables", i, "expression"), v["expression"])
        )
        for i, v in enumerate(spec.get("variables", []))
    )
    closures = _variable_closures(document, variables)
    conditions = tuple(
        NamedExpr(
            c["name"],
            compile_(document, ("spec", "matchConditions", i, "expression"), c["expression"]),
        )
        for i, c in enumerate(spec.get("matchConditions", []))
    )
    rules = tuple(
        _build_rule(document, name, i, raw, compile_, closures)
        for i, raw in enumerate(spec["rules"])
    )
    policy = Policy(
        name,
        data["metadata"].get("description", ""),
        spec["target"],
        conditions,
        rules,
        document.source,
        builtin,
        variables,
    )
    return dataclasses.replace(policy, fused=fuse(policy))


def _variable_closures(
    document: Document, variables: tuple[NamedExpr, ...]
) -> dict[str, tuple[str, ...]]:
    """For each variable, every variable it needs (itself included), in declaration order.

    A variable may read only variables declared before it, as in Kubernetes
    ValidatingAdmissionPolicy; anything else is a PolicyError.
    """
    order = [v.name for v in variables]
    closures: dict[str, tuple[str, ...]] = {}
    for index, variable in enumerate(variables):
        used = variable_references(variable.expr.text)
        earlier = order[:index]
        path: PathT = ("spec", "variables", index, "expression")
        needed = set(earlier) if used is None else used
        unknown = sorted(needed - set(earlier))
        if unknown:
            span = document.span(path)
            raise PolicyError(
                f"{document.source}:{span.line}:{span.column}: {format_path(path)}: variable "
                f"'{variable.name}' uses variables.{unknown[0]}, which is not declared before "
                "it"
            )
        wanted = {variable.name}.union(*(closures[n] for n in needed))
        closures[variable.name] = tuple(n for n in order if n in wanted)
    return closures


def _build_rule(
    document: Document,
    policy: str,
    index: int,
    raw: dict[str, Any],
    compile_: Any,
    closures: dict[str, tuple[str, ...]],
) -> Rule:
    base: PathT = ("spec", "rules", index)

    def compiled(key: str) -> CompiledExpr | None:
        text = raw.get(key)
        return None if text is None else compile_(document, (*base, key), text)

    expression = compiled("expression")
    assert expression is not None  # required by the schema
    message = raw.get("message")
    return Rule(
        id=f"{policy}/{raw['id']}",
        severity=Severity.parse(raw["severity"]),
        expression=expression,
        message=message,
        message_expression=compiled("messageExpression"),
        field_path=raw.get("fieldPath"),
        field_path_expression=compiled("fieldPathExpression"),
        for_each=compiled("forEach"),
        title=raw.get("title", ""),
        description=raw.get("description", ""),
        fix=raw.get("fix", ""),
        references=tuple(raw.get("references", ())),
        source=document.source,
        line=document.span(base).line,
        needs=_rule_needs(document, base, raw, closures),
        check_needs=_rule_needs(document, base, raw, closures, _CHECK_EXPRESSIONS),
        message_template=_template(document, (*base, "message"), message, compile_),
        autofix=_autofix(document, base, raw, compile_),
        autofix_description=raw.get("autofix", {}).get("description", ""),
    )


def _autofix(
    document: Document, base: PathT, raw: dict[str, Any], compile_: Any
) -> CompiledExpr | None:
    autofix = raw.get("autofix")
    if autofix is None:
        return None
    compiled: CompiledExpr = compile_(
        document, (*base, "autofix", "expression"), autofix["expression"]
    )
    return compiled


def _template(
    document: Document, path: PathT, text: str | None, compile_: Any
) -> MessageTemplate | None:
    """``message`` with its placeholders compiled; None for a message without any."""
    if text is None or not has_placeholders(text):
        return None
    try:
        parts = parse_template(text)
    except TemplateError as exc:
        span = document.span(path)
        raise PolicyError(
            f"{document.source}:{span.line}:{span.column}: {format_path(path)}: invalid "
            f"message template (at character {exc.offset + 1}): {exc}"
        ) from exc
    return MessageTemplate(
        tuple(
            part if isinstance(part, str) else _placeholder(document, path, part, compile_)
            for part in parts
        )
    )


def _placeholder(
    document: Document, path: PathT, placeholder: Placeholder, compile_: Any
) -> CompiledExpr:
    try:
        compiled: CompiledExpr = compile_(document, path, placeholder.text)
    except PolicyError as exc:
        raise PolicyError(
            str(exc).replace(
                "invalid CEL", f"invalid CEL in placeholder {{{{{placeholder.text}}}}}", 1
            )
        ) from exc
    return compiled


def _expression_texts(raw: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Each CEL text of a rule with its key, message placeholders included."""
    for key in _RULE_EXPRESSIONS:
        text = raw.get(key)
        if text is not None:
            yield key, text
    autofix = raw.get("autofix")
    if isinstance(autofix, dict) and isinstance(autofix.get("expression"), str):
        yield "autofix", autofix["expression"]
    message = raw.get("message")
    if isinstance(message, str) and has_placeholders(message):
        try:
            parts = parse_template(message)
        except TemplateError:
            return  # reported with its position when the template is built
        for part in parts:
            if isinstance(part, Placeholder):
                yield "message", part.text


# The texts that decide whether a rule holds; the others only describe a finding.
_CHECK_EXPRESSIONS = frozenset({"expression", "forEach"})


def _rule_needs(
    document: Document,
    base: PathT,
    raw: dict[str, Any],
    closures: dict[str, tuple[str, ...]],
    keys: frozenset[str] | None = None,
) -> tuple[str, ...]:
    """The variables the rule's texts read (only those of ``keys`` when given), each with
    the variables it reads, in declaration order."""
    wanted: set[str] = set()
    for key, text in _expression_texts(raw):
        if keys is not None and key not in keys:
            continue
        used = variable_references(text)
        names = set(closures) if used is None else used
        for name in sorted(names):
            if name not in closures:
                span = document.span((*base, key))
                raise PolicyError(
                    f"{document.source}:{span.line}:{span.column}: {format_path((*base, key))}"
                    f": uses variables.{name}, which the policy does not declare"
                )
            wanted.update(closures[name])
    return tuple(n for n in closures if n in wanted)


def _deferred(document: Document, path: PathT, text: str) -> CompiledExpr:
    return deferred_expression(text)


def _compile(document: Document, path: PathT, text: str) -> CompiledExpr:
    try:
        return compile_expression(text)
    except CompileError as exc:
        span = document.span(path)
        raise PolicyError(
            f"{document.source}:{span.line}:{span.column}: {format_path(path)}: invalid CEL "
            f"(expression line {exc.line}, column {exc.column}): {exc}"
        ) from exc
    except ExpressionError as exc:  # pragma: no cover - compile only raises CompileError
        raise PolicyError(f"{document.source}: {exc}") from exc


def _check_unique(policies: list[Policy]) -> None:
    seen: dict[str, str] = {}
    for policy in policies:
        if policy.name in seen:
            raise PolicyError(
                f"{policy.source}: policy '{policy.name}' is already defined in {seen[policy.name]}"
            )
        seen[policy.name] = policy.source
