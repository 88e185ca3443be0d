"""The model catalogue (catalogue/models.yaml): its schema, how model ids find entries, what
the weights weigh (quantized variants, checkpoint quantisation, float32 checkpoints), the
KV-cache bytes per token each attention family gives, and the user's own entries."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import Result

from linter import _resources
from linter.errors import ConfigError
from linter.model.engine.settings import ModelSettings
from linter.model.facts import presets
from linter.model.facts.capacity import capacity
from linter.run.config import load_config

CATALOGUE = Path(__file__).parent.parent / "catalogue" / "models.yaml"
FIXTURES = Path(__file__).parent / "fixtures" / "model" / "catalogue"
GIB = 2**30


def _catalogue() -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize(
    ("data", "schema"),
    [("models.yaml", "models.schema.json"), ("gpus.yaml", "gpus.schema.json")],
)
def test_the_catalogues_match_their_schemas(data: str, schema: str) -> None:
    loaded = yaml.safe_load((CATALOGUE.parent / data).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(_resources.load_schema(schema))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(loaded)]
    assert errors == []


def test_every_entry_cites_its_own_config_json_and_where_it_was_checked() -> None:
    models = _catalogue()["models"]
    assert isinstance(models, dict)
    for key, entry in models.items():
        assert entry["source"] == f"https://huggingface.co/{key}/blob/main/config.json", key
        assert entry["checked"].strip(), key


def test_the_catalogue_covers_the_families_people_serve() -> None:
    keys = " ".join(_catalogue()["models"]).lower()  # type: ignore[arg-type]
    for family in (
        r"llama-2-",
        r"llama-3-",
        r"llama-3\.1-",
        r"llama-3\.2-",
        r"llama-3\.3-",
        r"llama-4-",
        r"mistral-7b",
        r"mixtral-8x7b",
        r"mixtral-8x22b",
        r"mistral-nemo",
        r"qwen2-",
        r"qwen2\.5-",
        r"qwen3-\d",
        r"qwen3-30b-a3b",
        r"qwen3-coder",
        r"qwen3-vl",
        r"gemma-2-",
        r"gemma-3-",
        r"phi-3",
        r"phi-4",
        r"deepseek-v2",
        r"deepseek-v3",
        r"deepseek-r1-distill",
        r"gpt-oss",
        r"command-r",
        r"granite-3",
        r"codestral",
        r"ministral",
        r"mistral-large",
        r"glm-4",
        r"yi-6b",
        r"falcon",
        r"olmo-2",
        r"starcoder2",
        r"smollm",
    ):
        assert re.search(family, keys), family
    assert len(_catalogue()["models"]) >= 70  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model_id", "entry"),
    [
        ("meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct"),
        ("llama-3.3-70b-instruct", "meta-llama/Llama-3.3-70B-Instruct"),
        ("LLAMA-3.3-70B-INSTRUCT", "meta-llama/Llama-3.3-70B-Instruct"),
        ("/models/Meta-Llama-3.1-405B-Instruct-FP8", "meta-llama/Llama-3.1-405B"),
        ("meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf"),
        ("Llama-2-13b-hf", "meta-llama/Llama-2-13b-hf"),
        ("mistralai/Mistral-7B-Instruct-v0.3", "mistralai/Mistral-7B-v0.3"),
        ("mistralai/Mistral-Nemo-Instruct-2407", "mistralai/Mistral-Nemo-Base-2407"),
        ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4", "Qwen/Qwen2.5-72B"),
        ("Qwen/Qwen2.5-Coder-32B-Instruct-AWQ", "Qwen/Qwen2.5-32B-Instruct"),
        ("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", "Qwen/Qwen3-30B-A3B-Instruct-2507"),
        ("qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B"),
        ("google/gemma-3-27b-it", "google/gemma-3-27b-it"),
        ("google/gemma-2-9b-it", "google/gemma-2-9b"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek-ai/DeepSeek-V3"),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "meta-llama/Llama-3.3-70B-Instruct"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"),
        ("unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit", "meta-llama/Llama-3.1-8B"),
        ("/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "meta-llama/Llama-3.1-8B"),
        ("microsoft/Phi-3.5-mini-instruct", "microsoft/Phi-3-mini-128k-instruct"),
        ("openai/gpt-oss-120b", "openai/gpt-oss-120b"),
        ("hf://nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "meta-llama/Llama-3.1-70B"),
        ("CohereLabs/c4ai-command-r-v01", "CohereForAI/c4ai-command-r-v01"),
        ("zai-org/glm-4-9b-chat-hf", "THUDM/glm-4-9b-chat-hf"),
        ("ibm-granite/granite-3.3-8b-instruct", "ibm-granite/granite-3.1-8b-instruct"),
        ("deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct", "deepseek-ai/DeepSeek-V2-Lite"),
        # An entry named exactly wins over one with the same match key.
        ("Qwen/Qwen2.5-7B", "Qwen/Qwen2.5-7B"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("/models/qwen2.5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("Qwen/Qwen2.5-7B-Instruct-AWQ", "Qwen/Qwen2.5-7B-Instruct"),
    ],
)
def test_model_ids_find_their_entry(model_id: str, entry: str) -> None:
    found = presets.find_preset(model_id, ModelSettings())
    assert found is not None and found.key == entry


@pytest.mark.parametrize(
    "model_id",
    [
        "internlm/internlm2_5-20b-chat",
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        "nvidia/Llama-3_3-Nemotron-Super-49B-v1",
        "meta-llama/Llama-3.1-8B-Instruct-extended",
    ],
)
def test_models_outside_the_catalogue_stay_unknown(model_id: str) -> None:
    assert presets.model_facts(model_id, {}, ModelSettings()) == {"id": model_id, "known": False}


@pytest.mark.parametrize(
    ("model_id", "engine", "quantization", "weight_bytes", "exact"),
    [
        # bfloat16 checkpoints of exact size.
        ("Qwen/Qwen3-32B", {}, None, 2 * 32762123264, True),
        ("Qwen/Qwen3-30B-A3B", {}, None, 2 * 30532122624, True),
        # Known quantized variants, by id, with their method.
        ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", {}, "awq", 35276853248, False),
        ("Qwen/Qwen3-235B-A22B-FP8", {}, "fp8", 235093634560, False),
        ("unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit", {}, "bitsandbytes", 4015130624, False),
        # A quantisation tag only in the name.
        ("TheBloke/Llama-2-70B-Chat-GPTQ", {}, "gptq", 34488324096, False),
        ("/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", {}, None, 4015130624, False),
        # The checkpoint's own quantisation.
        ("deepseek-ai/DeepSeek-R1", {}, "fp8", 671_000_000_000, False),
        ("openai/gpt-oss-20b", {}, "mxfp4", 10457378592, False),
        # The server's --quantization.
        ("meta-llama/Llama-3.3-70B-Instruct", {"quantization": "fp8"}, None, 70553706496, False),
    ],
)
def test_weight_bytes_follow_the_checkpoint(
    model_id: str, engine: dict[str, str], quantization: str | None, weight_bytes: int, exact: bool
) -> None:
    facts = presets.model_facts(model_id, engine, ModelSettings())
    assert (facts.get("quantization"), facts["weight_bytes"], facts["weight_bytes_exact"]) == (
        quantization,
        weight_bytes,
        exact,
    )


def test_a_float32_checkpoint_loads_in_sixteen_bits() -> None:
    facts = presets.model_facts("allenai/OLMo-2-1124-7B-Instruct", {}, ModelSettings())
    assert (facts["dtype"], facts["checkpoint_dtype"]) == ("bfloat16", "float32")
    # 2 bytes per parameter, an estimate: the count includes OLMo 2's q/k norms.
    assert (facts["weight_bytes"], facts["weight_bytes_exact"]) == (2 * 7298617344, False)


def test_model_card_counts_are_never_exact() -> None:
    facts = presets.model_facts("meta-llama/Llama-4-Scout-17B-16E-Instruct", {}, ModelSettings())
    assert (facts["parameters"], facts["weight_bytes"], facts["weight_bytes_exact"]) == (
        109_000_000_000,
        218_000_000_000,
        False,
    )


def _kv(model_id: str, tp: int = 1, kv_cache_dtype: str | None = None) -> tuple[int, bool]:
    model = presets.model_facts(model_id, {}, ModelSettings())
    effective: dict[str, object] = {"tensor_parallel_size": tp, "gpu_memory_utilization": 0.9}
    if kv_cache_dtype:
        effective["kv_cache_dtype"] = kv_cache_dtype
    result = capacity("vllm", effective, model, {"memory_bytes": 80 * GIB})
    assert result is not None
    return result["kv_bytes_per_token_per_gpu"], result["kv_estimate_exact"]


@pytest.mark.parametrize(
    ("model_id", "tp", "kv_cache_dtype", "per_token", "exact"),
    [
        # GQA: 2 × layers × max(1, KV heads // TP) × head_dim × bytes.
        ("meta-llama/Llama-3.1-70B-Instruct", 8, None, 2 * 80 * 1 * 128 * 2, True),
        ("meta-llama/Llama-3.1-405B-Instruct-FP8", 8, "fp8", 2 * 126 * 1 * 128 * 1, True),
        ("meta-llama/Llama-3.2-1B-Instruct", 1, None, 2 * 16 * 8 * 64 * 2, True),
        ("Qwen/Qwen2.5-7B-Instruct", 1, None, 2 * 28 * 4 * 128 * 2, True),
        ("Qwen/Qwen3-30B-A3B", 1, None, 2 * 48 * 4 * 128 * 2, True),
        # More ranks than KV heads: each rank keeps one KV head.
        ("Qwen/Qwen3-30B-A3B", 8, None, 2 * 48 * 1 * 128 * 2, True),
        # Multi-head (Command R v01: 64 KV heads) and multi-query (Falcon-7B: one).
        ("CohereForAI/c4ai-command-r-v01", 1, None, 2 * 40 * 64 * 128 * 2, True),
        ("tiiuae/falcon-7b-instruct", 1, None, 2 * 32 * 1 * 64 * 2, True),
        ("THUDM/glm-4-9b-chat", 1, None, 2 * 40 * 2 * 128 * 2, True),
        ("ibm-granite/granite-3.1-8b-instruct", 2, None, 2 * 40 * 4 * 128 * 2, True),
        # MLA: one latent of kv_lora_rank + qk_rope_head_dim per layer, not split by TP.
        ("deepseek-ai/DeepSeek-V3", 8, None, 61 * (512 + 64) * 2, True),
        ("deepseek-ai/DeepSeek-V2-Lite-Chat", 1, None, 27 * (512 + 64) * 2, True),
        ("deepseek-ai/DeepSeek-V3", 8, "fp8", 61 * (512 + 64) * 1, True),
        # fp8_ds_mla: the FP8 latent, its four float32 scales and the rope part in 16 bits.
        ("deepseek-ai/DeepSeek-V3", 8, "fp8_ds_mla", 61 * (512 + 4 * 4 + 64 * 2), True),
        # Sliding windows and chunked attention: the full-attention figure is an upper bound.
        ("google/gemma-2-9b-it", 1, None, 2 * 42 * 8 * 256 * 2, False),
        ("google/gemma-3-27b-it", 2, None, 2 * 62 * 8 * 128 * 2, False),
        ("mistralai/Mistral-7B-Instruct-v0.1", 1, None, 2 * 32 * 8 * 128 * 2, False),
        ("microsoft/Phi-3-mini-4k-instruct", 1, None, 2 * 32 * 32 * 96 * 2, False),
        ("openai/gpt-oss-120b", 1, None, 2 * 36 * 8 * 64 * 2, False),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", 8, None, 2 * 48 * 1 * 128 * 2, False),
        # Qwen's sliding_window field is off (use_sliding_window false): exact.
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", 2, None, 2 * 48 * 4 * 128 * 2, True),
        # A float32 checkpoint caches keys and values in 16 bits.
        ("allenai/OLMo-2-0325-32B", 1, None, 2 * 64 * 8 * 128 * 2, True),
    ],
)
def test_kv_bytes_per_token_by_attention_family(
    model_id: str, tp: int, kv_cache_dtype: str | None, per_token: int, exact: bool
) -> None:
    assert _kv(model_id, tp, kv_cache_dtype) == (per_token, exact)


def test_estimates_cover_only_the_architectures_they_reproduce() -> None:
    deepseek = presets.find_preset("deepseek-ai/DeepSeek-V3", ModelSettings())
    scout = presets.find_preset("meta-llama/Llama-4-Scout-17B-16E-Instruct", ModelSettings())
    starcoder = presets.find_preset("bigcode/starcoder2-7b", ModelSettings())
    assert deepseek is not None and scout is not None and starcoder is not None
    # MLA, interleaved MoE and a biased plain MLP: no formula, rather than a wrong one.
    assert presets.estimate_parameters(deepseek.config) is None
    assert presets.estimate_parameters(scout.config) is None
    assert presets.estimate_parameters(starcoder.config) is None
    # A config without model_type (a user's preset) is read as a Llama-style model.
    tiny = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4}
    assert presets.estimate_parameters({**tiny, "intermediate_size": 128, "vocab_size": 100}) == (
        100 * 64 * 2 + 2 * (2 * 64 * 64 + 2 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 64
    )


def test_user_entries_add_models_aliases_and_variants() -> None:
    settings = ModelSettings(
        presets={
            "acme/support-llama-8b": {
                "aliases": ["acme/support-llama-8b-v2"],
                "parameters": 8030261248,
                "variants": [{"id": "acme/support-llama-8b-awq", "quantization": "awq"}],
                "config": {
                    "model_type": "llama",
                    "num_hidden_layers": 32,
                    "num_attention_heads": 32,
                    "num_key_value_heads": 8,
                    "head_dim": 128,
                },
            },
            # The older form, config.json fields alone, still works.
            "acme/tiny": {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256},
        }
    )
    alias = presets.model_facts("acme/support-llama-8b-v2-Instruct", {}, settings)
    assert (
        alias["preset"],
        alias["source"],
        alias["weight_bytes"],
        alias["weight_bytes_exact"],
    ) == (
        "acme/support-llama-8b",
        "settings",
        2 * 8030261248,
        True,
    )
    awq = presets.model_facts("acme/support-llama-8b-awq", {}, settings)
    assert (awq["quantization"], awq["weight_bytes"], awq["weight_bytes_exact"]) == (
        "awq",
        8030261248 // 2,
        False,
    )
    tiny = presets.model_facts("acme/tiny", {}, settings)
    assert (tiny["head_dim"], tiny["num_key_value_heads"], "weight_bytes" in tiny) == (64, 4, False)


def test_a_user_entry_replaces_the_packaged_one() -> None:
    settings = ModelSettings(
        presets={
            "meta-llama/Llama-3.1-8B": {"config": {**_llama_8b(), "max_position_embeddings": 4096}}
        }
    )
    facts = presets.model_facts("meta-llama/Llama-3.1-8B-Instruct", {}, settings)
    assert (facts["source"], facts["max_position_embeddings"]) == ("settings", 4096)
    packaged = presets.model_facts("meta-llama/Llama-3.1-8B-Instruct", {}, ModelSettings())
    assert (packaged["source"], packaged["max_position_embeddings"]) == ("preset", 131072)


def _llama_8b() -> dict[str, object]:
    found = presets.find_preset("meta-llama/Llama-3.1-8B", ModelSettings())
    assert found is not None
    return dict(found.config)


def test_a_config_json_with_a_quantization_config_is_an_estimate(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps({**_llama_8b(), "quantization_config": {"quant_method": "fp8"}}),
        encoding="utf-8",
    )
    facts = presets.model_facts(
        "/models/ft", {}, ModelSettings(model_configs={"/models/ft": str(path)})
    )
    assert (facts["quantization"], facts["weight_bytes"], facts["weight_bytes_exact"]) == (
        "fp8",
        8030261248,
        False,
    )


def test_presets_from_the_configuration_file(tmp_path: Path) -> None:
    config = tmp_path / ".servelint.yaml"
    config.write_text((FIXTURES / "extended" / ".servelint.yaml").read_text(), encoding="utf-8")
    settings = load_config(config).model
    facts = presets.model_facts("acme/support-llama-8b-v2", {}, settings)
    assert (facts["preset"], facts["max_position_embeddings"], facts["parameters"]) == (
        "acme/support-llama-8b",
        131072,
        8030261248,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "model:\n  presets:\n    acme/m:\n      config: {model_type: llama, num_hidden_layers: 0}\n",
            ".servelint.yaml:4:35: model.presets.acme/m.config.num_hidden_layers: 0 is less than "
            "the minimum of 1",
        ),
        (
            "model:\n  presets:\n    acme/m:\n      config: {}\n      quantization: int3\n",
            ".servelint.yaml:5:7: model.presets.acme/m.quantization: 'int3' is not one of "
            "['fp8', 'awq', 'gptq', 'bitsandbytes', 'gguf', 'mxfp4', 'nvfp4', 'compressed-tensors']",
        ),
        (
            "model:\n  presets:\n    acme/m:\n      config: {}\n      variants: [{id: acme/m-awq}]\n",
            ".servelint.yaml:5:18: model.presets.acme/m.variants[0]: 'quantization' is a required "
            "property",
        ),
        (
            "model:\n  presets:\n    acme/m:\n      config: {}\n      parameter: 7\n",
            ".servelint.yaml:5:7: model.presets.acme/m.parameter: unknown key 'parameter' (known "
            "keys: aliases, checked, config, parameters, parametersExact, quantization, source, "
            "variants)",
        ),
        (
            "model:\n  presets:\n    acme/m: {num_attention_heads: four}\n",
            ".servelint.yaml:3:14: model.presets.acme/m.num_attention_heads: 'four' is not of "
            "type 'integer'",
        ),
    ],
    ids=["layers", "quantization", "variant", "unknown-key", "config-json-type"],
)
def test_wrong_presets_name_file_line_and_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".servelint.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(Path(".servelint.yaml"))
    assert str(raised.value) == message


def test_a_big_model_on_an_instance_type_fails_to_load(run_line: Callable[..., Result]) -> None:
    result = run_line(["lint", "--no-config", str(FIXTURES / "qwen3-32b-g6.yaml")])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"{FIXTURES / 'qwen3-32b-g6.yaml'}:20:29: error vllm-kv/weights-do-not-fit Qwen3-32B "
        "(32.8B parameters in bfloat16) needs 61.0 GiB of weights per GPU at TP=1; the "
        "NVIDIA L4 has 22.5 GiB, 20.2 GiB of it at gpu_memory_utilization 0.90: vLLM fails "
        "with CUDA out of memory while loading the weights; "
        "raise tensor_parallel_size (with as many GPUs) or use a quantized checkpoint"
    )
    # The MoE model over the four L40S of a g6e.12xlarge fits: nothing else is reported.
    assert result.output.splitlines()[1:] == [
        "coverage: 1 file, 2 workloads recognised (vllm 2)",
        "1 error, 0 warnings, 0 info in 1 file",
    ]


def test_user_catalogue_entries_reach_the_rules(run_line: Callable[..., Result]) -> None:
    folder = FIXTURES / "extended"
    result = run_line(
        ["lint", "--config", str(folder / ".servelint.yaml"), str(folder / "deployment.yaml")]
    )
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{folder / 'deployment.yaml'}:21:29: error vllm-kv/weights-do-not-fit "
        "support-llama-8b-v2 (8.0B parameters in bfloat16) needs 15.0 GiB of weights per GPU at "
        "TP=1; the ACME Accel 16G has 16 GiB, 14.4 GiB of it at gpu_memory_utilization 0.90: "
        'the weights load, then vLLM stops with "No available memory for the cache blocks"; '
        "raise gpu_memory_utilization or tensor_parallel_size",
        "coverage: 1 file, 1 workload recognised (vllm 1)",
        "1 error, 0 warnings, 0 info in 1 file",
    ]


def test_the_base_and_instruct_models_keep_their_own_context_lengths() -> None:
    # Qwen2.5-7B's config.json says 131072 positions, Qwen2.5-7B-Instruct's 32768.
    base = presets.model_facts("Qwen/Qwen2.5-7B", {}, ModelSettings())
    instruct = presets.model_facts("Qwen/Qwen2.5-7B-Instruct", {}, ModelSettings())
    assert (base["max_position_embeddings"], instruct["max_position_embeddings"]) == (
        131072,
        32768,
    )
