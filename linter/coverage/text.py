"""Coverage in words: one or two summary lines, or one line per gap with ``-v``."""

from __future__ import annotations

from collections import Counter

from linter.coverage.model import Coverage, Gap, NotUnderstood

DETAIL_HINT = " (-v for details)"


def summary_lines(coverage: Coverage, *, verbose: bool = False) -> list[str]:
    """What the run recognised and what it could not check. Without ``verbose``, nothing
    for inputs that hold no inference deployment at all (CI workflows, Chart.yaml): the
    closing count already names the files."""
    if not coverage.files and not coverage.workloads:
        return []
    if not verbose and not coverage.workloads and not coverage.not_understood:
        return []
    servers = Counter(w.server or "pod with no known server" for w in coverage.workloads)
    recognised = ", ".join(f"{name} {count}" for name, count in sorted(servers.items()))
    count = len(coverage.workloads)
    head = (
        f"coverage: {_plural(len(coverage.files), 'file')}, "
        f"{_plural(count, 'workload')} recognised" + (f" ({recognised})" if count else "")
    )
    if coverage.not_understood:
        head += f", {_plural(len(coverage.not_understood), 'input')} not understood"
    lines = [head]
    gaps = coverage.gaps
    if gaps:
        # Workloads per fact: one workload may lack several setting values.
        facts = Counter(
            fact
            for workload in coverage.workloads
            for fact in dict.fromkeys(gap.fact for gap in workload.gaps)
        )
        parts = ", ".join(f"{fact} on {_plural(n, 'workload')}" for fact, n in facts.items())
        lines.append(
            f"coverage: not checked for a missing fact: {parts}" + ("" if verbose else DETAIL_HINT)
        )
    elif coverage.not_understood and not verbose:
        lines[0] += DETAIL_HINT
    if verbose:
        lines.extend(
            f"not understood: {item.file}:{item.line}:{item.column}: {not_understood_text(item)}"
            for item in coverage.not_understood
        )
        lines.extend(gap_line(gap) for gap in gaps)
    return lines


def gap_line(gap: Gap) -> str:
    return f"not checked: {gap.file}:{gap.line}:{gap.column}: {gap_text(gap)}"


def gap_text(gap: Gap) -> str:
    """A gap without its place: the fact, the rules it cost, the fix."""
    errors = f" ({gap.error_rules} error-level)" if gap.error_rules else ""
    return (
        f"{gap.fact} ({gap.detail}): {_plural(len(gap.rules), 'rule')}{errors} {gap.effect} "
        f"({', '.join(gap.rules)}); fix: {gap.fix}"
    )


def not_understood_text(item: NotUnderstood) -> str:
    """An input not understood, without its place: what, the evidence, the fix."""
    return f"{item.what}: {item.evidence}; fix: {item.fix}"


def _plural(number: int, word: str) -> str:
    return f"{number} {word}{'s' * (number != 1)}"
