"""The wrappers of a repository that read a given file, and the releases a changed chart
profile reads (``run/dependents.py``)."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from linter.gitops.model import WrappedRelease
from linter.gitops.read import wrapped_releases
from linter.gitops.repo import shown
from linter.model.engine.settings import ModelSettings
from linter.parsing import bounded
from linter.parsing.documents import parse_yaml


def profiled(
    roots: Collection[Path], changed: Collection[str], settings: ModelSettings
) -> list[str]:
    """The files of the repositories at ``roots`` read with one of the chart profiles at
    ``changed`` (real paths): wrappers of the charts they name, and values files they
    detect, as a full run reads them."""
    from linter.gitops.repo import yaml_files
    from linter.model.frontends.profiles import detect, user_profiles
    from linter.sources.chartlayout import is_values_name
    from linter.sources.wrappers import wrapper_files

    profiles = [
        p
        for p in user_profiles(tuple(settings.profile_dirs))
        if os.path.realpath(p.source) in changed
    ]
    names = {p.name for p in profiles}
    charts = {c for p in profiles for c in p.charts}
    out: list[str] = []
    for root in sorted(roots):
        wrappers = [w for w in wrapper_files(root) if _mentions_any(w, charts)]
        out.extend(reading(wrappers, (), settings, names))
        for path in yaml_files(root):
            if not is_values_name(path.name) or os.path.realpath(path) in changed:
                continue
            try:
                text = bounded.read_text(path)
            except (OSError, UnicodeDecodeError):
                continue
            documents = parse_yaml(shown(path), text).documents
            if any(detect(p, d.data) for p in profiles for d in documents):
                out.append(shown(path))
    return out


def _mentions_any(path: Path, words: Collection[str]) -> bool:
    try:
        text = bounded.read_text(path)
    except (OSError, UnicodeDecodeError):
        return False
    return any(word in text for word in words)


def reading(
    wrappers: Sequence[Path],
    inputs: Collection[str],
    settings: ModelSettings,
    profiles: Collection[str] = (),
) -> list[str]:
    """The files among ``wrappers`` with a release that reads one of ``inputs`` (real
    paths): a values layer's file, or its chart's ``values.yaml``, ``Chart.yaml`` or a
    template; or a release read with one of the chart profiles named ``profiles``."""
    out: list[str] = []
    for path in wrappers:
        try:
            text = bounded.read_text(path)
        except (OSError, UnicodeDecodeError):
            continue  # bounded.InputRefused is an OSError: not this wrapper's to say
        name = shown(path)
        releases, _ = wrapped_releases(parse_yaml(name, text), settings)
        if any(
            _reads(release, inputs) or release.chart.profile in profiles for release in releases
        ):
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
