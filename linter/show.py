"""``servelint show``: the serving model built from the inputs, as ``helm template`` shows
what a chart renders. Each workload with its kind, server, version, model (and where its
architecture came from), GPU (and where it was told), parallelism, every setting with its
value and origin, and the facts that are unknown. The JSON shape is in
``docs/coverage.md`` and stable (``SHOW_VERSION``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linter.committed import committed_workloads
from linter.coverage import gaps
from linter.errors import SourceError
from linter.lightclass import frozen
from linter.model.engine.settings import ModelSettings
from linter.model.records.workload import Workload, WorkloadView
from linter.parsing.documents import Document, Limits
from linter.policy.model import Policy
from linter.positions import PathT, format_path
from linter.secrets import redact
from linter.secrets.masking import masker
from linter.secrets.patterns import mask_value
from linter.sources.files import Input

if TYPE_CHECKING:
    from linter.drift.live import Capture
    from linter.model.engine.live import LiveSettings

SHOW_VERSION = 1
# Sections of a workload that are settings; the rest (pod, container, effective) are the
# object around them, shown through the summary fields.
_SETTING_SECTIONS = ("engine", "model", "gpu", "grpc", "triton", "pod")
# Bulky views of what the settings already show one by one.
_SKIP = frozenset(
    {
        ("engine", "args"),
        ("engine", "flags"),
        ("engine", "env"),
        ("engine", "version_parts"),
        ("engine", "inline_bool_flags"),
    }
)
_PARALLELISM = (
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "data_parallel_size",
    "tp_size",
    "pp_size",
    "dp_size",
    "nnodes",
    "num_shard",
)


@frozen
class ChartShow:
    """``show --chart`` and the options it shares with ``lint --chart`` (``helm/options.py``)."""

    chart: str
    values: Sequence[str] = ()
    sets: Sequence[str] = ()
    environments: Sequence[str] = ()
    helm: str | None = None
    no_render: bool = False


def show_paths(
    paths: Sequence[str],
    policies: Sequence[Policy],
    settings: ModelSettings,
    limits: Limits,
    *,
    chart: ChartShow | None = None,
    chart_context: bool = True,
) -> dict[str, Any]:
    """The serving model of ``paths`` (and of ``--chart`` with its ``-f``, ``--set`` and
    ``--env``, rendered as lint renders it), built by the subject providers of ``servelint
    lint`` (``evaluate/providers.py``, ``helm/``): what is shown is what lint evaluates.
    ValueError for an ``--env`` that cannot be read."""
    committed = committed_workloads(paths, policies, settings, limits, chart_context=chart_context)
    workloads = list(committed.workloads)
    errors = committed.errors
    hidden = committed.hidden
    if chart is not None:
        workloads.extend(_chart_workloads(chart, policies, settings, limits, errors))
    workload_policies = [p for p in policies if p.target == "workload"]
    described = [describe(w, workload_policies, environment) for w, environment in workloads]
    shown = {
        "version": SHOW_VERSION,
        "workloads": [_hide(entry, hidden) for entry in described],
        "notUnderstood": [item.to_json() for item in committed.not_understood],
        "errors": errors,
    }
    # What lint masks, show masks: the inputs' secrets (the chart's values.yaml and the
    # --set values included, through the workloads they made) wherever they appear.
    found = redact.collect(committed.parsed) | _secrets_of(w for w, _ in workloads)
    return masker(found).data(shown)


def _secrets_of(workloads: Iterable[Workload]) -> frozenset[str]:
    return frozenset(
        value
        for workload in workloads
        for _, value in redact.secret_values(workload.view().data)
        if redact.maskable(value)
    )


def _chart_workloads(
    asked: ChartShow,
    policies: Sequence[Policy],
    settings: ModelSettings,
    limits: Limits,
    errors: list[str],
) -> list[tuple[Workload, str | None]]:
    """Each environment's workloads, from its merged values and, when helm renders the
    chart, from its rendered manifests; what cannot be read is added to ``errors``."""
    from linter.helm.chart import build_request
    from linter.helm.release import ChartReleases
    from linter.helm.render import RENDER_RULE

    request = build_request(
        asked.chart, asked.values, asked.sets, asked.environments, asked.helm, asked.no_render
    )
    releases = ChartReleases(policies, request, settings, limits)
    failures = [f"{f.file}:{f.line}:{f.column}: {f.message}" for f in releases.failures]
    if any(release.merged is None for release in releases.releases):
        why = "".join(f"\n  {failure}" for failure in failures)
        raise SourceError(f"{asked.chart}: the chart's values could not be merged{why}")
    errors.extend(
        failure
        for failure, f in zip(failures, releases.failures, strict=True)
        if f.file != request.chart.values
    )
    shown: list[tuple[Workload, str | None]] = []
    for release in releases.releases:
        # helm's own failure; a finding of the merge (a map replaced by a scalar) is lint's.
        errors.extend(
            f"{f.file}:{f.line}:{f.column}: {f.message}"
            for f in release.findings
            if f.rule_id == RENDER_RULE
        )
        shown.extend(
            (workload, release.env.name)
            for workload in [*release.workloads, *release.rendered_workloads]
        )
    return shown


def _hide(entry: dict[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    """A Secret's values masked in the settings shown."""
    if not hidden:
        return entry
    memory = entry.get("gpuMemory")
    if memory is not None and _among(memory["fraction"], hidden):
        memory["fraction"] = None
    for setting in entry["settings"]:
        if str(setting.get("value")) in hidden:
            setting["value"] = "****"
        if str(setting.get("writtenAs")) in hidden:
            setting["writtenAs"] = "****"
    return entry


