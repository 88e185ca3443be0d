"""Rules that no policy file defines: the pipeline's own findings and Python checks.

One registry, read by ``servelint rules`` and ``explain``, the rule reference, the CI
reporters (rule metadata in SARIF) and governance (which rule ids exist).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from urllib.parse import urlsplit

from linter.findings import Severity
from linter.helm import unreadmeta as unread_keys
from linter.lightclass import frozen
from linter.policy.model import Policy, Rule
from linter.secrets import literal as literal_secrets

INFORMATION_URI = "https://github.com/servelint/servelint"
_CORE_HELP = f"{INFORMATION_URI}#findings-the-pipeline-itself-reports"
_SUPPRESSION_HELP = f"{INFORMATION_URI}#suppressions"
_CHART_HELP = f"{INFORMATION_URI}/blob/main/docs/ci.md"


@frozen
class RuleMeta:
    id: str
    severity: Severity
    title: str
    description: str = ""
    fix: str = ""
    help_uri: str | None = None
    references: tuple[str, ...] = ()
    source: str = "servelint itself (no policy file)"
    # What ``servelint lint --fix`` does for the rule ("" when it has no fix).
    autofix_description: str = ""


# Findings the pipeline reports without any policy (README, "Findings the pipeline
# itself reports"); they need metadata too, or SARIF viewers show a bare id.
PIPELINE_RULES: dict[str, RuleMeta] = {
    "syntax": RuleMeta(
        "syntax",
        Severity.ERROR,
        "Input is not valid YAML or JSON",
        "The file could not be parsed, so no other rule could check it. The finding "
        "points at the line and column where the parser stopped.",
        "Fix the syntax at the reported position.",
        _CORE_HELP,
    ),
    "duplicate-key": RuleMeta(
        "duplicate-key",
        Severity.ERROR,
        "A mapping repeats a key",
        "Helm and Kubernetes keep the last value of a repeated key without a warning, so "
        "the first value is silently ignored.",
        "Keep one of the two keys.",
        _CORE_HELP,
    ),
    "input-limit": RuleMeta(
        "input-limit",
        Severity.ERROR,
        "Input exceeds a size, node-count or nesting limit",
        "Inputs are parsed with limits so that a hostile or broken file (for example an "
        "alias bomb) cannot exhaust memory.",
        "Split or simplify the file.",
        _CORE_HELP,
    ),
    "read-error": RuleMeta(
        "read-error",
        Severity.ERROR,
        "Input could not be read",
        "The file is unreadable, binary, or not UTF-8; it was not checked.",
        "Check the file's permissions and encoding.",
        _CORE_HELP,
    ),
    "number-range": RuleMeta(
        "number-range",
        Severity.WARNING,
        "A number no Kubernetes or Helm reader can hold",
        "An integer beyond 64 bits becomes an inexact float in Helm and is refused in "
        "an integer field by Kubernetes; infinity and NaN have no JSON form; a number with "
        "thousands of digits is read as text. The value is still linted as Helm would "
        "read it.",
        "Write the number the setting really needs.",
        _CORE_HELP,
    ),
    "suppression/missing-reason": RuleMeta(
        "suppression/missing-reason",
        Severity.WARNING,
        "A suppression gives no reason",
        "A suppression without a reason is not applied: the finding it names still counts.",
        'Say why the finding is acceptable: reason="..."',
        _SUPPRESSION_HELP,
    ),
    "suppression/expired": RuleMeta(
        "suppression/expired",
        Severity.WARNING,
        "A suppression is past its end date",
        "After its until date a suppression stops applying and its findings count again.",
        "Fix the findings, or renew the suppression with a new reason and date.",
        _SUPPRESSION_HELP,
    ),
    "suppression/unused": RuleMeta(
        "suppression/unused",
        Severity.WARNING,
        "A suppression matches no finding",
        "A stale suppression would silently hide a future finding of the same rule.",
        "Remove the suppression.",
        _SUPPRESSION_HELP,
    ),
    "suppression/invalid": RuleMeta(
        "suppression/invalid",
        Severity.WARNING,
        "A suppression cannot be read",
        "The suppression comment or annotation is malformed and is ignored.",
        'Write it as: servelint: ignore[rule-id] reason="..." until=YYYY-MM-DD',
        _SUPPRESSION_HELP,
    ),
    "helm-values": RuleMeta(
        "helm-values",
        Severity.ERROR,
        "Values cannot be merged as Helm merges them",
        "A values file or --set value cannot be read or merged, or replaces a map with a "
        "scalar (or the reverse), which Helm only warns about.",
        "Fix the value at the reported position.",
        _CHART_HELP,
    ),
    "helm-template": RuleMeta(
        "helm-template",
        Severity.ERROR,
        "The chart does not render",
        "helm template failed, so the rendered manifests could not be checked.",
        "Fix the template or value that helm names.",
        _CHART_HELP,
    ),
    unread_keys.RULE_ID: RuleMeta(
        unread_keys.RULE_ID,
        Severity.WARNING,
        unread_keys.TITLE,
        unread_keys.DESCRIPTION,
        unread_keys.FIX,
        unread_keys.REFERENCES[0],
        unread_keys.REFERENCES,
    ),
    literal_secrets.RULE_ID: RuleMeta(
        literal_secrets.RULE_ID,
        Severity.ERROR,
        literal_secrets.TITLE,
        literal_secrets.DESCRIPTION,
        literal_secrets.FIX,
        literal_secrets.REFERENCES[0],
        literal_secrets.REFERENCES,
        autofix_description=literal_secrets.AUTOFIX,
    ),
    literal_secrets.WEAK_RULE_ID: RuleMeta(
        literal_secrets.WEAK_RULE_ID,
        Severity.WARNING,
        literal_secrets.WEAK_TITLE,
        literal_secrets.WEAK_DESCRIPTION,
        literal_secrets.WEAK_FIX,
        literal_secrets.WEAK_REFERENCES[0],
        literal_secrets.WEAK_REFERENCES,
    ),
}

# The finding --fail-on-unchecked makes of each gap (coverage/gate.py). Not a rule of
# PIPELINE_RULES: no configuration switches it off or suppresses it (the flag does), so
# ``rules`` does not list it; the reporters need its metadata all the same.
GATE_RULES: dict[str, RuleMeta] = {
    "unchecked": RuleMeta(
        "unchecked",
        Severity.ERROR,
        "An input or a rule the run could not check (--fail-on-unchecked)",
        "With --fail-on-unchecked (or failOnUnchecked: true), an input that names an "
        "inference server but yielded no workload, a chart that was not rendered for want "
        "of helm, or a fact a workload lacks that error-level rules need fails the run: "
        "the gate then means checked and clean.",
        "Apply the fix the finding names (describe the layout, name the GPU, pin the "
        "image, install helm), or run without --fail-on-unchecked.",
        f"{INFORMATION_URI}#coverage-what-was-checked",
    ),
}


def is_link(text: str) -> bool:
    """An absolute http(s) URL without spaces: what SARIF's ``format: uri`` accepts and a
    code-scanning page can link (a team's own policy may cite sources in free text)."""
    parsed = urlsplit(text)
    return parsed.scheme in ("https", "http") and bool(parsed.netloc) and " " not in text


def policy_rule_meta(rule: Rule) -> RuleMeta:
    return RuleMeta(
        rule.id,
        rule.severity,
        rule.title,
        rule.description,
        rule.fix,
        next((ref for ref in rule.references if is_link(ref)), None),
        rule.references,
        rule.source,
        rule.autofix_description,
    )


def all_rules(policies: Sequence[Policy]) -> Iterator[RuleMeta]:
    """The pipeline's rules first, then every rule of ``policies`` in load order."""
    yield from PIPELINE_RULES.values()
    for policy in policies:
        for rule in policy.rules:
            yield policy_rule_meta(rule)
