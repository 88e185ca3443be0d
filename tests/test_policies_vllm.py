"""Every built-in vLLM and KV-cache rule (policies vllm, vllm-kv, sglang-kv, tgi-kv), end to
end, in every input form: Kubernetes manifests with ``args``, shell scripts
(``sh -c "vllm serve …"``), generic Helm values (``vllm:``/``vllmConfig:`` with
``extraArgs``) and vllm-project/production-stack values read through the packaged profile.

Each form has a folder of fixtures in tests/fixtures/vllm built from the same workloads,
so the same settings must give the same message in every form; FINDINGS lists where each
finding is (file, line, column), MESSAGES what it says. Only these four policies are
loaded (validated against the policy schema on the way, as user policies are).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from report_lines import report_lines

from linter.policy import load_policies

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "vllm"
NAMES = ("vllm", "vllm-kv", "sglang-kv", "tgi-kv")
POLICIES = [
    "--no-config",
    "--no-builtin",
    *(arg for name in NAMES for arg in ("--policy-dir", str(ROOT / "policies" / f"{name}.yaml"))),
]
FORMS = ("manifests", "shell", "values", "production-stack")

# (workload, rule) → message; a workload is a Deployment's name, a values file's stem
# without "values-", or a production-stack modelSpec name.
MESSAGES: dict[tuple[str, str], str] = {
    ("near-full", "vllm/gpu-memory-utilization-no-headroom"): (
        "gpu_memory_utilization 0.99 leaves about 230.3 MiB of the 22.5 GiB GPU outside vLLM's "
        "budget, for the CUDA context, NCCL's buffers and the CUDA graphs it captures after "
        "allocating the KV cache: it may run out of CUDA memory while capturing them, or later "
        "under load; 0.90–0.95 leaves room"
    ),
    ("whole-gpu", "vllm/gpu-memory-utilization-whole-gpu"): (
        "gpu_memory_utilization 1.0 asks for the whole GPU, but the CUDA context already holds "
        "part of it when vLLM 0.11.0 measures its free memory: it refuses to start (Free memory "
        "on device … on startup is less than desired GPU memory utilization (1.0, …)); leave "
        "headroom, e.g. 0.92"
    ),
    ("awq-one-l4", "vllm-kv/weights-may-not-fit"): (
        "Meta-Llama-3.1-70B-Instruct-AWQ-INT4 needs about 32.9 GiB of weights per GPU at TP=1; "
        "the NVIDIA L4 has 22.5 GiB, 20.2 GiB of it at gpu_memory_utilization 0.90: vLLM would "
        "fail with CUDA out of memory while loading the weights. An estimate: the size of "
        "quantized weights is approximate"
    ),
    ("both-limits", "vllm/decode-batches-without-cuda-graphs"): (
        "max_num_seqs 512 but CUDA graphs are captured only up to batch size 256 (vLLM's "
        "default cap): decode steps with 257–512 running requests run without a CUDA "
        "graph; capture up to 512 (-cc '{\"max_cudagraph_capture_size\": 512}') or lower "
        "max_num_seqs"
    ),
    ("both-limits", "vllm/max-num-seqs-above-batched-tokens"): (
        "max_num_batched_tokens 256 is below max_num_seqs 512: vLLM refuses to start "
        "(ValueError: max_num_batched_tokens (256) must be greater than or equal to "
        "max_num_seqs (512)); raise max_num_batched_tokens or lower max_num_seqs"
    ),
    ("chunked-off", "vllm/batched-tokens-below-max-model-len"): (
        "max_num_batched_tokens 8192 is below max_model_len 32768 and chunked prefill is "
        "off (vLLM 0.11.1 honours --no-enable-chunked-prefill): vLLM refuses to start "
        "(ValueError: max_num_batched_tokens (8192) is smaller than max_model_len "
        "(32768)); raise max_num_batched_tokens to 32768 or switch chunked prefill on"
    ),
    ("chunked-off", "vllm/block-size-unsupported"): (
        "--block-size 8 is not a multiple of 16: FlashAttention, the default backend on "
        "most NVIDIA GPUs, fails when it allocates the KV cache (Block size must be a "
        "multiple of 16.). Leave it unset (16) unless a backend needs another size"
    ),
    ("chunked-off", "vllm/cudagraph-capture-size-mismatch"): (
        "max_cudagraph_capture_size 16 is not the largest of cudagraph_capture_sizes (8): "
        "vLLM 0.11.1 refuses to start (ValueError: customized "
        "max_cudagraph_capture_size(=16) should be consistent with the max value of "
        "cudagraph_capture_sizes(=8)); give only one of the two, or make them agree"
    ),
    # flag-not-accepted: one finding per flag, keyed by workload#flag.
    ("chunked-off#max-seq-len", "vllm/flag-not-accepted"): (
        "--max-seq-len-to-capture is not a flag of vLLM 0.11.1: removed in vLLM 0.11.0 "
        "(accepted in 0.6.0–0.10.2); vllm serve exits at once (unrecognized arguments: "
        "--max-seq-len-to-capture); delete it"
    ),
    ("old-release#capture-sizes", "vllm/flag-not-accepted"): (
        "--cudagraph-capture-sizes is not a flag of vLLM 0.11.0: it arrived later (accepted "
        "in 0.11.1–0.33.0); vllm serve exits at once (unrecognized arguments: "
        "--cudagraph-capture-sizes); pin a release that accepts it, or delete it"
    ),
    ("removed-flags#cuda-graph-sizes", "vllm/flag-not-accepted"): (
        "--cuda-graph-sizes is not a flag of vLLM 0.18.0: removed in vLLM 0.13.0 (accepted "
        "in 0.9.0–0.12.0); vllm serve exits at once (unrecognized arguments: "
        "--cuda-graph-sizes); use --cudagraph-capture-sizes"
    ),
    ("removed-flags#swap-space", "vllm/flag-not-accepted"): (
        "--swap-space is not a flag of vLLM 0.18.0: removed in vLLM 0.18.0 (accepted in "
        "0.6.0–0.17.1); vllm serve exits at once (unrecognized arguments: --swap-space); "
        "delete it"
    ),
    ("unpinned#cuda-graph-sizes", "vllm/flag-not-accepted-version-unknown"): (
        "--cuda-graph-sizes is accepted by vLLM 0.9.0–0.12.0 only (removed in 0.13.0): later "
        "releases exit at once (unrecognized arguments), and servelint cannot tell the vLLM "
        "version from the image vllm/vllm-openai:latest; use --cudagraph-capture-sizes"
    ),
    ("unpinned#max-seq-len", "vllm/flag-not-accepted-version-unknown"): (
        "--max-seq-len-to-capture is accepted by vLLM 0.6.0–0.10.2 only (removed in 0.11.0): "
        "later releases exit at once (unrecognized arguments), and servelint cannot tell the "
        "vLLM version from the image vllm/vllm-openai:latest; delete it, or pin a release "
        "that accepts it"
    ),
    ("unpinned#swap-space", "vllm/flag-not-accepted-version-unknown"): (
        "--swap-space is accepted by vLLM 0.6.0–0.17.1 only (removed in 0.18.0): later "
        "releases exit at once (unrecognized arguments), and servelint cannot tell the vLLM "
        "version from the image vllm/vllm-openai:latest; delete it, or pin a release that "
        "accepts it"
    ),
    ("default-context", "vllm-kv/one-sequence-may-not-fit"): (
        "max_model_len 131072 (not set: vLLM takes it from the config of "
        "meta-llama/Llama-3.1-8B-Instruct) needs 16 GiB of KV cache (128 KiB per token), more "
        "than the about 4.3 GiB vLLM can give it (5.3 GiB left after the weights on the NVIDIA "
        "L4 at gpu_memory_utilization 0.90, less about 1 GiB for activations and CUDA graphs): "
        "about 35120 tokens fit, so vLLM will likely refuse to start (To serve at least one "
        "request with the model's max seq len (131072) ... KV cache is needed, which is larger "
        "than the available KV cache memory). An estimate: max_model_len is not written, so "
        "vLLM derives it from the config.json it loads"
    ),
    ("h100-seqs", "vllm/decode-batches-without-cuda-graphs"): (
        "max_num_seqs 1024 but CUDA graphs are captured only up to batch size 512 (vLLM's "
        "default cap): decode steps with 513–1024 running requests run without a CUDA "
        "graph; capture up to 1024 (-cc '{\"max_cudagraph_capture_size\": 1024}') or lower "
        "max_num_seqs"
    ),
    ("llama-70b-one-gpu", "vllm-kv/weights-do-not-fit"): (
        "Llama-3.1-70B-Instruct (70.6B parameters in bfloat16) needs 131.4 GiB of weights per "
        "GPU at TP=1; the NVIDIA H100 80GB HBM3 has 79.6 GiB, 71.7 GiB of it at "
        "gpu_memory_utilization 0.90: vLLM fails with CUDA out of memory while loading the "
        "weights; raise tensor_parallel_size (with as many GPUs) or use a quantized checkpoint"
    ),
    ("long-context", "vllm-kv/one-sequence-does-not-fit"): (
        "max_model_len 131072 needs 16 GiB of KV cache (128 KiB per token); about 5.3 GiB are "
        "left after the weights (Llama-3.1-8B-Instruct, TP=1, NVIDIA L4, gpu_memory_utilization "
        "0.90), room for at most 43312 tokens even with nothing counted for activations and "
        "CUDA graphs: vLLM refuses to start (To serve at least one request with the model's max "
        "seq len (131072), 16.00 GiB KV cache is needed, which is larger than the available KV "
        "cache memory); lower max_model_len to about 35120, what fits once about 1 GiB is left "
        "for activations and CUDA graphs, or give the model more GPU memory"
    ),
    ("long-context", "vllm/enforce-eager"): (
        "--enforce-eager switches CUDA graphs off: every decode step runs eagerly, which "
        "costs steady-state decode throughput and latency; drop it outside debugging"
    ),
    ("low-utilization", "vllm-kv/weights-do-not-fit"): (
        "Llama-3.1-8B-Instruct (8.0B parameters in bfloat16) needs 15.0 GiB of weights per GPU "
        "at TP=1; the NVIDIA L4 has 22.5 GiB, 11.2 GiB of it at gpu_memory_utilization 0.50: "
        'the weights load, then vLLM stops with "No available memory for the cache blocks"; '
        "raise gpu_memory_utilization or tensor_parallel_size"
    ),
    ("many-seqs-l4", "vllm/decode-batches-without-cuda-graphs"): (
        "max_num_seqs 4096 but CUDA graphs are captured only up to batch size 512 (vLLM's "
        "default cap): decode steps with 513–4096 running requests run without a CUDA "
        "graph; capture up to 4096 (-cc '{\"max_cudagraph_capture_size\": 4096}') or lower "
        "max_num_seqs"
    ),
    ("many-seqs-l4", "vllm/max-num-seqs-above-batched-tokens"): (
        "max_num_seqs 4096 is above 2048, the default max_num_batched_tokens of vLLM "
        "0.11.0 on the NVIDIA L4: vLLM refuses to start (ValueError: "
        "max_num_batched_tokens (2048) must be greater than or equal to max_num_seqs "
        "(4096)); set --max-num-batched-tokens to at least 4096"
    ),
    ("many-sequences", "vllm-kv/max-num-seqs-exceeds-kv-cache"): (
        "max_num_seqs 64 × max_model_len 8192 = 524288 tokens, 14× the about 35120 tokens "
        "the KV cache holds (128 KiB per token, about 4.3 GiB of KV cache on the NVIDIA "
        "L4): it holds about 4.29 sequences of full length at once, so when long requests "
        "run together vLLM preempts and recomputes them; lower max_num_seqs or "
        "max_model_len, or give the KV cache more memory"
    ),
    ("old-release", "vllm/batched-tokens-above-seqs-times-len"): (
        "max_num_batched_tokens 160000 exceeds max_num_seqs × max_model_len = 4 × 32000 = "
        '128000: no step can use the extra budget, and vLLM warns that this "may lead to '
        'unexpected behavior"; lower max_num_batched_tokens to 128000 or less'
    ),
    ("old-release", "vllm/block-size-invalid"): (
        "--block-size 256 is not one of 1, 8, 16, 32, 64, 128: vLLM 0.11.0 exits at once "
        "(argument --block-size: invalid choice); the default is 16"
    ),
    ("old-release", "vllm/gpu-memory-utilization-not-positive"): (
        "gpu_memory_utilization 0 leaves this instance no GPU memory: vLLM 0.11.0 does "
        "not check it, and finds no memory for the KV cache (No available memory for the "
        "cache blocks). Use a fraction such as 0.90"
    ),
    ("old-release", "vllm/kv-cache-dtype-invalid"): (
        "--kv-cache-dtype float16 is not a KV-cache dtype vLLM 0.11.0 accepts (auto, "
        "bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc): vLLM exits at start-up (argument "
        "--kv-cache-dtype: invalid choice)"
    ),
    ("old-release", "vllm/max-model-len-decimal-k"): (
        "--max-model-len 32k is 32000 tokens: vLLM reads a lower-case k as ×1000, so this "
        "is 768 tokens short of 32768; write 32K or 32768 if that is what you meant"
    ),
    ("qwen-72b-tp16", "vllm/tensor-parallel-above-kv-heads"): (
        "tensor_parallel_size 16 is above the 8 KV heads of Qwen/Qwen2.5-72B-Instruct: "
        "vLLM replicates KV heads, so each GPU still keeps one KV head per layer and the "
        "KV cache per GPU is no smaller than at tensor_parallel_size 8"
    ),
    ("qwen-beyond-context", "vllm-kv/one-sequence-may-not-fit"): (
        "max_model_len 131072 needs 7 GiB of KV cache (56 KiB per token), more than the about "
        "5.1 GiB vLLM can give it (6.1 GiB left after the weights on the NVIDIA L4 at "
        "gpu_memory_utilization 0.90, less about 1 GiB for activations and CUDA graphs): about "
        "94737 tokens fit, so vLLM will likely refuse to start (To serve at least one request "
        "with the model's max seq len (131072) ... KV cache is needed, which is larger than the "
        "available KV cache memory). An estimate: max_model_len is above the 32768 tokens of "
        "the model's config, which vLLM refuses first unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 or "
        "rope scaling is given"
    ),
    ("removed-flags", "vllm/block-size-unsupported"): (
        "--block-size 24 is not a multiple of 16: vLLM 0.18.0 then skips the preferred "
        "attention backend (precluded higher-priority backend(s), which may result in "
        "reduced performance). Leave it unset (16) unless a backend needs another size"
    ),
    ("removed-flags", "vllm/bool-flag-with-value"): (
        "'--enable-prefix-caching=false' gives the switch --enable-prefix-caching a "
        "value: vllm serve exits at once (argparse: ignored explicit argument 'false'); "
        "write --enable-prefix-caching to switch it on or --no-enable-prefix-caching to "
        "switch it off"
    ),
    ("removed-flags", "vllm/gpu-memory-utilization-out-of-range"): (
        "gpu_memory_utilization 1.5 is above 1: vLLM refuses it at start-up (validation "
        "error: gpu_memory_utilization must be greater than 0 and at most 1); it is the "
        "fraction of GPU memory this instance may use, e.g. 0.90"
    ),
    ("removed-flags", "vllm/kv-cache-dtype-invalid"): (
        "--kv-cache-dtype fp8_e4m3fn is not a KV-cache dtype vLLM 0.18.0 accepts: vLLM "
        "exits at start-up (Invalid kv_cache_dtype); vLLM spells fp8 KV caches fp8 (= "
        "fp8_e4m3) or fp8_e5m2"
    ),
    ("sglang-70b", "sglang-kv/weights-exceed-mem-fraction-static"): (
        "Llama-3.1-70B-Instruct needs 65.7 GiB of weights per GPU at tp_size 2; the NVIDIA L4 "
        "has 22.5 GiB, 18.7 GiB of it for weights and KV cache at mem_fraction_static 0.83: "
        "SGLang fails with CUDA out of memory while loading the weights; raise --tp (with as "
        "many GPUs) or use a quantized checkpoint"
    ),
    ("sglang-awq", "sglang-kv/weights-may-exceed-mem-fraction-static"): (
        "Meta-Llama-3.1-70B-Instruct-AWQ-INT4 needs about 32.9 GiB of weights per GPU at "
        "tp_size 1; the NVIDIA L4 has 22.5 GiB, about 20.2 GiB of it for weights and KV cache "
        "at mem_fraction_static 0.90: SGLang would fail with CUDA out of memory while loading "
        "the weights. An estimate: the size of quantized weights is approximate"
    ),
    ("sglang-low-fraction", "sglang-kv/weights-exceed-mem-fraction-static"): (
        "Llama-3.1-8B-Instruct needs 15.0 GiB of weights per GPU at tp_size 1; the NVIDIA L4 "
        "has 22.5 GiB, 13.5 GiB of it for weights and KV cache at mem_fraction_static 0.60: no "
        "room is left for the KV pool and SGLang stops at start-up (RuntimeError: Not enough "
        "memory. Please try to increase --mem-fraction-static.); raise --mem-fraction-static or "
        "--tp"
    ),
    ("sglang-t4", "sglang-kv/weights-may-exceed-mem-fraction-static"): (
        "Llama-3.1-8B-Instruct needs 15.0 GiB of weights per GPU at tp_size 1; the Tesla T4 has "
        "15 GiB, about 11.4 GiB of it for weights and KV cache at mem_fraction_static 0.76: "
        "SGLang would find no room for the KV pool (Not enough memory. Please try to increase "
        "--mem-fraction-static.). An estimate: mem_fraction_static is not written, and its "
        "automatic value is approximated"
    ),
    ("tensor-parallel", "vllm/attention-heads-not-divisible"): (
        "Qwen/Qwen2.5-7B-Instruct has 28 attention heads, which tensor_parallel_size 8 "
        "does not divide: vLLM refuses to start (ValueError: Total number of attention "
        "heads (28) must be divisible by tensor parallel size (8)); use a divisor of 28"
    ),
    ("tensor-parallel", "vllm/tensor-parallel-above-kv-heads"): (
        "tensor_parallel_size 8 is above the 4 KV heads of Qwen/Qwen2.5-7B-Instruct: vLLM "
        "replicates KV heads, so each GPU still keeps one KV head per layer and the KV "
        "cache per GPU is no smaller than at tensor_parallel_size 4"
    ),
    ("tgi-70b-one-l4", "tgi-kv/max-total-tokens-does-not-fit"): (
        "Llama-3.1-70B-Instruct needs 131.4 GiB of weights per shard with 1 shard, but "
        "the NVIDIA L4 has 22.5 GiB: TGI fails with CUDA out of memory while loading the "
        "weights; use more shards (and GPUs) or a quantized checkpoint"
    ),
    ("tgi-long-context", "tgi-kv/max-total-tokens-does-not-fit"): (
        "max_total_tokens 131072 needs 16 GiB of KV cache (128 KiB per token per shard); at "
        "most 5.3 GiB are left after the weights (Llama-3.1-8B-Instruct, 1 shard, NVIDIA L4, "
        "CUDA_MEMORY_FRACTION × TGI_WIGGLE_ROOM 0.90), room for at most 43312 tokens even "
        "with nothing counted for activations: TGI stops after warmup (Backend failed: Not "
        "enough memory to handle `max_total_tokens=131072`); lower max_total_tokens to about "
        "35120, what fits once about 1 GiB is left for activations, or add shards"
    ),
    ("tgi-near-limit", "tgi-kv/max-total-tokens-may-not-fit"): (
        "max_total_tokens 40000 needs 4.9 GiB of KV cache (128 KiB per token per shard), "
        "more than the about 4.3 GiB TGI can give it on the NVIDIA L4 (about 35120 "
        "tokens): TGI would stop after warmup (Not enough memory to handle "
        "`max_total_tokens=40000`). An estimate: the 1 GiB allowance for activations is "
        "approximate"
    ),
    ("unpinned", "vllm/batched-tokens-below-max-model-len-version-unknown"): (
        "max_num_batched_tokens 128 is below max_model_len 4096 and chunked prefill is "
        "switched off: vLLM 0.11.1 and later (and the V0 engine) refuse to start "
        "(ValueError: max_num_batched_tokens (128) is smaller than max_model_len (4096)), "
        "0.8.0–0.11.0 ignore the switch; servelint cannot tell the vLLM version from the "
        "image vllm/vllm-openai:latest"
    ),
    ("unpinned", "vllm/block-size-unsupported"): (
        "--block-size 512 is above 256: vLLM 0.17.x and earlier refuse it (invalid "
        "choice); 0.18.0 and later accept it; servelint cannot tell the vLLM version from "
        "the image vllm/vllm-openai:latest. Leave it unset (16) unless a backend needs "
        "another size"
    ),
    ("unpinned", "vllm/bool-flag-with-value-version-unknown"): (
        "'--enable-chunked-prefill=False' gives a value to a switch: from vLLM 0.8.5 vllm "
        "serve exits at once (ignored explicit argument), while 0.8.4 and earlier accept "
        "it; servelint cannot tell the vLLM version from the image "
        "vllm/vllm-openai:latest. Write --enable-chunked-prefill or "
        "--no-enable-chunked-prefill"
    ),
    ("unpinned", "vllm/decode-batches-without-cuda-graphs"): (
        "max_num_seqs 128 but CUDA graphs are captured only up to batch size 64 (the "
        "largest capture size kept): decode steps with 65–128 running requests run "
        'without a CUDA graph; capture up to 128 (-cc \'{"max_cudagraph_capture_size": '
        "128}') or lower max_num_seqs"
    ),
    ("unpinned", "vllm/kv-cache-dtype-may-be-invalid"): (
        "--kv-cache-dtype fp8_e4m3fn is not a KV-cache dtype of any known vLLM release "
        "(auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, …): vLLM exits at start-up unless a "
        "platform plugin of this image adds it; servelint cannot tell the vLLM version "
        "from the image vllm/vllm-openai:latest. vLLM spells fp8 KV caches fp8 (= "
        "fp8_e4m3) or fp8_e5m2"
    ),
    ("unpinned-graphs", "vllm/cudagraph-capture-size-may-mismatch"): (
        "max_cudagraph_capture_size 16 is not the largest of cudagraph_capture_sizes (8): "
        "vLLM 0.11.1 and later refuse to start (customized max_cudagraph_capture_size "
        "should be consistent with the max value of cudagraph_capture_sizes) unless the "
        "sizes above max_num_batched_tokens, which vLLM drops, make them agree; servelint "
        "cannot tell the vLLM version from the image vllm/vllm-openai:latest. Give only "
        "one of the two"
    ),
    ("unpinned-graphs", "vllm/gpu-memory-utilization-not-positive"): (
        "gpu_memory_utilization -0.5 leaves this instance no GPU memory: vLLM 0.11.1 and "
        "later refuse it at start-up (it must be greater than 0), earlier versions find "
        "no memory for the KV cache; servelint cannot tell the vLLM version from the "
        "image vllm/vllm-openai:latest. Use a fraction such as 0.90"
    ),
    ("unpinned-graphs", "vllm/max-num-seqs-may-exceed-batched-tokens"): (
        "max_num_batched_tokens 128 is below 256, the default max_num_seqs of vLLM before "
        "0.10.1: those versions refuse to start (ValueError: max_num_batched_tokens (128) "
        "must be greater than or equal to max_num_seqs (256)); later ones lower "
        "max_num_seqs to match; servelint cannot tell the vLLM version from the image "
        "vllm/vllm-openai:latest. Set --max-num-seqs too"
    ),
    ("v0-engine", "vllm/batched-tokens-below-max-model-len"): (
        "max_num_batched_tokens 4096 is below max_model_len 8192 and chunked prefill is "
        "off (the V0 engine of vLLM 0.6.3 switches it on only above 32768 tokens): vLLM "
        "refuses to start (ValueError: max_num_batched_tokens (4096) is smaller than "
        "max_model_len (8192)); raise max_num_batched_tokens to 8192 or switch chunked "
        "prefill on"
    ),
    ("wide-step", "vllm/batched-tokens-above-seqs-times-len"): (
        "max_num_batched_tokens 16384 exceeds max_num_seqs × max_model_len = 4 × 2048 = "
        '8192: no step can use the extra budget, and vLLM warns that this "may lead to '
        'unexpected behavior"; lower max_num_batched_tokens to 8192 or less'
    ),
}

# form → file → "line:column severity rule @workload" of every finding
FINDINGS: dict[str, dict[str, list[str]]] = {
    "manifests": {
        "near-full.yaml": [
            "18:15 warning vllm/gpu-memory-utilization-no-headroom @near-full",
        ],
        "whole-gpu.yaml": [
            "18:15 error vllm/gpu-memory-utilization-whole-gpu @whole-gpu",
        ],
        "awq-one-l4.yaml": [
            "17:15 warning vllm-kv/weights-may-not-fit @awq-one-l4",
        ],
        "both-limits.yaml": [
            "17:15 warning vllm/decode-batches-without-cuda-graphs @both-limits",
            "19:15 error vllm/max-num-seqs-above-batched-tokens @both-limits",
        ],
        "chunked-off.yaml": [
            "20:15 error vllm/batched-tokens-below-max-model-len @chunked-off",
            "21:15 error vllm/flag-not-accepted @chunked-off#max-seq-len",
            "24:15 warning vllm/block-size-unsupported @chunked-off",
            "26:15 error vllm/cudagraph-capture-size-mismatch @chunked-off",
        ],
        "default-context.yaml": [
            "17:15 warning vllm-kv/one-sequence-may-not-fit @default-context",
        ],
        "h100-seqs.yaml": [
            "19:15 warning vllm/decode-batches-without-cuda-graphs @h100-seqs",
        ],
        "llama-70b-one-gpu.yaml": [
            "17:15 error vllm-kv/weights-do-not-fit @llama-70b-one-gpu",
        ],
        "long-context.yaml": [
            "19:15 error vllm-kv/one-sequence-does-not-fit @long-context",
            "22:15 warning vllm/enforce-eager @long-context",
        ],
        "low-utilization.yaml": [
            "17:15 error vllm-kv/weights-do-not-fit @low-utilization",
        ],
        "many-seqs-l4.yaml": [
            "19:15 warning vllm/decode-batches-without-cuda-graphs @many-seqs-l4",
            "19:15 error vllm/max-num-seqs-above-batched-tokens @many-seqs-l4",
        ],
        "many-sequences.yaml": [
            "21:15 warning vllm-kv/max-num-seqs-exceeds-kv-cache @many-sequences",
        ],
        "old-release.yaml": [
            "16:15 error vllm/flag-not-accepted @old-release#capture-sizes",
            "21:15 error vllm/block-size-invalid @old-release",
            "23:15 error vllm/kv-cache-dtype-invalid @old-release",
            "25:15 warning vllm/gpu-memory-utilization-not-positive @old-release",
            "27:15 warning vllm/max-model-len-decimal-k @old-release",
            "31:15 warning vllm/batched-tokens-above-seqs-times-len @old-release",
        ],
        "qwen-72b-tp16.yaml": [
            "17:15 info vllm/tensor-parallel-above-kv-heads @qwen-72b-tp16",
        ],
        "qwen-beyond-context.yaml": [
            "18:15 warning vllm-kv/one-sequence-may-not-fit @qwen-beyond-context",
        ],
        "removed-flags.yaml": [
            "16:15 error vllm/flag-not-accepted @removed-flags#swap-space",
            "18:15 error vllm/flag-not-accepted @removed-flags#cuda-graph-sizes",
            "21:15 warning vllm/block-size-unsupported @removed-flags",
            "23:15 error vllm/kv-cache-dtype-invalid @removed-flags",
            "24:15 error vllm/bool-flag-with-value @removed-flags",
            "26:15 error vllm/gpu-memory-utilization-out-of-range @removed-flags",
        ],
        "sglang-memory.yaml": [
            "19:15 error sglang-kv/weights-exceed-mem-fraction-static @sglang-70b",
            "46:15 error sglang-kv/weights-exceed-mem-fraction-static @sglang-low-fraction",
            "64:70 warning sglang-kv/weights-may-exceed-mem-fraction-static @sglang-t4",
        ],
        "tensor-parallel.yaml": [
            "17:15 error vllm/attention-heads-not-divisible @tensor-parallel",
            "17:15 info vllm/tensor-parallel-above-kv-heads @tensor-parallel",
        ],
        "tgi-long-context.yaml": [
            "20:15 error tgi-kv/max-total-tokens-does-not-fit @tgi-long-context",
        ],
        "tgi-near-limit.yaml": [
            "14:90 warning tgi-kv/max-total-tokens-may-not-fit @tgi-near-limit",
            "32:32 error tgi-kv/max-total-tokens-does-not-fit @tgi-70b-one-l4",
        ],
        "unpinned-graphs.yaml": [
            "17:15 warning vllm/max-num-seqs-may-exceed-batched-tokens @unpinned-graphs",
            "19:15 warning vllm/gpu-memory-utilization-not-positive @unpinned-graphs",
            "21:15 warning vllm/cudagraph-capture-size-may-mismatch @unpinned-graphs",
        ],
        "unpinned.yaml": [
            "16:15 warning vllm/flag-not-accepted-version-unknown @unpinned#swap-space",
            "18:15 warning vllm/flag-not-accepted-version-unknown @unpinned#max-seq-len",
            "20:15 warning vllm/flag-not-accepted-version-unknown @unpinned#cuda-graph-sizes",
            "23:15 warning vllm/decode-batches-without-cuda-graphs @unpinned",
            "24:15 warning vllm/bool-flag-with-value-version-unknown @unpinned",
            "28:15 warning vllm/batched-tokens-below-max-model-len-version-unknown @unpinned",
            "30:15 warning vllm/kv-cache-dtype-may-be-invalid @unpinned",
            "32:15 warning vllm/block-size-unsupported @unpinned",
        ],
        "v0-engine.yaml": [
            "19:15 error vllm/batched-tokens-below-max-model-len @v0-engine",
        ],
        "wide-step.yaml": [
            "21:15 warning vllm/batched-tokens-above-seqs-times-len @wide-step",
        ],
    },
    "shell": {
        "near-full.yaml": [
            "16:15 warning vllm/gpu-memory-utilization-no-headroom @near-full",
        ],
        "whole-gpu.yaml": [
            "16:15 error vllm/gpu-memory-utilization-whole-gpu @whole-gpu",
        ],
        "awq-one-l4.yaml": [
            "16:15 warning vllm-kv/weights-may-not-fit @awq-one-l4",
        ],
        "both-limits.yaml": [
            "14:15 warning vllm/decode-batches-without-cuda-graphs @both-limits",
            "14:15 error vllm/max-num-seqs-above-batched-tokens @both-limits",
        ],
        "chunked-off.yaml": [
            "14:15 error vllm/batched-tokens-below-max-model-len @chunked-off",
            "14:15 warning vllm/block-size-unsupported @chunked-off",
            "14:15 error vllm/cudagraph-capture-size-mismatch @chunked-off",
            "14:15 error vllm/flag-not-accepted @chunked-off#max-seq-len",
        ],
        "default-context.yaml": [
            "16:15 warning vllm-kv/one-sequence-may-not-fit @default-context",
        ],
        "h100-seqs.yaml": [
            "16:15 warning vllm/decode-batches-without-cuda-graphs @h100-seqs",
        ],
        "llama-70b-one-gpu.yaml": [
            "16:15 error vllm-kv/weights-do-not-fit @llama-70b-one-gpu",
        ],
        "long-context.yaml": [
            "16:15 error vllm-kv/one-sequence-does-not-fit @long-context",
            "16:15 warning vllm/enforce-eager @long-context",
        ],
        "low-utilization.yaml": [
            "16:15 error vllm-kv/weights-do-not-fit @low-utilization",
        ],
        "many-seqs-l4.yaml": [
            "16:15 warning vllm/decode-batches-without-cuda-graphs @many-seqs-l4",
            "16:15 error vllm/max-num-seqs-above-batched-tokens @many-seqs-l4",
        ],
        "many-sequences.yaml": [
            "16:15 warning vllm-kv/max-num-seqs-exceeds-kv-cache @many-sequences",
        ],
        "old-release.yaml": [
            "14:15 warning vllm/batched-tokens-above-seqs-times-len @old-release",
            "14:15 error vllm/block-size-invalid @old-release",
            "14:15 error vllm/flag-not-accepted @old-release#capture-sizes",
            "14:15 warning vllm/gpu-memory-utilization-not-positive @old-release",
            "14:15 error vllm/kv-cache-dtype-invalid @old-release",
            "14:15 warning vllm/max-model-len-decimal-k @old-release",
        ],
        "qwen-72b-tp16.yaml": [
            "14:15 info vllm/tensor-parallel-above-kv-heads @qwen-72b-tp16",
        ],
        "removed-flags.yaml": [
            "14:15 warning vllm/block-size-unsupported @removed-flags",
            "14:15 error vllm/bool-flag-with-value @removed-flags",
            "14:15 error vllm/flag-not-accepted @removed-flags#cuda-graph-sizes",
            "14:15 error vllm/flag-not-accepted @removed-flags#swap-space",
            "14:15 error vllm/gpu-memory-utilization-out-of-range @removed-flags",
            "14:15 error vllm/kv-cache-dtype-invalid @removed-flags",
        ],
        "sglang-memory.yaml": [
            "14:35 error sglang-kv/weights-exceed-mem-fraction-static @sglang-low-fraction",
            "32:35 warning sglang-kv/weights-may-exceed-mem-fraction-static @sglang-awq",
        ],
        "tensor-parallel.yaml": [
            "14:15 error vllm/attention-heads-not-divisible @tensor-parallel",
            "14:15 info vllm/tensor-parallel-above-kv-heads @tensor-parallel",
        ],
        "tgi-long-context.yaml": [
            "14:33 error tgi-kv/max-total-tokens-does-not-fit @tgi-long-context",
            "32:33 warning tgi-kv/max-total-tokens-may-not-fit @tgi-near-limit",
        ],
        "unpinned-graphs.yaml": [
            "14:15 warning vllm/cudagraph-capture-size-may-mismatch @unpinned-graphs",
            "14:15 warning vllm/gpu-memory-utilization-not-positive @unpinned-graphs",
            "14:15 warning vllm/max-num-seqs-may-exceed-batched-tokens @unpinned-graphs",
        ],
        "unpinned.yaml": [
            "14:15 warning vllm/batched-tokens-below-max-model-len-version-unknown @unpinned",
            "14:15 warning vllm/block-size-unsupported @unpinned",
            "14:15 warning vllm/bool-flag-with-value-version-unknown @unpinned",
            "14:15 warning vllm/decode-batches-without-cuda-graphs @unpinned",
            "14:15 warning vllm/flag-not-accepted-version-unknown @unpinned#cuda-graph-sizes",
            "14:15 warning vllm/flag-not-accepted-version-unknown @unpinned#max-seq-len",
            "14:15 warning vllm/flag-not-accepted-version-unknown @unpinned#swap-space",
            "14:15 warning vllm/kv-cache-dtype-may-be-invalid @unpinned",
        ],
        "v0-engine.yaml": [
            "14:15 error vllm/batched-tokens-below-max-model-len @v0-engine",
        ],
        "wide-step.yaml": [
            "14:15 warning vllm/batched-tokens-above-seqs-times-len @wide-step",
        ],
    },
    "values": {
        "values-near-full.yaml": [
            "7:3 warning vllm/gpu-memory-utilization-no-headroom @near-full",
        ],
        "values-whole-gpu.yaml": [
            "7:3 error vllm/gpu-memory-utilization-whole-gpu @whole-gpu",
        ],
        "values-awq-one-l4.yaml": [
            "6:3 warning vllm-kv/weights-may-not-fit @awq-one-l4",
        ],
        "values-both-limits.yaml": [
            "7:3 warning vllm/decode-batches-without-cuda-graphs @both-limits",
            "8:3 error vllm/max-num-seqs-above-batched-tokens @both-limits",
        ],
        "values-chunked-off.yaml": [
            "9:3 error vllm/batched-tokens-below-max-model-len @chunked-off",
            "10:3 warning vllm/block-size-unsupported @chunked-off",
            "15:5 error vllm/cudagraph-capture-size-mismatch @chunked-off",
        ],
        "values-default-context.yaml": [
            "6:3 warning vllm-kv/one-sequence-may-not-fit @default-context",
        ],
        "values-h100-seqs.yaml": [
            "7:3 warning vllm/decode-batches-without-cuda-graphs @h100-seqs",
        ],
        "values-llama-70b-one-gpu.yaml": [
            "6:3 error vllm-kv/weights-do-not-fit @llama-70b-one-gpu",
        ],
        "values-long-context.yaml": [
            "7:3 error vllm-kv/one-sequence-does-not-fit @long-context",
            "9:3 warning vllm/enforce-eager @long-context",
        ],
        "values-low-utilization.yaml": [
            "6:3 error vllm-kv/weights-do-not-fit @low-utilization",
        ],
        "values-many-seqs-l4.yaml": [
            "7:3 warning vllm/decode-batches-without-cuda-graphs @many-seqs-l4",
            "7:3 error vllm/max-num-seqs-above-batched-tokens @many-seqs-l4",
        ],
        "values-many-sequences.yaml": [
            "8:3 warning vllm-kv/max-num-seqs-exceeds-kv-cache @many-sequences",
        ],
        "values-old-release.yaml": [
            "7:3 error vllm/block-size-invalid @old-release",
            "8:3 error vllm/kv-cache-dtype-invalid @old-release",
            "9:3 warning vllm/gpu-memory-utilization-not-positive @old-release",
            "10:3 warning vllm/max-model-len-decimal-k @old-release",
            "12:3 warning vllm/batched-tokens-above-seqs-times-len @old-release",
        ],
        "values-qwen-72b-tp16.yaml": [
            "7:3 info vllm/tensor-parallel-above-kv-heads @qwen-72b-tp16",
        ],
        "values-removed-flags.yaml": [
            "8:3 warning vllm/block-size-unsupported @removed-flags",
            "9:3 error vllm/kv-cache-dtype-invalid @removed-flags",
            "10:3 error vllm/gpu-memory-utilization-out-of-range @removed-flags",
            "14:7 error vllm/bool-flag-with-value @removed-flags",
        ],
        "values-sglang-low-fraction.yaml": [
            "7:3 error sglang-kv/weights-exceed-mem-fraction-static @sglang-low-fraction",
        ],
        "values-sglang-t4.yaml": [
            "6:3 warning sglang-kv/weights-may-exceed-mem-fraction-static @sglang-t4",
        ],
        "values-tensor-parallel.yaml": [
            "7:3 error vllm/attention-heads-not-divisible @tensor-parallel",
            "7:3 info vllm/tensor-parallel-above-kv-heads @tensor-parallel",
        ],
        "values-tgi-long-context.yaml": [
            "8:3 error tgi-kv/max-total-tokens-does-not-fit @tgi-long-context",
        ],
        "values-tgi-near-limit.yaml": [
            "7:3 warning tgi-kv/max-total-tokens-may-not-fit @tgi-near-limit",
        ],
        "values-unpinned-graphs.yaml": [
            "7:3 warning vllm/max-num-seqs-may-exceed-batched-tokens @unpinned-graphs",
            "8:3 warning vllm/gpu-memory-utilization-not-positive @unpinned-graphs",
            "11:7 warning vllm/cudagraph-capture-size-may-mismatch @unpinned-graphs",
        ],
        "values-unpinned.yaml": [
            "8:3 warning vllm/decode-batches-without-cuda-graphs @unpinned",
            "10:3 warning vllm/batched-tokens-below-max-model-len-version-unknown @unpinned",
            "11:3 warning vllm/kv-cache-dtype-may-be-invalid @unpinned",
            "12:3 warning vllm/block-size-unsupported @unpinned",
            "18:5 warning vllm/bool-flag-with-value-version-unknown @unpinned",
        ],
        "values-v0-engine.yaml": [
            "8:3 error vllm/batched-tokens-below-max-model-len @v0-engine",
        ],
        "values-wide-step.yaml": [
            "9:3 warning vllm/batched-tokens-above-seqs-times-len @wide-step",
        ],
    },
    "production-stack": {
        "values-headroom.yaml": [
            "16:9 error vllm/gpu-memory-utilization-whole-gpu @whole-gpu",
            "30:9 warning vllm/gpu-memory-utilization-no-headroom @near-full",
        ],
        "values-flags.yaml": [
            "11:9 error vllm/gpu-memory-utilization-out-of-range @removed-flags",
            # The profile passes vllmConfig.extraArgs to vllm serve as written.
            "13:13 error vllm/flag-not-accepted @removed-flags#swap-space",
            "15:13 error vllm/flag-not-accepted @removed-flags#cuda-graph-sizes",
            "18:13 warning vllm/block-size-unsupported @removed-flags",
            "20:13 error vllm/kv-cache-dtype-invalid @removed-flags",
            "21:13 error vllm/bool-flag-with-value @removed-flags",
            "34:13 error vllm/batched-tokens-below-max-model-len @chunked-off",
            "35:13 error vllm/flag-not-accepted @chunked-off#max-seq-len",
            "38:13 warning vllm/block-size-unsupported @chunked-off",
            "40:13 error vllm/cudagraph-capture-size-mismatch @chunked-off",
            "49:9 warning vllm/gpu-memory-utilization-not-positive @old-release",
            "50:9 warning vllm/max-model-len-decimal-k @old-release",
            "53:13 error vllm/flag-not-accepted @old-release#capture-sizes",
            "58:13 error vllm/block-size-invalid @old-release",
            "60:13 error vllm/kv-cache-dtype-invalid @old-release",
            "62:13 warning vllm/batched-tokens-above-seqs-times-len @old-release",
            "71:9 warning vllm/decode-batches-without-cuda-graphs @unpinned",
            "74:13 warning vllm/flag-not-accepted-version-unknown @unpinned#swap-space",
            "76:13 warning vllm/flag-not-accepted-version-unknown @unpinned#max-seq-len",
            "78:13 warning vllm/flag-not-accepted-version-unknown @unpinned#cuda-graph-sizes",
            "80:13 warning vllm/bool-flag-with-value-version-unknown @unpinned",
            "82:13 warning vllm/batched-tokens-below-max-model-len-version-unknown @unpinned",
            "84:13 warning vllm/kv-cache-dtype-may-be-invalid @unpinned",
            "86:13 warning vllm/block-size-unsupported @unpinned",
            "95:9 warning vllm/gpu-memory-utilization-not-positive @unpinned-graphs",
            "98:13 warning vllm/max-num-seqs-may-exceed-batched-tokens @unpinned-graphs",
            "100:13 warning vllm/cudagraph-capture-size-may-mismatch @unpinned-graphs",
        ],
        "values-memory.yaml": [
            "16:9 error vllm-kv/one-sequence-does-not-fit @long-context",
            "19:13 warning vllm/enforce-eager @long-context",
            "24:7 error vllm-kv/weights-do-not-fit @llama-70b-one-gpu",
            "38:7 error vllm-kv/weights-do-not-fit @low-utilization",
            "53:7 warning vllm-kv/one-sequence-may-not-fit @default-context",
            "77:9 warning vllm-kv/max-num-seqs-exceeds-kv-cache @many-sequences",
            "82:7 warning vllm-kv/weights-may-not-fit @awq-one-l4",
        ],
        "values-parallel.yaml": [
            "11:9 error vllm/attention-heads-not-divisible @tensor-parallel",
            "11:9 info vllm/tensor-parallel-above-kv-heads @tensor-parallel",
            "23:13 error vllm/batched-tokens-below-max-model-len @v0-engine",
            "37:9 warning vllm/decode-batches-without-cuda-graphs @many-seqs-l4",
            "37:9 error vllm/max-num-seqs-above-batched-tokens @many-seqs-l4",
            "51:9 warning vllm/decode-batches-without-cuda-graphs @h100-seqs",
            "63:9 warning vllm/decode-batches-without-cuda-graphs @both-limits",
            "67:13 error vllm/max-num-seqs-above-batched-tokens @both-limits",
            "80:13 warning vllm/batched-tokens-above-seqs-times-len @wide-step",
            "89:9 info vllm/tensor-parallel-above-kv-heads @qwen-72b-tp16",
        ],
    },
}

SUMMARIES = {
    "manifests": "23 errors, 28 warnings, 2 info in 24 files",
    "shell": "21 errors, 27 warnings, 2 info in 22 files",
    "values": "17 errors, 24 warnings, 2 info in 24 files",
    "production-stack": "19 errors, 25 warnings, 2 info in 4 files",
}
# Rules that need a vLLM server: production-stack deploys nothing else.
VLLM_ONLY = ("vllm/", "vllm-kv/")
# Rules that judge the command line as written: values files are not command lines.
COMMAND_LINE_ONLY = ("vllm/flag-not-accepted", "vllm/flag-not-accepted-version-unknown")


def _lines(form: str) -> list[str]:
    return [
        _line(name, finding) for name, items in sorted(FINDINGS[form].items()) for finding in items
    ]


def _line(name: str, finding: str) -> str:
    where, severity, rule, workload = finding.split(" ")
    return f"{name}:{where}: {severity} {rule} {MESSAGES[(workload[1:], rule)]}"


def _fired(form: str) -> set[tuple[str, str]]:
    """(workload, rule) of every finding of a form."""
    return {
        (f.split(" ")[3][1:], f.split(" ")[2]) for items in FINDINGS[form].values() for f in items
    }


@pytest.mark.parametrize("form", FORMS)
def test_every_finding_of_each_input_form(run_line: RunLine, form: str) -> None:
    result = run_line(["lint", *POLICIES, str(FIXTURES / form)])
    prefix = f"{FIXTURES / form}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        *_lines(form),
        SUMMARIES[form],
    ]
    assert result.exit_code == 1


def test_every_rule_fires_in_every_input_form() -> None:
    rules = {rule.id for policy in _policies() for rule in policy.rules}
    for form in FORMS:
        fired = {rule for _, rule in _fired(form)}
        expected = {r for r in rules if form != "production-stack" or r.startswith(VLLM_ONLY)}
        if form == "values":  # no profile or template shows extraArgs reaching vLLM
            expected -= set(COMMAND_LINE_ONLY)
        assert expected - fired == set(), form


def test_inputs_within_the_limits_draw_no_finding(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, str(FIXTURES / "clean")])
    assert (result.exit_code, report_lines(result.output)) == (
        0,
        ["0 errors, 0 warnings, 0 info in 11 files"],
    )


TWINS = {  # the error rule → its warning twin for what the input cannot prove
    "vllm/batched-tokens-below-max-model-len": "vllm/batched-tokens-below-max-model-len-version-unknown",
    "vllm/max-num-seqs-above-batched-tokens": "vllm/max-num-seqs-may-exceed-batched-tokens",
    "vllm/bool-flag-with-value": "vllm/bool-flag-with-value-version-unknown",
    "vllm/gpu-memory-utilization-out-of-range": "vllm/gpu-memory-utilization-not-positive",
    "vllm/gpu-memory-utilization-whole-gpu": "vllm/gpu-memory-utilization-no-headroom",
    "vllm/block-size-invalid": "vllm/block-size-unsupported",
    "vllm/flag-not-accepted": "vllm/flag-not-accepted-version-unknown",
    "vllm/cudagraph-capture-size-mismatch": "vllm/cudagraph-capture-size-may-mismatch",
    "vllm/kv-cache-dtype-invalid": "vllm/kv-cache-dtype-may-be-invalid",
    "vllm-kv/weights-do-not-fit": "vllm-kv/weights-may-not-fit",
    "vllm-kv/one-sequence-does-not-fit": "vllm-kv/one-sequence-may-not-fit",
    "sglang-kv/weights-exceed-mem-fraction-static": "sglang-kv/weights-may-exceed-mem-fraction-static",
    "tgi-kv/max-total-tokens-does-not-fit": "tgi-kv/max-total-tokens-may-not-fit",
}


def test_a_rule_and_its_twin_never_fire_on_the_same_workload() -> None:
    for form in FORMS:
        seen = _fired(form)
        assert [
            (workload, rule) for workload, rule in seen if (workload, TWINS.get(rule)) in seen
        ] == [], form


def test_rules_cite_sources_and_explain_themselves() -> None:
    for name in NAMES:
        policy = yaml.safe_load((ROOT / "policies" / f"{name}.yaml").read_text())
        for rule in policy["spec"]["rules"]:
            where = f"{name}/{rule['id']}"
            assert rule["title"] and rule["description"] and rule["fix"], where
            # An id of capitals, a dash and three digits names no page a user could open.
            assert re.search(r"\b[A-Z]{2,6}-[0-9]{3}\b", rule["description"]) is None, where
            # A pinned source (a file at a tag with its lines, a pull request or an issue) or
            # a documentation page, as a link.
            assert rule["references"] and all(
                r.startswith("https://") for r in rule["references"]
            ), where


def test_errors_are_only_the_certain_failures() -> None:
    """Severity is a promise: the error rules are the failures the input proves, each with
    a warning twin for the cases it cannot prove (vllm/attention-heads-not-divisible has
    none: it needs only the model's architecture, which a preset states)."""
    errors = {
        rule.id for policy in _policies() for rule in policy.rules if rule.severity.name == "ERROR"
    }
    assert errors == {*TWINS, "vllm/attention-heads-not-divisible"}
    warnings = {
        rule.id
        for policy in _policies()
        for rule in policy.rules
        if rule.severity.name == "WARNING"
    }
    assert set(TWINS.values()) <= warnings


def test_world_size_above_gpus_is_reported_by_the_gpu_policy_only() -> None:
    # vLLM's world-size check is the GPU policy's rule: one finding, not two.
    owners = [
        rule.id for policy in load_policies() for rule in policy.rules if "world-size" in rule.id
    ]
    assert "gpu/world-size-above-gpus" in owners
    assert not any(o.startswith(("vllm/", "vllm-kv/")) for o in owners)


def test_scenario_one_a_values_change_is_stopped(run_line: RunLine) -> None:
    chart = FIXTURES / "scenario" / "charts" / "vllm"
    result = run_line(
        [
            "lint",
            "--no-config",
            "--chart",
            str(chart),
            "-f",
            str(chart / "values-prod.yaml"),
            "--no-render",
        ]
    )
    assert result.exit_code == 1
    assert (
        f"{chart}/values-prod.yaml:4:3: error vllm-kv/one-sequence-does-not-fit "
        f"{MESSAGES[('long-context', 'vllm-kv/one-sequence-does-not-fit')]}"
    ) in report_lines(result.output)
    explained = run_line(["explain", "vllm-kv/one-sequence-does-not-fit"])
    assert explained.exit_code == 0
    assert (
        "  https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/v1/core/kv_cache_planning.py#L50-L88"
        in explained.output.splitlines()
    )
    assert "vllm/v1/core/kv_cache_planning.py" in explained.output
    assert '"--max-model-len", "32768"' in explained.output


def test_scenario_four_an_honest_exception(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(FIXTURES / "scenario")
    result = run_line(
        ["lint", "--no-config", "--today", "2026-11-30", "--format", "json", "deploy"]
    )
    findings = [
        f for f in json.loads(result.output)["findings"] if f["rule"] == "vllm/enforce-eager"
    ]
    assert [(f["line"], f["severity"], f["suppressed"], f["suppression"]) for f in findings] == [
        (
            14,
            "warning",
            True,
            {"reason": "profiling INC-2231", "until": "2026-12-31", "source": "inline"},
        )
    ]
    after = run_line(["lint", "--no-config", "--today", "2027-01-01", "--format", "json", "deploy"])
    assert [
        f["suppressed"]
        for f in json.loads(after.output)["findings"]
        if f["rule"] == "vllm/enforce-eager"
    ] == [False]


def _policies() -> list[Any]:
    return load_policies([str(ROOT / "policies" / f"{name}.yaml") for name in NAMES], builtin=False)
