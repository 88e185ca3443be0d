"""Helm charts: values merged as Helm merges them (with provenance), and rendering.

Entry points: ``linter.helm.values.merge_values`` (also used by drift) and
``linter.helm.chart.lint_chart``. Nothing is imported here, so that ``linter.cli`` can
import ``linter.helm.options`` without the YAML and CEL machinery.
"""
