"""A server named in any shape yields a workload or a "not understood" note naming where it
was seen (issue #28): images under keys of their own, command lines and lists that start a
server, mappings of one server's flags, containers found by shape in operators' kinds.
Files that name no server, or name one without running it, stay quiet."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from linter.coverage.unrecognised import SERVE_FIX, describe
from linter.evaluate.parsers import parse

RunLine = Callable[..., Result]

VALUES_FIX = (
    "fix: describe this values layout with a chart profile (docs/serving-model.md#profiles), "
    "or lint the chart with --chart so the rendered manifests are read"
)
RUNNER = """\
apiVersion: serving.example.com/v1
kind: ModelDeployment
metadata: {name: chat}
spec:
  runner:
    image: vllm/vllm-openai:v0.11.0
    args: [--model=Qwen/Qwen3-8B, --tensor-parallel-size=2]
    resources:
      limits: {nvidia.com/gpu: 2}
  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
"""
# Every rule that judges the whole pod (its probes, /dev/shm, resources): it holds back on
# a container found by shape, and coverage names it.
WHOLE_POD_RULES = (
    "gpu/cuda-visible-devices-beyond-pod-gpus, gpu/cuda-visible-devices-hides-every-gpu, "
    "gpu/extended-resource-not-whole, gpu/extended-resource-rejected-in-values, "
    "gpu/extended-resource-request-not-limit, gpu/extended-resource-request-without-limit, "
    "gpu/tensor-parallel-above-tpu-slice, gpu/world-size-above-devices, "
    "gpu/world-size-above-gpus, gpu/world-size-above-gpus-in-values, "
    "hub/gated-model-without-token, hub/token-is-unexpanded-variable, "
    "kubernetes-qos/gpu-pod-best-effort, kubernetes-qos/guaranteed-broken-by-another-container, "
    "probes/liveness-budget-below-load-time, probes/liveness-kills-before-load, "
    "probes/startup-budget-below-load-time, probes/startup-kills-before-load, "
    "readiness/missing, readiness/readiness-after-start-up, readiness/tcp-only, "
    "shm/kv-offload-above-dev-shm, shm/kv-offload-without-dev-shm, "
    "shm/kv-offload-without-dev-shm-version-unknown, shm/nccl-shm-transport-without-dev-shm, "
    "shm/tensor-parallel-without-dev-shm, sizing/gpu-server-without-memory-limit, "
    "sizing/host-memory-above-limit, sizing/host-memory-above-request"
)


def _notes(run_line: RunLine, path: Path) -> tuple[int, list[str]]:
    result = run_line(["lint", "--no-config", "-v", str(path)])
    return result.exit_code, [
        line for line in result.output.splitlines() if line.startswith("not understood")
    ]


def test_a_server_named_under_keys_of_its_own_is_not_understood(
    run_line: RunLine, tmp_path: Path
) -> None:
    # A vendor's JSON recipe: the image under a key of its own, with its tag.
    (tmp_path / "recipe.json").write_text(
        '{"name": "chat", "deployment": {"container": "vllm/vllm-openai:v0.9.1",\n'
        ' "arguments": ["--model", "Qwen/Qwen3-8B"]}}\n'
    )
    # Vertex AI's Model.upload arguments: the image and the command under keys of their own.
    (tmp_path / "vertex.json").write_text(
        '{"display_name": "r1", "serving_container_image_uri": "us-docker.pkg.dev/vertex-ai/'
        'vertex-vision-model-garden-dockers/pytorch-vllm-serve:20250506_0916_RC01",\n'
        ' "serving_container_args": ["python", "-m", "vllm.entrypoints.api_server"]}\n'
    )
    # SageMaker's create-model: the command line in ContainerArguments.
    (tmp_path / "sagemaker.json").write_text(
        '{"ModelName": "triton", "PrimaryContainer": {"ContainerEntrypoint": ["sh", "-c"],\n'
        ' "ContainerArguments": ["tritonserver --model-repository=/models"]}}\n'
    )
    # A list that starts the server when joined, under a key of its own.
    (tmp_path / "launch.yaml").write_text(
        "service:\n  run: [vllm, serve, Qwen/Qwen3-8B, --port, '8000']\n"
    )
    # DJL LMI on SageMaker: the image names no server, its environment is vLLM's flags.
    (tmp_path / "lmi.json").write_text(
        '{"PrimaryContainer": {"Image": "763104351884.dkr.ecr.us-east-1.amazonaws.com/'
        'djl-inference:0.29.0-lmi11.0.0-cu124",\n "Environment": {"SERVING_FRAMEWORK": "vllm",\n'
        '  "OPTION_MAX_MODEL_LEN": "8192", "OPTION_GPU_MEMORY_UTILIZATION": "0.9",\n'
        '  "OPTION_TENSOR_PARALLEL_SIZE": "1"}}}\n'
    )
    assert _notes(run_line, tmp_path) == (
        0,
        [
            f"not understood: {tmp_path}/launch.yaml:2:3: values layout: command vllm serve "
            f"Qwen/Qwen3-8B --port 8000 at service.run; {VALUES_FIX}",
            f"not understood: {tmp_path}/lmi.json:2:2: values layout: 3 vLLM flags as keys "
            "(OPTION_MAX_MODEL_LEN, OPTION_GPU_MEMORY_UTILIZATION, OPTION_TENSOR_PARALLEL_SIZE) "
            f"at PrimaryContainer.Environment; {VALUES_FIX}",
            f"not understood: {tmp_path}/recipe.json:1:33: values layout: vLLM image "
            f"vllm/vllm-openai:v0.9.1 at deployment.container; {VALUES_FIX}",
            f"not understood: {tmp_path}/sagemaker.json:2:2: values layout: command tritonserver "
            f"--model-repository=/models at PrimaryContainer.ContainerArguments; {VALUES_FIX}",
            f"not understood: {tmp_path}/vertex.json:1:24: values layout: vLLM image "
            "us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:"
            f"20250506_0916_RC01 at serving_container_image_uri; {VALUES_FIX}",
        ],
    )


def test_a_string_of_one_servers_flags_is_not_understood(run_line: RunLine, tmp_path: Path) -> None:
    # An Azure ML online deployment: the image is a placeholder; the flags the image's
    # entrypoint appends sit in an environment variable.
    (tmp_path / "deployment-vllm.yml").write_text(
        "name: current\n"
        "endpoint_name: vllm-hf\n"
        "environment_variables:\n"
        '  VLLM_ARGS: "--max-num-seqs 16 --enforce-eager"\n'
        "environment:\n"
        "  image: <image path>\n"
        "instance_type: Standard_NC24ads_A100_v4\n"
    )
    # Prose that mentions options, and a single flag: quiet.
    (tmp_path / "notes.yaml").write_text(
        "vllm:\n  hint: run it with --help or --version\n  extra: --max-model-len 4096\n"
    )
    assert _notes(run_line, tmp_path) == (
        0,
        [
            f"not understood: {tmp_path}/deployment-vllm.yml:4:3: values layout: vLLM flags in "
            "a string (--max-num-seqs 16 --enforce-eager) at environment_variables.VLLM_ARGS; "
            f"{VALUES_FIX}",
        ],
    )


def test_a_ray_serve_application_named_after_a_server_is_not_understood(
    run_line: RunLine, tmp_path: Path
) -> None:
    # An operator's own kind (AMD's KaiwoService) runs a Ray Serve application of the
    # user's code whose deployment is vLLM; no vLLM image, command or flag is written.
    (tmp_path / "kaiwo.yaml").write_text(
        "apiVersion: kaiwo.silogen.ai/v1alpha1\nkind: KaiwoService\n"
        "metadata: {name: online-inference}\nspec:\n  image: ghcr.io/silogen/rocm-ray:6.3\n"
        "  gpus: 4\n  serveConfigV2: |\n    applications:\n    - name: llm\n"
        "      import_path: workloads.online_inference:deployment\n"
        "      deployments:\n      - name: VLLMDeployment\n"
    )
    assert _notes(run_line, tmp_path) == (
        0,
        [
            f"not understood: {tmp_path}/kaiwo.yaml:7:3: kind KaiwoService "
            "(kaiwo.silogen.ai/v1alpha1): Ray Serve application VLLMDeployment at "
            "spec.serveConfigV2; fix: the server runs inside the application's own Python "
            "code, whose settings servelint does not read: lint the pods Ray creates, or run "
            "the server's image with its command",
        ],
    )


def test_ray_serve_configs_of_every_form_are_not_understood(
    run_line: RunLine, tmp_path: Path
) -> None:
    # A ``serve run`` config of its own, a KubeRay values file, and Ray Serve LLM.
    (tmp_path / "serve.yaml").write_text(
        "applications:\n  - name: chat\n    import_path: serve_vLLM:deployment\n"
    )
    (tmp_path / "values.yaml").write_text(
        "service:\n  serveConfigV2: |\n    applications:\n    - name: llm\n"
        "      import_path: app.main:deployment\n      deployments:\n"
        "      - name: SglangDeployment\n"
    )
    (tmp_path / "llm.yaml").write_text(
        "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: llms}\nspec:\n"
        "  serveConfigV2: |\n    applications:\n    - name: llms\n"
        "      import_path: ray.serve.llm:build_openai_app\n"
    )
    assert _notes(run_line, tmp_path) == (
        0,
        [
            f"not understood: {tmp_path}/llm.yaml:5:3: kind RayService (ray.io/v1): Ray Serve "
            "application ray.serve.llm:build_openai_app at spec.serveConfigV2; "
            f"fix: {SERVE_FIX}",
            f"not understood: {tmp_path}/serve.yaml:3:5: values layout: Ray Serve application "
            f"serve_vLLM:deployment at applications[0].import_path; fix: {SERVE_FIX}",
            f"not understood: {tmp_path}/values.yaml:2:3: values layout: Ray Serve application "
            f"SglangDeployment at service.serveConfigV2; fix: {SERVE_FIX}",
        ],
    )


def test_files_that_name_a_server_without_running_it_stay_quiet(
    run_line: RunLine, tmp_path: Path
) -> None:
    # Prose that mentions a command, a repository, a host and port, a bare server word,
    # and a mapping of a few words every server takes as a flag.
    (tmp_path / "notes.yaml").write_text(
        "title: notes\n"
        "body: We run vllm serve behind tgi-service:8080 and read vllm-project/vllm\n"
        "links: [https://github.com/vllm-project/vllm, vllm]\n"
        "settings: {model: x, port: 8000, host: 0.0.0.0}\n"
    )
    # Half of the keys are flags: not mostly one server's flags.
    (tmp_path / "model.yaml").write_text(
        "# tensorrt_llm model configuration\nmodel: TinyLlama/TinyLlama-1.1B-Chat-v1.0\n"
        "backend: pytorch\ntensor_parallel_size: 1\npipeline_parallel_size: 1\n"
        "pytorch_backend_config: {use_cuda_graph: false}\ntriton_config: {max_batch_size: 0}\n"
    )
    # A Job that applies an embedded manifest naming a vLLM Deployment: no Ray Serve app.
    (tmp_path / "apply.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: apply}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: kubectl\n"
        "          image: bitnami/kubectl:1.31\n"
        "          args:\n            - |\n              kubectl apply -f - <<EOF\n"
        "              metadata:\n                name: vllm-llama\n              EOF\n"
    )
    # A metrics proxy named after the server it measures.
    (tmp_path / "proxy.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm-latency-proxy}\n"
        "spec:\n  template:\n    spec:\n      containers:\n        - name: proxy\n"
        "          image: ghcr.io/acme/vllm-latency-proxy:1.2.0\n"
    )
    result = run_line(["lint", "--no-config", "-v", str(tmp_path)])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        ["coverage: 4 files, 0 workloads recognised", "0 errors, 0 warnings, 0 info in 4 files"],
    )


def test_a_container_found_by_shape_is_judged_without_what_the_operator_adds(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "runner.yaml"
    path.write_text(RUNNER)
    result = run_line(["lint", "--no-config", "-v", str(path)])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            f"{path}:7:35: warning shm/tensor-parallel-without-dev-shm tensor_parallel_size 2 "
            "without a memory-backed volume at /dev/shm: the container has the runtime's 64 MiB, "
            "which NCCL and the worker processes outgrow, usually under load (without "
            "peer-to-peer between the GPUs, NCCL sends its traffic through /dev/shm and fails "
            "at start-up where it cannot allocate with cuMem: NCCL before 2.24 or a driver "
            "before 12.6); mount an emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at "
            "/dev/shm, unless the ModelDeployment operator adds one (its container was found by "
            "shape at spec.runner)",
            "coverage: 1 file, 1 workload recognised (vllm 1)",
            "coverage: not checked for a missing fact: operator's additions on 1 workload",
            f"not checked: {path}:5:3: operator's additions (container found by shape at "
            "spec.runner; what the ModelDeployment operator adds to the pod is unknown): 29 "
            "rules (10 error-level) did not judge what the operator may add (probes, /dev/shm, "
            f"resources) ({WHOLE_POD_RULES}); fix: lint the pod the operator creates (kubectl "
            "get pod -o yaml), or a manifest that holds the container in a pod template",
            "0 errors, 1 warning, 0 info in 1 file",
        ],
    )


def test_a_shape_container_that_runs_no_known_server_leaves_the_note(
    run_line: RunLine, tmp_path: Path
) -> None:
    """A container of an unknown image whose command names a server the model does not
    read as one (Dynamo's runtime): no workload, so the note says where it was seen."""
    path = tmp_path / "graph.yaml"
    path.write_text(
        "apiVersion: example.com/v1\nkind: Graph\nmetadata: {name: g}\nspec:\n"
        "  worker:\n    image: my-registry/runtime:1\n"
        "    command: [python3, -m, dynamo.sglang]\n    resources: {limits: {cpu: 1}}\n"
    )
    assert _notes(run_line, path) == (
        0,
        [
            f"not understood: {path}:7:28: kind Graph (example.com/v1): command dynamo.sglang "
            "at spec.worker.command[2]; fix: servelint has no reading of this kind yet: lint "
            "the rendered pod template, or describe the layout with a chart profile "
            "(docs/serving-model.md#profiles)"
        ],
    )


def test_a_running_servers_answer_is_not_a_deployment() -> None:
    """SGLang's /get_server_info (every flag at the top level, some under a section of its
    own) is what drift reads; the same flags in a document of their own are noted."""
    flags = '"attention_backend": "fa3", "chunked_prefill_size": 8192, "max_running_requests": 8'
    answer = (
        '{"model_path": "Qwen/Qwen3-8B", "tp_size": 1, "mem_fraction_static": 0.87,\n'
        f' "internal_states": [{{{flags}}}], "version": "0.5.6", "served_by": "sglang"}}\n'
    )
    [document] = parse("info.json", answer).documents
    assert describe(document) is None
    [document] = parse("info.json", answer.replace('"model_path"', '"model"')).documents
    note = describe(document)
    assert note is not None
    assert (note.line, note.column, note.evidence) == (
        2,
        22,
        "3 SGLang flags as keys (attention_backend, chunked_prefill_size, "
        "max_running_requests) at internal_states[0]",
    )
