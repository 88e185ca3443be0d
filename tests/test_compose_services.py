"""A Docker Compose service as Compose runs it: ``entrypoint`` is the container's command,
``command`` its arguments, and ``deploy.resources.reservations.devices`` its GPUs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads

SERVICE = (
    "services:\n"
    "  vllm:\n"
    "    image: vllm/vllm-openai:v0.11.0\n"
    '    entrypoint: ["vllm", "serve"]\n'
    '    command: ["Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "2"]\n'
)


def _service(tmp_path: Path, text: str) -> dict[str, Any]:
    compose = tmp_path / "docker-compose.yml"
    compose.write_text(text)
    [service] = extract_workloads([parse(str(compose), text)])
    data: dict[str, Any] = service.view().data
    return data


def test_entrypoint_is_the_command_and_command_its_arguments(tmp_path: Path) -> None:
    data = _service(tmp_path, SERVICE)
    container = data["pod"]["containers"][0]
    assert (container["command"], container["args"]) == (
        ["vllm", "serve"],
        ["Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "2"],
    )
    engine = data["engine"]
    assert (engine["entrypoint"], engine["model_id"], engine["tensor_parallel_size"]) == (
        "vllm serve",
        "Qwen/Qwen2.5-7B-Instruct",
        2,
    )


@pytest.mark.parametrize(
    ("devices", "gpus"),
    [
        ("- {driver: nvidia, count: 2, capabilities: [gpu]}", 2),
        ("- {driver: nvidia, device_ids: ['0', '3'], capabilities: [gpu]}", 2),
        # `all` is every GPU of the host: a number the file does not tell.
        ("- {driver: nvidia, count: all, capabilities: [gpu]}", None),
        ("- {driver: nvidia, count: 1, capabilities: [compute]}", None),
    ],
)
def test_gpu_reservations_are_the_services_gpus(
    tmp_path: Path, devices: str, gpus: int | None
) -> None:
    text = SERVICE + (
        "    deploy:\n      resources:\n        reservations:\n          devices:\n"
        f"            {devices}\n"
    )
    data = _service(tmp_path, text)
    assert data.get("gpu", {}).get("count") == gpus


@pytest.mark.parametrize(
    ("test", "command"),
    [
        (
            '["CMD", "curl", "-f", "http://localhost:8000/health"]',
            ["curl", "-f", "http://localhost:8000/health"],
        ),
        (
            '["CMD-SHELL", "curl -f localhost:8000/health || exit 1"]',
            ["/bin/sh", "-c", "curl -f localhost:8000/health || exit 1"],
        ),
        ('"curl -f localhost:8000/health"', ["/bin/sh", "-c", "curl -f localhost:8000/health"]),
        ('["NONE"]', None),
    ],
)
def test_a_healthcheck_is_the_exec_probe_it_amounts_to(
    tmp_path: Path, test: str, command: list[str] | None
) -> None:
    data = _service(tmp_path, SERVICE + f"    healthcheck:\n      test: {test}\n")
    probes = data["pod"]["containers"][0].get("probes", {})
    assert probes.get("readiness", {}).get("command") == command
