"""Which documents are GitOps wrappers of a chart (``linter/gitops/``). A leaf module:
the run asks it about every input, so it imports nothing, and the wrappers' readers load
only when one is found; the serving model's extractors leave wrappers to them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FLUX_HELM = "helm.toolkit.fluxcd.io/"
ARGO = "argoproj.io/"
HELM_RELEASE = "HelmRelease"
APPLICATION = "Application"
APPLICATION_SET = "ApplicationSet"


def wrapper_kind(data: Any) -> str | None:
    """``HelmRelease``, ``Application`` or ``ApplicationSet`` for a wrapper; None otherwise."""
    if not isinstance(data, dict):
        return None
    kind, api = data.get("kind"), data.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str):
        return None
    if kind == HELM_RELEASE and api.startswith(FLUX_HELM):
        return kind
    if kind in (APPLICATION, APPLICATION_SET) and api.startswith(ARGO):
        return kind
    return None


def any_wrapper(documents: Iterable[Any]) -> bool:
    """Whether any of the documents' data is a wrapper."""
    return any(wrapper_kind(data) is not None for data in documents)
