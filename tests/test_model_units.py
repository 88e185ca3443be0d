"""Serving model building blocks: units, images, the settings registry, argument and shell
parsing, the QoS algorithm, hooks, GPUs and presets."""

from __future__ import annotations

import pytest

from linter.model.engine import command, images, registry
from linter.model.engine.args import Token, parse_args
from linter.model.engine.settings import ModelSettings
from linter.model.facts import gpus, presets, quantities
from linter.model.records import resources
from linter.model.records.probes import sleep_seconds
from linter.positions import Origin

HERE = Origin("test.yaml", 1, 1)


@pytest.mark.parametrize(
    ("text", "cores"),
    [
        ("500m", 0.5),
        ("2", 2.0),
        (4, 4.0),
        ("1.5", 1.5),
        ("4000m", 4.0),
        ("1e3", 1000.0),
    ],
)
def test_cpu_cores(text: object, cores: float) -> None:
    assert quantities.cpu_cores(text) == cores


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("16Gi", 16 * 2**30),
        ("1G", 10**9),
        ("512Mi", 512 * 2**20),
        ("128974848", 128974848),
        ("129e6", 129_000_000),
        ("1.5Gi", 3 * 2**29),
        ("100m", 1),
        (2048, 2048),
    ],
)
def test_memory_bytes(text: object, size: int) -> None:
    assert quantities.memory_bytes(text) == size


@pytest.mark.parametrize("text", ["16GB", "lots", "", None, True, "1.2.3", "Gi"])
def test_unreadable_quantities(text: object) -> None:
    assert quantities.memory_bytes(text) is None


def test_quantity_is_exact_for_gpu_counts() -> None:
    assert quantities.plain_number(quantities.parse_quantity("1000m")) == 1
    assert quantities.plain_number(quantities.parse_quantity("500m")) == 0.5
    assert quantities.plain_number(quantities.parse_quantity("2.0")) == 2


@pytest.mark.parametrize(
    ("text", "unit", "ms"),
    [
        ("30s", 1.0, 30000),
        ("5m", 1.0, 300000),
        ("2h", 1.0, 7200000),
        ("1h30m", 1.0, 5400000),
        ("500ms", 1.0, 500),
        ("1.5s", 1.0, 1500),
        ("20", 1.0, 20),
        (20, 1000.0, 20000),
        ("100us", 1.0, 0.1),
    ],
)
def test_duration_ms(text: object, unit: float, ms: float) -> None:
    assert quantities.duration_ms(text, unit) == ms


@pytest.mark.parametrize("text", ["soon", "5 minutes", "1h 30m", "", None, "m5"])
def test_unreadable_durations(text: object) -> None:
    assert quantities.duration_ms(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("32k", 32000),
        ("32K", 32768),
        ("1.5k", 1500),
        ("1m", 1000000),
        ("1M", 2**20),
        ("4096", 4096),
        (8192, 8192),
        ("1.5K", None),
        ("32kb", None),
        ("auto", None),
    ],
)
def test_human_int(text: object, value: int | None) -> None:
    assert quantities.human_int(text) == value


@pytest.mark.parametrize(
    ("image", "server", "version", "pinned"),
    [
        ("vllm/vllm-openai:v0.11.0", "vllm", "0.11.0", True),
        ("docker.io/vllm/vllm-openai:0.9.2", "vllm", "0.9.2", True),
        ("vllm/vllm-openai:latest", "vllm", "", False),
        ("vllm/vllm-openai:nightly-2025", "vllm", "", False),
        ("vllm/vllm-openai@sha256:abc", "vllm", "", False),
        ("vllm/vllm-openai", "vllm", "", False),
        ("lmcache/vllm-openai:2025-05-05-v1", "vllm", "", False),
        ("ghcr.io/huggingface/text-generation-inference:3.3.6", "tgi", "3.3.6", True),
        ("ghcr.io/huggingface/text-generation-inference:2.4.0-intel-cpu", "tgi", "2.4.0", True),
        ("ghcr.io/huggingface/text-generation-inference:sha-4d28897", "tgi", "", False),
        ("lmsysorg/sglang:v0.5.6.post2", "sglang", "0.5.6.post2", True),
        ("nvcr.io/nvidia/tritonserver:24.08-py3", "triton", "24.08", True),
        ("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", "trtllm", "24.08", True),
        ("ghcr.io/llm-d/llm-d-cuda:v0.5.0", "", "", False),
        ("vllm/vllm-openai:{{ .Values.tag }}", "vllm", "", False),
        ("busybox:1.36", "", "", False),
        # A family's request router is not its server.
        ("lmsysorg/sglang-router:v0.2.4", "", "", False),
        ("lmcache/vllm-router:v0.1.7", "", "", False),
        ("ghcr.io/llm-d/llm-d-inference-gateway:v0.2.0", "", "", False),
        ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.4.1", "", "", False),
    ],
)
def test_parse_image(image: str, server: str, version: str, pinned: bool) -> None:
    info = images.parse_image(image)
    assert (info.server, info.version, info.pinned) == (server, version, pinned)


