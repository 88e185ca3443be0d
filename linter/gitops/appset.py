"""Argo CD ``ApplicationSet``: one Application per element of its generators.

The ``list`` generator's ``elements`` and the ``git`` generator's ``directories`` (folders
of this repository matching its paths, ``exclude`` honoured) are expanded; every
``{{param}}`` (and, with ``goTemplate``, ``{{.param}}``) of ``spec.template`` is replaced
by the element's value, and the result is read as an Application
(``argo.py``) whose positions are the template's lines. Any other generator (cluster,
matrix, merge, SCM provider, pull request, git files, cluster decision resource) needs
a cluster or a service to expand: it is named in coverage as not understood.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from linter.coverage.model import NotUnderstood
from linter.gitops import repo
from linter.gitops.argo import applications
from linter.gitops.model import WrappedRelease
from linter.lazyregex import lazy_compile
from linter.model.engine.settings import ModelSettings
from linter.parsing.documents import Document, ParsedFile
from linter.positions import PathT

_PLACEHOLDER = lazy_compile(r"\{\{\s*\.?([\w.\[\]-]+)\s*\}\}")
GENERATOR_FIX = (
    "this generator's elements are known only to the ApplicationSet controller: lint the "
    "Applications it generates (argocd appset generate), or use a list or git-directory "
    "generator"
)


def application_sets(
    parsed: ParsedFile, document: Document, settings: ModelSettings
) -> tuple[list[WrappedRelease], list[NotUnderstood]]:
    spec = document.data.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    template = spec.get("template")
    if not isinstance(template, dict):
        return [], []
    releases: list[WrappedRelease] = []
    unknown: list[NotUnderstood] = []
    for number, generator in enumerate(spec.get("generators") or []):
        elements = _elements(parsed, generator)
        if elements is None:
            span = document.span(("spec", "generators", number))
            name = next(iter(generator), "?") if isinstance(generator, dict) else "?"
            unknown.append(
                NotUnderstood(
                    parsed.source,
                    span.line,
                    span.column,
                    f"ApplicationSet generator {name}",
                    f"spec.generators[{number}] cannot be expanded without the controller",
                    GENERATOR_FIX,
                )
            )
            continue
        for element in elements:
            application = _generated(document, template, element)
            releases.extend(applications(parsed, application, settings, "ApplicationSet"))
    return releases, unknown


def _elements(parsed: ParsedFile, generator: Any) -> list[dict[str, Any]] | None:
    if not isinstance(generator, dict):
        return None
    if isinstance(generator.get("list"), dict):
        elements = generator["list"].get("elements")
        return [e for e in elements if isinstance(e, dict)] if isinstance(elements, list) else []
    git = generator.get("git")
    if isinstance(git, dict) and isinstance(git.get("directories"), list):
        return _directories(parsed, git["directories"])
    return None


def _directories(parsed: ParsedFile, patterns: list[Any]) -> list[dict[str, Any]]:
    root = repo.root_of(parsed.source)
    folders = sorted(_folders(root))
    wanted = [p for p in patterns if isinstance(p, dict) and isinstance(p.get("path"), str)]
    chosen = [
        f
        for f in folders
        if any(fnmatch.fnmatchcase(f, p["path"]) for p in wanted if not p.get("exclude"))
        and not any(fnmatch.fnmatchcase(f, p["path"]) for p in wanted if p.get("exclude"))
    ]
    return [_path_params(folder) for folder in chosen]


def _folders(root: Any) -> set[str]:
    """The folders of the repository that hold YAML files, or folders that do."""
    out: set[str] = set()
    for path in repo.yaml_files(root):
        for parent in path.relative_to(root).parents:
            if str(parent) != ".":
                out.add(str(parent))
    return out


def _path_params(folder: str) -> dict[str, Any]:
    parts = folder.split("/")
    basename = parts[-1]
    params: dict[str, Any] = {
        "path": folder,
        "path.path": folder,
        "path.basename": basename,
        "path.basenameNormalized": re.sub(r"[^a-zA-Z0-9-]", "-", basename).lower(),
    }
    params.update({f"path[{i}]": part for i, part in enumerate(parts)})
    params.update({f"path.segments[{i}]": part for i, part in enumerate(parts)})
    return params


def _generated(document: Document, template: dict[str, Any], element: dict[str, Any]) -> Document:
    """The Application the template makes for ``element``, at the template's lines."""
    data = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        **_substituted(template, _flat(element)),
    }
    prefix: PathT = ("spec", "template")
    size = len(prefix)
    line_map = {p[size:]: s for p, s in document.line_map.items() if p[:size] == prefix}
    line_map[()] = document.span(prefix)
    return Document(document.source, document.index, data, line_map)


def _flat(element: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in element.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, f"{name}."))
        else:
            out[name] = value if isinstance(value, str) else str(value)
    return out


def _substituted(value: Any, params: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: params.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: _substituted(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_substituted(v, params) for v in value]
    return value
