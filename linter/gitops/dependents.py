"""The wrappers of a repository that read a given file (``run/dependents.py``)."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from linter.gitops.model import WrappedRelease
from linter.gitops.read import wrapped_releases
from linter.gitops.repo import shown
from linter.model.settings import ModelSettings
from linter.parsing import bounded
from linter.parsing.documents import parse_yaml


def reading(
    wrappers: Sequence[Path], inputs: Collection[str], settings: ModelSettings
) -> list[str]:
    """The files among ``wrappers`` with a release that reads one of ``inputs`` (real
    paths): a values layer's file, or its chart's ``values.yaml``, ``Chart.yaml`` or a
    template."""
    out: list[str] = []
    for path in wrappers:
        try:
            text = bounded.read_text(path)
        except (OSError, UnicodeDecodeError):
            continue  # bounded.InputRefused is an OSError: not this wrapper's to say
        name = shown(path)
        releases, _ = wrapped_releases(parse_yaml(name, text), settings)
        if any(_reads(release, inputs) for release in releases):
            out.append(name)
    return out


def _reads(release: WrappedRelease, inputs: Collection[str]) -> bool:
    files = {os.path.realpath(x.document.source) for x in release.layers}
    if files & set(inputs):
        return True
    directory = release.chart.directory
    if directory is None:
        return False
    chart = os.path.realpath(directory)
    # What every release of the chart inherits; its other values files are not layers.
    inherited = {os.path.join(chart, "values.yaml"), os.path.join(chart, "Chart.yaml")}
    templates = os.path.join(chart, "templates") + os.sep
    return any(i in inherited or i.startswith(templates) for i in inputs)
