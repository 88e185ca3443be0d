"""Pairing through the serving model (no ``--values-path``).

Both sides become engine settings under the serving model's canonical names and types:
the values through ``linter.model.frontends.values.workloads_from_values`` (any chart layout, every
setting at the values line that wrote it), the live side through
``linter.model.engine.live.engine_settings_from_live`` (vLLM config or ``/v1/models``, TGI
``/info``, SGLang ``/get_server_info``) or, for ``podspec``, through the pod's own manifest.
So ``vllmConfig.maxModelLen`` in values compares with ``max_model_len`` in a vLLM config and
``MAX_TOTAL_TOKENS`` with TGI's ``max_total_tokens``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import field
from typing import Any

from linter.drift.flagsettings import WHEN_SET, committed_extras, live_extras
from linter.drift.live import Capture
from linter.drift.normalize import Normalized, normalize
from linter.drift.sides import LiveError
from linter.drift.unreadable import unreadable
from linter.lightclass import frozen
from linter.model.records.located import value_of
from linter.model.records.records import ENGINE_FACTS
from linter.model.records.workload import Workload
from linter.parsing.documents import Document
from linter.positions import Origin, PathT, format_path

# Engine fields that describe the invocation rather than a setting.
# The engine's own facts are not settings to compare, except the served model
# (``model_id``, under which the ``model`` setting is compared).
_META = (ENGINE_FACTS - {"model_id"}) | {"model"}


@frozen
class LiveEngine:
    server: str
    settings: dict[str, Any]
    # The source reports a few settings only (vLLM's /v1/models: max_model_len): settings
    # it does not report are not evidence of anything.
    partial: bool = False
    # The settings (canonical names) the source reports; None: every setting (a config
    # document, a pod spec). A committed setting outside it is not compared.
    reported: frozenset[str] | None = None
    source: str = ""  # what reported them: "vLLM 0.8.3: non-default args"
    # Settings only the flag table knows (no registry setting, no type, no default).
    table_only: frozenset[str] = frozenset()
    # Printed values that do not read as their setting's type: name → (value, needs).
    unreadable: dict[str, tuple[Any, str]] = field(default_factory=dict)


@frozen
class EngineSide:
    """One desired workload's engine settings (a ``DesiredView`` for findings)."""

    workload: Workload
    normalized: Normalized
    environment: str | None = None

    @property
    def server(self) -> str:
        engine = self.workload.record.engine
        return (value_of(engine.value.name) or "") if engine is not None else ""

    def locate(self, original: PathT) -> Origin:
        if not original:
            return self.workload.anchor
        names = [original[0]] + [
            old for old, new in ALIASES.get(self.server, {}).items() if new == original[0]
        ]
        origins = self.workload.origins()
        for name in names:
            origin = origins.get(("engine", name))
            if origin is not None:
                return origin
        _, written = committed_extras(self.workload, set(), _META)
        return written.get(str(original[0]), self.workload.anchor)

    def describe(self) -> str:
        """Which committed workload this is: ``vllm-a (Deployment, deploy.yaml:3)``."""
        anchor = self.workload.anchor
        environment = f" [{self.environment}]" if self.environment else ""
        kind = value_of(self.workload.record.kind)
        return f"{self.workload.name}{environment} ({kind}, {anchor.source}:{anchor.line})"

    def field(self, relative: PathT) -> str:
        """The setting's own name (``max_model_len``, ``speculative_config.num_speculative_tokens``):
        the values key to edit is in the finding's file and line."""
        return format_path(relative) if relative else "engine"


# One setting under two names across versions: compared under the newer one.
# TGI 3 renamed ``max_input_length`` to ``max_input_tokens`` (launcher/src/main.rs keeps
# both flags).
ALIASES: dict[str, dict[str, str]] = {"tgi": {"max_input_length": "max_input_tokens"}}


# One dtype under several spellings: vLLM's --dtype accepts half/float16, float/float32
# (vllm/config/model.py _STR_DTYPE_TO_TORCH_DTYPE) and logs the torch dtype it resolved.
DTYPE_SPELLINGS = {
    "half": "float16",
    "fp16": "float16",
    "bf16": "bfloat16",
    "float": "float32",
    "fp32": "float32",
}


