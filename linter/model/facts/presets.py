"""Model architecture: the packaged model catalogue, user presets and user ``config.json`` files.

Public entry: ``model_facts(model_id, engine, settings)`` → the ``model`` section. The
catalogue (``catalogue/models.yaml``, schema ``schemas/models.schema.json``) holds each
model's Hugging Face ``config.json`` fields with the URL of that file, its parameter count,
the quantisation of its own checkpoint and its known quantized variants. A model id
matches an entry case-insensitively, without its organisation or local directory (or a
``.gguf`` file name), without ``Meta-``, without the words ``Instruct``, ``chat``, ``it``,
``hf`` and ``base`` and without trailing quantisation tags such as ``-AWQ``, ``-FP8``,
``-GPTQ-Int4``, ``-bnb-4bit`` or ``-Q4_K_M``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from linter import _resources
from linter.errors import ConfigError
from linter.lazyregex import lazy_compile
from linter.model.engine.settings import ModelSettings
from linter.parsing import bounded

# Words that name a fine-tune or a packaging of the same architecture, anywhere in the name
# (Mistral-7B-Instruct-v0.3 is Mistral-7B-v0.3; Llama-2-7b-chat-hf is Llama-2-7b).
_WORDS = lazy_compile(r"-(instruct|chat|it|hf|base)(?=-|$)")
# Quantisation and packaging tags at the end of a name.
_SUFFIXES = lazy_compile(
    r"(-(awq|gptq|gguf|fp8|fp8-dynamic|fp8-block|int4|int8|w4a16|w8a8|w8a16|w4a8|nvfp4|"
    r"mxfp4|bnb-4bit|bnb|4bit|8bit|unsloth|dynamic|quantized(\.[a-z0-9.]+)?|"
    r"q[2-8](_[a-z0-9]+)*|iq[1-4](_[a-z0-9]+)*|f16|bf16))+$"
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
    ("nvfp4", 0.5),
    ("mxfp4", 0.5),
    ("fp8", 1),
    ("int8", 1),
    ("w8a8", 1),
    ("w8a16", 1),
    ("8bit", 1),
)
# A quantisation tag between separators in a model id ("-AWQ", "_int4", ".fp8"): the
# trailing separator is not consumed, so tags next to each other are all found.
_QUANT_TAG = lazy_compile(rf"[-_.]({'|'.join(hint for hint, _ in _QUANT_HINTS)})(?=[-_.]|$)")
# Bytes per parameter of a quantisation method named by the catalogue or the server's
# --quantization: 4-bit methods hold about half a byte, 8-bit ones about one.
QUANTIZATION_BYTES = {
    "awq": 0.5,
    "gptq": 0.5,
    "bitsandbytes": 0.5,
    "gguf": 0.5,
    "mxfp4": 0.5,
    "nvfp4": 0.5,
    "fp8": 1,
    "compressed-tensors": 1,
}
# Model types whose parameters estimate_parameters reproduces (checked against published
# totals: tests/test_model_catalogue.py).
_ESTIMATED_TYPES = frozenset(
    {
        "llama",
        "mistral",
        "mixtral",
        "qwen2",
        "qwen2_moe",
        "qwen3",
        "qwen3_moe",
        "gemma",
        "gemma2",
        "gemma3",
        "gemma3_text",
        "phi3",
    }
)
_FIELDS = (
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "hidden_size",
    "intermediate_size",
    "moe_intermediate_size",
    "max_position_embeddings",
    "vocab_size",
    "sliding_window",
    "use_sliding_window",
    "attention_chunk_size",
    "rope_scaling",
    "tie_word_embeddings",
    "model_type",
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "n_shared_experts",
    "num_experts_per_tok",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "q_lora_rank",
)


class Preset(NamedTuple):
    key: str
    config: Mapping[str, Any]
    parameters: int | None
    source: str  # "preset", "settings" or the path of a config.json
    parameters_exact: bool = True  # False: a rounded count from the model card
    quantization: str | None = None  # the checkpoint's own quantisation (fp8, mxfp4, …)
    config_url: str | None = None  # the config.json the facts were taken from


class Catalogue(NamedTuple):
    by_key: Mapping[str, Preset]  # match key → preset
    variants: Mapping[str, tuple[Preset, str]]  # lower-case variant id → (preset, method)
    # The lower-case name or alias as written, without its organisation: an entry named
    # exactly wins over one whose match key is the same (Qwen2.5-7B, the base model, has
    # 131072 positions; Qwen2.5-7B-Instruct has 32768).
    by_name: Mapping[str, Preset] = {}


def match_key(model_id: str) -> str:
    """``/models/Meta-Llama-3.1-8B-Instruct-AWQ`` → ``llama-3.1-8b``."""
    text = _variant_key(model_id).rsplit("/", 1)[-1]
    text = text.removesuffix(".gguf").removeprefix("meta-")
    text = _SUFFIXES.sub("", text)
    return _SUFFIXES.sub("", _WORDS.sub("", text))


def _name_key(model_id: str) -> str:
    """``Qwen/Qwen2.5-7B-Instruct`` → ``qwen2.5-7b-instruct``."""
    return _variant_key(model_id).rsplit("/", 1)[-1]


def _variant_key(model_id: str) -> str:
    """The id as a lower-case path without a storage scheme: how variants are listed."""
    text = model_id.strip().lower()
    for prefix in ("hf://", "pvc://", "s3://", "gs://", "oci://"):
        text = text.removeprefix(prefix)
    return text.rstrip("/")


@functools.cache
def packaged_catalogue() -> Catalogue:
    loaded = _resources.packaged_yaml(_resources.builtin_catalogue() / "models.yaml")
    return build_catalogue(loaded.get("models") or {}, "preset")


def build_catalogue(entries: Mapping[str, Mapping[str, Any]], source: str) -> Catalogue:
    """Catalogue entries (``models.schema.json#/$defs/model``) by match key and variant."""
    table: dict[str, Preset] = {}
    variants: dict[str, tuple[Preset, str]] = {}
    names: dict[str, Preset] = {}
    for name, entry in entries.items():
        preset = Preset(
            name,
            entry.get("config", {}),
            entry.get("parameters"),
            source,
            entry.get("parametersExact", True),
            entry.get("quantization"),
            entry.get("source"),
        )
        for alias in (name, *entry.get("aliases", [])):
            table.setdefault(match_key(alias), preset)
            names.setdefault(_name_key(alias), preset)
        for variant in entry.get("variants", ()):
            variants[_variant_key(variant["id"])] = (preset, variant["quantization"])
    return Catalogue(table, variants, names)


def _user_entry(name: str, raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """A ``model.presets`` value: a catalogue entry (with ``config``) or, as before,
    the ``config.json`` fields themselves."""
    return raw if isinstance(raw.get("config"), Mapping) else {"config": raw}


def find_preset(model_id: str, settings: ModelSettings) -> Preset | None:
    key = match_key(model_id)
    user = build_catalogue(
        {name: _user_entry(name, raw) for name, raw in settings.presets.items()}, "settings"
    )
    name = _name_key(model_id)
    found = (
        user.variants.get(_variant_key(model_id), (None, ""))[0]
        or user.by_name.get(name)
        or user.by_key.get(key)
    )
    if found is not None:
        return found
    for name, path in settings.model_configs.items():
        if match_key(name) == key:
            return Preset(name, _read_config(path), None, path)
    packaged = packaged_catalogue()
    variant = packaged.variants.get(_variant_key(model_id))
    if variant:
        return variant[0]
    return packaged.by_name.get(name) or packaged.by_key.get(key)


def variant_quantization(model_id: str, settings: ModelSettings) -> str | None:
    """The quantisation of a known quantized checkpoint (``Qwen/Qwen2.5-7B-Instruct-AWQ``)."""
    key = _variant_key(model_id)
    user = build_catalogue(
        {name: _user_entry(name, raw) for name, raw in settings.presets.items()}, "settings"
    )
    for table in (user, packaged_catalogue()):
        if key in table.variants:
            return table.variants[key][1]
    return None


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
    if preset.config_url:
        out["config_url"] = preset.config_url
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
    checkpoint = str(config.get("torch_dtype") or config.get("dtype") or "bfloat16")
    # vLLM loads a float32 checkpoint in 16 bits when --dtype is auto ("Downcast for
    # float32 models", vllm-project/vllm:vllm/config/model.py _resolve_auto_dtype), so its
    # weights and KV cache take 2 bytes per value; 4 would invent a shortfall.
    out["dtype"] = "bfloat16" if checkpoint in ("float32", "float") else checkpoint
    if out["dtype"] != checkpoint:
        out["checkpoint_dtype"] = checkpoint
    quantization = _checkpoint_quantization(model_id, preset, config, settings)
    if quantization:
        out["quantization"] = quantization
    parameters = preset.parameters or estimate_parameters(config)
    if parameters:
        out["parameters"] = parameters
        per_param, exact = weight_dtype_bytes(model_id, engine, out["dtype"])
        if quantization and exact:
            per_param, exact = QUANTIZATION_BYTES.get(quantization, 1), False
        out["weight_bytes"] = int(parameters * per_param)
        out["weight_bytes_exact"] = exact and preset.parameters_exact
    return out


def _checkpoint_quantization(
    model_id: str, preset: Preset, config: Mapping[str, Any], settings: ModelSettings
) -> str | None:
    """How the checkpoint itself is quantized: a known variant, the entry, or the
    ``quantization_config`` of a user's config.json."""
    found = variant_quantization(model_id, settings) or preset.quantization
    if found:
        return found
    qconfig = config.get("quantization_config")
    if isinstance(qconfig, Mapping) and isinstance(qconfig.get("quant_method"), str):
        return str(qconfig["quant_method"]).lower()
    return None


def weight_dtype_bytes(model_id: str, engine: Mapping[str, Any], dtype: str) -> tuple[float, bool]:
    """Bytes per parameter of the loaded weights; exact only for unquantised checkpoints."""
    quantization = str(engine.get("quantization") or engine.get("quantize") or "").lower()
    name = model_id.lower()
    tags = set(_QUANT_TAG.findall(name))
    for hint, size in _QUANT_HINTS:
        if hint in quantization or hint in tags:
            return size, False
    if re.search(r"[-_.](i?q[2-8](_[a-z0-9]+)*)(\.gguf|$)|[-_.]gguf$", name):
        return 0.5, False  # a GGUF file: mostly 4- to 8-bit blocks
    if quantization and quantization != "none":
        # nf4/fp4 (bitsandbytes-nf4, …) hold 4-bit weights; other schemes about 1 byte.
        return (0.5 if re.search(r"nf4|fp4|4bit|marlin", quantization) else 1), False
    requested = str(engine.get("dtype") or "auto").lower()
    if requested in DTYPE_BYTES:
        return DTYPE_BYTES[requested], True
    return DTYPE_BYTES.get(dtype, 2), True


def estimate_parameters(config: Mapping[str, Any]) -> int | None:
    """Parameters of a decoder-only transformer from its config: dense GQA models (Llama,
    Mistral, Qwen 2/3, Gemma 2/3, Phi-3), Mixtral-style and Qwen-style MoE. None for the
    model types the formula does not describe (MLA, interleaved MoE, per-layer block
    configs, hybrid layers, biased or ungated MLPs), whose count it would overstate."""
    model_type = str(config.get("model_type", ""))
    if (model_type and model_type not in _ESTIMATED_TYPES) or any(
        config.get(k) is not None
        for k in ("kv_lora_rank", "block_configs", "n_routed_experts", "layers_block_type")
    ):
        return None
    h, layers, heads = (
        _int(config.get(k)) for k in ("hidden_size", "num_hidden_layers", "num_attention_heads")
    )
    inter, vocab = _int(config.get("intermediate_size")), _int(config.get("vocab_size"))
    if not (h and layers and heads and inter and vocab):
        return None
    kv = _int(config.get("num_key_value_heads")) or heads
    dim = _int(config.get("head_dim")) or h // heads
    bias = config.get("attention_bias") is True or model_type in ("qwen2", "qwen2_moe")
    attention = 2 * h * heads * dim + 2 * h * kv * dim + (heads * dim + 2 * kv * dim) * bias
    if model_type in ("qwen3", "qwen3_moe", "gemma3", "gemma3_text"):
        attention += 2 * dim  # q_norm and k_norm
    experts = _int(config.get("num_local_experts")) or _int(config.get("num_experts"))
    moe_inter = _int(config.get("moe_intermediate_size"))
    if experts and moe_inter:
        shared = _int(config.get("shared_expert_intermediate_size"))
        mlp = 3 * h * moe_inter * experts + h * experts + (3 * h * shared + h if shared else 0)
    else:
        mlp = 3 * h * inter * (experts or 1) + (h * experts if experts else 0)
    # Gemma 2 and 3 add a norm after attention and after the MLP to the two pre-norms.
    norms = (4 if model_type in ("gemma2", "gemma3", "gemma3_text") else 2) * h
    tied = config.get("tie_word_embeddings", model_type.startswith("gemma")) is True
    return vocab * h * (1 if tied else 2) + layers * (attention + mlp + norms) + h


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