@pytest.mark.parametrize(
    ("image", "build_date"),
    [
        ("lmcache/vllm-openai:2025-04-18", "2025-04-18"),
        ("lmcache/vllm-openai:2025-05-05-v1", "2025-05-05"),
        ("my/vllm-build:nightly-20250418", "2025-04-18"),
        ("vllm/vllm-openai:v0.11.0", ""),  # a release, not a date
        ("vllm/vllm-openai:nightly-2025", ""),  # a year is no day
        ("lmcache/vllm-openai:2025-13-01", ""),  # no month 13
        ("busybox:2025-04-18", ""),  # not a server image
    ],
)
def test_build_date_of_an_image(image: str, build_date: str) -> None:
    assert images.parse_image(image).build_date == build_date


def test_version_tuple() -> None:
    assert images.version_tuple("0.5.6.post2") == (0, 5, 6, 2)
    assert images.version_tuple("24.08") == (24, 8)
    assert images.version_tuple("") == ()
    # A release candidate leads to its release: never equal to 0.10.1.1.
    assert images.version_tuple("0.10.1rc1") == (0, 10, 1)
    assert images.version_tuple("0.10.1.1") == (0, 10, 1, 1)


@pytest.mark.parametrize(
    ("image", "version", "prerelease"),
    [
        ("vllm/vllm-openai:v0.10.1.1", "0.10.1.1", False),  # four parts
        ("vllm/vllm-openai:v0.9.0.1-cu128", "0.9.0.1", False),
        ("vllm/vllm-openai:v0.10.1rc1", "0.10.1rc1", True),
        ("lmsysorg/sglang:v0.5.6.post2", "0.5.6.post2", False),
        ("vllm/vllm-openai:v0.10.1.1.1", "", False),  # five parts is no release
    ],
)
def test_release_tags(image: str, version: str, prerelease: bool) -> None:
    info = images.parse_image(image)
    assert (info.version, info.pinned) == (version, bool(version))
    assert images.is_prerelease(info.version) is prerelease


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("maxModelLen", "max_model_len"),
        ("max-model-len", "max_model_len"),
        ("MAX_MODEL_LEN", "max_model_len"),
        ("--gpu_memory_utilization", "gpu_memory_utilization"),
    ],
)
def test_snake_key(key: str, name: str) -> None:
    assert registry.snake_key(key) == name


def test_registry_aliases_and_units() -> None:
    assert registry.by_flag("vllm", "-tp").name == "tensor_parallel_size"
    assert registry.by_flag("sglang", "--tp").name == "tp_size"
    assert registry.by_env("tgi", "MAX_TOTAL_TOKENS").name == "max_total_tokens"
    assert registry.by_name("vllm", "swap_space").unit == "GiB"
    assert registry.by_name("triton", "grpc_keepalive_time").unit == "ms"
    assert registry.by_key("sglang", "memFractionStatic").name == "mem_fraction_static"
    assert registry.by_flag("vllm", "--unknown-flag") is None


def _tokens(*texts: str) -> list[Token]:
    return [Token(text, Origin("f.yaml", line, 3)) for line, text in enumerate(texts, 1)]


