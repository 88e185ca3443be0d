"""What a chart and its subcharts read, found once by walking every template they render.

Helm's engine (https://github.com/helm/helm/blob/v3.17.0/pkg/engine/engine.go, ``render``)
renders every file of ``templates/`` except partials
(``_*``) and the files of library charts; named templates of every chart are shared.
Helm itself reads the values of dependency conditions and ``tags``; a dependency that is
not vendored may read anything under its key and in ``global``.
"""

from __future__ import annotations

from collections.abc import Iterable

from linter.helm import gotemplate as gt
from linter.helm.chartfiles import ChartFiles
from linter.helm.keytree import KeyTree
from linter.helm.reads import TemplateReader
from linter.helm.templatevalues import Root
from linter.lightclass import mutable


@mutable
class ChartReads:
    """What one chart (with its subcharts) reads, and what the reading could not judge."""

    name: str
    reader: TemplateReader
    notes: tuple[str, ...]

    @property
    def tree(self) -> KeyTree:
        return self.reader.tree

    def read_value_templates(self, texts: Iterable[str]) -> KeyTree:
        """Reads of values strings the chart renders with ``tpl`` (``"{{ .Values.x }}"``)."""
        extra = TemplateReader(self.reader.defines, self.reader.files)
        if self.reader.renders_values:
            try:
                for text in texts:
                    extra.render_text(text, frozenset((Root(()),)))
            except RecursionError:
                extra.tree.add((), whole=True)  # a values string nested too deeply to follow
        return extra.tree


def read_chart(chart: ChartFiles) -> ChartReads:
    """Every values path the templates of ``chart`` and its subcharts read."""
    notes: list[str] = []
    parsed: list[tuple[ChartFiles, str, gt.Template]] = []
    broken: list[ChartFiles] = []
    for each in chart.walk():
        notes.extend(f"{p}: not read; its values are taken as read" for p in each.problems)
        if each.problems:
            broken.append(each)
        for name, text in each.templates:
            try:
                parsed.append((each, name, gt.parse_template(text)))
            except gt.TemplateSyntaxError as exc:
                notes.append(
                    f"{name}: {exc}: the template could not be read, so the values of chart "
                    f"{each.name} are taken as read"
                )
                broken.append(each)
    defines: dict[str, list[tuple[gt.Node, ...]]] = {}
    for _, _, template in parsed:
        for name, body in template.defines:
            defines.setdefault(name, []).append(body)
    reader = TemplateReader(defines, {each.key: each.files for each in chart.walk()})
    _helm_reads(chart, reader.tree)
    for each in broken:
        reader.tree.add(each.key, whole=True)
    for each, name, template in parsed:
        if each.library or name.rsplit("/", 1)[-1].startswith("_"):
            continue
        try:
            reader.run(template.body, frozenset((Root(each.key),)))
        except RecursionError:
            notes.append(
                f"{name}: its templates call each other too deeply to follow, so the values "
                f"of chart {each.name} are taken as read"
            )
            reader.tree.add(each.key, whole=True)
    return ChartReads(chart.name, reader, tuple(notes))


def _helm_reads(chart: ChartFiles, tree: KeyTree) -> None:
    """What Helm itself reads: subchart keys, dependency conditions and tags."""
    tree.add(("tags",), whole=True)
    for each in chart.walk():
        tree.add(each.key)
        for condition in each.conditions:
            tree.add((*each.key, *condition.split(".")))
        for key in each.missing:
            tree.add((*each.key, key), whole=True)  # not vendored: cannot be judged
        if each.missing:
            tree.add(("global",), whole=True)  # a chart not vendored may read any global
