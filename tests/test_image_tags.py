"""Versions from every tag form people deploy: the servers' platform builds, mirrors, vendor
builds that name the release they embed; a fork or custom build is "unknown, based on" its
server, and coverage says so (issue #28, item 6)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.evaluate.parsers import parse
from linter.model.engine import images
from linter.model.facts import gpus
from linter.model.frontends.extract import extract_workloads

FIXTURES = Path(__file__).parent / "fixtures" / "image_tags"
RunLine = Callable[..., Result]

# image → (server, version, official, platform)
TAGS = [
    # Programs that run beside a server and carry its name.
    ("ghcr.io/acme/vllm-latency-proxy:1.2.0", "", "", False, ""),
    ("ghcr.io/acme/vllm-router:0.1.5", "", "", False, ""),
    ("ghcr.io/acme/tgi-benchmark:2.0", "", "", False, ""),
    ("ghcr.io/acme/sglang_exporter:1", "", "", False, ""),
    ("ghcr.io/acme/vllm-build:0.9.1", "vllm", "", False, ""),
    # A tag is no part of the name.
    ("ghcr.io/acme/vllm-custom:gateway-fix", "vllm", "", False, ""),
    # vLLM: the release images, their platform builds and repositories, mirrors.
    ("vllm/vllm-openai:v0.9.1", "vllm", "0.9.1", True, "cuda"),
    ("vllm/vllm-openai:v0.6.1.post2", "vllm", "0.6.1.post2", True, "cuda"),
    ("vllm/vllm-openai:v0.10.1-aarch64-cu130", "vllm", "0.10.1", True, "cuda"),
    ("vllm/vllm-openai-rocm:v0.14.0", "vllm", "0.14.0", True, "rocm"),
    ("vllm/vllm-openai-rocm:v0.11.0-rocm", "vllm", "0.11.0", True, "rocm"),
    ("vllm/vllm-openai-cpu:v0.12.0-x86_64", "vllm", "0.12.0", True, "cpu"),
    # The TPU plugin's image numbers its own releases.
    ("vllm/vllm-tpu:v0.12.0", "vllm", "", False, "tpu"),
    ("vllm/vllm-tpu:e92694b6fe264a85371317295bca6643508034ef", "vllm", "", False, "tpu"),
    ("public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.9.1", "vllm", "0.9.1", True, "cpu"),
    (
        "public.ecr.aws/q9t5s3a7/vllm-release-repo:e92694b6fe264a85371317295bca6643508034ef",
        "vllm",
        "",
        True,
        "cuda",
    ),
    ("registry.corp/vllm/vllm-openai:v0.9.1", "vllm", "0.9.1", True, "cuda"),
    ("harbor.corp:5000/hub-proxy/vllm/vllm-openai:v0.9.1", "vllm", "0.9.1", True, "cuda"),
    ("registry.corp/vllm/vllm-openai:latest", "vllm", "", True, "cuda"),
    # A mirror's own tag is a custom build.
    ("registry.corp/vllm/vllm-openai:team-build-42", "vllm", "", False, ""),
    # AMD's builds name the vLLM release; its dev builds name none.
    ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "vllm", "0.8.5", False, "rocm"),
    ("rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4", "vllm", "0.6.4", False, "rocm"),
    ("rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250415", "vllm", "0.8.3", False, "rocm"),
    ("docker.io/rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605", "vllm", "0.9.0.1", False, "rocm"),
    ("rocm/vllm:latest", "vllm", "", False, "rocm"),
    ("rocm/vllm-dev:main", "vllm", "", False, "rocm"),
    ("rocm/vllm-dev:nightly_main_20250521", "vllm", "", False, "rocm"),
    # AWS Neuron's container: the vLLM release first, then the plugin's.
    (
        "public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:"
        "0.9.1-neuronx-py310-sdk2.24.0-ubuntu22.04",
        "vllm",
        "0.9.1",
        False,
        "neuron",
    ),
    (
        "public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:"
        "0.21.0.1.0.0-neuronx-py313-sdk2.31.0-ubuntu24.04",
        "vllm",
        "0.21.0",
        False,
        "neuron",
    ),
    # Intel Gaudi builds of vLLM's Habana fork: their own version line.
    ("opea/vllm-gaudi:1.2", "vllm", "", False, "hpu"),
    # SGLang's platform tags.
    ("lmsysorg/sglang:v0.4.6.post1-rocm630", "sglang", "0.4.6.post1", True, "rocm"),
    ("lmsysorg/sglang:v0.4.6-cu124", "sglang", "0.4.6", True, "cuda"),
    ("lmsysorg/sglang:v0.5.2rc2-cu126", "sglang", "0.5.2rc2", True, "cuda"),
    # TGI's platform tags; Habana's fork.
    ("ghcr.io/huggingface/text-generation-inference:3.0.1-rocm", "tgi", "3.0.1", True, "rocm"),
    ("ghcr.io/huggingface/text-generation-inference:2.4.0-intel-cpu", "tgi", "2.4.0", True, "cpu"),
    ("ghcr.io/huggingface/text-generation-inference:3.1.0-intel-xpu", "tgi", "3.1.0", True, "xpu"),
    ("ghcr.io/huggingface/text-generation-inference:latest-trtllm", "tgi", "", True, "cuda"),
    ("ghcr.io/huggingface/tgi-gaudi:2.0.6", "tgi", "", False, "hpu"),
    (
        "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:"
        "2.3.0-tgi2.3.1-gpu-py311-cu124-ubuntu22.04",
        "tgi",
        "2.3.1",
        False,
        "cuda",
    ),
    # Triton: the release, whichever backend the image carries; the SDK and the build base
    # run no server.
    ("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", "trtllm", "24.08", True, "cuda"),
    ("nvcr.io/nvidia/tritonserver:25.01-vllm-python-py3", "triton", "25.01", True, "cuda"),
    ("nvcr.io/nvidia/tritonserver:24.08-py3-sdk", "", "", False, ""),
    ("nvcr.io/nvidia/tritonserver:24.08-py3-min", "", "", False, ""),
    # NIM: the tag is the NIM release, not the engine's inside.
    ("nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3", "nim", "1.3.3", True, "cuda"),
    # Other images of a family: no version, no platform they do not name.
    ("aibrix/vllm-openai:v0.6.1-edb07092-20250118", "vllm", "", False, ""),
    ("busybox:1.36", "", "", False, ""),
]


@pytest.mark.parametrize(
    ("image", "server", "version", "official", "platform"), TAGS, ids=[t[0] for t in TAGS]
)
def test_tag_forms(image: str, server: str, version: str, official: bool, platform: str) -> None:
    info = images.parse_image(image)
    assert (info.server, info.version, info.official, info.platform) == (
        server,
        version,
        official,
        platform,
    )
    assert info.pinned is bool(version)


def test_image_platforms_are_the_accelerator_platforms() -> None:
    """One notion of platform: the accelerator resources' (gpus.platform) and cpu."""
    resources = ["nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915", "google.com/tpu"]
    resources += ["habana.ai/gaudi", "aws.amazon.com/neuron"]
    named = {gpus.platform(r) for r in resources}
    assert {t[4] for t in TAGS} - {""} == named | {"cpu"}