def canonical_names(server: str, settings: dict[str, Any]) -> dict[str, Any]:
    aliases = ALIASES.get(server, {})
    out: dict[str, Any] = {}
    for key, value in settings.items():
        name = aliases.get(key, key)
        if name == "dtype" and isinstance(value, str):
            spelled = value.strip().lower().removeprefix("torch.")
            value = DTYPE_SPELLINGS.get(spelled, spelled)
        if name not in out or key == name:
            out[name] = value
    return out


def engine_settings(workload: Workload) -> dict[str, Any]:
    """The committed settings: the registry's, typed, and every other flag the server's
    flag table knows, as written (``flagsettings.py``)."""
    record = workload.record.engine
    engine = record.value.values() if record is not None else {}
    settings = {k: v for k, v in engine.items() if k not in _META}
    extras, _ = committed_extras(workload, set(settings), _META)
    return canonical_names(str(engine.get("name", "")), {**settings, **extras})


def engine_sides(workloads: Sequence[tuple[Workload, str | None]]) -> list[EngineSide]:
    """The committed workloads that run an inference server the serving model knows."""
    return [
        EngineSide(w, normalize(engine_settings(w)), environment)
        for w, environment in workloads
        if w.record.engine is not None and value_of(w.record.engine.value.name) is not None
    ]


def live_from_document(data: Any) -> LiveEngine:
    from linter.model.engine.live import engine_settings_from_live

    found = engine_settings_from_live(data)
    if found is None:
        raise LiveError(
            "unrecognised",
            "the live config is not one the serving model reads "
            "(a vLLM config or /v1/models, TGI /info, SGLang /get_server_info); "
            "pair the sides with --values-path",
        )
    settings = canonical_names(
        found.server, {k: v for k, v in found.settings.items() if k not in _META}
    )
    if found.model_id:
        settings["model_id"] = found.model_id
    partial = isinstance(data, dict) and data.get("object") == "list"
    unread = unreadable(found.server, data) if isinstance(data, dict) and not partial else {}
    return LiveEngine(found.server, settings, partial, unreadable=unread)


def live_from_capture(capture: Capture) -> LiveEngine:
    """The engine settings a start-up log or an info answer shows, typed as the serving
    model types them (``max_model_len: 4096``); fields that name no setting of the server
    are left out (they cannot be set from values either)."""
    from linter.model.engine.live import server_settings

    found = server_settings(capture.server, capture.settings)
    settings = {name: value for name, value in found.settings.items() if name not in _META}
    registered = _registered(capture.server, capture.settings)
    extras = live_extras(
        capture.server, capture.version, capture.settings, set(settings) | registered, _META
    )
    settings = canonical_names(capture.server, {**settings, **extras})
    if capture.model:
        settings["model_id"] = capture.model
    return LiveEngine(
        capture.server,
        settings,
        capture.partial,
        _reported(capture),
        capture.describe(),
        frozenset(extras),
        unreadable(capture.server, capture.settings),
    )


def _registered(server: str, printed: dict[str, Any]) -> set[str]:
    """The printed keys that name a registry setting (typed by ``server_settings``)."""
    from linter.model.engine import registry

    return {key for key in printed if registry.by_key(server, key) is not None}


def _reported(capture: Capture) -> frozenset[str]:
    """The capture's reported settings under the serving model's names."""
    from linter.model.engine import registry

    aliases = ALIASES.get(capture.server, {})
    names = set()
    for key in capture.reported:
        setting = registry.by_key(capture.server, key)
        name = setting.name if setting is not None else key
        names.add(aliases.get(name, name))
    if capture.model_key and capture.model_key in capture.reported:
        names.add("model_id")
    return frozenset(names)


def live_from_pod(pod: dict[str, Any], container: str, source: str) -> LiveEngine:
    from linter.model.frontends.manifests import workloads_from_manifest

    for workload in workloads_from_manifest(Document(source, 0, pod, {})):
        record = workload.record
        if record.container is not None and record.container.value.name.value == container:
            name = value_of(record.engine.value.name) if record.engine is not None else None
            if name:
                return LiveEngine(str(name), engine_settings(workload))
    raise LiveError(
        "unrecognised",
        f"container '{container}' does not run an inference "
        "server the serving model recognises; pair the sides with --values-path",
    )


