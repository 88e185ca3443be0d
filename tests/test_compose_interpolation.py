"""Docker Compose interpolation of a service's image: the project's .env, then defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.evaluate.parsers import parse
from linter.model.engine.command import expand_shell_vars
from linter.model.frontends.compose import project_env
from linter.model.frontends.extract import extract_workloads


@pytest.mark.parametrize(
    ("text", "env", "read"),
    [
        ("vllm:${TAG:-latest}", {}, "vllm:latest"),
        ("vllm:${TAG:-latest}", {"TAG": "v0.10.1"}, "vllm:v0.10.1"),
        ("vllm:${TAG:-latest}", {"TAG": ""}, "vllm:latest"),  # :- also covers empty
        ("vllm:${TAG-latest}", {"TAG": ""}, "vllm:"),  # - only an unset variable
        ("${REGISTRY:-opea}/vllm:${TAG}", {"TAG": "1.2"}, "opea/vllm:1.2"),
        ("vllm:$TAG", {"TAG": "v0.9.2"}, "vllm:v0.9.2"),
        ("vllm:${TAG}", {}, "vllm:${TAG}"),  # unknown: left as written
    ],
)
def test_interpolate(text: str, env: dict[str, str], read: str) -> None:
    assert expand_shell_vars(text, env) == read


def test_project_env_reads_the_dot_env_beside_the_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "# pinned releases\nVLLM_TAG=v0.10.1\nexport REGISTRY='registry.example.com'\n"
        'QUOTED="a b"\nCOMMENTED=1.2 # a note\nnot an assignment\n'
    )
    assert project_env(str(tmp_path / "compose.yaml")) == {
        "VLLM_TAG": "v0.10.1",
        "REGISTRY": "registry.example.com",
        "QUOTED": "a b",
        "COMMENTED": "1.2",
    }
    assert project_env(str(tmp_path / "elsewhere" / "compose.yaml")) == {}


def test_a_service_image_pinned_in_dot_env_is_pinned(tmp_path: Path) -> None:
    compose = tmp_path / "docker-compose.yaml"
    compose.write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:${VLLM_TAG:-latest}\n"
        "    ipc: host\n    command: --model Qwen/Qwen2.5-7B-Instruct\n"
    )
    (tmp_path / ".env").write_text("VLLM_TAG=v0.10.1\n")
    [service] = extract_workloads([parse(str(compose), compose.read_text())])
    engine = service.view().data["engine"]
    assert (engine["image"], engine["version"]) == ("vllm/vllm-openai:v0.10.1", "0.10.1")


def test_a_service_of_a_file_named_for_compose_is_compose(tmp_path: Path) -> None:
    """Only an image and a command: the file's name says it is Compose's."""
    text = (
        "services:\n  vllm:\n    image: vllm/vllm-openai:${VLLM_TAG:-v0.10.1}\n"
        "    command: --model Qwen/Qwen2.5-7B-Instruct\n"
    )
    compose = tmp_path / "compose.yaml"
    compose.write_text(text)
    [service] = extract_workloads([parse(str(compose), text)])
    assert service.view().data["compose"] is True
    assert service.view().data["engine"]["version"] == "0.10.1"
    other = tmp_path / "stack.yaml"  # not a name Compose reads: a values layout
    other.write_text(text)
    [values] = extract_workloads([parse(str(other), text)])
    assert "compose" not in values.view().data


def test_a_server_image_given_as_a_default_is_recognised(tmp_path: Path) -> None:
    # NVIDIA's NIM Compose files name the image through a variable with a default.
    compose = tmp_path / "docker-compose.nim.yml"
    compose.write_text(
        "services:\n  nim-llm:\n"
        "    image: ${NGC_NIM_LLM_CONTAINER:-nvcr.io/nim/meta/llama-3.1-70b-instruct:1.3.0}\n"
        "    shm_size: 16G\n"
    )
    [service] = extract_workloads([parse(str(compose), compose.read_text())])
    engine = service.view().data["engine"]
    assert (engine["name"], engine["image"], engine["version"]) == (
        "nim",
        "nvcr.io/nim/meta/llama-3.1-70b-instruct:1.3.0",
        "1.3.0",
    )
