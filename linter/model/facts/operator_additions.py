"""What each operator adds to the pods it creates, in one table, with the upstream source
of each row: the modules that build those pods (``platform_pods.py``, ``nim.py``,
``custom.py``, ``rolebasedgroup.py``, ``kthena.py``, ``kaito.py``, ``ome.py``,
``dynamo.py``) apply these additions, and docs/operators.md prints this table
(``tests/test_operator_additions.py`` checks that the page and the table agree).

A kind of a custom resource that is not in ``KINDS`` (or whose operator was not read) is
judged as written: the rules that leave out kinds whose operator may add probes or
``/dev/shm`` say so in coverage (``linter/coverage/gaps.py``, "operator additions").
"""

from __future__ import annotations

from typing import NamedTuple


class Addition(NamedTuple):
    operator: str
    kinds: tuple[str, ...]
    piece: str  # probes, /dev/shm, resources, environment, flags, GPU count, container, none
    what: str
    source: str


_KSERVE_LLM = "https://github.com/kserve/kserve/blob/master/config/llmisvc/config-llm-template.yaml"
_RAY = "https://github.com/ray-project/kuberay/blob/master/ray-operator/controllers/ray/common/pod.go (addEmptyDir)"
_LWS = "https://github.com/kubernetes-sigs/lws/blob/v0.10.0/site/content/en/docs/reference/labels-annotations-and-environment-variables.md#L42-L44"
_KUBEAI = "https://github.com/kubeai-project/kubeai/blob/main/internal/modelcontroller/engine_vllm.go (vLLMPodForModel); charts/kubeai/values.yaml (resourceProfiles)"
_LLMAZ = "https://github.com/InftyAI/llmaz/blob/3c13ff343e28cdbe842fd3c659e3daf0d1e27e91/pkg/controller/inference/service_controller.go (injectModelProperties L250-L290), pkg/controller_helper/modelsource/modelhub.go#L63-L115"
_RBG = "https://github.com/sgl-project/rbg/blob/993491fba9bfdf377d3cd18c8833da20ce0ec87b/pkg/discovery/injector.go, env_builder.go; pkg/reconciler/pod_reconciler.go#L62-L125"
_KTHENA = "https://github.com/volcano-sh/kthena/blob/3cc057284c34469fcb0ed22a12dac84b1d120719/pkg/model-serving-controller/utils/utils.go#L95-L211"
_NIM = "https://github.com/NVIDIA/k8s-nim-operator/blob/v3.1.2/api/apps/v1alpha1/nimservice_types.go (GetStandardEnv L303, GetVolumes, GetDefault*Probe L657-L735)"
_KAITO = "https://github.com/kaito-project/kaito/blob/056b8280b1a8debf644bc6f4399e913a1f9c7e70/"
_OME = "https://github.com/sgl-project/ome/blob/17b77edad23bae262e0c9adb7f12039397a5d33d/"
_DYNAMO = "https://github.com/ai-dynamo/dynamo/blob/0284ad8648d328adb8b00be2cf6eac3c20736675/deploy/cloud/operator/"

_LLMISVC = ("LLMInferenceService", "LLMInferenceServiceConfig")
_RAY_KINDS = ("RayService", "RayCluster", "RayJob")
_KAITO_KINDS = ("Workspace", "InferenceSet")
_OME_KINDS = ("ClusterServingRuntime", "ServingRuntime", "InferenceService")

