"""One self-contained HTML page for ``lint``, ``show`` and ``drift`` (``--format html``;
drift's tables are ``drift/report_html.py``, on this page's parts).

The page is read from a CI artefact or a local file, so it makes no request: styles are
inline, there is no script, a Content-Security-Policy of ``default-src 'none'`` lets the
browser load nothing else, and links are relative paths to the inputs (``file#L42``,
relative to the working directory, as SARIF's are). Every text from the inputs is escaped:
file names, keys, values and messages may be hostile. Each workload whose capacity is
known gets an SVG bar of one GPU's memory, drawn from the parts ``show`` prints
(``reporters/memory.py``).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from linter.findings import Finding, summarize
from linter.model.facts.budget import MemoryBudget
from linter.policy.helpers import human_bytes
from linter.reporters.escape import escape_text
from linter.reporters.memory import heading, needed, parts
from linter.reporters.meta import repo_path

if TYPE_CHECKING:
    from linter.coverage.model import WorkloadEntry
    from linter.evaluate.result import RunResult

# Nothing but the page itself: inline styles are allowed, everything else is refused.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"
_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d232b}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px}
h3{font-size:14px;margin:14px 0 4px;font-family:ui-monospace,monospace}
.muted{color:#5c6570}.summary{margin:0 0 12px}
section.workload{border:1px solid #d5dae0;border-radius:6px;padding:10px 14px;margin:12px 0}
section h2{margin-top:4px}
table{border-collapse:collapse;margin:4px 0 8px;width:100%}
th,td{border-bottom:1px solid #e3e6ea;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f3f5f7;font-weight:600}
td.line,td.rule{white-space:nowrap;font-family:ui-monospace,monospace}
.sev{font-weight:600;white-space:nowrap}.error{color:#b3261e}.warning{color:#8a5a00}
.info{color:#1f5f99}.suppressed{color:#6b7280;text-decoration:line-through}
code,.mono{font-family:ui-monospace,monospace}svg{display:block;margin:6px 0 4px;max-width:100%;height:auto}
"""
_COLOURS = {
    "weights": "#4f6a9a",
    "overhead": "#d08a2e",
    "kv": "#3f9a63",
    "free": "#c8e6cf",
    "outside": "#b9bec6",
}
Mask = Callable[[str], str]
_BAR_WIDTH = 640
_SVG_WIDTH = 780  # the bar, and room for the longest label beside and under it
_BAR_HEIGHT = 30
_ROW = 18


def text(value: object) -> str:
    """``value`` as HTML text: control characters shown as escapes (an HTML parser
    refuses most of them), then ``&<>"'`` escaped."""
    return html.escape(escape_text(str(value)), quote=True)


def link(file: str, line: int | None = None, label: str | None = None) -> str:
    """A relative link to ``file`` (and its line, ``#L42``) when it is a path under the
    working directory; the name alone otherwise (standard input, ``--set``, a pod)."""
    shown = text(label if label is not None else file)
    if file.startswith("<") or "://" in file:
        return shown
    relative = repo_path(file, Path.cwd())
    if relative is None or relative == ".":
        return shown
    anchor = f"#L{line}" if line else ""
    return f'<a href="{html.escape(quote(relative) + anchor, quote=True)}">{shown}</a>'


def page(title: str, body: Iterable[str]) -> str:
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{text(title)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )


