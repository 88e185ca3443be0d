"""``servelint lint --fix`` and ``--diff``: plan the fixes of a run's findings, print the
diff or write the files, and lint again so that the report and the exit code are those
of what remains (docs/fix.md). Imported only when one of the two options is given."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence

import click

from linter.evaluate.result import RunResult
from linter.fix import apply, output
from linter.fix.guard import Bounds
from linter.run.lintplan import LintPlan


def fix_run(
    plan: LintPlan,
    result: RunResult,
    paths: Sequence[str],
    execute: Callable[[LintPlan], RunResult],
    *,
    write: bool,
) -> tuple[RunResult, list[str]]:
    """The result to report (linted again after writing) and the summary's lines."""
    bounds = Bounds.of(paths, result.coverage.files)
    outcome = apply.plan(result.findings, bounds, result.secrets)
    if not write:
        # The context lines of a diff are the file's own: its secret values are masked.
        from linter.secrets.masking import masker

        sys.stdout.write(masker(result.secrets).text(output.diff(outcome)))
        return result, output.summary(outcome, result.findings, written=False)
    outcome = _write(outcome)
    if outcome.changes:
        result = execute(plan)
    return result, output.summary(outcome, result.findings, written=True)


def _write(outcome: apply.Outcome) -> apply.Outcome:
    """Write each changed file; a file that cannot be written (a read-only folder) leaves
    its fixes refused with the reason, and the others are written."""
    from linter.atomic_write import replace_bytes

    failed: dict[str, str] = {}
    for change in outcome.changes:
        try:
            replace_bytes(change.file, change.after)
        except OSError as exc:
            failed[change.file] = f"not fixable: the file could not be written ({exc.strerror})"
    if not failed:
        return outcome
    return dataclasses.replace(
        outcome,
        fixed=tuple(f for f in outcome.fixed if f.file not in failed),
        refused=(
            *outcome.refused,
            *((f, failed[f.file]) for f in outcome.fixed if f.file in failed),
        ),
        changes=tuple(c for c in outcome.changes if c.file not in failed),
    )


def echo_summary(lines: list[str], secrets: frozenset[str]) -> None:
    from linter.reporters.escape import escape_text
    from linter.secrets.masking import masker

    mask = masker(secrets)
    for line in lines:
        click.echo(escape_text(mask.text(line)), err=True)
