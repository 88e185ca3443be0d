"""Kinds whose operator builds several pods per role from templates and patches:
RoleBasedGroup (``rolebasedgroup.py``) and kthena ModelServing (``kthena.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from linter.positions import Origin

if TYPE_CHECKING:
    from linter.model.frontends.role_pods import RolePod, UnbuiltRole
    from linter.model.records.paths import Locate

# The kinds the two modules read (rolebasedgroup.KIND, kthena.KIND): checked here first, so
# a run without them never imports the merge and role code (start-up time of the hook).
KINDS = ("RoleBasedGroup", "ModelServing")


def role_group_pods(
    data: Mapping[str, Any], locate: Locate
) -> tuple[list[RolePod], list[UnbuiltRole]] | None:
    """The pods of a multi-role object and the roles whose pods cannot be built; None for
    other kinds."""
    kind = str(data.get("kind", ""))
    if kind not in KINDS:
        return None
    from linter.model.frontends import kthena, rolebasedgroup

    api = str(data.get("apiVersion", ""))
    if rolebasedgroup.is_rolebasedgroup(kind, api):
        return rolebasedgroup.role_pods(data, locate)
    if kthena.is_model_serving(kind, api):
        return kthena.role_pods(data, locate)
    return None


def unbuilt_roles(data: object) -> list[UnbuiltRole]:
    """The roles of ``data`` whose pods its operator cannot build from what is written."""
    if not isinstance(data, Mapping):
        return []
    found = role_group_pods(data, lambda _path: Origin("", 0, 0))
    return found[1] if found else []
