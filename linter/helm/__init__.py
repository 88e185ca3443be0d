"""Helm charts: values merged as Helm merges them (with provenance), and rendering.

Entry points: ``linter.helm.values.merge_values`` (also used by drift), and the subject
providers of the lint run: ``linter.helm.context.ChartContext`` (values files among the
inputs) and ``linter.helm.release.ChartReleases`` (``lint --chart``). Nothing is imported
here, so that the ``lint`` command (``linter.commands.lint``) can import
``linter.helm.options`` without the YAML and CEL machinery.
"""