def _among(number: float | None, hidden: frozenset[str]) -> bool:
    """Whether ``number`` is one of the ``hidden`` values, however it was written."""
    for value in hidden:
        try:
            if float(value) == number:
                return True
        except ValueError:
            continue
    return False


def describe(
    workload: Workload, policies: Sequence[Policy], environment: str | None = None
) -> dict[str, Any]:
    """One workload as ``show`` prints it: what policies see, and where it was written."""
    view = workload.view()
    data = view.data
    entry = gaps.entry(workload, policies, environment)
    engine = _mapping(data.get("engine"))
    model = _mapping(data.get("model"))
    gpu = _mapping(data.get("gpu"))
    out: dict[str, Any] = {
        "name": workload.name,
        "kind": entry.kind,
        "at": _where(workload.anchor.source, workload.anchor.line, workload.anchor.column),
        "server": entry.server,
        "version": entry.version,
        "model": {
            "id": entry.model,
            "architecture": entry.model_source or "unknown",
        },
        "gpu": {
            "product": entry.gpu,
            "toldBy": gpu.get("product_source"),
            "count": gpu.get("count"),
            "memoryBytes": gpu.get("memory_bytes"),
        },
        "parallelism": {
            name: engine[name] for name in _PARALLELISM if isinstance(engine.get(name), int)
        },
        "settings": _settings(view, entry.model_source),
        "unknown": _unknown(entry.server, engine, model, gpu),
        "gaps": [gap.to_json() for gap in entry.gaps],
        "gpuMemory": entry.memory.to_json() if entry.memory is not None else None,
    }
    if environment is not None:
        out["environment"] = environment
    return out


def _settings(workload: WorkloadView, model_source: str | None) -> list[dict[str, Any]]:
    """Every leaf setting; ``at`` is where it was written, ``from`` what it was looked up in
    (the model catalogue, the configuration, a config.json) or ``derived``."""
    out: list[dict[str, Any]] = []
    for section in _SETTING_SECTIONS:
        for path, value in _leaves(workload.data.get(section), (section,)):
            if value is None:
                continue  # a section the input did not fill
            origin = workload.origins.get(path)
            if origin is not None:
                where: dict[str, str | None] = {
                    "at": _where(origin.source, origin.line, origin.column)
                }
                where["writtenAs"] = origin.key or None
            else:
                looked_up = section == "model" and model_source is not None
                where = {"from": model_source if looked_up else "derived"}
            shown = mask_value(path, value)  # engine.api_key, env.HF_TOKEN, args
            out.append({"setting": format_path(path), "value": shown, **where})
    return out


