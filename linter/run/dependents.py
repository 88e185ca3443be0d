"""What else a run must judge when a file others inherit from is linted (issue 27).

pre-commit passes the changed files alone. A chart's ``values.yaml``, ``Chart.yaml`` and
templates are inherited by every environment of the chart: given one of them without any
other values file of the chart (those name the environments to judge), the run also
takes the files of the chart's folder, so each environment is judged (and tagged) as a
run over the chart's folder judges it; a template itself (a Go template, not YAML) is not
read as a file then, as a run over the folder does not read it. A file a GitOps wrapper
reads (a ConfigMap or Secret of ``valuesFrom``, a values file of ``valueFiles``, a file
of its chart) brings the wrapper's file into the run. Wrappers are looked for only in
the repository of the inputs, by their apiVersion (``sources/wrappers.py``): a repository
without one costs a walk of its folders and the first bytes of its YAML files, and loads
none of the wrapper readers. A file a Kustomize build reads (a base's resource, patch or
``kustomization.yaml``) brings in every kustomization of the repository whose build reads
it: the base's own and its overlays'. A changed chart profile (a file of
``model.profileDirs``) brings in the wrappers whose chart it describes and the values
files it detects.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from linter.lazyregex import lazy_compile
from linter.model.engine.settings import ModelSettings
from linter.parsing import bounded
from linter.sources.chartlayout import CHART_FILE, chart_of_template, is_chart, is_values_name
from linter.sources.files import Input, expand
from linter.sources.wrappers import kustomization_files, repository_root, wrapper_files


def with_dependents(inputs: Sequence[Input], settings: ModelSettings) -> list[Input]:
    """``inputs`` and the files that judge what they change; in a stable order."""
    given = [i for i in inputs if i.path is not None and i.error is None]
    if not given:
        return list(inputs)
    # A template stands for its chart: the chart's environments judge the change.
    templates = {i.name: chart for i in given if (chart := chart_of_template(i.name)) is not None}
    out = [i for i in inputs if i.name not in templates]
    seen = {os.path.realpath(i.name) for i in given}
    chosen = _environments_given(given)
    for item in given:
        template = templates.get(item.name)
        chart = template if template is not None else _inherited(item.name)
        if chart is None or os.path.realpath(chart or ".") in chosen:
            continue
        files = _chart_files(chart)
        if template is None and not any(_is_environment(name) for name in files):
            continue  # no environment inherits it: the chart's values alone, as before
        for name in files:
            _add(out, seen, name)
    for name in _wrappers_reading(given, settings):
        _add(out, seen, name)
    for name in _profiled(given, settings):
        _add(out, seen, name)
    for name in _kustomizations_reading(given, settings):
        _add(out, seen, name)
    return out


def _add(out: list[Input], seen: set[str], name: str) -> None:
    real = os.path.realpath(name)
    if real not in seen:
        seen.add(real)
        out.append(Input(name, Path(name)))


def _inherited(name: str) -> str | None:
    """The chart whose environments inherit ``name`` (its values.yaml or Chart.yaml)."""
    directory, filename = os.path.split(name)
    if filename in ("values.yaml", CHART_FILE) and is_chart(directory):
        return directory
    return None


def _is_environment(name: str) -> bool:
    filename = os.path.basename(name)
    return filename != "values.yaml" and is_values_name(filename)


def _environments_given(given: Sequence[Input]) -> set[str]:
    """The charts (real paths) some of whose environment files are inputs: the run then
    judges the environments it was given, as before."""
    out: set[str] = set()
    for item in given:
        directory = os.path.dirname(item.name)
        if _is_environment(item.name) and is_chart(directory):
            out.add(os.path.realpath(directory or "."))
    return out


def _chart_files(chart: str) -> list[str]:
    """What a run over the chart's folder reads (its templates are left out there too)."""
    return [i.name for i in expand([chart or "."]) if i.error is None]


def _wrappers_reading(given: Sequence[Input], settings: ModelSettings) -> list[str]:
    roots = {repository_root(i.name) for i in given}
    files = sorted({f for root in roots for f in wrapper_files(root)})
    inputs = {os.path.realpath(i.name) for i in given}
    tokens = {t for i in given for t in _tokens(i)}
    candidates = [f for f in files if os.path.realpath(f) not in inputs and _mentions(f, tokens)]
    if not candidates:
        return []
    from linter.gitops.dependents import reading  # only in a repository with wrappers

    return reading(candidates, inputs, settings)


def _profiled(given: Sequence[Input], settings: ModelSettings) -> list[str]:
    """The releases a changed chart profile (a file of ``model.profileDirs``) reads: the
    wrappers whose chart it describes and the values files it detects."""
    dirs = {os.path.realpath(d) for d in settings.profile_dirs}
    changed = {
        os.path.realpath(i.name)
        for i in given
        if os.path.dirname(os.path.realpath(i.name)) in dirs and i.name.endswith((".yaml", ".yml"))
    }
    if not changed:
        return []
    from linter.gitops.dependents import profiled  # only when a profile changed

    roots = {repository_root(i.name) for i in given}
    return profiled(roots, changed, settings)


def _kustomizations_reading(given: Sequence[Input], settings: ModelSettings) -> list[str]:
    """The kustomizations of the inputs' repository whose build reads one of them: a
    changed base (its resources, patches or kustomization.yaml) re-judges its overlays."""
    roots = {repository_root(i.name) for i in given}
    inputs = {os.path.realpath(i.name) for i in given}
    files = sorted({f for root in roots for f in kustomization_files(root)})
    candidates = [f for f in files if os.path.realpath(f) not in inputs]
    if not candidates:
        return []
    from linter.gitops.kustomize import build  # only in a repository with kustomizations
    from linter.gitops.repo import shown

    return [shown(path) for path in candidates if build(path.parent, settings).reads & inputs]


# ``name: x`` of the objects a file defines (a superset: any key ``name``).
_NAME = lazy_compile(r"^\s*-?\s*name:\s*[\"']?([\w.-]+)", re.MULTILINE)


def _tokens(item: Input) -> set[str]:
    """What a wrapper that reads ``item`` must mention: the file's name (``valueFiles``),
    its folder's name (a chart path) or the name of an object it defines (``valuesFrom``)."""
    path = Path(item.name)
    # realpath, not Path.resolve: a symlink loop among the inputs must not raise.
    out = {path.name, Path(os.path.realpath(path)).parent.name}
    try:
        text = bounded.read_text(path)
    except (OSError, UnicodeDecodeError):
        return out
    out.update(_NAME.findall(text))
    return out


def _mentions(wrapper: Path, tokens: set[str]) -> bool:
    """Whether the wrapper's text names one of ``tokens``: the readers parse only those."""
    try:
        text = bounded.read_text(wrapper)
    except (OSError, UnicodeDecodeError):
        return False
    return any(token and token in text for token in tokens)
