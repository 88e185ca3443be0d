"""Seeded benchmark inputs: Helm values files and manifests shaped like real charts.

Nothing here is committed as data: every script generates its inputs into a temporary
folder from a fixed seed, so two runs (and two machines) lint the same bytes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# (Hugging Face model id, GPUs it is usually given, a sensible max_model_len)
MODELS = [
    ("meta-llama/Llama-3.1-8B-Instruct", 1, 8192),
    ("mistralai/Mistral-7B-Instruct-v0.3", 1, 16384),
    ("Qwen/Qwen2.5-7B-Instruct", 1, 16384),
    ("Qwen/Qwen2.5-14B-Instruct", 2, 8192),
    ("meta-llama/Llama-3.1-70B-Instruct", 4, 16384),
    ("google/gemma-2-9b-it", 1, 4096),
    ("microsoft/Phi-3-mini-4k-instruct", 1, 4096),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", 4, 8192),
]
GPUS = ["NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA-L4", "NVIDIA-L40S"]
TAGS = ["v0.6.4", "v0.8.5", "v0.10.1", "v0.11.0"]


def values_file(rng: random.Random, models: int) -> str:
    """A vLLM production-stack style values file: ``servingEngineSpec.modelSpec[]`` with
    ``models`` entries (about 60 lines each), router, probes, tolerations and comments."""
    lines = [
        "# Production values for the inference platform (generated for benchmarks).",
        "servingEngineSpec:",
        "  enableEngine: true",
        '  runtimeClassName: "nvidia"',
        "  labels:",
        "    environment: production",
        "    team: ml-platform",
        "  # -- one Deployment per entry",
        "  modelSpec:",
    ]
    for index in range(models):
        lines += _model_spec(rng, index)
    lines += [
        "  containerPort: 8000",
        "  servicePort: 80",
        "  configs: {}",
        "  strategy:",
        "    type: RollingUpdate",
        "    rollingUpdate:",
        "      maxSurge: 1",
        "      maxUnavailable: 0",
    ]
    for probe, delay, period, failures in (
        ("startupProbe", 15, 10, 60),
        ("livenessProbe", 15, 10, 3),
        ("readinessProbe", 15, 5, 3),
    ):
        lines += [
            f"  {probe}:",
            f"    initialDelaySeconds: {delay}",
            f"    periodSeconds: {period}",
            f"    failureThreshold: {failures}",
            "    httpGet:",
            "      path: /health",
            "      port: 8000",
        ]
    lines += [
        "  tolerations:",
        "    - key: nvidia.com/gpu",
        "      operator: Exists",
        "      effect: NoSchedule",
        "routerSpec:",
        "  enableRouter: true",
        '  repository: "lmcache/lmstack-router"',
        '  tag: "latest"',
        "  replicaCount: 2",
        "  routingLogic: roundrobin",
        "  sessionKey: x-user-id",
        "  resources:",
        "    requests:",
        '      cpu: "2"',
        '      memory: "4Gi"',
        "    limits:",
        '      cpu: "4"',
        '      memory: "8Gi"',
        "  ingress:",
        "    enabled: true",
        "    className: nginx",
        "    hosts:",
        "      - host: llm.internal.example.com",
        "        paths:",
        "          - path: /",
        "            pathType: Prefix",
        "cacheserverSpec:",
        "  replicaCount: 1",
        "  containerPort: 8080",
        '  repository: "lmcache/vllm-openai"',
        '  tag: "latest-lmcache"',
    ]
    return "\n".join(lines) + "\n"


def _model_spec(rng: random.Random, index: int) -> list[str]:
    model, gpus, max_len = MODELS[rng.randrange(len(MODELS))]
    name = model.split("/")[1].lower().replace(".", "-")[:30] + f"-{index}"
    memory = 16 * gpus + 16 * rng.randrange(3)
    lines = [
        f'  - name: "{name}"',
        '    repository: "vllm/vllm-openai"',
        f'    tag: "{rng.choice(TAGS)}"',
        f'    modelURL: "{model}"',
        f"    replicaCount: {rng.choice((1, 2, 3))}",
        f"    requestCPU: {4 * gpus + rng.randrange(4)}",
        f'    requestMemory: "{memory}Gi"',
        f"    requestGPU: {gpus}",
        f'    limitCPU: "{8 * gpus}"',
        f'    limitMemory: "{memory * 2}Gi"',
        f'    pvcStorage: "{rng.choice((50, 100, 200))}Gi"',
        "    pvcAccessMode:",
        "      - ReadWriteOnce",
        "    vllmConfig:",
        "      enablePrefixCaching: true",
        "      enableChunkedPrefill: true",
        f"      maxModelLen: {max_len}",
        f"      maxNumSeqs: {rng.choice((64, 128, 256))}",
        f"      gpuMemoryUtilization: {rng.choice((0.85, 0.9, 0.92))}",
        '      dtype: "bfloat16"',
    ]
    if gpus > 1:
        lines.append(f"      tensorParallelSize: {gpus}")
    lines += [
        "      extraArgs:",
        '        - "--disable-log-requests"',
        '        - "--swap-space"',
        f'        - "{rng.choice((4, 8, 16))}"',
        "    lmcacheConfig:",
        "      enabled: false",
        '      cpuOffloadingBufferSize: "20"',
        "    env:",
        "      - name: VLLM_LOGGING_LEVEL",
        "        value: INFO",
        "      - name: HF_HUB_ENABLE_HF_TRANSFER",
        '        value: "1"',
        "      - name: HF_TOKEN",
        "        valueFrom:",
        "          secretKeyRef:",
        "            name: hf-token",
        "            key: token",
        "    nodeSelectorTerms:",
        "      - matchExpressions:",
        "          - key: nvidia.com/gpu.product",
        "            operator: In",
        "            values:",
        f'              - "{rng.choice(GPUS)}"',
        "    extraVolumes:",
        "      - name: model-cache",
        "        persistentVolumeClaim:",
        f"          claimName: cache-{name}",
        "    extraVolumeMounts:",
        "      - name: model-cache",
        "        mountPath: /root/.cache/huggingface",
        "    podAnnotations:",
        '      prometheus.io/scrape: "true"',
        '      prometheus.io/port: "8000"',
        "    podLabels:",
        f"      model: {name}",
        "",
    ]
    return lines


def deployment(rng: random.Random, index: int) -> str:
    """A rendered vLLM, TGI or SGLang Deployment with its Service (two documents)."""
    model, gpus, max_len = MODELS[rng.randrange(len(MODELS))]
    engine = rng.choice(("vllm", "tgi", "sglang"))
    name = f"{engine}-{index}"
    if engine == "vllm":
        image = f"vllm/vllm-openai:{rng.choice(TAGS)}"
        command: list[str] = []
        args = [
            "--model",
            model,
            "--max-model-len",
            str(max_len),
            "--tensor-parallel-size",
            str(gpus),
            "--gpu-memory-utilization",
            "0.9",
            "--max-num-seqs",
            str(rng.choice((64, 128, 256))),
        ]
        port = 8000
    elif engine == "tgi":
        image = "ghcr.io/huggingface/text-generation-inference:3.0.1"
        command = []
        args = [
            "--model-id",
            model,
            "--max-total-tokens",
            str(max_len),
            "--max-input-tokens",
            str(max_len // 2),
            "--num-shard",
            str(gpus),
        ]
        port = 80
    else:
        image = "lmsysorg/sglang:v0.4.6-cu124"
        command = ["python3", "-m", "sglang.launch_server"]
        args = [
            "--model-path",
            model,
            "--context-length",
            str(max_len),
            "--tp",
            str(gpus),
            "--mem-fraction-static",
            "0.85",
            "--host",
            "0.0.0.0",
            "--port",
            "30000",
        ]
        port = 30000
    memory = 24 * gpus
    doc = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name, "engine": engine}},
        "spec": {
            "replicas": rng.choice((1, 2)),
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "nodeSelector": {"nvidia.com/gpu.product": rng.choice(GPUS)},
                    "containers": [
                        {
                            "name": engine,
                            "image": image,
                            **({"command": command} if command else {}),
                            "args": args,
                            "ports": [{"containerPort": port, "name": "http"}],
                            "env": [
                                {
                                    "name": "HF_TOKEN",
                                    "valueFrom": {
                                        "secretKeyRef": {"name": "hf-token", "key": "token"}
                                    },
                                }
                            ],
                            "resources": {
                                "requests": {
                                    "cpu": str(4 * gpus),
                                    "memory": f"{memory}Gi",
                                    "nvidia.com/gpu": gpus,
                                },
                                "limits": {
                                    "cpu": str(8 * gpus),
                                    "memory": f"{memory * 2}Gi",
                                    "nvidia.com/gpu": gpus,
                                },
                            },
                            "readinessProbe": {
                                "httpGet": {"path": "/health", "port": port},
                                "periodSeconds": 5,
                            },
                            "livenessProbe": {
                                "httpGet": {"path": "/health", "port": port},
                                "initialDelaySeconds": 300,
                                "periodSeconds": 10,
                            },
                            "volumeMounts": [
                                {"name": "shm", "mountPath": "/dev/shm"},
                                {"name": "cache", "mountPath": "/data"},
                            ],
                        }
                    ],
                    "volumes": [
                        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
                        {"name": "cache", "persistentVolumeClaim": {"claimName": f"{name}-cache"}},
                    ],
                },
            },
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": port}]},
    }
    return _yaml_stream([doc, service])


def _yaml_stream(documents: list[object]) -> str:
    import yaml

    return "---\n".join(yaml.safe_dump(d, sort_keys=False) for d in documents)


def configmap_json(rng: random.Random, index: int) -> str:
    """A server configuration kept as JSON (as mounted into a pod)."""
    model, gpus, max_len = MODELS[rng.randrange(len(MODELS))]
    return (
        json.dumps(
            {
                "model": model,
                "max_model_len": max_len,
                "tensor_parallel_size": gpus,
                "max_num_seqs": 128,
                "gpu_memory_utilization": 0.9,
                "enable_prefix_caching": True,
                "served_model_name": f"model-{index}",
            },
            indent=2,
        )
        + "\n"
    )


def hook_input(directory: Path, seed: int = 8) -> Path:
    """The hook benchmark's input: one production-stack values file of about 400 lines."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "values-prod.yaml"
    path.write_text(values_file(random.Random(seed), 6), encoding="utf-8")
    return path


def bulk_inputs(directory: Path, count: int = 1000, seed: int = 8) -> list[Path]:
    """``count`` files: values files of 1 to 6 models, two-document manifests and JSON
    server configs, in nested folders as a platform repository keeps them."""
    rng = random.Random(seed)
    paths = []
    for index in range(count):
        team = directory / f"team-{index % 10}" / f"app-{index % 37}"
        team.mkdir(parents=True, exist_ok=True)
        kind = rng.random()
        if kind < 0.45:
            path = team / f"values-{index}.yaml"
            path.write_text(values_file(rng, rng.randint(1, 6)), encoding="utf-8")
        elif kind < 0.9:
            path = team / f"deploy-{index}.yaml"
            path.write_text(deployment(rng, index), encoding="utf-8")
        else:
            path = team / f"server-{index}.json"
            path.write_text(configmap_json(rng, index), encoding="utf-8")
        paths.append(path)
    return paths
