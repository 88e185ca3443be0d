"""Containers found by shape in kinds servelint does not model: the container, its pod's
keys beside or above it, the workload built from them and where each part is written."""

from __future__ import annotations

from typing import Any

import pytest

from linter.evaluate.parsers import parse
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.extract import extract_workloads
from linter.model.frontends.shapes import ShapePod, is_container, shape_pods
from linter.model.records.workload import Workload

RUNNER = """\
apiVersion: serving.example.com/v1
kind: ModelDeployment
metadata: {name: chat, namespace: llm}
spec:
  replicas: 3
  tolerations:
    - {key: nvidia.com/gpu, operator: Exists}
  runner:
    image: vllm/vllm-openai:v0.11.0
    args: [--model=Qwen/Qwen3-8B, --tensor-parallel-size=2]
    resources:
      limits: {nvidia.com/gpu: 2}
    volumeMounts: [{name: dshm, mountPath: /dev/shm}]
  volumes:
    - name: dshm
      emptyDir: {medium: Memory, sizeLimit: 2Gi}
"""


def _load(text: str) -> list[Workload]:
    return extract_workloads([parse("deploy.yaml", text)], ModelSettings())


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"image": "vllm/vllm-openai:v0.11.0", "args": []}, True),
        ({"image": "x:1", "command": ["vllm", "serve"]}, True),
        ({"image": "x:1", "env": []}, True),
        ({"image": "x:1", "resources": {}}, True),
        ({"image": "vllm/vllm-openai:v0.11.0"}, False),  # an image alone: not a container
        ({"image": {"repository": "vllm/vllm-openai"}, "args": []}, False),  # a values image
        ({"args": ["--model=x"]}, False),
        ("image", False),
    ],
    ids=["args", "command", "env", "resources", "image-only", "image-map", "no-image", "text"],
)
def test_a_container_is_an_image_with_a_command_args_env_or_resources(
    node: object, expected: bool
) -> None:
    assert is_container(node) is expected


def test_pod_keys_beside_and_above_the_container_the_nearest_winning() -> None:
    data: dict[str, Any] = {
        "kind": "Graph",
        "spec": {
            "volumes": [],
            "nodeSelector": {"a": "b"},
            "services": {
                "Worker": {
                    "replicas": 2,
                    "volumes": [],
                    "mainContainer": {"image": "x:1", "args": []},
                },
                "Frontend": {"main": {"image": "y:1", "env": []}},
            },
        },
    }
    assert shape_pods(data) == [
        ShapePod(
            ("spec", "services", "Worker", "mainContainer"),
            {
                "volumes": ("spec", "services", "Worker", "volumes"),
                "nodeSelector": ("spec", "nodeSelector"),
            },
            ("spec", "services", "Worker", "replicas"),
        ),
        ShapePod(
            ("spec", "services", "Frontend", "main"),
            {"volumes": ("spec", "volumes"), "nodeSelector": ("spec", "nodeSelector")},
            None,
        ),
    ]


def test_containers_in_a_list_and_kinds_that_run_nothing() -> None:
    runners = {"kind": "Stack", "spec": {"runners": [{"image": "x:1", "command": ["a"]}]}}
    assert shape_pods(runners) == [ShapePod(("spec", "runners", 0), {}, None)]
    # A chart release's values are read by the chart's reading (linter/gitops/).
    release = {"kind": "HelmRelease", "spec": {"values": {"image": "x:1", "args": []}}}
    assert shape_pods(release) == []


def test_a_runner_beside_its_volumes_is_a_workload_of_the_documents_kind() -> None:
    [workload] = _load(RUNNER)
    data = workload.view().data
    assert (workload.name, data["kind"], data["role"], data["replicas"]) == (
        "ModelDeployment/llm/chat/runner",
        "ModelDeployment",
        "runner",
        3,
    )
    assert (data["engine"]["name"], data["engine"]["tensor_parallel_size"]) == ("vllm", 2)
    assert data["found_by_shape"] == "spec.runner"
    assert data["pod"]["shm"]["mounted"] is True
    assert data["gpu"]["count"] == 2
    # Each part is located where it is written, not where the assembled pod puts it.
    origins = workload.origins()
    assert (origins[("found_by_shape",)].line, origins[("found_by_shape",)].column) == (8, 3)
    volume = workload.locate(("pod", "volumes", 0, "name"))
    assert (volume.line, volume.key) == (15, "spec.volumes[0].name")
    gpus = workload.locate(("gpu", "count"))
    assert (gpus.line, gpus.key) == (12, "spec.runner.resources.limits['nvidia.com/gpu']")


def test_a_container_that_runs_no_known_server_is_no_workload() -> None:
    text = RUNNER.replace("vllm/vllm-openai:v0.11.0", "acme/batch-job:1").replace(
        "[--model=Qwen/Qwen3-8B, --tensor-parallel-size=2]", "[--input=/data]"
    )
    assert _load(text) == []


def test_a_pod_template_in_an_unknown_kind_is_read_as_a_pod_not_by_shape() -> None:
    text = (
        "apiVersion: serving.example.com/v1\nkind: ModelDeployment\nmetadata: {name: chat}\n"
        "spec:\n  template:\n    spec:\n      containers:\n"
        "        - {name: server, image: 'vllm/vllm-openai:v0.11.0', args: [--model=x/y]}\n"
        "  sidecar: {image: 'vllm/vllm-openai:v0.11.0', args: [--model=x/z]}\n"
    )
    [workload] = _load(text)
    assert (workload.name, "found_by_shape" in workload.view().data) == (
        "ModelDeployment/default/chat",
        False,
    )
