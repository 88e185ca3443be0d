"""Where Helm charts are on disk: which folders are charts, which files are their values.

A folder is a chart when it holds ``Chart.yaml`` (Helm's own test). Only the folder of the
file itself is looked at, never its parents: Helm's layout puts ``values.yaml`` beside
``Chart.yaml``, and per-environment files (``values-prod.yaml``) sit there too. A file
further down (``ci/values-x.yaml``) or elsewhere (``envs/prod/values.yaml``) has no chart
that servelint could be sure of; ``lint --chart DIR -f FILE`` names the chart explicitly.

Leaf module: no YAML, no CEL, so the file walk (``files.py``) can use it.
"""

from __future__ import annotations

import os
import re

from linter.lazyregex import lazy_compile

CHART_FILE = "Chart.yaml"
CHART_VALUES = "values.yaml"
TEMPLATES = "templates"
# The environment of the chart's own values.yaml when several files of a chart are linted.
DEFAULT_ENVIRONMENT = "default"
_VALUES_SUFFIXES = (".yaml", ".yml")
# values-prod.yaml, values.prod.yaml, values_prod.yml, prod-values.yaml, prod.values.yaml
_AROUND_VALUES = lazy_compile(
    r"^(?:values[-._](?P<after>.+)|(?P<before>.+?)[-._]values)$", re.IGNORECASE
)


def is_chart(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory or ".", CHART_FILE))


def is_values_name(filename: str) -> bool:
    """A YAML file whose name says it holds Helm values (``values*.yaml``, ``*-values.yml``)."""
    lowered = filename.lower()
    return lowered.endswith(_VALUES_SUFFIXES) and "values" in lowered


def chart_of(name: str) -> str | None:
    """The chart folder (spelled as in ``name``) when ``name`` is one of its values files."""
    directory, filename = os.path.split(name)
    if not is_values_name(filename) or not is_chart(directory):
        return None
    return directory


def chart_of_template(name: str) -> str | None:
    """The chart folder when ``name`` lies in the ``templates/`` folder of a chart, at any
    depth: a Go template, which only ``--chart`` can read. Spelled relative to the working
    directory when ``name`` is relative."""
    full = os.path.abspath(name)
    folder = os.path.dirname(full)
    while True:
        parent = os.path.dirname(folder)
        if os.path.basename(folder) == TEMPLATES and is_chart(parent):
            return parent if os.path.isabs(name) else os.path.relpath(parent)
        if parent == folder:
            return None
        folder = parent


def chart_values_name(chart: str) -> str:
    """The chart's own ``values.yaml``, spelled relative to the chart as given."""
    return os.path.join(chart, CHART_VALUES) if chart else CHART_VALUES


def environment_name(name: str) -> str:
    """``values-prod.yaml`` → ``prod``; the chart's ``values.yaml`` → ``default``."""
    filename = os.path.basename(name)
    stem = filename.rsplit(".", 1)[0]
    if filename == CHART_VALUES:
        return DEFAULT_ENVIRONMENT
    match = _AROUND_VALUES.match(stem)
    if match is None:
        return stem
    return match.group("after") or match.group("before")
