"""Start-up logs of vLLM 0.11.0 pods, as the Pod log API serves them (``--source logs``).

The server is the one of ``tests/fixtures/drift/values.yaml`` with the production
overrides of ``values-prod.yaml`` (``vllm serve --config /etc/vllm/config.yaml``): Llama
3.1 8B, tensor parallel 2, 32K context, 256 sequences. The lines are those vLLM 0.11.0
prints (``vllm/entrypoints/utils.py`` ``log_non_default_args``, ``vllm/v1/engine/core.py``
``Initializing a V1 LLM engine``, ``vllm/config/scheduler.py``), in the container's
own log: no ``kubectl --timestamps``, no colour (no terminal), a process label on each line.
After the start-up come the lines of a server at work: access lines and the periodic
throughput line (``vllm/v1/metrics/loggers.py``).
"""

from __future__ import annotations

import random

API_KEY = "sk-committed0123456789abcdefghij"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
# The lines every pod prints the same way; {seqs} is the one setting a hot fix changes.
_NON_DEFAULT = (
    "non-default args: {{'config': '/etc/vllm/config.yaml', "
    f"'api_key': ['{API_KEY}'], 'model': '{MODEL}', 'max_model_len': 32768, "
    "'served_model_name': ['llama-8b', 'llama'], 'tensor_parallel_size': 2, "
    "'enable_prefix_caching': True, 'max_num_seqs': {seqs}}}"
)
_ENGINE = (
    f"Initializing a V1 LLM engine (v0.11.0) with config: model='{MODEL}', "
    f"speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, "
    "tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, "
    "dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, "
    "tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, "
    "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, "
    "kv_cache_dtype=auto, device_config=cuda, structured_outputs_config="
    "StructuredOutputsConfig(backend='auto', disable_fallback=False, "
    "disable_any_whitespace=False, disable_additional_properties=False, "
    "reasoning_parser=''), observability_config=ObservabilityConfig("
    "show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, "
    "collect_detailed_traces=None), seed=0, served_model_name=llama-8b, "
    "enable_prefix_caching=True, chunked_prefill_enabled=True, pooler_config=None, "
    'compilation_config={"level":3,"debug_dump_path":"","cache_dir":"","backend":"",'
    '"custom_ops":[],"splitting_ops":["vllm.unified_attention",'
    '"vllm.unified_attention_with_output"],"use_inductor":true,"compile_sizes":[],'
    '"inductor_compile_config":{"enable_auto_functionalized_v2":false},'
    '"inductor_passes":{},"cudagraph_mode":[2,1],"use_cudagraph":true,'
    '"cudagraph_num_of_warmups":1,"cudagraph_capture_sizes":[512,504,496,488,480,472,'
    "464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,"
    "296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,"
    '128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],"cudagraph_copy_inputs":'
    'false,"full_cuda_graph":false,"use_inductor_graph_partition":false,"pass_config":{},'
    '"max_capture_size":512,"local_cache_dir":null}'
)


def start_log(rng: random.Random, max_num_seqs: int) -> bytes:
    """One pod's log: its start-up (at a time of its own), then some minutes of serving."""
    hour, minute = rng.randrange(24), rng.randrange(50)
    second = rng.randrange(60)
    engine_pid, api = rng.randrange(200, 400), "(APIServer pid=1)"
    engine = f"(EngineCore_DP0 pid={engine_pid})"
    workers = [f"(Worker_TP{rank} pid={engine_pid + 70 + rank})" for rank in range(2)]

    def at(offset: int) -> str:
        total = minute * 60 + second + offset
        return f"10-21 {hour:02d}:{total // 60 % 60:02d}:{total % 60:02d}"

    lines = [
        f"{api} INFO {at(0)} [api_server.py:1839] vLLM API server version 0.11.0",
        f"{api} INFO {at(0)} [utils.py:233] " + _NON_DEFAULT.format(seqs=max_num_seqs),
        f"{api} INFO {at(7)} [model.py:547] Resolved architecture: LlamaForCausalLM",
        f"{api} INFO {at(7)} [model.py:1510] Using max model len 32768",
        f"{api} INFO {at(8)} [scheduler.py:205] Chunked prefill is enabled with "
        "max_num_batched_tokens=8192.",
        f"{engine} INFO {at(19)} [core.py:644] Waiting for init message from front-end.",
        f"{engine} INFO {at(19)} [core.py:77] {_ENGINE}",
    ]
    for rank, worker in enumerate(workers):
        lines.append(
            f"{worker} INFO {at(22)} [parallel_state.py:1208] rank {rank} in world size 2 is "
            f"assigned as DP rank 0, PP rank 0, TP rank {rank}, EP rank 0"
        )
    lines += [
        f"{worker} INFO {at(41)} [gpu_model_runner.py:2602] Model loading took 7.5123 GiB "
        "and 17.402683 seconds"
        for worker in workers
    ]
    tokens = rng.randrange(180_000, 230_000)
    lines += [
        f"{engine} INFO {at(58)} [kv_cache_utils.py:1087] GPU KV cache size: {tokens:,} tokens",
        f"{engine} INFO {at(58)} [kv_cache_utils.py:1091] Maximum concurrency for 32,768 "
        f"tokens per request: {tokens / 32768:.2f}x",
        f"{api} INFO {at(64)} [api_server.py:1634] Supported_tasks: ['generate']",
        f"{api} INFO {at(64)} [api_server.py:1912] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
        f"{api} INFO:     Started server process [1]",
        f"{api} INFO:     Waiting for application startup.",
        f"{api} INFO:     Application startup complete.",
    ]
    for index in range(rng.randrange(40, 200)):
        if index % 10 == 9:
            lines.append(
                f"{api} INFO {at(70 + index)} [loggers.py:127] Engine 000: Avg prompt "
                f"throughput: {rng.uniform(200, 4000):.1f} tokens/s, Avg generation "
                f"throughput: {rng.uniform(50, 900):.1f} tokens/s, Running: "
                f"{rng.randrange(1, max_num_seqs)} reqs, Waiting: 0 reqs, GPU KV cache "
                f"usage: {rng.uniform(1, 60):.1f}%, Prefix cache hit rate: "
                f"{rng.uniform(5, 80):.1f}%"
            )
        else:
            client = (
                f"10.4.{rng.randrange(256)}.{rng.randrange(1, 255)}:{rng.randrange(30000, 60000)}"
            )
            lines.append(f'{api} INFO:     {client} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
    return "".join(f"{line}\n" for line in lines).encode()