def test_parse_args_every_form() -> None:
    parsed = parse_args(
        "vllm",
        _tokens(
            "meta-llama/Llama-3.1-8B",
            "--max-model-len=32K",
            "-tp",
            "4",
            "--max_num_seqs",
            "8",
            "--no-enable-prefix-caching",
            "--enforce-eager=False",
            "--enable-chunked-prefill",
            "true",
            "-cc",
            '{"cudagraph_capture_sizes": [1, 2]}',
            "-cc.cudagraph_mode=FULL",
            "--cudagraph-capture-sizes",
            "1",
            "2",
            "4",
            "--some-new-flag",
            "x",
            "--trust-remote-code",
        ),
    )
    flags = {f.flag: (f.raw, f.value, f.inline_bool, f.origin.line) for f in parsed.flags}
    assert flags == {
        "--max-model-len": ("32K", 32768, None, 2),
        "--tensor-parallel-size": ("4", 4, None, 4),
        "--max-num-seqs": ("8", 8, None, 6),
        "--no-enable-prefix-caching": ("true", False, None, 7),
        "--enforce-eager": ("False", False, "--enforce-eager=False", 8),
        "--enable-chunked-prefill": ("true", True, "--enable-chunked-prefill true", 9),
        "--compilation-config": (
            '{"cudagraph_capture_sizes": [1, 2]}',
            {"cudagraph_capture_sizes": [1, 2]},
            None,
            12,
        ),
        "--compilation-config.cudagraph_mode": ("FULL", "FULL", None, 13),
        "--cudagraph-capture-sizes": ("1 2 4", [1, 2, 4], None, 15),
        "--some-new-flag": ("x", "x", None, 19),
        "--trust-remote-code": ("true", True, None, 20),
    }
    assert [t.text for t in parsed.positionals] == ["meta-llama/Llama-3.1-8B"]


def test_parse_args_tgi_valued_boolean_and_csv() -> None:
    parsed = parse_args("tgi", _tokens("--sharded", "false", "--cuda-graphs", "1,2,4"))
    assert [(f.flag, f.value) for f in parsed.flags] == [
        ("--sharded", False),
        ("--cuda-graphs", [1, 2, 4]),
    ]


def test_shell_script_finds_the_server_command() -> None:
    script = (
        "set -e\n# comment with 'quote\nmkdir -p /x && cd /x\n"
        "START=$(( ${INDEX:-0} * 8 ))\n"
        "NCCL_DEBUG=WARN exec python3 -u -m vllm.entrypoints.openai.api_server \\\n"
        "  --model $MODEL --port=${PORT:-8000} > /tmp/log 2>&1 &\nwait\n"
    )
    call = command.invocation(
        [Token("sh", HERE), Token("-c", HERE), Token(script, HERE)], [], "", {"MODEL": "m"}
    )
    assert (call.server, call.entrypoint, call.script) == (
        "vllm",
        "vllm.entrypoints.openai.api_server",
        True,
    )
    assert [t.text for t in call.args] == ["--model", "m", "--port=8000"]
    assert {k: v.text for k, v in call.env.items()} == {"NCCL_DEBUG": "WARN"}


def test_args_alone_feed_the_image_entrypoint_and_k8s_vars_expand() -> None:
    call = command.invocation(
        [], [Token("--model=$(NAME)", HERE), Token("$$(x)", HERE)], "vllm", {"NAME": "qwen"}
    )
    assert (call.server, call.entrypoint, [t.text for t in call.args]) == (
        "vllm",
        "image",
        ["--model=qwen", "$(x)"],
    )


@pytest.mark.parametrize(
    ("argv", "server", "entry"),
    [
        (["vllm", "serve", "m"], "vllm", "vllm serve"),
        (["/opt/venv/bin/vllm", "serve", "m"], "vllm", "vllm serve"),
        (["text-generation-launcher", "--port", "80"], "tgi", "text-generation-launcher"),
        (["python", "-m", "sglang.launch_server"], "sglang", "sglang.launch_server"),
        (["sglang", "serve", "--model-path", "m"], "sglang", "sglang serve"),
        (
            ["mpirun", "-np", "2", "tritonserver", "--model-repository=/m", ":", "-np", "1"],
            "triton",
            "tritonserver",
        ),
        (["bash", "/start.sh"], "", ""),
    ],
)
def test_server_recognition(argv: list[str], server: str, entry: str) -> None:
    call = command.invocation([Token(a, HERE) for a in argv], [], "", {})
    assert (call.server, call.entrypoint) == (server, entry)