def memory_bar(budget: MemoryBudget, name: str = "", mask: Mask = str) -> str:
    """One GPU's memory as an SVG bar, each part labelled with its size; under it the KV
    cache the lengths ask for, from where the KV cache starts. ``mask`` hides a secret
    value of the inputs that a label would show (a fraction read from a Secret)."""

    def safe(value: object) -> str:
        return text(mask(str(value)))

    shown = parts(budget)
    asked = needed(budget)
    scale = max(budget.device_bytes, sum(p.size for p in shown), 1)
    kv_start = sum(p.size for p in shown[: [p.key for p in shown].index("kv")])

    def x(size: int) -> float:
        return round(size * _BAR_WIDTH / scale, 1)

    top = 16  # room for the device's size above its end
    out: list[str] = []
    at = 0
    for part in shown:
        label = f"{part.label} {human_bytes(part.size)}"
        out.append(
            f'<rect class="part-{part.key}" x="{x(at)}" y="{top}" width="{x(part.size)}" '
            f'height="{_BAR_HEIGHT}" fill="{_COLOURS[part.key]}"><title>{safe(label)}</title>'
            "</rect>"
        )
        at += part.size
    end = x(budget.device_bytes)
    out.append(
        f'<line x1="{end}" y1="{top - 4}" x2="{end}" y2="{top + _BAR_HEIGHT + 4}" '
        'stroke="#1d232b" stroke-width="1.5"/>'
        f'<text class="device" x="{end}" y="{top - 6}" text-anchor="end">'
        f"{safe(budget.gpu or 'GPU')} {safe(human_bytes(budget.device_bytes))}</text>"
    )
    y = top + _BAR_HEIGHT + 6
    for label, size in asked:
        width = min(x(size), _BAR_WIDTH - x(kv_start))
        clipped = x(kv_start) + x(size) > _BAR_WIDTH
        out.append(
            f'<rect class="needed" x="{x(kv_start)}" y="{y}" width="{width}" height="7" '
            'fill="#dcefe2" stroke="#3f9a63"><title>'
            f"{safe(label)}</title></rect>"
        )
        if clipped:  # more than the drawing holds: its label says how much
            out.append(f'<text x="{_BAR_WIDTH + 4}" y="{y + 7}" font-size="10">→ more</text>')
        y += 10
    y += 14
    for part in shown:
        detail = f" ({part.detail})" if part.detail else ""
        out.append(
            f'<rect x="0" y="{y - 10}" width="10" height="10" fill="{_COLOURS[part.key]}"/>'
            f'<text class="label" x="16" y="{y}">{safe(part.label)} '
            f"{safe(human_bytes(part.size))}{safe(detail)}</text>"
        )
        y += _ROW
    for label, _ in asked:
        out.append(
            f'<rect x="0" y="{y - 9}" width="10" height="7" fill="#dcefe2" stroke="#3f9a63"/>'
            f'<text class="label" x="16" y="{y}">KV cache needed for {safe(label)}</text>'
        )
        y += _ROW
    title = f"GPU memory of {name}: {heading(budget)}" if name else heading(budget)
    height = y - _ROW + 6
    return (
        f'<svg class="memory" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'width="{_SVG_WIDTH}" height="{height}" viewBox="0 0 {_SVG_WIDTH} {height}" '
        f'font-size="12" font-family="system-ui, sans-serif"><title>{safe(title)}</title>'
        + "".join(out)
        + "</svg>"
    )


def memory_figure(budget: MemoryBudget, name: str, mask: Mask = str, *, named: bool = False) -> str:
    """The bar with its heading; ``named``: the heading names the workload (one of
    several drawn together, a chart's environments)."""
    whose = f" of {name}" if named else ""
    return (
        '<figure class="budget">'
        f"<figcaption>GPU memory{text(whose)}: {text(mask(heading(budget)))}</figcaption>"
        f"{memory_bar(budget, name, mask)}</figure>"
    )


def _findings_table(findings: Sequence[Finding]) -> list[str]:
    rows = ["<table>", "<tr><th>line</th><th>severity</th><th>rule</th><th>message</th></tr>"]
    for finding in findings:
        severity = finding.severity.label
        message = text(finding.message)
        environments = finding.extra.get("environments")
        if environments:
            message += f' <span class="muted">[{text(", ".join(environments))}]</span>'
        css = severity
        if finding.suppression is not None:
            css += " suppressed"
            message += (
                f' <span class="muted">(suppressed, {text(finding.suppression.source)}: '
                f"{text(finding.suppression.reason)})</span>"
            )
        rows.append(
            f'<tr class="{css}"><td class="line">'
            f"{link(finding.file, finding.line, f'{finding.line}:{finding.column}')}</td>"
            f'<td class="sev {severity}">{severity}</td><td class="rule">'
            f"{text(finding.rule_id)}</td><td>{message}</td></tr>"
        )
    rows.append("</table>")
    return rows


