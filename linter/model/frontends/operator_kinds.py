"""Operators whose resources name a server without a pod template: KAITO (``kaito.py``),
OME (``ome.py``) and NVIDIA Dynamo (``dynamo.py``). Each module builds the pod its operator
creates; what every operator adds is listed in ``operator_additions.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from linter.positions import Origin

if TYPE_CHECKING:
    from linter.model.engine.settings import ModelSettings
    from linter.model.frontends.build import Hint, Meta
    from linter.model.records.paths import Locate
    from linter.model.records.workload import Workload

# Checked first, by name and API group, so a run without these kinds never imports the
# three modules (start-up time of the hook).
_GROUPS = {
    "Workspace": "kaito.sh/",
    "InferenceSet": "kaito.sh/",
    "ClusterServingRuntime": "ome.io/",
    "ServingRuntime": "ome.io/",
    "InferenceService": "ome.io/",
    "DynamoGraphDeployment": "nvidia.com/",
}


def operator_workloads(
    data: Mapping[str, Any],
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
    companions: Sequence[Any] = (),
) -> list[Workload] | None:
    """The workloads of one of these operators' resources; None for other kinds."""
    kind = str(data.get("kind", ""))
    group = _GROUPS.get(kind)
    if group is None or not str(data.get("apiVersion", "")).startswith(group):
        return None
    if group == "kaito.sh/":
        from linter.model.frontends.kaito import kaito_workloads

        return kaito_workloads(data, locate, meta, settings, companions)
    if group == "ome.io/":
        from linter.model.frontends.ome import ome_workloads

        return ome_workloads(data, locate, meta, settings)
    from linter.model.frontends.dynamo import dynamo_workloads

    return dynamo_workloads(data, locate, meta, settings)


def flag_hints(server: str, tokens: Sequence[tuple[str, Origin]]) -> tuple[Hint, ...]:
    """The settings among command-line words the operator passes to ``server``, each at
    its word's origin; a later flag wins, as in the server's argument parser. Flags the
    server's table does not know (the operator's own) are left out."""
    from linter.model.engine.args import Token, parse_args
    from linter.model.frontends.build import Hint

    parsed = parse_args(server, [Token(text, origin) for text, origin in tokens])
    found: dict[str, Hint] = {}
    for flag in parsed.flags:
        if flag.setting is None or flag.subkey is not None:
            continue
        # A value that does not read as the setting's type is kept as written (None).
        name = flag.setting.name
        found.pop(name, None)  # the last one written wins, in order
        found[name] = Hint(name, flag.value, flag.origin, "" if flag.value else flag.raw)
    return tuple(found.values())
