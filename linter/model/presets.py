"""Model architecture: packaged presets, user presets and user ``config.json`` files.

Public entry: ``model_facts(model_id, engine, settings)`` → the ``model`` section. A model id
matches a preset case-insensitively, without its organisation or local directory, without
``Meta-`` and without suffixes such as ``-Instruct``, ``-it``, ``-AWQ``, ``-FP8``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

import yaml

from linter import _resources
from linter.errors import ConfigError
from linter.model.settings import ModelSettings
from linter.parsing import bounded

try:  # pragma: no branch - libyaml ships in the PyYAML wheels
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_SUFFIXES = re.compile(
    r"(-(instruct|chat|it|hf|base|awq|gptq|gguf|fp8|fp8-dynamic|int4|int8|w4a16|w8a8|"
    r"w8a16|bnb-4bit|4bit|8bit|quantized(\.[a-z0-9.]+)?|dynamic))+$"
)
# Bytes per parameter of a checkpoint dtype; quantised weights are approximate.
DTYPE_BYTES = {
    "float32": 4,
    "float": 4,
    "bfloat16": 2,
    "float16": 2,
    "half": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
}
_QUANT_HINTS = (
    ("awq", 0.5),
    ("gptq", 0.5),
    ("int4", 0.5),
    ("w4a16", 0.5),
    ("4bit", 0.5),
    ("fp8", 1),
    ("int8", 1),
    ("w8a8", 1),
    ("w8a16", 1),
    ("8bit", 1),
)
_FIELDS = (
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "hidden_size",
    "intermediate_size",
    "max_position_embeddings",
    "vocab_size",
    "sliding_window",
    "use_sliding_window",
    "rope_scaling",
    "tie_word_embeddings",
    "model_type",
    "num_local_experts",
    "num_experts",
    "num_experts_per_tok",
    "kv_lora_rank",
    "qk_rope_head_dim",
)


class Preset(NamedTuple):
    key: str
    config: Mapping[str, Any]
    parameters: int | None
    source: str  # "preset", "settings" or the path of a config.json


def match_key(model_id: str) -> str:
    """``/models/Meta-Llama-3.1-8B-Instruct-AWQ`` → ``llama-3.1-8b``."""
    text = model_id.strip().lower()
    for prefix in ("hf://", "pvc://", "s3://", "gs://", "oci://"):
        text = text.removeprefix(prefix)
    text = text.rstrip("/").rsplit("/", 1)[-1]
    text = text.removeprefix("meta-")
    return _SUFFIXES.sub("", text)


@functools.cache
def _packaged() -> dict[str, Preset]:
    text = (_resources.builtin_profiles() / "models.yaml").read_text(encoding="utf-8")
    loaded = yaml.load(text, Loader=_Loader)
    table: dict[str, Preset] = {}
    for name, entry in (loaded.get("presets") or {}).items():
        preset = Preset(name, entry.get("config", {}), entry.get("parameters"), "preset")
        for alias in (name, *entry.get("aliases", [])):
            table.setdefault(match_key(alias), preset)
    return table


def find_preset(model_id: str, settings: ModelSettings) -> Preset | None:
    key = match_key(model_id)
    for name, config in settings.presets.items():
        if match_key(name) == key:
            return Preset(name, config, None, "settings")
    for name, path in settings.model_configs.items():
        if match_key(name) == key:
            return Preset(name, _read_config(path), None, path)
    return _packaged().get(key)


@functools.cache
def _read_config(path: str) -> Mapping[str, Any]:
    try:
        loaded = json.loads(bounded.read_text(path, encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise ConfigError(f"model config {path}: cannot read it as JSON ({exc})") from exc
    if not isinstance(loaded, dict):
        raise ConfigError(f"model config {path}: expected a JSON object")
    text_config = loaded.get("text_config")
    # Multimodal configs keep the language model's fields under text_config.
    return {**loaded, **text_config} if isinstance(text_config, dict) else loaded


def model_facts(
    model_id: str, engine: Mapping[str, Any], settings: ModelSettings
) -> dict[str, Any]:
    preset = find_preset(model_id, settings)
    out: dict[str, Any] = {"id": model_id, "known": preset is not None}
    if preset is None:
        return out
    config = preset.config
    out["source"] = preset.source
    out["preset"] = preset.key
    for field in _FIELDS:
        if field in config and config[field] is not None:
            out[field] = config[field]
    if (
        "head_dim" not in out
        and _int(config.get("hidden_size"))
        and _int(config.get("num_attention_heads"))
    ):
        out["head_dim"] = config["hidden_size"] // config["num_attention_heads"]
    if "num_key_value_heads" not in out and "num_attention_heads" in out:
        out["num_key_value_heads"] = out["num_attention_heads"]
    out["dtype"] = str(config.get("torch_dtype") or config.get("dtype") or "bfloat16")
    parameters = preset.parameters or estimate_parameters(config)
    if parameters:
        out["parameters"] = parameters
        per_param, exact = weight_dtype_bytes(model_id, engine, out["dtype"])
        out["weight_bytes"] = int(parameters * per_param)
        out["weight_bytes_exact"] = exact
    return out


def weight_dtype_bytes(model_id: str, engine: Mapping[str, Any], dtype: str) -> tuple[float, bool]:
    """Bytes per parameter of the loaded weights; exact only for unquantised checkpoints."""
    quantization = str(engine.get("quantization") or engine.get("quantize") or "").lower()
    name = model_id.lower()
    for hint, size in _QUANT_HINTS:
        if hint in quantization or re.search(rf"[-_.]{hint}([-_.]|$)", name):
            return size, False
    if quantization and quantization != "none":
        # nf4/fp4 (bitsandbytes-nf4, …) hold 4-bit weights; other schemes about 1 byte.
        return (0.5 if re.search(r"nf4|fp4|4bit|marlin", quantization) else 1), False
    requested = str(engine.get("dtype") or "auto").lower()
    if requested in DTYPE_BYTES:
        return DTYPE_BYTES[requested], True
    return DTYPE_BYTES.get(dtype, 2), True


def estimate_parameters(config: Mapping[str, Any]) -> int | None:
    """Parameters of a decoder-only transformer from its config (dense, GQA, Mixtral MoE)."""
    h, layers, heads = (
        _int(config.get(k)) for k in ("hidden_size", "num_hidden_layers", "num_attention_heads")
    )
    inter, vocab = _int(config.get("intermediate_size")), _int(config.get("vocab_size"))
    if not (h and layers and heads and inter and vocab):
        return None
    kv = _int(config.get("num_key_value_heads")) or heads
    dim = _int(config.get("head_dim")) or h // heads
    model_type = str(config.get("model_type", ""))
    bias = config.get("attention_bias") is True or model_type.startswith("qwen2")
    attention = 2 * h * heads * dim + 2 * h * kv * dim + (heads * dim + 2 * kv * dim) * bias
    experts = _int(config.get("num_local_experts")) or _int(config.get("num_experts"))
    mlp = 3 * h * inter * (experts or 1) + (h * experts if experts else 0)
    norms = (4 if model_type.startswith("gemma") else 2) * h
    tied = config.get("tie_word_embeddings", model_type.startswith("gemma")) is True
    return vocab * h * (1 if tied else 2) + layers * (attention + mlp + norms) + h


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