def test_unbalanced_quotes_do_not_break_the_shell_split() -> None:
    commands = command.split_script('vllm serve m --served-model-name "{{ .Name }', HERE, {})
    assert [t.text for t in commands[0]][:3] == ["vllm", "serve", "m"]


def _res(
    requests: dict[str, object] | None = None, limits: dict[str, object] | None = None
) -> dict[str, object]:
    out: dict[str, object] = {}
    if requests is not None:
        out["requests"] = requests
    if limits is not None:
        out["limits"] = limits
    return out


@pytest.mark.parametrize(
    ("containers", "pod", "qos"),
    [
        ([_res(limits={"nvidia.com/gpu": 1})], None, "BestEffort"),
        ([_res()], None, "BestEffort"),
        ([_res(limits={"cpu": "2", "memory": "4Gi"})], None, "Guaranteed"),
        (
            [_res({"cpu": "2", "memory": "4Gi"}, {"cpu": "2000m", "memory": "4096Mi"})],
            None,
            "Guaranteed",
        ),
        ([_res({"cpu": "1", "memory": "4Gi"}, {"cpu": "2", "memory": "4Gi"})], None, "Burstable"),
        ([_res({"cpu": "1"})], None, "Burstable"),
        # An init container without limits makes the whole pod Burstable.
        ([_res(limits={"cpu": "2", "memory": "4Gi"}), _res()], None, "Burstable"),
        ([_res(limits={"cpu": "2", "memory": "4Gi"}), _res({"cpu": "100m"})], None, "Burstable"),
        (
            [
                _res(limits={"cpu": "2", "memory": "4Gi"}),
                _res(limits={"cpu": "1", "memory": "1Gi"}),
            ],
            None,
            "Guaranteed",
        ),
        ([_res({"cpu": "0"}, {"cpu": "0"})], None, "BestEffort"),
        ([_res()], {"limits": {"cpu": "4", "memory": "8Gi"}}, "Guaranteed"),
    ],
)
def test_qos_class(containers: list[object], pod: object, qos: str) -> None:
    assert resources.qos_class(containers, pod) == qos


def test_normalised_resources_keep_invalid_quantities_apart() -> None:
    assert resources.normalise(
        {
            "requests": {"cpu": "500m", "memory": "1Gi"},
            "limits": {"nvidia.com/gpu": "500m", "memory": "lots"},
        }
    ) == {
        "requests": {"cpu": 0.5, "memory": 2**30},
        "limits": {"nvidia.com/gpu": 0.5},
        "invalid": [{"section": "limits", "name": "memory", "value": "lots"}],
    }


@pytest.mark.parametrize(
    ("hook", "seconds"),
    [
        (["sleep", "30"], 30),
        (["/bin/sh", "-c", "sleep 10 && kill 1"], 10),
        (["sh", "-c", "sleep 5; sleep 1m"], 65),
        (["sh", "-c", "while true; do sleep 1; done"], None),
        (["sh", "-c", "curl -X POST localhost/drain"], None),
        (["sleep", "$T"], None),
    ],
)
def test_pre_stop_sleep_seconds(hook: list[str], seconds: float | None) -> None:
    assert sleep_seconds(hook) == seconds


@pytest.mark.parametrize(
    ("name", "product", "mib", "p2p"),
    [
        ("NVIDIA-L4", "NVIDIA-L4", 23034, False),
        ("nvidia-l4", "NVIDIA-L4", 23034, False),
        ("nvidia-tesla-t4", "Tesla-T4", 15360, False),
        ("a10g", "NVIDIA-A10G", 23028, False),
        ("NVIDIA-A100-SXM4-80GB-SHARED", "NVIDIA-A100-SXM4-80GB", 81920, True),
        ("nvidia-h100-80gb", "NVIDIA-H100-80GB-HBM3", 81559, True),
    ],
)
def test_gpu_products(name: str, product: str, mib: int, p2p: bool) -> None:
    found = gpus.product(name)
    assert found is not None
    assert (found.name, found.memory_mib, found.peer_to_peer) == (product, mib, p2p)