def _leaves(node: Any, path: PathT) -> list[tuple[PathT, Any]]:
    if path in _SKIP:
        return []
    if isinstance(node, Mapping):
        return [leaf for key, value in node.items() for leaf in _leaves(value, (*path, key))]
    if isinstance(node, list) and any(isinstance(item, Mapping | list) for item in node):
        return [leaf for i, value in enumerate(node) for leaf in _leaves(value, (*path, i))]
    return [(path, node)]


def _unknown(
    server: str | None,
    engine: Mapping[str, Any],
    model: Mapping[str, Any],
    gpu: Mapping[str, Any],
) -> list[str]:
    out = []
    if server is None:
        out.append("server (no recognised image or command)")
    elif not engine.get("version"):
        out.append("server version")
    if not model.get("id"):
        out.append("model")
    elif not model.get("known"):
        out.append("model architecture")
    if "resource" in gpu and not isinstance(gpu.get("memory_bytes"), int):
        out.append("GPU type and memory")
    return out


def _where(source: str, line: int, column: int) -> str:
    return f"{source}:{line}:{column}"


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def render_text(shown: Mapping[str, Any]) -> str:
    """The text form: one block per workload, one line per setting."""
    lines: list[str] = []
    for workload in shown["workloads"]:
        env = f" [{workload['environment']}]" if "environment" in workload else ""
        lines.append(f"{workload['name']}{env} ({workload['kind']}) at {workload['at']}")
        lines.append(
            f"  server: {workload['server'] or 'unknown'}"
            f" {workload['version'] or '(version unknown)'}"
        )
        model = workload["model"]
        lines.append(f"  model: {model['id'] or 'unknown'} (architecture: {model['architecture']})")
        gpu = workload["gpu"]
        told = f", told by {gpu['toldBy']}" if gpu["toldBy"] else ""
        lines.append(f"  gpu: {gpu['product'] or 'unknown'} × {gpu['count'] or '?'}{told}")
        if workload["parallelism"]:
            pairs = ", ".join(f"{k}={v}" for k, v in workload["parallelism"].items())
            lines.append(f"  parallelism: {pairs}")
        lines.append("  settings:")
        for setting in workload["settings"]:
            looked_up = setting.get("from")
            where = setting.get("at") or (
                "derived" if looked_up == "derived" else f"from {looked_up}"
            )
            written = f", {setting['writtenAs']}" if setting.get("writtenAs") else ""
            lines.append(f"    {setting['setting']} = {setting['value']!r}  ({where}{written})")
        if workload.get("gpuMemory"):
            from linter.model.facts.budget import MemoryBudget
            from linter.reporters.memory import text_lines

            lines.extend(text_lines(MemoryBudget.from_json(workload["gpuMemory"])))
        if workload["unknown"]:
            lines.append(f"  unknown: {', '.join(workload['unknown'])}")
        lines.extend(
            f"  not checked: {gap['fact']} ({gap['detail']}): "
            f"{len(gap['rules'])} rule{'s' * (len(gap['rules']) != 1)} "
            f"{gap['effect']}; fix: {gap['fix']}"
            for gap in workload["gaps"]
        )
        lines.append("")
    lines.extend(
        f"not understood: {item['file']}:{item['line']}:{item['column']}: {item['what']}: "
        f"{item['evidence']}"
        for item in shown["notUnderstood"]
    )
    lines.extend(f"not read: {error}" for error in shown["errors"])
    if not shown["workloads"] and not shown["notUnderstood"]:
        lines.append("no workload recognised")
    return "\n".join(lines).rstrip("\n") + "\n"


