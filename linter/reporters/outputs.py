"""Several reports from one run: ``--format text --format sarif:servelint.sarif``.

Each output is a format and a destination (a file, or standard output). The run is
evaluated once and every reporter writes the same result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, TextIO

from linter.errors import LinterError
from linter.reporters import REPORTERS, get

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult

DEFAULT_FORMAT = "text"


class OutputSpec(NamedTuple):
    fmt: str
    path: str | None  # None: standard output


def parse_spec(text: str) -> OutputSpec:
    """``FORMAT`` or ``FORMAT:FILE``; raises ValueError with a message for the user."""
    fmt, sep, path = text.partition(":")
    if fmt not in REPORTERS:
        raise ValueError(f"unknown format '{fmt}'; choose from {', '.join(sorted(REPORTERS))}")
    if sep and not path:
        raise ValueError(f"'{text}': give a file name after ':' (for example {fmt}:report)")
    return OutputSpec(fmt, path or None)


def plan_outputs(specs: Sequence[OutputSpec], default_path: str | None) -> list[OutputSpec]:
    """Resolve where each report goes; ``default_path`` is ``-o``, for formats without a file.

    Raises ValueError when two reports would share standard output or a file.
    """
    resolved = [
        spec if spec.path else OutputSpec(spec.fmt, default_path)
        for spec in (specs or [OutputSpec(DEFAULT_FORMAT, None)])
    ]
    destinations = [spec.path for spec in resolved]
    for destination in dict.fromkeys(destinations):
        if destinations.count(destination) > 1:
            where = "standard output" if destination is None else f"'{destination}'"
            raise ValueError(
                f"several formats would be written to {where}; "
                "give each format its own file, e.g. --format sarif:servelint.sarif"
            )
    return resolved


def write_outputs(
    result: RunResult,
    outputs: Sequence[OutputSpec],
    stdout: TextIO,
    *,
    color: bool,
    quiet: bool = False,
    verbose: bool = False,
) -> None:
    """Write every report; a file that cannot be written is a tool failure (exit 3).

    Standard output comes first, so the findings are shown even if a file fails.
    """
    from linter.evaluate.result import redacted

    # The one door to every format: no report can show a secret value of the inputs.
    result = redacted(result)
    failures: list[str] = []
    for spec in sorted(outputs, key=lambda s: s.path is not None):
        reporter = get(spec.fmt)
        if spec.path is None:
            reporter(color=color, quiet=quiet, verbose=verbose).report(result, stdout)
            continue
        from linter.atomic_write import atomic_text  # only for a report to a file

        try:
            with atomic_text(spec.path) as handle:
                reporter(color=False, quiet=quiet, verbose=verbose).report(result, handle)
        except OSError as exc:
            failures.append(
                f"{spec.path}: cannot write the {spec.fmt} report: {exc.strerror or exc}"
            )
    if failures:
        raise LinterError("\n".join(failures))
