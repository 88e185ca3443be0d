"""GitOps wrappers of Helm charts: Flux ``HelmRelease``, Argo CD ``Application`` and
``ApplicationSet`` read as releases of the chart they name (docs/gitops.md)."""
