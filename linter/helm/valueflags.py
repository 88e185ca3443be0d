"""The flags of a chart's values keys, judged where the chart's templates pass the key
into the server's args as written (``argscan.py``); see ``linter/model/value_flags.py``."""

from __future__ import annotations

from collections.abc import Sequence

from linter.helm.values import MergedValues
from linter.model.value_flags import note_unjudged, value_at
from linter.model.workload import Workload
from linter.positions import PathT


def judge_chart_flags(workloads: Sequence[Workload], directory: str, merged: MergedValues) -> None:
    """Re-judge the keys the values reading left unjudged, now with the chart's templates.

    The templates are read only when a key is left: most values hold no flags in one."""
    if not any(_unjudged(w) for w in workloads):
        return
    from linter.helm.argscan import args_keys, reaches
    from linter.helm.chartfiles import load_chart_files

    chart = load_chart_files(directory)
    keys = args_keys(chart.templates) if not chart.library else frozenset()

    def shown(path: PathT) -> bool:
        # Only a list prints one argument per item, each as written.
        return reaches(keys, path) and isinstance(value_at(merged.data, path), list)

    note_unjudged(workloads, merged.data, merged.locate, shown)


def _unjudged(workload: Workload) -> bool:
    engine = workload.record.engine
    return engine is not None and engine.value.unjudged_flags is not None
