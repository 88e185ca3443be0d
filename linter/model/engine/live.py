"""Engine settings from what a running server reports, for drift.

Public entry: ``engine_settings_from_live(data)`` → ``LiveSettings`` or None, for

- a vLLM configuration (``vllm serve --config`` YAML, a JSON dump; kebab or snake keys)
  or vLLM's ``GET /v1/models`` (``max_model_len`` of the served model);
- TGI's ``GET /info`` (and the start event of its usage statistics);
- SGLang's ``GET /get_server_info`` (every ServerArgs field at the top level).

Settings carry the serving model's canonical names and types (``max_model_len: 4096``),
so that they compare with the ``engine`` section of a workload extracted from Git.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.lightclass import frozen
from linter.model.engine import registry
from linter.model.engine.args import convert


@frozen
class LiveSettings:
    server: str
    settings: dict[str, Any]
    model_id: str = ""
    version: str = ""
    # Live keys that name no setting of the server (kept for display, never compared).
    other: tuple[str, ...] = ()


def engine_settings_from_live(data: object) -> LiveSettings | None:
    if not isinstance(data, Mapping):
        return None
    models = data.get("data")
    if data.get("object") == "list" and isinstance(models, list):
        return _vllm_models(models)
    keys = set(data)
    if "model_path" in keys and keys & {"mem_fraction_static", "tp_size"}:
        return _settings(
            "sglang", data, str(data.get("model_path", "")), str(data.get("version", ""))
        )
    if keys & {"max_total_tokens", "max_input_tokens", "max_input_length"} and keys & {
        "model_id",
        "docker_label",
        "router",
        "event_type",
        "max_concurrent_requests",
    }:
        return _settings("tgi", data, str(data.get("model_id", "")), str(data.get("version", "")))
    vllm = [k for k in keys if registry.by_key("vllm", str(k))]
    if vllm and len(vllm) * 2 >= len(keys):
        return _settings("vllm", data, str(data.get("model", "")), "")
    return None


def server_settings(
    server: str, data: Mapping[str, Any], model: str = "", version: str = ""
) -> LiveSettings:
    """The settings of ``server`` among ``data`` (keys named as the server names them,
    e.g. what a start-up log printed), typed as the serving model types them. A string
    setting printed as a list (``nargs="+"``: ``'served_model_name': ['llama-8b',
    'llama']``) is its items separated by spaces, as the command line gives them and as
    the committed side reads them (one item: that item)."""
    unwrapped = {}
    for key, value in data.items():
        setting = registry.by_key(server, str(key))
        if setting is not None and setting.kind == "str" and isinstance(value, list):
            value = _joined(value)
        unwrapped[key] = value
    return _settings(server, unwrapped, model, version)


def _joined(items: list[Any]) -> Any:
    """A list of words as one string; anything else (a list of maps) as it is."""
    if len(items) == 1:
        return items[0]
    if items and all(isinstance(i, str | int | float) and not isinstance(i, bool) for i in items):
        return " ".join(str(i) for i in items)
    return items


def _settings(server: str, data: Mapping[str, Any], model: str, version: str) -> LiveSettings:
    settings: dict[str, Any] = {}
    other: list[str] = []
    for key, value in data.items():
        setting = registry.by_key(server, str(key))
        if setting is None:
            other.append(str(key))
            continue
        if value is None:
            continue  # a server prints unset options as null: nothing to compare
        if setting.kind == "multi" and isinstance(value, list):
            # A repeatable flag printed as a list (Triton's model_repository_path[0]).
            settings[setting.name] = [str(item) for item in value]
            continue
        converted = convert(setting.kind, value)
        if converted is not None:
            settings[setting.name] = converted
    return LiveSettings(server, settings, model, version, tuple(sorted(other)))


def _vllm_models(models: list[Any]) -> LiveSettings | None:
    served = [m for m in models if isinstance(m, Mapping)]
    if len(served) != 1:
        return None  # several models behind one endpoint (a router): no single engine
    model = served[0]
    settings: dict[str, Any] = {}
    if isinstance(model.get("max_model_len"), int):
        settings["max_model_len"] = model["max_model_len"]
    name = str(model.get("root") or model.get("id") or "")
    return LiveSettings("vllm", settings, name, "", ())


def is_tgi_info(data: Mapping[str, Any]) -> bool:
    """TGI's ``/info`` answer (router/src/lib.rs ``Info``)."""
    keys = set(data)
    return (
        "model_id" in keys
        and bool(keys & {"max_total_tokens", "max_input_tokens", "max_input_length"})
        and bool(keys & {"docker_label", "router", "sha", "max_concurrent_requests"})
    )


def is_sglang_server_info(data: Mapping[str, Any]) -> bool:
    """SGLang's ``/get_server_info`` answer: its server arguments as it runs them."""
    return "model_path" in data and bool(set(data) & {"mem_fraction_static", "tp_size"})