TABLE: tuple[Addition, ...] = (
    Addition(
        "KServe",
        _LLMISVC,
        "probes",
        "HTTP /health liveness and readiness on port 8000 in the main container",
        _KSERVE_LLM,
    ),
    Addition(
        "KServe", _LLMISVC, "/dev/shm", "memory-backed emptyDir dshm, sizeLimit 1Gi", _KSERVE_LLM
    ),
    Addition(
        "KServe",
        _LLMISVC,
        "flags",
        "VLLM_ADDITIONAL_ARGS appended to the vllm serve command line",
        _KSERVE_LLM,
    ),
    Addition(
        "KubeRay",
        _RAY_KINDS,
        "/dev/shm",
        "memory-backed emptyDir shared-mem in the Ray container, sized to its memory limit",
        _RAY,
    ),
    Addition(
        "LeaderWorkerSet",
        ("LeaderWorkerSet",),
        "environment",
        "LWS_GROUP_SIZE, LWS_WORKER_INDEX, LWS_LEADER_ADDRESS in every container",
        _LWS,
    ),
    Addition(
        "llmaz",
        ("Service",),
        "environment",
        "a model-loader init container (MODEL_ID, HF token from the modelhub-secret Secret) and "
        "the model volume in the model-runner container",
        _LLMAZ,
    ),
    Addition(
        "llmaz",
        ("Service",),
        "none",
        "no probes, no resources, no /dev/shm from the Service controller (a Playground's "
        "backend runtime writes them into the Service's template)",
        _LLMAZ,
    ),
    Addition(
        "KubeAI",
        ("Model",),
        "container",
        "python3 -m vllm.entrypoints.openai.api_server with the Model's args and env",
        _KUBEAI,
    ),
    Addition(
        "KubeAI",
        ("Model",),
        "/dev/shm",
        "memory-backed emptyDir dshm without a size limit (vLLM engine)",
        _KUBEAI,
    ),
    Addition(
        "KubeAI",
        ("Model",),
        "GPU count",
        "resourceProfile <name>:<count> becomes <count> GPUs of the profile's product",
        _KUBEAI,
    ),
    Addition(
        "RoleBasedGroup",
        ("RoleBasedGroup",),
        "environment",
        "RBG_GROUP_NAME, RBG_ROLE_NAME, RBG_LWP_GROUP_SIZE, RBG_LWP_WORKER_INDEX (replacing the container's own)",
        _RBG,
    ),
    Addition(
        "RoleBasedGroup",
        ("RoleBasedGroup",),
        "none",
        "no probes, no resources, no /dev/shm; a ConfigMap volume at /etc/rbg",
        _RBG,
    ),
    Addition(
        "kthena",
        ("ModelServing",),
        "environment",
        "GROUP_SIZE, WORKER_INDEX, ENTRY_ADDRESS (replacing the container's own)",
        _KTHENA,
    ),
    Addition("kthena", ("ModelServing",), "none", "no probes, no resources, no /dev/shm", _KTHENA),
    Addition(
        "NVIDIA NIM Operator",
        ("NIMService",),
        "probes",
        "liveness /v1/health/live, readiness and startup /v1/health/ready on the api port, unless disabled",
        _NIM,
    ),
    Addition(
        "NVIDIA NIM Operator",
        ("NIMService",),
        "/dev/shm",
        "memory-backed emptyDir dshm sized by storage.sharedMemorySizeLimit (none when unset)",
        _NIM,
    ),
    Addition(
        "NVIDIA NIM Operator",
        ("NIMService",),
        "environment",
        "NIM_SERVER_PORT = expose.service.port (8000)",
        _NIM,
    ),
    Addition(
        "KAITO",
        _KAITO_KINDS,
        "container",
        "presets/workspace/inference/vllm/inference_api.py serving the preset's model",
        _KAITO + "pkg/utils/plugin/plugin.go#L47",
    ),
    Addition(
        "KAITO",
        _KAITO_KINDS,
        "GPU count",
        "resource.instanceType's GPUs from the operator's SKU table, as nvidia.com/gpu limits and requests",
        _KAITO
        + "pkg/sku/azure_sku_handler.go, pkg/workspace/inference/preset_inferences.go#L560-L575",
    ),
    Addition(
        "KAITO",
        _KAITO_KINDS,
        "probes",
        "HTTP /health liveness, readiness and startup (30 min) on port 5000",
        _KAITO + "pkg/workspace/inference/preset_inferences.go#L52-L108",
    ),
    Addition(
        "KAITO",
        _KAITO_KINDS,
        "/dev/shm",
        "memory-backed emptyDir dshm without a size limit",
        _KAITO + "pkg/utils/common_preset.go#L143",
    ),
    Addition(
        "KAITO",
        _KAITO_KINDS,
        "flags",
        "--served-model-name, --max-model-len auto; on one node --tensor-parallel-size 1 on one GPU, on more "
        "--data-parallel-size N when the model is under half a GPU, else "
        "--tensor-parallel-size N; the inference-config ConfigMap's vllm: keys after them "
        "(they win)",
        _KAITO + "pkg/model/interface.go#L394-L559 and L686-L698, "
        "pkg/workspace/inference/preset_inferences.go#L581-L590, presets/workspace/inference/vllm/inference_api.py#L128-L148",
    ),
    Addition(
        "OME",
        _OME_KINDS,
        "container",
        "engineConfig/decoderConfig (and leader/worker) runner as the pod's container",
        _OME + "pkg/apis/ome/v1beta1/inference_service.go#L138-L270",
    ),
    Addition(
        "OME",
        _OME_KINDS,
        "environment",
        "MODEL_PATH = the base model's storage path, unless the container sets it",
        _OME + "pkg/controller/v1beta1/inferenceservice/components/base.go#L139-L146",
    ),
    Addition(
        "NVIDIA Dynamo",
        ("DynamoGraphDeployment",),
        "probes",
        "worker: /live liveness, /health readiness, /live startup (720 x 10 s) on the system port 9090; a service's own probes replace them",
        _DYNAMO + "internal/dynamo/component_worker.go",
    ),
    Addition(
        "NVIDIA Dynamo",
        ("DynamoGraphDeployment",),
        "/dev/shm",
        "memory-backed emptyDir of 8Gi unless sharedMemory.disabled (sharedMemory.size resizes it)",
        _DYNAMO + "docs/footer.md",
    ),
    Addition(
        "NVIDIA Dynamo",
        ("DynamoGraphDeployment",),
        "environment",
        "worker: DYN_SYSTEM_ENABLED, DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS, DYN_SYSTEM_PORT",
        _DYNAMO + "internal/dynamo/component_worker.go",
    ),
    Addition(
        "NVIDIA Dynamo",
        ("DynamoGraphDeployment",),
        "resources",
        "resources.gpu becomes nvidia.com/gpu; resources.custom keys keep their names",
        _DYNAMO + "getResourcesConfig",
    ),
)

# Kinds whose pods are the template as written: nothing is added.
CORE_KINDS = (
    "Pod",
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "Rollout",
)
KINDS = frozenset(kind for row in TABLE for kind in row.kinds) | frozenset(CORE_KINDS)


def markdown_rows() -> list[str]:
    """The table as the rows of docs/operators.md."""
    return [
        f"| {row.operator} | {', '.join(row.kinds)} | {row.piece} | {row.what} | {row.source} |"
        for row in TABLE
    ]


# The roles of OME's runners (ome.py): KServe's kinds have the same names, and what KServe
# adds to a ServingRuntime's or an InferenceService's pods is not in this table.
_OME_ROLES = frozenset({"engine", "decoder"})


def additions_known(kind: str, role: str = "") -> bool:
    """Whether what the operator of ``kind`` adds to its pods (the pod of ``role``) was
    read from its source."""
    if kind in _OME_KINDS:
        return role.split("-", 1)[0] in _OME_ROLES
    return kind in KINDS
