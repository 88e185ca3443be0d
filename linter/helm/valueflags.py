"""The flags of a chart's values keys, judged where the chart's templates pass the key
into the server's args as written (``argscan.py``); see ``linter/model/frontends/value_flags.py``."""

from __future__ import annotations

from collections.abc import Sequence

from linter.helm.values import MergedValues
from linter.model.frontends.value_flags import note_unjudged, value_at
from linter.model.records.workload import Workload
from linter.positions import PathT, parse_path


def judge_chart_flags(workloads: Sequence[Workload], directory: str, merged: MergedValues) -> None:
    """Re-judge the keys the values reading left unjudged, now with the chart's templates.

    The templates are read only when a key is left: most values hold no flags in one."""
    if not any(_unjudged(w) for w in workloads):
        return
    from linter.helm.argscan import args_keys, dotted
    from linter.helm.chartfiles import load_chart_files

    chart = load_chart_files(directory)
    keys = args_keys(chart.templates) if not chart.library else {}
    servers = {_image(w) for w in workloads} - {""}

    def shown(path: PathT) -> bool:
        images = keys.get(dotted(path))
        # Only a list prints one argument per item, each as written; and the container
        # must be the server: its image is built from values that name the server's image.
        return (
            images is not None
            and isinstance(value_at(merged.data, path), list)
            and any(_names_server(value_at(merged.data, parse_path(i)), servers) for i in images)
        )

    note_unjudged(workloads, merged.data, merged.locate, shown)


def _image(workload: Workload) -> str:
    engine = workload.record.engine
    image = engine.value.image if engine is not None else None
    return image.value if image is not None else ""


def _names_server(value: object, servers: set[str]) -> bool:
    if isinstance(value, dict):  # image: {repository, tag}
        value = value.get("repository")
    return isinstance(value, str) and bool(value) and any(value in _names(s) for s in servers)


def _names(image: str) -> tuple[str, str]:
    """An image and its repository (without tag or digest)."""
    repository = image.split("@", 1)[0]
    if ":" in repository.rsplit("/", 1)[-1]:
        repository = repository.rsplit(":", 1)[0]
    return image, repository


def _unjudged(workload: Workload) -> bool:
    engine = workload.record.engine
    return engine is not None and engine.value.unjudged_flags is not None
