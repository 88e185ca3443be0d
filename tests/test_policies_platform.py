"""The platform policies (GPU, /dev/shm, NCCL, QoS, cgroup memory, probes, shutdown, gRPC
keepalive), end to end: each folder of tests/fixtures/platform is linted with exactly these
policies (validated against the policy schema on the way, as user policies are) and the
output is compared line for line. Folders ending in ``_ok`` must stay clean."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from report_lines import report_lines

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "platform"
PLATFORM = [
    "gpu",
    "shm",
    "nccl",
    "kubernetes-qos",
    "kubernetes-memory",
    "probes",
    "shutdown",
    "grpc-keepalive",
]
POLICIES = [
    arg for name in PLATFORM for arg in ("--policy-dir", str(ROOT / "policies" / f"{name}.yaml"))
]
# The measured start-up time turns the probe warnings into errors.
CONFIGS = {"probes_measured": ["--config", str(FIXTURES / "configs" / "measured-load.yaml")]}

# folder → (exit code, findings with paths relative to the folder, summary line)
CASES: dict[str, tuple[int, list[str], str]] = {
    "compose": (
        0,
        [
            "docker-compose.yaml:9:9: info nccl/debug-logging NCCL_DEBUG=INFO logs debug "
            "information for every communicator; use WARN (or leave it unset) in production",
        ],
        "0 errors, 0 warnings, 1 info in 1 file",
    ),
    "gpu_cuda_visible": (
        1,
        [
            "deployment.yaml:13:91: warning shm/tensor-parallel-without-dev-shm "
            "tensor_parallel_size 2 without a memory-backed volume at /dev/shm: the container "
            "has the runtime's 64 MiB, which NCCL and the worker processes outgrow, usually "
            "under load (without peer-to-peer between the GPUs, NCCL fails at start-up); mount "
            "an emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:16:15: error gpu/cuda-visible-devices-hides-every-gpu "
            "CUDA_VISIBLE_DEVICES=2,3 starts with GPU 2, but the pod gets 2 nvidia.com/gpu, "
            "which its containers see as GPUs 0-1: CUDA stops at the first index that does not "
            "exist, so no GPU is visible and vLLM fails at start-up; number the GPUs from 0 "
            "inside the pod, or leave CUDA_VISIBLE_DEVICES unset",
            "deployment.yaml:35:15: warning gpu/cuda-visible-devices-beyond-pod-gpus "
            "CUDA_VISIBLE_DEVICES=0,1,4,2 names GPU 4, but the pod gets 4 nvidia.com/gpu, "
            "which its containers see as GPUs 0-3: CUDA stops at the first index that does not "
            "exist, so the server sees 2 GPU(s) instead of 4; number the GPUs from 0 inside "
            "the pod, or leave CUDA_VISIBLE_DEVICES unset",
        ],
        "1 error, 2 warnings, 0 info in 1 file",
    ),
    "gpu_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "gpu_tpu": (
        1,
        [
            "deployment.yaml:16:75: error gpu/tensor-parallel-above-tpu-slice "
            "tensor_parallel_size 8 × pipeline_parallel_size 2 needs 16 TPU chips, but the 2x4 "
            "slice of Google TPU v6e has 8: vLLM cannot place the shards and fails at start-up; "
            "choose a topology of 16 chips or lower the parallelism",
            "deployment.yaml:20:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only google.com/tpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory "
            "requests (and limits equal to them for Guaranteed)",
        ],
        "1 error, 1 warning, 0 info in 1 file",
    ),
    "gpu_neuron": (
        0,
        [
            "deployment.yaml:14:83: warning gpu/world-size-above-devices tensor_parallel_size 4 "
            "× pipeline_parallel_size 1 needs 4 NeuronCores, but the pod gets 2 (1 "
            "aws.amazon.com/neuron device of 2 cores): vLLM cannot give every rank a NeuronCore "
            "of its own and fails at start-up; give the pod 4 NeuronCores or lower the "
            "parallelism",
            "deployment.yaml:16:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only aws.amazon.com/neuron), so the pod is "
            "BestEffort: under node memory pressure the kubelet evicts it first; set cpu and "
            "memory requests (and limits equal to them for Guaranteed)",
        ],
        "0 errors, 2 warnings, 0 info in 1 file",
    ),
    "gpu_unrequested": (
        0,
        [
            "deployment.yaml:11:11: warning gpu/server-without-gpu container vllm runs a GPU "
            "build of vLLM but requests no GPU: on a node without one it fails to start, and on "
            "a GPU node with NVIDIA's default runtime it may take every GPU of the node "
            "unaccounted; request the GPUs it uses (nvidia.com/gpu)",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "gpu_parallel": (
        1,
        [
            "deployment.yaml:12:83: error gpu/world-size-above-gpus tensor_parallel_size 4 × "
            "pipeline_parallel_size 1 needs 4 GPUs, but the pod gets 1 (nvidia.com/gpu): the Ray "
            "placement group for 4 GPUs can never be placed; vLLM waits 1800 s (PG_WAIT_TIMEOUT) "
            "and then fails; give the pod 4 GPUs or lower the parallelism",
            # No /dev/shm warning for the 4 ranks: the pod holds one (one GPU); the error says
            # the rest.
            "deployment.yaml:14:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:29:18: warning shm/tensor-parallel-without-dev-shm "
            "tensor_parallel_size 2 without a memory-backed volume at /dev/shm: the container has"
            " the runtime's 64 MiB, which NCCL and the worker processes outgrow, usually under "
            "load (without peer-to-peer between the GPUs, NCCL fails at start-up); mount an "
            "emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:30:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:32:15: warning gpu/idle-gpus the pod gets 4 GPUs (nvidia.com/gpu) "
            "but vllm uses 2 (tensor × pipeline × data parallel): 2 GPUs stay allocated to the "
            "pod and idle",
            "deployment.yaml:44:83: warning shm/tensor-parallel-without-dev-shm "
            "tensor_parallel_size 4 without a memory-backed volume at /dev/shm: the container has"
            " the runtime's 64 MiB, which NCCL and the worker processes outgrow, usually under "
            "load (without peer-to-peer between the GPUs, NCCL fails at start-up); mount an "
            "emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:47:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:64:20: warning gpu/multi-node-tensor-parallel multi-node vLLM with "
            "tensor_parallel_size 16 on pods of 8 GPUs: tensor-parallel all-reduces cross the "
            "network between nodes; vLLM advises tensor_parallel_size = GPUs per node (8) and "
            "pipeline_parallel_size = number of nodes",
            "deployment.yaml:64:20: warning shm/tensor-parallel-without-dev-shm "
            "tensor_parallel_size 16 without a memory-backed volume at /dev/shm: the container "
            "has the runtime's 64 MiB, which NCCL and the worker processes outgrow, usually under"
            " load (without peer-to-peer between the GPUs, NCCL fails at start-up); mount an "
            "emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:65:13: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:74:13: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:74:13: warning shm/tensor-parallel-without-dev-shm 8 GPUs of a "
            "multi-node vLLM worker without a memory-backed volume at /dev/shm: the container has"
            " the runtime's 64 MiB, which NCCL and the worker processes outgrow, usually under "
            "load (without peer-to-peer between the GPUs, NCCL fails at start-up); mount an "
            "emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
        ],
        "1 error, 11 warnings, 0 info in 1 file",
    ),
    "gpu_rejected": (
        1,
        [
            "deployment.yaml:15:15: error gpu/extended-resource-request-without-limit init "
            "container warmup requests nvidia.com/gpu 1 without a limit: the API server rejects "
            "the Deployment (Limit must be set for non overcommitable resources); set the limit, "
            "the request defaults to it",
            "deployment.yaml:20:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:22:15: error gpu/extended-resource-request-not-limit container vllm "
            "requests nvidia.com/gpu 2 but limits it to 1: the API server rejects the Deployment "
            "(nvidia.com/gpu request must be equal to its limit)",
            "deployment.yaml:39:13: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:41:17: error gpu/extended-resource-not-whole container vllm has "
            "limits nvidia.com/gpu 0.5, limits rdma/roce 1.5: extended resources are whole units;"
            " the API server accepts the LeaderWorkerSet, but rejects every Pod its controller "
            "creates, and none starts (must be an integer); share a GPU with a MIG profile, "
            "time-slicing or dynamic resource allocation instead",
        ],
        "3 errors, 2 warnings, 0 info in 1 file",
    ),
    "gpu_values": (
        0,
        [
            "values.yaml:7:3: warning gpu/world-size-above-gpus-in-values tensor_parallel_size 4 "
            "× pipeline_parallel_size 1 needs 4 GPUs, but these values give the pod 2 "
            "(nvidia.com/gpu): if the chart renders them as read, vLLM fails at start-up (World "
            "size is larger than the number of available GPUs in this node)",
            "values.yaml:7:3: warning shm/tensor-parallel-without-dev-shm tensor_parallel_size 4 "
            "without a memory-backed volume at /dev/shm: the container has the runtime's 64 MiB, "
            "which NCCL and the worker processes outgrow, usually under load (without "
            "peer-to-peer between the GPUs, NCCL fails at start-up); mount an emptyDir with "
            "medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "values.yaml:8:1: warning kubernetes-qos/gpu-pod-best-effort no container sets cpu or"
            " memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: under "
            "node memory pressure the kubelet evicts it first; set cpu and memory requests (and "
            "limits equal to them for Guaranteed)",
            "values.yaml:10:5: warning gpu/extended-resource-rejected-in-values container vllm: "
            "nvidia.com/gpu is requested (2) without a limit (Limit must be set for non "
            "overcommitable resources): if the chart renders these resources as written, the API "
            "server rejects the pod",
        ],
        "0 errors, 4 warnings, 0 info in 1 file",
    ),
    "grpc": (
        0,
        [
            "age-values.yaml:10:7: warning grpc-keepalive/client-ping-below-server-minimum client"
            " keepalive time 120 s is below 300 s, the default minimum ping interval of gRPC "
            "core, grpc-go and Triton (the server does not set its own): after three early pings "
            "on a connection where the server sends nothing (a queued request, a long prefill, an"
            " idle stream) the server closes it with GOAWAY too_many_pings and the RPCs on it "
            "fail; lower the server's minimum ping interval or raise the client's keepalive time "
            "to at least 300 s",
            "age-values.yaml:10:7: info grpc-keepalive/connection-age-below-keepalive the server "
            "recycles connections after 60 s, before the client's keepalive (every 120 s, plus a "
            "20 s timeout) can fire: the keepalive setting has no effect",
            "deployment.yaml:14:15: warning grpc-keepalive/max-connection-age-without-grace "
            "max_connection_age is 60 s but no grace period is set: connections get GOAWAY but a "
            "long stream keeps the old connection open indefinitely; set max_connection_age_grace"
            " to the longest generation",
            "deployment.yaml:15:15: info grpc-keepalive/server-keepalive-default the server's "
            "gRPC settings leave its keepalive time at the 2-hour default: a client that "
            "disappears without closing its connection is noticed only after about 2 h, and its "
            "streams hold resources until then; set the server keepalive time (Triton "
            "--grpc-keepalive-time) to a minute or a few",
            "deployment.yaml:16:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:31:15: warning grpc-keepalive/client-ping-below-server-minimum "
            "client keepalive time 30 s is below 300 s, the default minimum ping interval of gRPC"
            " core, grpc-go and Triton (the server side is not in this input): after three early "
            "pings on a connection where the server sends nothing (a queued request, a long "
            "prefill, an idle stream) the server closes it with GOAWAY too_many_pings and the "
            "RPCs on it fail; lower the server's minimum ping interval or raise the client's "
            "keepalive time to at least 300 s",
            "deployment.yaml:33:15: warning grpc-keepalive/idle-pings-not-permitted the client "
            "pings connections without calls (keepalive_permit_without_calls) every 30 s, but the"
            " server side is not in this input and does not permit it by default (gRPC core, "
            "grpc-go, Triton): it judges those pings against 2 hours and closes an idle "
            "connection with GOAWAY too_many_pings (clients built on gRPC core stop after 2 pings"
            " without data); permit pings without calls on the server, or turn them off on the "
            "client",
            "lb-values.yaml:9:5: info grpc-keepalive/nlb-without-connection-age 3 replicas sit "
            "behind an AWS Network Load Balancer, which balances connections, not requests, and "
            "the gRPC server sets no max_connection_age: long-lived connections never move to new"
            " or scaled-out replicas; set max_connection_age (with a grace period) so clients "
            "reconnect",
            "values.yaml:20:7: warning grpc-keepalive/nlb-idle-timeout the AWS Network Load "
            "Balancer closes connections idle for 350 s, but the client does not ping connections"
            " without calls (keepalive_permit_without_calls): the first RPC on a connection that "
            "sat idle longer fails and the client reconnects; ping idle connections more often "
            "than every 350 s (and let the server accept it)",
            "values.yaml:21:1: warning kubernetes-qos/gpu-pod-best-effort no container sets cpu "
            "or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: under "
            "node memory pressure the kubelet evicts it first; set cpu and memory requests (and "
            "limits equal to them for Guaranteed)",
        ],
        "0 errors, 7 warnings, 3 info in 4 files",
    ),
    "grpc_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "kubeai": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "memory": (
        0,
        [
            "deployment.yaml:12:11: warning kubernetes-memory/memory-volume-without-size-limit "
            "emptyDir scratch has medium: Memory and no sizeLimit: its files are memory that "
            "counts against the limit of the container writing them and cannot be reclaimed, and "
            "it may grow to the pod's memory limit or the node's allocatable memory; set a "
            "sizeLimit (and leave room for it in the memory limit)",
            "deployment.yaml:19:11: warning kubernetes-memory/memory-high-in-init-container init "
            "container tune writes memory.high without the host's cgroup tree: it changes its own"
            " cgroup, which is removed when it exits, so the setting never applies to the server "
            "container; set memory requests and limits on the server instead",
            "deployment.yaml:24:11: warning kubernetes-memory/memory-high-written-by-hand sidecar"
            " throttle writes memory.high with privileged: true: the kubelet owns these values "
            "and resets or replaces them (QoS-level cgroups within a minute, a container's on "
            "restart or resize), memory.high throttles instead of OOM-killing, and namespaces "
            "enforcing the Pod Security Standard baseline reject privileged pods; set memory "
            "requests and limits instead",
            "deployment.yaml:40:22: warning kubernetes-memory/memory-volumes-fill-memory-limit "
            "the memory-backed volumes of container cache-warmer may hold 8 GiB and its memory"
            " limit is 4 GiB: their pages count against that limit, so once they fill the "
            "container is OOM-killed; raise the limit or lower the sizeLimits",
        ],
        "0 errors, 4 warnings, 0 info in 1 file",
    ),
    "memory_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "nccl_env": (
        0,
        [
            "deployment.yaml:13:38: warning nccl/p2p-disabled-small-shm NCCL_P2P_DISABLE=1 sends "
            "the traffic between the 4 GPUs through /dev/shm, which is 512 MiB: NCCL fails to "
            "extend its segments when it fills; give /dev/shm at least 1Gi, or remove "
            "NCCL_P2P_DISABLE",
            "deployment.yaml:20:15: warning nccl/debug-knob-disables-transport NCCL_P2P_DISABLE=1"
            " (no direct NVLink/PCIe transfers between the 4 GPUs), NCCL_SHM_DISABLE=1 (traffic "
            "between the 4 GPUs goes over the network instead of shared memory): NCCL documents "
            "these as debugging knobs that should generally not be set in production",
            "deployment.yaml:24:15: info nccl/debug-logging NCCL_DEBUG=INFO logs debug "
            "information for every communicator; use WARN (or leave it unset) in production",
            "deployment.yaml:26:15: warning nccl/topology-file-not-mounted "
            "NCCL_TOPO_FILE=/etc/nccl/topo.xml is not under any volume mount of container vllm: "
            "unless the image contains it, NCCL logs that it cannot open it and detects the "
            "topology itself, and the intended topology is silently lost",
            "deployment.yaml:29:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:43:38: warning nccl/debug-knob-disables-transport NCCL_IB_DISABLE=1 "
            "(InfiniBand/RoCE off: NCCL falls back to IP sockets although the pod requests RDMA "
            "devices): NCCL documents this as a debugging knob that should generally not be set "
            "in production",
            "deployment.yaml:43:38: info nccl/debug-logging NCCL_DEBUG=TRACE logs a replayable "
            "trace of every NCCL call; use WARN (or leave it unset) in production",
            "deployment.yaml:44:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "0 errors, 6 warnings, 2 info in 1 file",
    ),
    "nccl_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "probes": (
        0,
        [
            "deployment.yaml:17:11: warning probes/liveness-budget-below-load-time without a "
            "startupProbe, the liveness probe can restart the container 20 s after it starts "
            "(initialDelaySeconds 0 + (failureThreshold 3 − 1) × periodSeconds 10) but the server"
            " needs at least 30 s to start (engine start-up alone, the model size is unknown; set"
            " model.modelLoadTime to the measured time); add a startupProbe whose "
            "failureThreshold × periodSeconds covers the worst-case start-up",
            "deployment.yaml:19:11: warning probes/triton-same-endpoint the liveness and "
            "readiness probes both use /v2/health/live: readiness then sends traffic before the "
            "models are ready; probe /v2/health/live for liveness and /v2/health/ready for "
            "readiness",
            "deployment.yaml:21:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:34:84: warning shutdown/grace-period-shorter-than-drain vLLM drains "
            "for up to 120 s after SIGTERM but the pod has terminationGracePeriodSeconds 30 (the "
            "default): requests still running when it ends are cut by SIGKILL; set "
            "terminationGracePeriodSeconds to at least 150 (preStop + drain + a 30 s buffer)",
            "deployment.yaml:35:11: warning probes/startup-budget-below-load-time the startup "
            "probe can restart the container 25 s after it starts (initialDelaySeconds 0 + "
            "(failureThreshold 6 − 1) × periodSeconds 5) but the server is estimated to need 45 s"
            " to start (16.1 GB of weights at 1000 MiB/s plus 30 s of engine start-up; set "
            "model.modelLoadTime to the measured time); raise failureThreshold × periodSeconds "
            "above the worst-case start-up",
            "deployment.yaml:39:11: info probes/drain-liveness-on-health vLLM drains with "
            "--shutdown-mode drain and its liveness probe is on /health, which answers 503 during"
            " the drain: harmless (the kubelet stops liveness probes once the pod is deleted), "
            "but vLLM's drain guide probes /live for liveness and /health for readiness",
            "deployment.yaml:41:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "0 errors, 6 warnings, 1 info in 1 file",
    ),
    "probes_measured": (
        1,
        [
            "deployment.yaml:17:11: error probes/liveness-kills-before-load without a "
            "startupProbe, the liveness probe restarts the container at the latest 31 s after it "
            "starts, but the model load time is 600 s (model.modelLoadTime in the configuration):"
            " it restarts forever; add a startupProbe whose failureThreshold × periodSeconds "
            "covers the load",
            "deployment.yaml:19:11: warning probes/triton-same-endpoint the liveness and "
            "readiness probes both use /v2/health/live: readiness then sends traffic before the "
            "models are ready; probe /v2/health/live for liveness and /v2/health/ready for "
            "readiness",
            "deployment.yaml:21:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:34:84: warning shutdown/grace-period-shorter-than-drain vLLM drains "
            "for up to 120 s after SIGTERM but the pod has terminationGracePeriodSeconds 30 (the "
            "default): requests still running when it ends are cut by SIGKILL; set "
            "terminationGracePeriodSeconds to at least 150 (preStop + drain + a 30 s buffer)",
            "deployment.yaml:35:11: error probes/startup-kills-before-load the startup probe "
            "restarts the container at the latest 31 s after it starts, but the model load time "
            "is 600 s (model.modelLoadTime in the configuration): it restarts forever; raise "
            "failureThreshold × periodSeconds above the load time",
            "deployment.yaml:39:11: info probes/drain-liveness-on-health vLLM drains with "
            "--shutdown-mode drain and its liveness probe is on /health, which answers 503 during"
            " the drain: harmless (the kubelet stops liveness probes once the pod is deleted), "
            "but vLLM's drain guide probes /live for liveness and /health for readiness",
            "deployment.yaml:41:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "2 errors, 4 warnings, 1 info in 1 file",
    ),
    "probes_port": (
        1,
        [
            "deployment.yaml:14:11: error probes/probe-port-not-server-port the readinessProbe "
            "of sglang asks port 8000, but the server listens on 30000 and nothing else in the "
            "pod does: the pod never becomes ready and the Service never sends it traffic; "
            "probe port 30000",
            "deployment.yaml:16:11: warning kubernetes-qos/gpu-pod-best-effort no container "
            "sets cpu or memory requests or limits (only nvidia.com/gpu), so the pod is "
            "BestEffort: under node memory pressure the kubelet evicts it first; set cpu and "
            "memory requests (and limits equal to them for Guaranteed)",
            "deployment.yaml:31:11: warning probes/liveness-budget-below-load-time without a "
            "startupProbe, the liveness probe can restart the container 20 s after it starts "
            "(initialDelaySeconds 0 + (failureThreshold 3 − 1) × periodSeconds 10) but the "
            "server needs at least 30 s to start (engine start-up alone, the model size is "
            "unknown; set model.modelLoadTime to the measured time); add a startupProbe whose "
            "failureThreshold × periodSeconds covers the worst-case start-up",
            "deployment.yaml:31:11: error probes/probe-port-not-server-port the livenessProbe "
            "of triton asks port 8002, but the server listens on 8000 (HTTP; 8001 is gRPC), "
            "and 8002 is its metrics port, which serves /metrics and no health path: the "
            "kubelet restarts the container over and over; probe port 8000",
            "deployment.yaml:35:11: warning kubernetes-qos/gpu-pod-best-effort no container "
            "sets cpu or memory requests or limits (only nvidia.com/gpu), so the pod is "
            "BestEffort: under node memory pressure the kubelet evicts it first; set cpu and "
            "memory requests (and limits equal to them for Guaranteed)",
        ],
        "2 errors, 3 warnings, 0 info in 1 file",
    ),
    "probes_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "qos": (
        0,
        [
            "deployment.yaml:13:11: warning kubernetes-qos/guaranteed-broken-by-another-container"
            " init container fetch-model has no cpu limit and no memory limit, so the pod is "
            "Burstable, although server container vllm sets requests = limits for Guaranteed: the"
            " pod loses exclusive CPUs and the Guaranteed eviction rank, and MemoryQoS may "
            "throttle it with memory.high; give fetch-model equal cpu and memory requests and "
            "limits",
            "deployment.yaml:34:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "0 errors, 2 warnings, 0 info in 1 file",
    ),
    "qos_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "shm_l4": (
        1,
        [
            "deployment.yaml:14:83: error shm/nccl-shm-transport-without-dev-shm "
            "tensor_parallel_size 2 on NVIDIA-L4 GPUs (no peer-to-peer) sends NCCL traffic "
            "through /dev/shm (vLLM 0.10.0 sets NCCL_CUMEM_ENABLE=0), and nothing is mounted "
            "there: the container has the runtime's 64 MiB and NCCL fails while vLLM starts "
            "(failed to extend /dev/shm/nccl-…); mount an emptyDir with medium: Memory and a "
            "sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:15:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:29:83: error shm/nccl-shm-transport-without-dev-shm "
            "tensor_parallel_size 2 with NCCL_P2P_DISABLE=1 sends NCCL traffic through /dev/shm "
            "(vLLM 0.10.0 sets NCCL_CUMEM_ENABLE=0), and nothing is mounted there: the container has the runtime's 64 MiB and NCCL fails "
            "while vLLM starts (failed to extend /dev/shm/nccl-…); mount an emptyDir with medium:"
            " Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:32:15: warning nccl/debug-knob-disables-transport NCCL_P2P_DISABLE=1"
            " (no direct NVLink/PCIe transfers between the 2 GPUs): NCCL documents this as a "
            "debugging knob that should generally not be set in production",
            "deployment.yaml:33:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "2 errors, 3 warnings, 0 info in 1 file",
    ),
    "shm_nvlink": (
        0,
        [
            "deployment.yaml:14:84: warning shm/tensor-parallel-without-dev-shm "
            "tensor_parallel_size 8 without a memory-backed volume at /dev/shm: the container has"
            " the runtime's 64 MiB, which NCCL and the worker processes outgrow, usually under "
            "load; mount an emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:15:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:34:11: warning shm/tensor-parallel-without-dev-shm SGLang with 2 "
            "ranks in the pod without a memory-backed volume at /dev/shm: volume shm is mounted "
            "there but is not memory-backed (emptyDir without medium: Memory), so shared memory "
            "is written to disk; mount an emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi)"
            " at /dev/shm",
            "deployment.yaml:37:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "0 errors, 4 warnings, 0 info in 1 file",
    ),
    "shm_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "shm_sizes": (
        0,
        [
            "deployment.yaml:13:13: warning shm/dev-shm-too-small tensor_parallel_size 2 with a "
            "/dev/shm of 256 MiB: below the 1 GiB of the smallest upstream example; NCCL and "
            "vLLM's shared-memory queues fail when it fills",
            "deployment.yaml:20:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:35:13: warning shm/dev-shm-fills-memory-limit the memory-backed "
            "volumes of container vllm (/dev/shm) may hold 32 GiB, and its memory limit is "
            "32 GiB: their pages count against that limit, so a full /dev/shm leaves nothing "
            "for the server and the container is OOM-killed; raise the limit above the volumes "
            "plus the server's own memory, or lower the sizeLimit",
            "deployment.yaml:53:7: warning shm/host-ipc hostIPC: true shares the node's IPC "
            "namespace; namespaces that enforce the Pod Security Standard baseline (or "
            "restricted) reject these Pods; mount an emptyDir with medium: Memory at /dev/shm "
            "instead",
            "deployment.yaml:58:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "0 errors, 5 warnings, 0 info in 1 file",
    ),
    "shm_values": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "shutdown": (
        0,
        [
            "deployment.yaml:16:23: warning shutdown/pre-stop-outlasts-grace-period container "
            "vllm sleeps 45 s in its preStop hook and the pod has terminationGracePeriodSeconds "
            "30 (the default): clusters with the preStop sleep action (1.30 and later) reject the"
            " pod (must be less than terminationGracePeriodSeconds), and on 1.29 the hook is "
            "dropped; make the grace period the sleep plus the server's drain time",
            "deployment.yaml:17:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:27:7: warning shutdown/grace-period-shorter-than-drain vLLM drains "
            "for up to 120 s after SIGTERM, which comes after a 15 s preStop hook, but the pod "
            "has terminationGracePeriodSeconds 60: requests still running when it ends are cut by"
            " SIGKILL; set terminationGracePeriodSeconds to at least 165 (preStop + drain + a 30 "
            "s buffer)",
            "deployment.yaml:35:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:47:11: warning shutdown/vllm-aborts-on-sigterm vLLM 0.18.1 aborts "
            "every in-flight request on SIGTERM (--shutdown-timeout defaults to 0), so each "
            "rollout or scale-down cuts running generations; set --shutdown-timeout to the "
            "longest generation you want to finish and terminationGracePeriodSeconds above it "
            "plus any preStop sleep",
            "deployment.yaml:49:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:62:67: warning shutdown/triton-exit-timeout-races-kill Triton waits "
            "up to 60 s for in-flight inferences after SIGTERM (--exit-timeout-secs) and the pod "
            "has terminationGracePeriodSeconds 30 (the default): the kubelet's SIGKILL comes "
            "first and cuts the inferences Triton is finishing; make the grace period longer than"
            " preStop + --exit-timeout-secs",
            "deployment.yaml:63:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only nvidia.com/gpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "0 errors, 8 warnings, 0 info in 1 file",
    ),
    "shutdown_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "shm_kv_offload": (
        1,
        [
            "deployment.yaml:21:42: error shm/kv-offload-without-dev-shm vLLM 0.33.0 keeps the "
            "48.0 GiB KV offload buffer (--kv-offloading-size) in a file in /dev/shm, and "
            "nothing is mounted there: the container has the runtime's 64 MiB and vLLM refuses "
            "to start (Insufficient space in /dev/shm); mount an emptyDir with medium: Memory "
            "and a sizeLimit above 48.0 GiB at /dev/shm, and raise the memory limit by as much",
            "deployment.yaml:53:38: warning shm/kv-offload-above-dev-shm vLLM 0.30.0 keeps the "
            "200.0 GiB KV offload buffer (--kv-offloading-size) in a file in /dev/shm, but the "
            "/dev/shm volume is 32 GiB: vLLM refuses to start (Insufficient space in /dev/shm); "
            "raise its sizeLimit above the buffer, and the memory limit by as much",
            "deployment.yaml:71:70: warning shm/kv-offload-without-dev-shm-version-unknown the "
            "image names no vLLM release, and from 0.28 vLLM keeps the 32.0 GiB KV offload "
            "buffer (--kv-offloading-size) in a file in /dev/shm, where nothing is mounted (the "
            "runtime's 64 MiB): such a release refuses to start (Insufficient space in "
            "/dev/shm); pin the image, and mount an emptyDir with medium: Memory and a "
            "sizeLimit above the buffer at /dev/shm",
        ],
        "1 error, 2 warnings, 0 info in 1 file",
    ),
    "shm_kv_offload_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fixture_findings(run_line: RunLine, case: str) -> None:
    code, findings, summary = CASES[case]
    options = CONFIGS.get(case, ["--no-config"])
    result = run_line(["lint", *options, "--no-builtin", *POLICIES, str(FIXTURES / case)])
    prefix = f"{FIXTURES / case}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        *findings,
        summary,
    ]
    assert result.exit_code == code


def test_every_fixture_folder_is_a_case() -> None:
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name != "configs"}
    assert folders == set(CASES)


def test_every_rule_fires_and_clean_fixtures_stay_clean() -> None:
    fired = {line.split(" ")[2] for _, findings, _ in CASES.values() for line in findings}
    assert {f"{policy}/{rule['id']}" for policy, rule in _rules()} - fired == set()
    assert sorted(case for case, (_, findings, _) in CASES.items() if not findings) == [
        "gpu_ok",
        "grpc_ok",
        "kubeai",
        "memory_ok",
        "nccl_ok",
        "probes_ok",
        "qos_ok",
        "shm_kv_offload_ok",
        "shm_ok",
        "shm_values",
        "shutdown_ok",
    ]


def test_rules_cite_sources_and_explain_themselves() -> None:
    for policy, rule in _rules():
        name = f"{policy}/{rule['id']}"
        assert rule.get("references") and rule.get("title") and rule.get("fix"), name
        assert re.search(r"\b[A-Z]{2,6}-[0-9]{3}\b", rule["description"]) is None, name
        assert all(ref.startswith("https://") for ref in rule["references"]), name


def test_errors_only_where_the_failure_is_certain() -> None:
    """Severity is a promise: error only where the failure is certain."""
    errors = sorted(
        f"{policy}/{rule['id']}" for policy, rule in _rules() if rule["severity"] == "error"
    )
    assert errors == [
        "gpu/cuda-visible-devices-hides-every-gpu",
        "gpu/extended-resource-not-whole",
        "gpu/extended-resource-request-not-limit",
        "gpu/extended-resource-request-without-limit",
        "gpu/tensor-parallel-above-tpu-slice",
        "gpu/world-size-above-gpus",
        "probes/liveness-kills-before-load",
        "probes/probe-port-not-server-port",
        "probes/startup-kills-before-load",
        "shm/kv-offload-without-dev-shm",
        "shm/nccl-shm-transport-without-dev-shm",
    ]


def test_values_without_a_chart_profile_never_give_errors(run_line: RunLine) -> None:
    result = run_line(
        [
            "lint",
            "--config",
            str(FIXTURES / "configs" / "measured-load.yaml"),
            "--no-builtin",
            *POLICIES,
            str(FIXTURES / "gpu_values"),
            str(FIXTURES / "grpc"),
        ]
    )
    assert " error " not in result.output
    assert result.exit_code == 0


def _rules() -> Iterator[tuple[str, dict[str, Any]]]:
    for name in PLATFORM:
        data = yaml.safe_load((ROOT / "policies" / f"{name}.yaml").read_text(encoding="utf-8"))
        assert data["metadata"]["name"] == name
        for rule in data["spec"]["rules"]:
            yield name, rule