def _by_file(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for finding in findings:
        out.setdefault(finding.file, []).append(finding)
    return out


Anchor = tuple[str, int]


def group_by_workload(
    findings: Sequence[Finding], workloads: Sequence[WorkloadEntry]
) -> tuple[dict[Anchor, list[Finding]], list[Finding]]:
    """Each finding under the workload it belongs to, as far as its place tells: the
    nearest workload written above it in its file, else the only workload of its folder
    (a values file of a chart whose workload is read at its ``values.yaml``). Workloads
    that share an anchor (a chart's environments) are one group."""
    anchors = list(dict.fromkeys((w.file, w.line) for w in workloads))
    grouped: dict[Anchor, list[Finding]] = {anchor: [] for anchor in anchors}
    rest: list[Finding] = []
    for finding in findings:
        same_file = [a for a in anchors if a[0] == finding.file and a[1] <= finding.line]
        folder = str(Path(finding.file).parent)
        same_folder = {a for a in anchors if str(Path(a[0]).parent) == folder}
        if same_file:
            grouped[max(same_file, key=lambda a: a[1])].append(finding)
        elif len(same_folder) == 1:
            grouped[same_folder.pop()].append(finding)
        else:
            rest.append(finding)
    return grouped, rest


def _workload_title(entry: WorkloadEntry) -> str:
    environment = f" [{entry.environment}]" if entry.environment else ""
    return f"{entry.name}{environment}"


class HtmlReporter:
    """``lint --format html``: the findings by workload and file, with each workload's
    GPU memory."""

    def __init__(self, *, color: bool = False, quiet: bool = False, verbose: bool = False) -> None:
        self.quiet = quiet
        self.verbose = verbose

    def report(self, result: RunResult, stream: TextIO) -> None:
        stream.write(lint_page(result, quiet=self.quiet, verbose=self.verbose))


def lint_page(result: RunResult, *, quiet: bool = False, verbose: bool = False) -> str:
    from linter.coverage.text import summary_lines
    from linter.reporters.text import format_summary
    from linter.secrets.masking import masker

    # Findings and names are masked already (``outputs.py``); the bar's labels are
    # written here from numbers, so they pass the same masker.
    mask = masker(result.secrets).text

    findings = [f for f in result.findings if not (quiet and f.suppressed)]
    workloads = result.coverage.workloads
    grouped, rest = group_by_workload(findings, workloads)
    body = ["<h1>servelint lint</h1>", f'<p class="summary">{text(format_summary(result))}</p>']
    body.extend(f'<p class="muted">{text(line)}</p>' for line in summary_lines(result.coverage))
    body.extend(f'<p class="muted">note: {text(note)}</p>' for note in result.notes)
    for anchor, found in grouped.items():
        entries = [w for w in workloads if (w.file, w.line) == anchor]
        body.append('<section class="workload">')
        titles = ", ".join(_workload_title(w) for w in entries)
        body.append(f"<h2>{text(titles)}</h2>")
        first = entries[0]
        facts = ", ".join(
            str(fact) for fact in (first.server, first.version, first.model, first.gpu) if fact
        )
        body.append(
            f'<p class="muted">{text(first.kind)} at {link(anchor[0], anchor[1])}'
            f"{'; ' + text(facts) if facts else ''}</p>"
        )
        body.extend(
            memory_figure(entry.memory, _workload_title(entry), mask, named=len(entries) > 1)
            for entry in entries
            if entry.memory is not None
        )
        body.extend(_file_sections(found) if found else ['<p class="muted">no findings</p>'])
        body.append("</section>")
    if rest:
        title = "Findings" if not workloads else "Other findings"
        body.append(f"<h2>{title}</h2>")
        body.extend(_file_sections(rest))
    if verbose:
        from linter.coverage.text import gap_line

        body.extend(f'<p class="muted">{text(gap_line(gap))}</p>' for gap in result.coverage.gaps)
    stream_title = f"servelint lint: {_count_words(findings)}"
    return page(stream_title, body)


def _file_sections(findings: Sequence[Finding]) -> list[str]:
    out: list[str] = []
    for file, found in _by_file(findings).items():
        out.append(f"<h3>{link(file)}</h3>")
        out.extend(_findings_table(found))
    return out


def _count_words(findings: Sequence[Finding]) -> str:
    counts = summarize(findings)
    return f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info"


def show_page(shown: Mapping[str, Any]) -> str:
    """``show --format html``: each workload's settings and its GPU memory; ``shown`` is
    the masked structure the JSON form prints."""
    body = ["<h1>servelint show</h1>"]
    for workload in shown.get("workloads", ()):
        env = f" [{workload['environment']}]" if "environment" in workload else ""
        name = f"{workload['name']}{env}"
        file, line = _place(workload["at"])
        model, gpu = workload["model"], workload["gpu"]
        body.append('<section class="workload">')
        body.append(f"<h2>{text(name)}</h2>")
        body.append(
            f'<p class="muted">{text(workload["kind"])} at {link(file, line, workload["at"])}; '
            f"{text(workload['server'] or 'unknown server')} "
            f"{text(workload['version'] or '(version unknown)')}; model "
            f"{text(model['id'] or 'unknown')} (architecture: {text(model['architecture'])}); "
            f"GPU {text(gpu['product'] or 'unknown')} × {text(gpu['count'] or '?')}</p>"
        )
        if workload.get("gpuMemory"):
            body.append(memory_figure(MemoryBudget.from_json(workload["gpuMemory"]), name))
        body.append("<table><tr><th>setting</th><th>value</th><th>where</th></tr>")
        for setting in workload["settings"]:
            if setting.get("at"):
                place, at = _place(setting["at"])
                where = link(place, at, setting["at"])
                if setting.get("writtenAs"):
                    where += f' <span class="muted">{text(setting["writtenAs"])}</span>'
            else:
                where = text("derived" if setting.get("from") == "derived" else setting["from"])
            body.append(
                f'<tr><td class="mono">{text(setting["setting"])}</td>'
                f'<td class="mono">{text(repr(setting["value"]))}</td><td>{where}</td></tr>'
            )
        body.append("</table>")
        if workload["unknown"]:
            body.append(f'<p class="muted">unknown: {text(", ".join(workload["unknown"]))}</p>')
        body.extend(
            f'<p class="muted">not checked: {text(gap["fact"])} ({text(gap["detail"])}); '
            f"fix: {text(gap['fix'])}</p>"
            for gap in workload["gaps"]
        )
        body.append("</section>")
    body.extend(
        f"<p>not understood: {link(item['file'], item['line'])}: {text(item['what'])}: "
        f"{text(item['evidence'])}</p>"
        for item in shown.get("notUnderstood", ())
    )
    body.extend(f"<p>not read: {text(error)}</p>" for error in shown.get("errors", ()))
    for item in shown.get("live", ()):
        body.append(f"<h2>{text(item['file'])}</h2>")
        body.append("<table><tr><th>setting</th><th>value</th></tr>")
        body.extend(
            f'<tr><td class="mono">{text(s["setting"])}</td>'
            f'<td class="mono">{text(repr(s["value"]))}</td></tr>'
            for s in item["settings"]
        )
        body.append("</table>")
    if not shown.get("workloads") and not shown.get("live"):
        body.append("<p>no workload recognised</p>")
    return page("servelint show", body)


def _place(at: str) -> tuple[str, int | None]:
    """``file:line:column`` split into the file and the line."""
    file, _, rest = at.rpartition(":")
    file, _, line = file.rpartition(":")
    return (file, int(line)) if line.isdigit() and rest.isdigit() else (at, None)