def live_settings(side: EngineSide, live: LiveEngine) -> dict[str, Any]:
    """The live settings to compare: ``host``, ``port``, the api key and the like only
    when the committed side sets them (``flagsettings.WHEN_SET``), and so is a setting
    only the flag table knows unless the server's defaults table records its default."""
    from linter.drift.defaults import SERVERS

    committed = side.normalized.tree
    table = SERVERS.get(live.server)
    defaults = table.defaults if table is not None else {}
    # A setting only the flag table knows is compared with a default only where the
    # defaults table records one; else only when the committed side sets it.
    return {
        k: v
        for k, v in live.settings.items()
        if k in committed or (k not in WHEN_SET and (k not in live.table_only or k in defaults))
    }


def restricted(side: EngineSide, live: LiveEngine) -> tuple[EngineSide, tuple[str, ...]]:
    """The committed settings the live source reports (all of them for a document), and
    the names of those it does not: never drift, shown as not reported."""
    if live.reported is None and not live.partial and not live.unreadable:
        return side, ()
    settings = engine_settings(side.workload)
    # A value that cannot be read is a finding of its own, not a missing setting.
    settings = {k: v for k, v in settings.items() if k not in live.unreadable}
    if live.reported is None and not live.partial:
        return EngineSide(side.workload, normalize(settings), side.environment), ()
    allowed = live.reported if live.reported is not None else frozenset(live.settings)
    kept = {k: v for k, v in settings.items() if k in allowed}
    unreported = tuple(sorted(k for k in settings if k not in kept))
    return EngineSide(side.workload, normalize(kept), side.environment), unreported


def pick(sides: list[EngineSide], live: LiveEngine, target_name: str = "") -> EngineSide:
    """The committed workload that the live server runs: same server, then same model,
    then same served name, then the workload's name in the live target's (a pod of
    Deployment ``vllm-a`` is ``vllm-a-5d9c7-a2kq9``)."""
    same_server = [s for s in sides if _family(s.server) == _family(live.server)]
    if not same_server:
        servers = ", ".join(sorted({s.server for s in sides})) or "none"
        raise LiveError(
            "no-pairing",
            f"the live server is {live.server} but the committed files "
            f"describe: {servers}; pair the sides with --values-path",
        )
    candidates = same_server
    for narrowed in (
        lambda side: _same(side, live, "model_id"),
        lambda side: _same(side, live, "served_model_name"),
        lambda side: bool(target_name) and _named_in(side.workload.name, target_name),
    ):
        if len(candidates) == 1:
            return candidates[0]
        kept = [side for side in candidates if narrowed(side)]
        candidates = kept or candidates
    if len(candidates) == 1:
        return candidates[0]
    names = ", ".join(side.describe() for side in candidates)
    raise LiveError(
        "no-pairing",
        f"several {live.server} workloads in the committed files match ({names}); "
        "give the file of one, or pair the sides with --values-path",
    )


def _family(server: str) -> str:
    """The server that prints the capture: Triton's TensorRT-LLM images run tritonserver."""
    return {"trtllm": "triton"}.get(server, server)


def _same(side: EngineSide, live: LiveEngine, setting: str) -> bool:
    committed = side.normalized.tree.get(setting)
    live_value = normalize({setting: live.settings.get(setting)}).tree.get(setting)
    return committed is not None and committed == live_value


def _named_in(workload: str, target: str) -> bool:
    """``vllm-a`` names its pods (``vllm-a-5d9c7f8b6-a2kq9``, ``vllm-a-0``) and a file
    saved under one of those names or its own (``vllm-a.log``), not ``vllm-ab-...``."""
    name = re.escape(workload.rpartition("/")[2])
    pod = re.compile(rf"{name}(?:-[a-z0-9]{{5,10}}-[a-z0-9]{{5}}|-\d+)?")
    last = target.replace("\\", "/").rpartition("/")[2]
    stem = re.sub(r"\.(?:log|txt|json|ya?ml)$", "", last)
    return bool(pod.fullmatch(stem))
