"""One finding per problem when a release is read twice: from its values and rendered.

``lint --chart`` reads a release's merged values through the serving model, and, with
helm, the manifests the chart renders. A problem both readings see is one finding with
one severity, and the rendered reading is the truth: it sees what the API server will
get (the ``/dev/shm`` volume the template mounts, the GPU count it requests), where the
values reading can only guess. The values reading of the same problem is dropped when the
rendered finding is of the same rule, or of another rule of the same policy (a rule's
certain and uncertain twins) at the same place. Problems only one reading sees are kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from linter.findings import Finding
from linter.helm.provenance import rendered_origin


def one_per_problem(
    from_values: Sequence[Finding], rendered: Sequence[Finding], workload_rules: Collection[str]
) -> list[Finding]:
    """``from_values`` and ``rendered`` merged; see the module docstring."""
    kept = list(from_values)
    placed: list[Finding] = []
    for finding in rendered:
        if finding.rule_id not in workload_rules:
            placed.append(finding)
            continue
        same_rule = [v for v in kept if v.rule_id == finding.rule_id]
        if same_rule and _on_template(finding):
            # The values key was not found from the manifest, but the values reading
            # knows where the setting was written (a values file, or a --set): the fix
            # goes there.
            values = same_rule[0]
            finding = dataclasses.replace(
                finding,
                file=values.file,
                line=values.line,
                column=values.column,
                path=values.path,
                doc_index=values.doc_index,
            )
        kept = [v for v in kept if not _same_problem(v, finding)]
        placed.append(finding)
    return [*kept, *placed]


def _same_problem(values: Finding, rendered: Finding) -> bool:
    where = (values.file, values.line, values.column)
    if where != (rendered.file, rendered.line, rendered.column):
        return False
    return _policy(values.rule_id) == _policy(rendered.rule_id)


def _policy(rule_id: str) -> str:
    return rule_id.partition("/")[0]


def _on_template(finding: Finding) -> bool:
    origin = rendered_origin(finding)
    return origin is not None and "/templates/" in f"/{finding.file}"
