"""The releases of every wrapper in a parsed file."""

from __future__ import annotations

from linter.gitops.model import WrappedRelease
from linter.model.settings import ModelSettings
from linter.parsing.documents import ParsedFile
from linter.sources.wrappers import HELM_RELEASE, wrapper_kind


def wrapped_releases(parsed: ParsedFile, settings: ModelSettings) -> list[WrappedRelease]:
    out: list[WrappedRelease] = []
    for document in parsed.documents:
        kind = wrapper_kind(document.data)
        if kind == HELM_RELEASE:
            from linter.gitops.flux import helm_release

            out.append(helm_release(parsed, document, settings))
    return out
