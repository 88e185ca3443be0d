"""Every built-in TGI rule, end to end: fixtures that fire it and fixtures that must not.

Each case lints one folder of tests/fixtures/tgi with only the tgi policy and compares the
exact output. The folders cover every input form: container args (args_pinned), env as a
list (env_legacy, env_unpinned), launcher flags on an unpinned image (flags), a shell script (shell), Helm values with env as a map and
extraArgs (values_generic) and with the server under its own key and camelCase settings
(values_nested). A folder with a .servelint.yaml is linted with it (model presets).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from report_lines import report_lines

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "tgi"
POLICY = ["--no-builtin", "--policy-dir", str(ROOT / "policies" / "tgi.yaml")]

# folder → (exit code, findings with paths relative to the folder, summary line)
CASES: dict[str, tuple[int, list[str], str]] = {
    "args_pinned": (
        1,
        [
            "deployment.yaml:22:15: error tgi/input-not-below-total max_input_tokens 8192 is not "
            "below max_total_tokens 8192: TGI refuses to start (Invalid argument: "
            "`max_input_tokens`(8192) must be < `max_total_tokens`(8192)); a request needs room for "
            "at least one generated token",
            "deployment.yaml:26:15: warning tgi/input-above-prefill-chunked max_input_tokens 8192 "
            "exceeds max_batch_prefill_tokens 6000: TGI 3.3.6 accepts it only because it chunks "
            "prefill; a model class without chunking (several VLM and seq2seq models), a GPU below "
            "compute capability 8.0 or a Medusa checkpoint turns chunking off and the router then "
            "refuses to start (`max_batch_prefill_tokens` must be >= `max_input_tokens`)",
            "deployment.yaml:26:15: warning tgi/prefill-above-batch-total-unchecked "
            "max_batch_prefill_tokens 6000 exceeds max_batch_total_tokens 4096: TGI 3.3.6 starts only"
            " if the model is a Flash-attention model, whose capacity measured at warm-up replaces "
            "max_batch_total_tokens; for other models the router refuses to start "
            "(`max_batch_prefill_tokens` must be <= `max_batch_total_tokens`)",
            "deployment.yaml:28:15: warning tgi/batch-total-ignored max_batch_total_tokens 4096 is "
            'ignored by Flash-attention models: the router logs "`--max-batch-total-tokens` is '
            'deprecated for Flash Attention models." and uses the token capacity measured at warm-up '
            "instead; limit memory with CUDA_MEMORY_FRACTION or concurrency with "
            "MAX_CONCURRENT_REQUESTS",
            "deployment.yaml:28:15: error tgi/total-above-batch-total max_total_tokens 8192 exceeds "
            "max_batch_total_tokens 4096: the launcher refuses to start (Invalid argument: "
            "`max_total_tokens` must be <= `max_batch_total_tokens`. Given: 8192 and 4096)",
            "deployment.yaml:31:15: error tgi/input-tokens-and-input-length max_input_tokens (8192) "
            "and max_input_length (4000) are both set: TGI 3.3.6 refuses to start (Invalid argument: "
            "Both `max_input_tokens` (8192) and `max_input_length` (4000) are set. Please define only"
            " `max_input_tokens` as `max_input_length is deprecated for naming consistency.); remove "
            "max_input_length",
        ],
        "3 errors, 3 warnings, 0 info in 1 file",
    ),
    "chunking": (
        1,
        [
            "deployments.yaml:31:15: warning tgi/input-above-prefill-chunked max_input_tokens 16000 "
            "exceeds max_batch_prefill_tokens 8192: TGI 2.4.0 accepts it only because it chunks "
            "prefill; a model class without chunking (several VLM and seq2seq models), a GPU below "
            "compute capability 8.0 or a Medusa checkpoint turns chunking off and the router then "
            "refuses to start (`max_batch_prefill_tokens` must be >= `max_input_tokens`)",
            "deployments.yaml:64:15: warning tgi/input-above-prefill-chunked max_input_tokens 16000 "
            "exceeds max_batch_prefill_tokens 8192: TGI 3.3.6 accepts it only because it chunks "
            "prefill; a model class without chunking (several VLM and seq2seq models), a GPU below "
            "compute capability 8.0 or a Medusa checkpoint turns chunking off and the router then "
            "refuses to start (`max_batch_prefill_tokens` must be >= `max_input_tokens`)",
            "deployments.yaml:97:15: error tgi/input-above-prefill max_input_tokens 16000 exceeds "
            "max_batch_prefill_tokens 8192 and prefill chunking is off (PREFILL_CHUNKING=0): the "
            "router refuses to start (Argument validation error: `max_batch_prefill_tokens` must be "
            ">= `max_input_tokens`. Given: 8192 and 16000); raise MAX_BATCH_PREFILL_TOKENS to at "
            "least 16000",
        ],
        "1 error, 2 warnings, 0 info in 1 file",
    ),
    "compose": (
        0,
        [
            "compose-no-ipc.yaml:7:9: warning tgi/shards-without-shm 2 shards (one per GPU in "
            "NVIDIA_VISIBLE_DEVICES) and no memory-backed volume at /dev/shm: NCCL falls back to "
            "shared memory between the shards when peer-to-peer is not possible, and the container's "
            "/dev/shm holds 64 MiB; TGI's README: mount an emptyDir {medium: Memory, sizeLimit: 1Gi} "
            "at /dev/shm (or set NCCL_SHM_DISABLE=1, which is slower)",
        ],
        "0 errors, 1 warning, 0 info in 2 files",
    ),
    "flags": (
        0,
        [
            "deployment.yaml:17:68: warning tgi/flag-not-accepted-version-unknown "
            "--enable-cuda-graphs is accepted by TGI 1.4.1–1.4.5 only (removed in 2.0.0): later "
            "releases exit at once (unexpected argument), and the TGI version of image "
            "ghcr.io/huggingface/text-generation-inference:latest could not be told; use "
            "--cuda-graphs",
            # latest may be a build newer than the tables: a warning, not an error.
            "deployment.yaml:19:18: warning tgi/flag-not-accepted-version-unknown no TGI release "
            "from 1.0.0 to 3.3.7 accepts --max-batch-tokens: the upstream server exits at "
            "start-up; image ghcr.io/huggingface/text-generation-inference:latest names no "
            "release, and a build newer than TGI 3.3.7 (a nightly, latest or main image) may "
            "take a flag added since; check the flag, or delete it",
        ],
        "0 errors, 2 warnings, 0 info in 1 file",
    ),
    "env_legacy": (
        1,
        [
            "deployment.yaml:16:18: error tgi/flag-not-accepted --kv-cache-dtype is not a flag of "
            "TGI 2.3.1: it arrived later (accepted in 2.4.0–3.3.7); text-generation-launcher exits "
            "at once (unexpected argument '--kv-cache-dtype' found); pin a release that accepts it, "
            "or delete it",
            "deployment.yaml:23:15: error tgi/input-above-prefill max_input_tokens 3000 exceeds "
            "max_batch_prefill_tokens 2048 and prefill chunking is off (TGI 2.3.1 always checks "
            "this): the router refuses to start (Argument validation error: "
            "`max_batch_prefill_tokens` must be >= `max_input_tokens`. Given: 2048 and 3000); raise "
            "MAX_BATCH_PREFILL_TOKENS to at least 3000",
            "deployment.yaml:23:15: error tgi/prefill-above-batch-total max_batch_prefill_tokens 2048"
            " exceeds max_batch_total_tokens 1024: TGI 2.3.1 refuses to start (Invalid argument: "
            "`max_batch_prefill_tokens` must be <= `max_batch_total_tokens`. Given: 2048 and 1024)",
            "deployment.yaml:25:15: warning tgi/batch-total-ignored max_batch_total_tokens 1024 is "
            'ignored by Flash-attention models: the router logs "`--max-batch-total-tokens` is '
            'deprecated for Flash Attention models." and uses the token capacity measured at warm-up '
            "instead; limit memory with CUDA_MEMORY_FRACTION or concurrency with "
            "MAX_CONCURRENT_REQUESTS",
            "deployment.yaml:25:15: error tgi/total-above-batch-total max_batch_total_tokens 1024 is "
            "below max_total_tokens, which TGI 2.3.1 sets to 4096 (min(max_position_embeddings "
            "131072, 4096)) when it is not given: the launcher refuses to start (`max_total_tokens` "
            "must be <= `max_batch_total_tokens`. Given: 4096 and 1024)",
            "deployment.yaml:27:15: error tgi/max-batch-size-zero max_batch_size is 0: the TGI 2.3.1 "
            "router refuses to start (Argument validation error: `max_batch_size` must be > 0); set a"
            " positive batch size or remove MAX_BATCH_SIZE",
            "deployment.yaml:29:15: error tgi/prefix-caching-attention USE_PREFIX_CACHING=1 turns "
            "prefix caching on with ATTENTION=paged: the TGI 2.3.1 shards fail at start-up "
            "(RuntimeError: Prefix caching is only supported with flashinfer); use "
            "ATTENTION=flashinfer, or drop USE_PREFIX_CACHING",
        ],
        "6 errors, 1 warning, 0 info in 1 file",
    ),
    "env_unpinned": (
        0,
        [
            "deployment.yaml:20:15: warning tgi/input-not-below-total-version-unknown "
            "max_input_tokens 4096 is only set alone: TGI 2.x sets max_total_tokens to 4096 "
            "(min(max_position_embeddings 131072, 4096)) and then refuses to start (`max_input_tokens"
            " must be < `max_total_tokens`); the TGI version of image ghcr.io/huggingface/text-"
            "generation-inference:latest could not be told. Set both limits",
            "deployment.yaml:22:15: warning tgi/input-tokens-and-input-length-version-unknown "
            "max_input_tokens (4096) and max_input_length (4096) are both set: from TGI 2.0.0 the "
            "launcher refuses to start (Both `max_input_tokens` and `max_input_length` are set); the "
            "TGI version of image ghcr.io/huggingface/text-generation-inference:latest could not be "
            "told. Remove max_input_length",
            "deployment.yaml:24:15: warning tgi/input-above-prefill-chunked max_input_tokens 4096 "
            "exceeds max_batch_prefill_tokens 4000: up to TGI 2.4 (and whenever prefill chunking is "
            "off) the router refuses to start (`max_batch_prefill_tokens` must be >= "
            "`max_input_tokens`); the TGI version of image ghcr.io/huggingface/text-generation-"
            "inference:latest could not be told",
            "deployment.yaml:24:15: warning tgi/prefill-above-batch-total-unchecked "
            "max_batch_prefill_tokens 4000 exceeds max_batch_total_tokens 2048: up to TGI 2.3 the "
            "launcher refuses to start (`max_batch_prefill_tokens` must be <= "
            "`max_batch_total_tokens`); the TGI version of image ghcr.io/huggingface/text-generation-"
            "inference:latest could not be told",
            "deployment.yaml:26:15: warning tgi/batch-total-ignored max_batch_total_tokens 2048 is "
            'ignored by Flash-attention models: the router logs "`--max-batch-total-tokens` is '
            'deprecated for Flash Attention models." and uses the token capacity measured at warm-up '
            "instead; limit memory with CUDA_MEMORY_FRACTION or concurrency with "
            "MAX_CONCURRENT_REQUESTS",
            "deployment.yaml:26:15: warning tgi/total-above-batch-total-version-unknown "
            "max_batch_total_tokens 2048 is below 4096, the max_total_tokens TGI 2.x sets when it is "
            "not given (min(max_position_embeddings 131072, 4096)): TGI 2.x then refuses to start "
            "(`max_total_tokens` must be <= `max_batch_total_tokens`); the TGI version of image "
            "ghcr.io/huggingface/text-generation-inference:latest could not be told. Set "
            "MAX_TOTAL_TOKENS",
            "deployment.yaml:28:15: warning tgi/max-batch-size-zero-unchecked max_batch_size is 0: "
            "from TGI 2.3.0 the router refuses to start (`max_batch_size` must be > 0); the TGI "
            "version of image ghcr.io/huggingface/text-generation-inference:latest could not be told",
            "deployment.yaml:30:15: warning tgi/kv-cache-dtype-invalid-version-unknown kv_cache_dtype"
            " fp8 is not one of fp8_e4m3fn, fp8_e5m2: from TGI 2.4.0 the launcher exits (invalid "
            "value 'fp8' for '--kv-cache-dtype'); the TGI version of image ghcr.io/huggingface/text-"
            "generation-inference:latest could not be told",
            "deployment.yaml:34:15: warning tgi/prefix-caching-attention-version-unknown prefix "
            "caching is forced on with ATTENTION=paged: from TGI 2.3 the shards fail at start-up "
            "(Prefix caching is only supported with flashinfer); the TGI version of image "
            "ghcr.io/huggingface/text-generation-inference:latest could not be told",
        ],
        "0 errors, 9 warnings, 0 info in 1 file",
    ),
    "kv_heads": (
        0,
        [
            "deployments.yaml:25:15: warning tgi/shards-do-not-divide-kv-heads num_shard 5: "
            "Qwen/Qwen2.5-14B-Instruct has 40 attention heads and 8 KV heads, which do not split "
            "evenly over 5 shards; TGI shards heads evenly and never replicates KV heads, so loading "
            "may fail (use 1, 2, 4, 8)",
            "deployments.yaml:54:15: warning tgi/shards-do-not-divide-kv-heads num_shard 3: "
            "tiiuae/falcon-40b has 128 attention heads and 8 KV heads, which do not split evenly over"
            " 3 shards; TGI shards heads evenly and never replicates KV heads, so loading may fail "
            "(use 1, 2, 4, 8)",
        ],
        "0 errors, 2 warnings, 0 info in 1 file",
    ),
    "ok": (0, [], "0 errors, 0 warnings, 0 info in 2 files"),
    "sharding": (
        1,
        [
            "deployments.yaml:25:15: warning tgi/quantize-disables-cuda-graphs quantize exl2 turns "
            "CUDA graphs off (Exl2 doesn't work with cuda graphs, deactivating them): every decode "
            "step runs without a CUDA graph",
            "deployments.yaml:27:15: error tgi/sharding-invalid num_shard 2 with quantize exl2: the "
            "launcher refuses to start (Sharding is currently not supported with `exl2` quantization)",
            "deployments.yaml:56:15: error tgi/sharding-invalid sharded is true without num_shard and"
            " the pod sees 1 GPU: the launcher refuses to start (`sharded` is true but only found 1 "
            "CUDA devices)",
            "deployments.yaml:85:15: warning tgi/sharded-without-gpu-count sharded is true without "
            "num_shard and the pod has no GPU limit: the launcher counts the GPUs it sees at run time"
            " and refuses to start with fewer than 2 (`sharded` is true but only found N CUDA "
            "devices); set NUM_SHARD and a matching GPU limit",
            "deployments.yaml:111:15: error tgi/sharding-invalid num_shard is 0: the launcher refuses"
            " to start (`num_shard` cannot be < 1)",
            "deployments.yaml:140:15: error tgi/shards-do-not-divide-heads num_shard 16: meta-"
            "llama/Llama-3.1-8B-Instruct, whose num_key_value_heads 8 is not divisible by 16: the "
            "shards fail to load the model (`num_key_value_heads` must be divisible by `num_shards` "
            "(got `num_key_value_heads`: 8 and `num_shards`: 16)); use a shard count that divides "
            "both head counts (1, 2, 4, 8)",
        ],
        "4 errors, 2 warnings, 0 info in 1 file",
    ),
    "shell": (
        1,
        [
            "deployment.yaml:18:15: warning tgi/cuda-graphs-below-batch-size CUDA graphs are captured"
            " for batch sizes up to 8 (cuda_graphs 1,2,4,8), but the router batches up to 128 "
            "requests (max_concurrent_requests, the default): decode steps of larger batches run "
            "without a CUDA graph; add larger sizes to CUDA_GRAPHS",
            "deployment.yaml:18:15: error tgi/input-above-prefill max_input_tokens 4096 exceeds "
            "max_batch_prefill_tokens 2048 and prefill chunking is off (speculate 2): the router "
            "refuses to start (Argument validation error: `max_batch_prefill_tokens` must be >= "
            "`max_input_tokens`. Given: 2048 and 4096); raise MAX_BATCH_PREFILL_TOKENS to at least "
            "4096",
            "deployment.yaml:18:15: error tgi/kv-cache-dtype-invalid kv_cache_dtype fp8 is not one of"
            " fp8_e4m3fn, fp8_e5m2: the TGI 3.0.1 launcher exits (invalid value 'fp8' for '--kv-"
            "cache-dtype <KV_CACHE_DTYPE>'); TGI spells it fp8_e4m3fn",
            "deployment.yaml:18:15: error tgi/shards-do-not-divide-heads num_shard 8: "
            "Qwen/Qwen2.5-7B-Instruct, whose num_attention_heads 28 is not divisible by 8: the shards"
            " fail to load the model (`num_heads` must be divisible by `num_shards` (got `num_heads`:"
            " 28 and `num_shards`: 8)); use a shard count that divides both head counts (1, 2, 4)",
            "deployment.yaml:18:15: warning tgi/shards-without-shm num_shard 8 and no memory-backed "
            "volume at /dev/shm: NCCL falls back to shared memory between the shards when peer-to-"
            "peer is not possible, and the container's /dev/shm holds 64 MiB; TGI's README: mount an "
            "emptyDir {medium: Memory, sizeLimit: 1Gi} at /dev/shm (or set NCCL_SHM_DISABLE=1, which "
            "is slower)",
        ],
        "3 errors, 2 warnings, 0 info in 1 file",
    ),
    "values_generic": (
        1,
        [
            "values.yaml:8:3: error tgi/input-not-below-total max_input_tokens 8000 is not below "
            "max_total_tokens, which TGI 2.4.1 sets to 4096 (min(max_position_embeddings 32768, "
            "4096)) when it is not given: the launcher refuses to start (`max_input_tokens must be < "
            "`max_total_tokens`); set MAX_TOTAL_TOKENS above it",
            "values.yaml:9:3: error tgi/input-above-prefill max_input_tokens 8000 exceeds "
            "max_batch_prefill_tokens 4096 and prefill chunking is off (TGI 2.4.1 defaults "
            "PREFILL_CHUNKING to 0): the router refuses to start (Argument validation error: "
            "`max_batch_prefill_tokens` must be >= `max_input_tokens`. Given: 4096 and 8000); raise "
            "MAX_BATCH_PREFILL_TOKENS to at least 8000",
            "values.yaml:12:5: warning tgi/quantize-disables-cuda-graphs quantize bitsandbytes turns "
            "CUDA graphs off (Bitsandbytes doesn't work with cuda graphs, deactivating them): every "
            "decode step runs without a CUDA graph; eetq (8-bit) or an AWQ/GPTQ checkpoint keeps them",
            "values.yaml:17:5: warning tgi/shards-without-shm 2 shards (one per GPU of the limit; "
            "num_shard is not set) and no memory-backed volume at /dev/shm: NCCL passes data between "
            "the shards through shared memory on NVIDIA-L4 GPUs (no peer-to-peer), and the "
            "container's /dev/shm holds 64 MiB; TGI's README: mount an emptyDir {medium: Memory, "
            "sizeLimit: 1Gi} at /dev/shm (or set NCCL_SHM_DISABLE=1, which is slower)",
        ],
        "2 errors, 2 warnings, 0 info in 1 file",
    ),
    "values_nested": (
        1,
        [
            "values.yaml:8:3: error tgi/sharding-invalid sharded is true but num_shard is 1: the "
            "launcher refuses to start (`sharded` is true but `num_shard` <= 1)",
            "values.yaml:11:3: warning tgi/cuda-graphs-below-batch-size CUDA graphs are captured for "
            "batch sizes up to 64 (cuda_graphs 1,2,4,8,16,32,64), but the router batches up to 512 "
            "requests (max_concurrent_requests): decode steps of larger batches run without a CUDA "
            "graph; add larger sizes to CUDA_GRAPHS",
            "values.yaml:14:7: error tgi/prefix-caching-attention PREFIX_CACHING=1 turns prefix "
            "caching on with ATTENTION=paged: the TGI 3.3.6 shards fail at start-up (RuntimeError: "
            "Prefix caching is only supported with flashinfer); use ATTENTION=flashinfer, or drop "
            "PREFIX_CACHING",
        ],
        "2 errors, 1 warning, 0 info in 1 file",
    ),
}


def _config(folder: Path) -> list[str]:
    config = folder / ".servelint.yaml"
    return ["--config", str(config)] if config.exists() else ["--no-config"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_fixture_findings(run_line: RunLine, case: str) -> None:
    code, findings, summary = CASES[case]
    folder = FIXTURES / case
    result = run_line(["lint", *_config(folder), *POLICY, str(folder)])
    prefix = f"{folder}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        *findings,
        summary,
    ]
    assert result.exit_code == code


def _rules(with_data: bool = False) -> list[Any]:
    policy = yaml.safe_load((ROOT / "policies" / "tgi.yaml").read_text(encoding="utf-8"))
    return [(rule["id"], rule) if with_data else rule["id"] for rule in policy["spec"]["rules"]]


def test_every_rule_fires_somewhere_and_the_clean_fixtures_stay_clean() -> None:
    fired = {line.split(" ")[2] for _, findings, _ in CASES.values() for line in findings}
    assert {f"tgi/{rule}" for rule in _rules()} - fired == set()
    assert {case for case, (_, findings, _) in CASES.items() if not findings} == {"ok"}


def test_rules_cite_sources_and_explain_themselves() -> None:
    for rule, data in _rules(with_data=True):
        assert data["references"], rule
        # Pinned: every source is a link; a file of the repository is at a tag or commit,
        # with the lines.
        assert all(ref.startswith("https://") for ref in data["references"]), rule
        assert all(
            "#" in ref
            for ref in data["references"]
            if "/huggingface/text-generation-inference/blob/" in ref
        ), rule
        assert data["title"] and data["description"] and data["fix"], rule
        assert re.search(r"\b[A-Z]{2,6}-[0-9]{3}\b", data["description"]) is None, rule


def test_version_gated_rules_are_warnings_without_a_version_tag() -> None:
    """Each error whose outcome depends on the version has a warning for unknown versions."""
    severities = {rule: data["severity"] for rule, data in _rules(with_data=True)}
    for rule, severity in severities.items():
        if rule.endswith("-version-unknown"):
            assert severity == "warning"
            assert severities[rule.removesuffix("-version-unknown")] == "error"


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        (
            "ghcr.io/huggingface/text-generation-inference:3.3.6",
            "error tgi/kv-cache-dtype-invalid kv_cache_dtype fp8 is not one of fp8_e4m3fn, fp8_e5m2: "
            "the TGI 3.3.6 launcher exits (invalid value 'fp8' for '--kv-cache-dtype "
            "<KV_CACHE_DTYPE>'); TGI spells it fp8_e4m3fn",
        ),
        (
            "ghcr.io/huggingface/text-generation-inference:sha-1a2b3c4",
            "warning tgi/kv-cache-dtype-invalid-version-unknown kv_cache_dtype fp8 is not one of "
            "fp8_e4m3fn, fp8_e5m2: from TGI 2.4.0 the launcher exits (invalid value 'fp8' for "
            "'--kv-cache-dtype'); the TGI version of image "
            "ghcr.io/huggingface/text-generation-inference:sha-1a2b3c4 could not be told",
        ),
        ("ghcr.io/huggingface/text-generation-inference:2.3.1", None),
    ],
    ids=["pinned", "unpinned", "env-ignored-before-2.4"],
)
def test_kv_cache_dtype_in_env_by_version(
    run_line: RunLine, tmp_path: Path, image: str, expected: str | None
) -> None:
    manifest = tmp_path / "tgi.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: tgi}\nspec:\n  containers:\n"
        f"    - name: tgi\n      image: {image}\n      env:\n"
        "        - {name: KV_CACHE_DTYPE, value: fp8}\n",
        encoding="utf-8",
    )
    result = run_line(["lint", "--no-config", *POLICY, str(manifest)])
    lines = report_lines(result.output)
    assert lines[:-1] == ([f"{manifest}:9:34: {expected}"] if expected else [])
    assert result.exit_code == (1 if expected and expected.startswith("error") else 0)


def test_findings_point_at_the_values_key_in_json(run_line: RunLine) -> None:
    import json

    result = run_line(
        ["lint", "--no-config", *POLICY, "--format", "json", str(FIXTURES / "values_generic")]
    )
    found = [(f["rule"], f["line"], f["path"]) for f in json.loads(result.output)["findings"]]
    assert found == [
        ("tgi/input-not-below-total", 8, "env.MAX_INPUT_TOKENS"),
        ("tgi/input-above-prefill", 9, "env.MAX_BATCH_PREFILL_TOKENS"),
        ("tgi/quantize-disables-cuda-graphs", 12, "extraArgs[1]"),
        ("tgi/shards-without-shm", 17, "resources.limits['nvidia.com/gpu']"),
    ]


def test_shared_memory_findings_are_never_two_errors_on_one_line(run_line: RunLine) -> None:
    """tgi/shards-without-shm is a warning: with every built-in policy on, the TGI advice and the platform
    rule on /dev/shm never both report an error for the same line."""
    result = run_line(
        ["lint", "--no-config", str(FIXTURES / "shell"), str(FIXTURES / "values_generic")]
    )
    errors: dict[str, list[str]] = {}
    for line in report_lines(result.output)[:-1]:
        where, severity, rule = line.split(" ")[:3]
        if severity == "error" and "shm" in rule:
            errors.setdefault(where, []).append(rule)
    assert all(len(rules) == 1 for rules in errors.values()), errors
    assert "tgi/shards-without-shm" in result.output


def test_compose_ipc_host_shares_the_hosts_dev_shm() -> None:
    """Serving model: Compose's `ipc: host` is the pod's hostIPC (no 64 MiB /dev/shm)."""
    from linter.evaluate.parsers import parse
    from linter.model.frontends.extract import extract_workloads

    path = FIXTURES / "compose" / "compose.yaml"
    [workload] = extract_workloads([parse(str(path), path.read_text(encoding="utf-8"))])
    assert workload.view().data["pod"]["host_ipc"] is True
    assert workload.view().data["pod"]["shm"] == {"mounted": False, "host_ipc": True}
    assert workload.view().data["engine"]["env"]["NVIDIA_VISIBLE_DEVICES"] == "0,1"
    assert workload.view().locate(("pod", "host_ipc"))[1:3] == (11, 5)


@pytest.mark.parametrize(
    ("image", "version"),
    [
        (
            "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
            "huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311",
            "2.3",
        ),
        (
            "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
            "huggingface-text-generation-inference-cu124.2-4-1.ubuntu2204.py311:latest",
            "2.4.1",
        ),
        (
            "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:"
            "2.3.0-tgi2.3.1-gpu-py311-cu124-ubuntu22.04",
            "2.3.1",
        ),
        ("registry.example.com/text-generation-inference:custom", ""),
    ],
)
def test_tgi_deep_learning_containers_name_the_release(image: str, version: str) -> None:
    """Serving model: Hugging Face's TGI DLC images carry the TGI version in the repository
    (Google Cloud) or in the tag (AWS), so the version-gated rules apply to them."""
    from linter.model.engine.images import parse_image

    info = parse_image(image)
    assert (info.server, info.version, info.pinned) == ("tgi", version, bool(version))


def test_a_deep_learning_container_version_gates_the_rules(
    run_line: RunLine, tmp_path: Path
) -> None:
    manifest = tmp_path / "tgi.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: tgi}\nspec:\n  containers:\n"
        "    - name: tgi\n      image: us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
        "huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311\n      env:\n"
        "        - {name: MAX_INPUT_TOKENS, value: '3000'}\n"
        "        - {name: MAX_TOTAL_TOKENS, value: '4096'}\n"
        "        - {name: MAX_BATCH_PREFILL_TOKENS, value: '2048'}\n",
        encoding="utf-8",
    )
    result = run_line(["lint", "--no-config", *POLICY, str(manifest)])
    assert report_lines(result.output) == [
        f"{manifest}:11:44: error tgi/input-above-prefill max_input_tokens 3000 exceeds "
        "max_batch_prefill_tokens 2048 and prefill chunking is off (TGI 2.3 always checks "
        "this): the router refuses to start (Argument validation error: "
        "`max_batch_prefill_tokens` must be >= `max_input_tokens`. Given: 2048 and 3000); "
        "raise MAX_BATCH_PREFILL_TOKENS to at least 3000",
        "1 error, 0 warnings, 0 info in 1 file",
    ]