def test_gpu_facts_from_affinity_mig_and_settings() -> None:
    spec = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "nvidia.com/gpu.product",
                                    "operator": "In",
                                    "values": ["NVIDIA-A10G", "NVIDIA-A10"],
                                }
                            ]
                        }
                    ]
                }
            }
        }
    }
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 1}}, ModelSettings())
    assert facts == {
        "resource": "nvidia.com/gpu",
        "limits": 1,
        "count": 1,
        "platform": "cuda",
        "candidates": ["NVIDIA-A10G", "NVIDIA-A10"],
        "memory_bytes": 23028 * 2**20,
        "peer_to_peer": False,
    }
    mig = gpus.gpu_facts({}, {"limits": {"nvidia.com/mig-3g.40gb": 1}}, ModelSettings())
    assert (mig["memory_bytes"], mig["mig"]) == (40 * 2**30, True)
    told = gpus.gpu_facts({}, {}, ModelSettings(gpu_product="NVIDIA-H200"))
    assert (told["product"], told["product_source"]) == ("NVIDIA-H200", "settings")
    sized = gpus.gpu_facts({}, {}, ModelSettings(gpu_memory_bytes=10**10))
    assert (sized["memory_bytes"], sized["memory_source"]) == (10**10, "settings")


@pytest.mark.parametrize(
    ("model_id", "preset"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"),
        ("/models/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"),
        ("hf://meta-llama/llama-3.1-70b-instruct", "meta-llama/Llama-3.1-70B"),
        ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "meta-llama/Llama-3.1-70B"),
        ("Qwen/Qwen2.5-7B-Instruct-AWQ", "Qwen/Qwen2.5-7B-Instruct"),
        ("google/gemma-2-9b-it", "google/gemma-2-9b"),
        ("meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B"),
    ],
)
def test_preset_matching(model_id: str, preset: str) -> None:
    found = presets.find_preset(model_id, ModelSettings())
    assert found is not None and found.key == preset


def test_unknown_models_have_no_preset() -> None:
    assert presets.find_preset("internlm/internlm2_5-20b-chat", ModelSettings()) is None
    assert presets.model_facts("x/unknown", {}, ModelSettings()) == {
        "id": "x/unknown",
        "known": False,
    }


def test_every_exact_preset_parameter_count_matches_its_architecture() -> None:
    table = presets.packaged_catalogue().by_key
    exact = [p for p in {p.key: p for p in table.values()}.values() if p.parameters_exact]
    assert len(exact) > 40
    for preset in exact:
        assert presets.estimate_parameters(preset.config) == preset.parameters, preset.key


def test_weight_bytes_by_dtype_and_quantisation() -> None:
    settings = ModelSettings()
    bf16 = presets.model_facts("meta-llama/Llama-3.1-8B-Instruct", {}, settings)
    assert (bf16["weight_bytes"], bf16["weight_bytes_exact"]) == (16060522496, True)
    fp8 = presets.model_facts("meta-llama/Llama-3.1-8B-Instruct", {"quantization": "fp8"}, settings)
    assert (fp8["weight_bytes"], fp8["weight_bytes_exact"]) == (8030261248, False)
    nf4 = presets.model_facts(
        "meta-llama/Meta-Llama-3-70B-Instruct", {"quantize": "bitsandbytes-nf4"}, settings
    )
    assert (nf4["weight_bytes"], nf4["weight_bytes_exact"]) == (35276853248, False)
    awq = presets.model_facts("Qwen/Qwen2.5-7B-Instruct-AWQ", {}, settings)
    assert (awq["weight_bytes"], awq["weight_bytes_exact"]) == (3807808256, False)


def test_tokens_of_a_literal_block_get_their_own_lines() -> None:
    script = "# start: it's m\nvllm serve m \\\n  --tp 2 \\\n  --max-model-len 4096 # ctx\n"
    [cmd] = command.split_script(script, Origin("f.yaml", 7, 9), {}, block=(8, 12))
    assert [(t.text, t.origin.line, t.origin.column) for t in cmd] == [
        ("vllm", 9, 13),
        ("serve", 9, 18),
        ("m", 9, 24),
        ("--tp", 10, 15),
        ("2", 10, 20),
        ("--max-model-len", 11, 15),
        ("4096", 11, 31),
    ]
