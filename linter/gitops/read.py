"""The releases of every wrapper in a parsed file."""

from __future__ import annotations

from linter.coverage.model import NotUnderstood
from linter.gitops.model import WrappedRelease
from linter.model.engine.settings import ModelSettings
from linter.parsing.documents import ParsedFile
from linter.sources.wrappers import APPLICATION, APPLICATION_SET, HELM_RELEASE, wrapper_kind


def wrapped_releases(
    parsed: ParsedFile, settings: ModelSettings
) -> tuple[list[WrappedRelease], list[NotUnderstood]]:
    """The releases of the wrappers in ``parsed``, and the generators it cannot expand."""
    out: list[WrappedRelease] = []
    unknown: list[NotUnderstood] = []
    for document in parsed.documents:
        kind = wrapper_kind(document.data)
        if kind == HELM_RELEASE:
            from linter.gitops.flux import helm_release

            out.append(helm_release(parsed, document, settings))
        elif kind == APPLICATION:
            from linter.gitops.argo import applications

            out.extend(applications(parsed, document, settings))
        elif kind == APPLICATION_SET:
            from linter.gitops.appset import application_sets

            releases, unexpanded = application_sets(parsed, document, settings)
            out.extend(releases)
            unknown.extend(unexpanded)
    return out, unknown