def show_live(path: str, limits: Limits) -> dict[str, Any]:
    """What a running server reported, read the way ``drift --live`` reads it: a start-up
    log, an info answer (``/info``, ``/get_server_info``, gRPC ``GetServerInfo`` and
    ``GetModelInfo``, ``/v1/models``), a usage record or a config; ``-`` is standard input."""
    from linter.drift import live as captures
    from linter.evaluate.parsers import parse
    from linter.sources import files

    stdin = path == files.STDIN
    item = Input(files.STDIN_NAME, None) if stdin else Input(path, Path(path))
    read = files.read(item, limits.max_bytes)
    if read.text is None:
        raise SourceError(f"{item.name}: {read.error}")
    try:
        capture = captures.read_capture(read.text)
    except captures.UnknownCapture as error:
        raise SourceError(f"{item.name}: {error}") from None
    if capture is not None:
        return masker().data({"version": SHOW_VERSION, "live": [_captured(item.name, capture)]})
    parsed = parse(item.name, read.text, limits)
    live = [_live_document(document) for document in parsed.documents]
    if not live:
        problem = parsed.problems[0].message if parsed.problems else "no document"
        raise SourceError(f"{item.name}: {problem}")
    return masker(redact.collect([parsed])).data({"version": SHOW_VERSION, "live": live})


def _captured(name: str, capture: Capture) -> dict[str, Any]:
    """A start-up log or info answer (``linter.drift.live.Capture``), with what it was
    read from."""
    from linter.model.engine.live import server_settings

    found = server_settings(capture.server, capture.settings, capture.model, capture.version)
    entry = _live_entry(name, found)
    entry["read"] = list(capture.formats)
    entry["other"] = sorted({*found.other, *capture.ignored})
    # Processes of one deployment that printed a setting differently: the settings above
    # are the first one's, so the others are named rather than hidden.
    entry["disagreements"] = [
        {
            "setting": d.setting,
            "seen": [
                {"process": process, "line": line, "value": mask_value((d.setting,), value)}
                for process, line, value in d.seen
            ],
        }
        for d in capture.disagreements
    ]
    return entry


def _live_document(document: Document) -> dict[str, Any]:
    from linter.model.engine.live import engine_settings_from_live

    found = engine_settings_from_live(document.data)
    if found is None:
        from linter.drift.live import FORMATS

        raise SourceError(
            f"{document.source}: not a server configuration servelint can read (the "
            "formats understood are: " + "; ".join(FORMATS) + ")"
        )
    return _live_entry(document.source, found)


def _live_entry(name: str, found: LiveSettings) -> dict[str, Any]:
    return {
        "file": name,
        "server": found.server,
        "version": found.version or None,
        "model": found.model_id or None,
        "settings": [
            {"setting": f"engine.{key}", "value": mask_value((key,), value)}
            for key, value in sorted(found.settings.items())
        ],
        "other": list(found.other),
    }


def render_live_text(shown: Mapping[str, Any]) -> str:
    lines: list[str] = []
    for item in shown["live"]:
        version = item["version"] or "(version unknown)"
        lines.append(f"{item['file']}: {item['server']} {version}, model {item['model']}")
        if item.get("read"):
            lines.append(f"  read: {', '.join(item['read'])}")
        lines.extend(f"  {s['setting']} = {s['value']!r}" for s in item["settings"])
        if item["other"]:
            lines.append(f"  not settings (not compared): {', '.join(item['other'])}")
        for disagreement in item.get("disagreements", ()):
            seen = ", ".join(
                f"{s['process']} (line {s['line']}) {s['value']!r}" for s in disagreement["seen"]
            )
            lines.append(
                f"  printed differently by its processes: {disagreement['setting']}: {seen}"
            )
    return "\n".join(lines) + "\n"
