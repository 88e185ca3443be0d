"""Serving-model facts the platform policies rely on: the /dev/shm that the KubeAI operator
adds to vLLM pods, vLLM's --shutdown-timeout, and the AWS NLB of a values file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads

FIXTURES = Path(__file__).parent / "fixtures" / "platform"


def _workloads(path: Path) -> list[Any]:
    return extract_workloads([parse(str(path), path.read_text(encoding="utf-8"))])


def test_kubeai_vllm_pods_get_the_operators_memory_backed_dev_shm() -> None:
    [workload] = _workloads(FIXTURES / "kubeai" / "model.yaml")
    pod = workload.view().data["pod"]
    assert pod["volumes"] == [{"name": "dshm", "type": "emptyDir", "medium": "Memory"}]
    assert workload.view().data["container"]["mounts"] == [
        {"name": "dshm", "mount_path": "/dev/shm"}
    ]
    assert pod["shm"] == {"mounted": True, "host_ipc": False, "volume": "dshm", "medium": "Memory"}
    assert workload.view().locate(("pod", "volumes", 0))[1:3] == (10, 3)  # engine: VLLM


def test_vllm_shutdown_timeout_is_a_setting_in_seconds() -> None:
    [_, drain, _, _] = _workloads(FIXTURES / "shutdown" / "deployment.yaml")
    assert drain.view().data["engine"]["shutdown_timeout"] == 120
    assert drain.view().locate(("engine", "shutdown_timeout"))[1:3] == (31, 79)


def test_nlb_annotation_in_values_is_the_load_balancer() -> None:
    [workload] = _workloads(FIXTURES / "grpc" / "values.yaml")
    assert workload.view().data["grpc"]["load_balancer"] == {
        "kind": "aws-nlb",
        "idle_timeout_ms": 350000,
    }
    assert workload.view().locate(("grpc", "load_balancer"))[1:3] == (8, 5)
    [other] = _workloads(FIXTURES / "grpc" / "age-values.yaml")
    assert "load_balancer" not in other.view().data["grpc"]


def test_a_docker_compose_service_is_marked_as_such() -> None:
    [service] = _workloads(FIXTURES / "compose" / "docker-compose.yaml")
    assert (service.view().data["compose"], service.view().data["pod"]["host_ipc"]) == (True, True)
    [values] = _workloads(FIXTURES / "gpu_values" / "values.yaml")
    assert "compose" not in values.view().data


def test_compose_image_defaults_are_what_compose_pulls(run_line: Any) -> None:
    path = FIXTURES.parent / "model" / "compose" / "defaults.yaml"
    vllm, tgi = _workloads(path)
    assert (vllm.view().data["engine"]["image"], vllm.view().data["image"]["tag"]) == (
        "opea/vllm:latest",
        "latest",
    )
    assert vllm.view().locate(("engine", "image"))[1:3] == (5, 5)
    assert tgi.view().data["engine"]["image"] == (
        "ghcr.io/huggingface/text-generation-inference:${TGI_TAG}"
    )
    result = run_line(["lint", "--no-config", str(path)])
    assert [line for line in result.output.splitlines() if "unpinned" in line] == [
        f"{path}:5:5: warning images/unpinned-server-image image opea/vllm:latest uses the "
        "moving tag latest: the server release changes under this manifest whenever the tag "
        "moves, and version-gated checks cannot run; pin a tag of this image that names one "
        "build, or a digest (the newest vLLM release is v0.33.0)"
    ]
