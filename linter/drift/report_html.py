"""Drift as one self-contained HTML page (``reporters/html.py``): one table per target,
the committed value against the live one."""

from __future__ import annotations

from typing import TextIO

from linter.drift.items import render
from linter.drift.report_text import describe, summary
from linter.drift.result import DriftResult, TargetResult
from linter.findings import Finding
from linter.reporters.html import link, page, text
from linter.secrets.redact import message as redacted

# A cell shows this much of a value; the page has room for more than a terminal.
_CELL = 200


class DriftHtmlReporter:
    """``drift --format html``: one table per target, committed against live."""

    def __init__(self, *, color: bool = False) -> None:
        pass

    def report(self, result: DriftResult, stream: TextIO) -> None:
        stream.write(drift_page(result))


def drift_page(result: DriftResult) -> str:
    body = ["<h1>servelint drift</h1>", f'<p class="summary">{text(summary(result))}</p>']
    if result.error:
        error = redacted(f"error ({result.error_reason}): {result.error}")
        body.append(f'<p class="error">{text(error)}</p>')
    body.extend(f'<p class="muted">note: {text(redacted(note))}</p>' for note in result.notes)
    for target in sorted(result.targets, key=lambda t: t.target.source):
        body.extend(_drift_target(target))
    return page("servelint drift", body)


def _drift_target(target: TargetResult) -> list[str]:
    out = ['<section class="target">', f"<h2>{text(redacted(describe(target)))}</h2>"]
    rows = sorted(target.drift, key=Finding.sort_key)
    if rows:
        out.append(
            "<table><tr><th>setting</th><th>committed</th><th>live</th><th>status</th>"
            "<th>edit at</th></tr>"
        )
        out.extend(
            f'<tr><td class="mono">{text(f.path)}</td>'
            f'<td class="mono">{text(render(f.extra.get("desired"), _CELL))}</td>'
            f'<td class="mono">{text(render(f.extra.get("live"), _CELL))}</td>'
            f"<td>{text(f.rule_id.removeprefix('drift/'))}</td>"
            f"<td>{link(f.file, f.line, f'{f.file}:{f.line}')}</td></tr>"
            for f in rows
        )
        out.append("</table>")
    out.append("</section>")
    return out