@pytest.mark.parametrize(
    ("name", "image"),
    [
        (
            "vllm-rocm-release.yaml",
            {
                "tag": "rocm6.3.1_vllm_0.8.5_20250521",
                "digest": "",
                "official": False,
                "platform": "rocm",
            },
        ),
        ("tgi-gaudi.yaml", {"tag": "2.0.6", "digest": "", "official": False, "platform": "hpu"}),
    ],
)
def test_policies_see_the_image_platform(name: str, image: dict[str, object]) -> None:
    path = FIXTURES / name
    [workload] = extract_workloads([parse(str(path), path.read_text())])
    assert workload.view().data["image"] == image


def _findings(run_line: RunLine, path: Path) -> tuple[int, list[tuple[str, int, str]], dict]:
    result = run_line(["lint", "--no-config", "--format", "json", str(path)])
    report = json.loads(result.output)
    found = [(f["rule"], f["line"], f["message"]) for f in report["findings"]]
    return result.exit_code, found, report["coverage"]


def _gaps(coverage: dict) -> list[tuple[str, str, str]]:
    return [
        (gap["fact"], gap["detail"], gap["fix"])
        for file in coverage["files"]
        for workload in file["workloads"]
        for gap in workload["gaps"]
    ]


PROMPTS_LOGGED = (
    "vLLM {v} logs every request with its prompt unless --disable-log-requests is given "
    "(0.10.1 made it opt-in): user content reaches the log pipeline and whoever reads it; add "
    "--disable-log-requests"
)
ASYNC_SCHEDULING = (
    "--async-scheduling is not a flag of vLLM {v}: it arrived later (accepted in "
    "0.10.0–0.33.0); vllm serve exits at once (unrecognized arguments: --async-scheduling); "
    "pin a release that accepts it, or delete it"
)
WHOLE_GPU = (
    "gpu_memory_utilization 1 asks for the whole GPU: the V1 engine of vLLM 0.9.2 and later "
    "refuses to start (Free memory on device … is less than desired GPU memory utilization), "
    "and {older} may run out of CUDA memory while capturing CUDA graphs, with nothing left "
    "outside its budget; leave headroom, e.g. 0.92{unknown}"
)


