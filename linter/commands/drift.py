"""``servelint drift``: compare committed values with what pods (or files) really loaded."""

from __future__ import annotations

import sys
from typing import Any

import click

from linter.commands.common import emit
from linter.drift.options import drift_options


@click.command()
@drift_options
def drift(**options: Any) -> int:
    """Compare committed values with the configuration that pods (or files) really loaded."""
    from linter.drift import reporters
    from linter.drift.options import build_plan, build_request, check_usage
    from linter.drift.scan import run_files, run_kube

    check_usage(options)
    plan = build_plan(options)
    if options["kube"]:
        progress = PodProgress()
        try:
            result = run_kube(plan, build_request(options), progress)
        finally:
            progress.close()
    else:
        result = run_files(plan, options["live"])
    from linter.drift.result import redacted

    result = redacted(result)  # no format shows the runner's environment or a token
    emit(reporters.get(options["fmt"]), result, options["output"])
    return result.exit_code(options["exit_zero"])


class PodProgress:
    """A progress bar on stderr while many pods are read, only when stderr is a terminal."""

    MIN_PODS = 20

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < self.MIN_PODS or not sys.stderr.isatty():
                return
            self.bar = click.progressbar(length=total, label="reading pods", file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
