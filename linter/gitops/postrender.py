"""Flux ``spec.postRenderers[].kustomize``: Kustomize patches and ``images`` the
helm-controller applies to what the release renders
(https://fluxcd.io/flux/components/helm/helmreleases/#post-renderers).

Nothing is rendered here. Where a chart profile reads the release, each pod it
assembles is wrapped as the object the chart renders (its kind, no name: the rendered
name is not known) and the post-renderer's patches and images are applied to it with
the Kustomize code (``kustomize.py``), so a patch that changes the server container's
image, args or env is judged on the patch's lines. Every operation that could not be
applied (a target named by its name or labels, a path outside the pod, a release read
without a profile) is a coverage gap naming its line: the release may deploy something
other than what is judged.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from linter.coverage.model import NotUnderstood
from linter.gitops.kustomize import Obj, Where, post_render
from linter.gitops.model import WrappedRelease
from linter.model.engine.settings import ModelSettings
from linter.model.records.paths import Locate
from linter.positions import Origin, PathT, format_path, nearest

POD: PathT = ("spec", "template", "spec")
_LISTS = ("args", "env", "volumeMounts")
WHAT = "postRenderers"
FIX = (
    "lint the rendered release (helm template ... | kustomize, or lint --chart of a chart "
    "in this repository), or patch the values instead of the rendered manifests"
)


class PostRenderer:
    """The post-renderers of one release, applied to each pod a profile assembles."""

    def __init__(self, release: WrappedRelease, settings: ModelSettings) -> None:
        self.release = release
        self.settings = settings
        self.gaps: dict[str, NotUnderstood] = {}
        # Where the patches wrote: flags there reach the server as written.
        self.written: list[Origin] = []

    def __call__(
        self, spec: dict[str, Any], locate: Locate, kind: str
    ) -> tuple[dict[str, Any], Locate]:
        origins: dict[Where, Origin] = {}
        spans: dict[PathT, Where] = {}
        for path in _paths(spec):
            origin = locate(path)
            where = (origin.source, origin.line, origin.column, origin.doc_index)
            origins.setdefault(where, origin)
            spans[(*POD, *path)] = where
        pod_spec = copy.deepcopy(spec)
        # The chart renders lists the values reading may not show (the server's --host and
        # --port args, its env): a patch may append to them.
        for container in pod_spec.get("containers", []):
            if isinstance(container, dict):
                for field in _LISTS:
                    container.setdefault(field, [])
        data = {
            "apiVersion": "apps/v1",
            "kind": kind or "Deployment",
            "metadata": {},
            "spec": {"template": {"spec": pod_spec}},
        }
        objects = [Obj(data, spans, "")]
        for document in self.release.post_renderers:
            objects, notes, _ = post_render(objects, document, self.settings)
            for note in notes:
                self._gap(note)
        if not objects:
            return spec, locate
        made = objects[0]
        pod = made.data.get("spec", {}).get("template", {}).get("spec")
        if not isinstance(pod, dict):
            return spec, locate
        for container in pod.get("containers", []):
            for field in _LISTS:
                if isinstance(container, dict) and container.get(field) == []:
                    del container[field]
        self.written.extend(Origin(*where) for where in made.spans.values() if where not in origins)
        fallback = locate(())

        def patched(path: PathT) -> Origin:
            where = nearest(made.spans, (*POD, *path), None)
            if where is None:
                return fallback
            return origins.get(where) or Origin(*where, format_path(path))

        return pod, patched

    def not_applied(self, why: str) -> None:
        """Every post-renderer of the release, as not applied for ``why``."""
        for document in self.release.post_renderers:
            span = document.span(())
            self._gap(f"{document.source}:{span.line}: {why}")

    def _gap(self, note: str) -> None:
        where, _, message = note.partition(": ")
        source, _, line = where.rpartition(":")
        found = NotUnderstood(
            source or self.release.source,
            int(line) if line.isdigit() else self.release.line,
            1,
            f"{WHAT} of {self.release.title}",
            f"not applied: {message}",
            FIX,
        )
        self.gaps.setdefault(note, found)

    @property
    def found(self) -> Sequence[NotUnderstood]:
        return tuple(self.gaps.values())


def _paths(data: Any, base: PathT = ()) -> list[PathT]:
    out: list[PathT] = [base]
    if isinstance(data, dict):
        for key, value in data.items():
            out.extend(_paths(value, (*base, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            out.extend(_paths(value, (*base, index)))
    return out