def test_a_rocm_build_of_a_release_is_judged_as_that_release(
    run_line: RunLine, tmp_path: Path
) -> None:
    """rocm/vllm:…_vllm_0.8.5_… gets the findings of vllm/vllm-openai:v0.8.5 on the same
    arguments: the flag 0.8.5 does not take, 0.8.5's defaults."""
    path = FIXTURES / "vllm-rocm-release.yaml"
    code, found, _ = _findings(run_line, path)
    assert code == 1
    assert found == [
        ("diagnostics/prompts-logged-by-default", 17, PROMPTS_LOGGED.format(v="0.8.5")),
        ("vllm/flag-not-accepted", 21, ASYNC_SCHEDULING.format(v="0.8.5")),
        (
            "vllm/gpu-memory-utilization-no-headroom",
            24,
            WHOLE_GPU.format(older="vLLM 0.8.5", unknown=""),
        ),
    ]
    upstream = tmp_path / "vllm-rocm-release.yaml"
    upstream.write_text(
        path.read_text().replace(
            "rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "vllm/vllm-openai:v0.8.5"
        )
    )
    assert _findings(run_line, upstream)[:2] == (code, found)


def test_a_fork_is_unknown_based_on_its_server(run_line: RunLine) -> None:
    """AMD's dev build of its fork names no release: none of 0.8.5's findings, the
    version-gated rules warn, and coverage says why."""
    path = FIXTURES / "vllm-rocm-dev.yaml"
    code, found, coverage = _findings(run_line, path)
    image = "rocm/vllm-dev:nightly_main_20250521"
    assert code == 0
    assert found == [
        (
            "images/unpinned-server-image",
            17,
            f"image {image} uses the moving tag nightly_main_20250521: the server release "
            "changes under this manifest whenever the tag moves, and version-gated checks "
            "cannot run; pin a tag of this image that names one build, or a digest (the "
            "newest vLLM release is v0.33.0)",
        ),
        (
            "vllm/gpu-memory-utilization-no-headroom",
            24,
            WHOLE_GPU.format(
                older="an older release",
                unknown=f" (servelint cannot tell the vLLM version from the image {image})",
            ),
        ),
    ]
    assert _gaps(coverage)[1] == (
        "server version",
        f"image {image} is not a vLLM release image: version unknown, based on vLLM",
        "run a release image of the server (for example vllm/vllm-openai:v0.11.0), or a "
        "vendor build whose tag names the release it embeds",
    )


def test_tgi_gaudi_is_tgi_of_unknown_version(run_line: RunLine) -> None:
    """Habana's TGI fork is read as TGI (its launcher's flags), its version unknown."""
    code, found, coverage = _findings(run_line, FIXTURES / "tgi-gaudi.yaml")
    assert code == 1
    assert found == [
        (
            "tgi/input-not-below-total",
            22,
            "max_input_tokens 4096 is not below max_total_tokens 4096: TGI refuses to start "
            "(Invalid argument: `max_input_tokens`(4096) must be < `max_total_tokens`(4096)); "
            "a request needs room for at least one generated token",
        )
    ]
    assert [(fact, detail) for fact, detail, _ in _gaps(coverage)] == [
        ("GPU memory", "the pod does not name its GPU type"),
        (
            "server version",
            "image ghcr.io/huggingface/tgi-gaudi:2.0.6 is not a TGI release image: version "
            "unknown, based on TGI",
        ),
    ]


def test_a_neuron_container_is_judged_as_the_release_it_embeds(run_line: RunLine) -> None:
    code, found, coverage = _findings(run_line, FIXTURES / "vllm-neuron-dlc.yaml")
    assert code == 1
    assert found == [
        ("diagnostics/prompts-logged-by-default", 16, PROMPTS_LOGGED.format(v="0.9.1")),
        ("vllm/flag-not-accepted", 20, ASYNC_SCHEDULING.format(v="0.9.1")),
    ]
    assert [fact for fact, _, _ in _gaps(coverage)] == ["GPU memory"]


def test_an_image_outside_the_family_is_not_called_a_fork(
    run_line: RunLine, tmp_path: Path
) -> None:
    """A base image that installs the server is no build of it: the note says only that
    the version is unknown."""
    path = tmp_path / "ubuntu.yaml"
    path.write_text(
        (FIXTURES / "vllm-rocm-dev.yaml")
        .read_text()
        .replace("rocm/vllm-dev:nightly_main_20250521", "ubuntu:22.04")
    )
    gaps = _gaps(_findings(run_line, path)[2])
    assert gaps[1][:2] == (
        "server version",
        "image ubuntu:22.04 is not a vLLM release image: version unknown",
    )
