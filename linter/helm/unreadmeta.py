"""What ``helm-values/unread-key`` is, for the rule reference: a leaf module, so that
listing rules does not import the template reader."""

from __future__ import annotations

RULE_ID = "helm-values/unread-key"
TITLE = "A values key that no template of the chart reads"
DESCRIPTION = (
    "Helm passes every values key to the templates and reports nothing about the keys "
    "they never read: a misspelt or misplaced key (probes: where the chart reads "
    "livenessProbe, readinessProbe and startupProbe; extraArgs one level above where the "
    "chart reads it) installs cleanly and has no effect, so the server runs without the "
    "setting. servelint reads the chart's templates (and its subcharts', with global) "
    "without rendering them and reports a key that no template reads and the chart's "
    "values.schema.json does not declare. Where the reading cannot be sure (a map passed "
    "whole to toYaml or to a template the chart does not define, a dynamic index) it "
    "counts the keys as read."
)
FIX = (
    "Move or rename the key to the one the chart reads (the message names the nearest), "
    "or delete it; check the chart's values.yaml for the spelling."
)
REFERENCES = (
    "https://helm.sh/docs/chart_template_guide/values_files/",
    "https://helm.sh/docs/topics/charts/#schema-files",
)
