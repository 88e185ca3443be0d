"""Container images: which server an image runs and which server version its tag names.

A version is read only from the servers' own release images, whose tags are release
numbers (``vllm/vllm-openai:v0.11.0``, ``ghcr.io/huggingface/text-generation-inference:3.3.6``,
``lmsysorg/sglang:v0.5.6.post2``, ``nvcr.io/nvidia/tritonserver:24.08-py3``). Other images
that bundle a server (``lmcache/vllm-openai``, ``ghcr.io/llm-d/llm-d-cuda``) have tags that
are not the server's version, so the version stays unknown; Hugging Face's TGI Deep Learning
Containers are the exception, as they name the TGI release (see ``_TGI_DLC_REPO``).

NVIDIA NIM for LLMs images (``nvcr.io/nim/<publisher>/<model>:<release>``) are their own
server, ``nim``: they run vLLM, SGLang or TensorRT-LLM behind NIM's launcher, which takes its
settings from ``NIM_*`` environment variables, so the rules of those servers do not apply to
them as written (https://docs.nvidia.com/nim/large-language-models/latest/reference/environment-variables.html).
Their tag is the NIM release (``1.3.3``), read like the other servers' release tags.

The servers' own images include their platform builds (vLLM's ROCm and CPU repositories,
the ``-rocm``/``-cuXXX`` tags of SGLang and TGI) and mirrors of them in another registry with
an upstream tag (``registry.corp/vllm/vllm-openai:v0.9.1``). A vendor build that names the
release it embeds (AMD's ``rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521``, the AWS Neuron
container) has that version without being the server's own image. Any other image of a
server's family (a fork such as ``tgi-gaudi``, ``rocm/vllm-dev:main``, ``vllm/vllm-tpu``, a
mirror's own tag, a custom build) is "unknown, based on" the server: ``server`` is set,
``official`` and ``version`` are not.

``platform`` is the software stack the image is built for, in ``gpus.platform``'s words
(``cuda``, ``rocm``, ``xpu``, ``tpu``, ``hpu``, ``neuron``) and ``cpu``: named by the repository
or tag, else ``cuda`` for the servers' own images (their default build), else unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from linter.lazyregex import lazy_compile

# repository (registry host stripped for Docker Hub) → server, for the official images.
_OFFICIAL = {
    "vllm/vllm-openai": "vllm",
    # vLLM's release pipeline pushes its ROCm and CPU builds to repositories of their own,
    # tagged with the release (vllm-project/vllm .buildkite/scripts/annotate-release.sh:
    # vllm/vllm-openai-rocm:v${RELEASE_VERSION}[-rocm], vllm/vllm-openai-cpu, the ECR
    # vllm-cpu-release-repo:v${RELEASE_VERSION}; vllm-release-repo holds every commit's
    # build, tagged with the commit, and vllm/vllm-openai:v${RELEASE_VERSION}-aarch64-cu130).
    "vllm/vllm-openai-rocm": "vllm",
    "vllm/vllm-openai-cpu": "vllm",
    "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo": "vllm",
    "public.ecr.aws/q9t5s3a7/vllm-release-repo": "vllm",
    "ghcr.io/huggingface/text-generation-inference": "tgi",
    "huggingface/text-generation-inference": "tgi",
    "lmsysorg/sglang": "sglang",
    "nvcr.io/nvidia/tritonserver": "triton",
}
# NGC's NIM registry: every repository under it is a NIM microservice image.
_NIM_PREFIX = "nvcr.io/nim/"
# Vendor builds that name the server release they embed in the tag, by repository, with
# the expression that reads it.
_EMBEDDED = {
    # AMD's validated vLLM builds: rocm6.3.1_vllm_0.8.5_20250521,
    # rocm6.3.1_instinct_vllm0.8.3_20250415, rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4
    # (https://rocm.docs.amd.com/en/docs-7.1.0/how-to/rocm-for-ai/inference/benchmark-docker/previous-versions/vllm-history.html,
    # which names each tag's vLLM release). AMD's dev builds (rocm/vllm-dev) name none.
    "rocm/vllm": lazy_compile(r"(?:^|_)vllm_?v?(\d+\.\d+(?:\.\d+){0,2}(?:\.?post\d+)?)(?=_|$)"),
    # AWS Neuron's vLLM container: the vLLM release, then for the plugin builds the
    # vllm-neuron release (0.9.1-neuronx-py310-sdk2.24.0-ubuntu22.04 is vLLM 0.9.1,
    # 0.21.0.1.0.0-neuronx-py313-sdk2.31.0-ubuntu24.04 is vLLM 0.21.0).
    "neuron/pytorch-inference-vllm-neuronx": lazy_compile(r"^(\d+\.\d+\.\d+)(?:\.\d+)*-neuronx"),
}
# Triton's client SDK (perf_analyzer, genai-perf) and the base for building Triton carry
# the server's repository and release but run no server (-py3-sdk, -py3-min:
# https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/customization_guide/compose.html).
_TRITON_TOOLS = lazy_compile(r"-(?:sdk|min)$")
# Substrings of the last path segment of other images that run a known server. vLLM's TPU
# image (vllm/vllm-tpu) is the tpu-inference plugin's build, which numbers its own releases
# (pip install vllm-tpu --version=0.13.2.post6, vllm-project/tpu-inference
# docs/getting_started/installation.md; vLLM has no 0.13.2): based on vLLM.
_FAMILIES = (
    ("text-generation-inference", "tgi"),
    ("tgi-inference", "tgi"),
    # Habana's TGI fork for Gaudi, with a version line of its own (ghcr.io/huggingface/tgi-gaudi:2.0.6).
    ("tgi-gaudi", "tgi"),
    ("tritonserver", "triton"),
    ("sglang", "sglang"),
    ("vllm", "vllm"),
)
# Images of a family that run its request router, not the server (lmsysorg/sglang-router
# runs `python -m sglang_router.launch_router`; vllm-project's router images alike).
_ROUTER_WORDS = ("router", "gateway")
# Words of an image name that make it a companion of a server, never the server: a
# metrics proxy (vllm-latency-proxy), an exporter, a benchmark client. Whole words only
# ("ui" is in "build").
_COMPANION_WORDS = frozenset(
    {"proxy", "exporter", "benchmark", "bench", "client", "dashboard", "monitor", "ui", "webui"}
)
_WORD_SPLIT = lazy_compile(r"[-_.]")
# Up to four numeric parts (vLLM 0.10.1.1, 0.9.0.1), a post-release or a release candidate.
_RELEASE = lazy_compile(r"^v?(\d+\.\d+(?:\.\d+){0,2}(?:\.?post\d+|rc\d+)?)(?:[-+_].*)?$")
# A pre-release (0.10.1rc1): a build of the main branch before that release, which the
# flag tables do not hold.
_PRERELEASE = lazy_compile(r"\d(?:rc|a|b|alpha|beta|dev)\d*$")
_NGC = lazy_compile(r"^(\d{2}\.\d{2})(?:-.*)?$")
_UNPINNED = lazy_compile(r"^(latest|nightly|main|master|dev|edge|stable)([-_.].*)?$")
# Hugging Face's TGI Deep Learning Containers name the TGI release in the repository (Google
# Cloud: huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311 is 2.3) or in the
# tag (AWS: huggingface-pytorch-tgi-inference:2.3.0-tgi2.3.1-gpu-py311-… is 2.3.1).
_TGI_DLC_REPO = lazy_compile(
    r"huggingface-text-generation-inference-cu\d+\.(\d+)-(\d+)(?:-(\d+))?\."
)
# A build date in a tag (lmcache/vllm-openai:2025-04-18, …:2025-05-05-v1, nightly-20250418).
_BUILD_DATE = lazy_compile(
    r"(?:^|[-_.])(20\d\d)-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?=$|[-_.])"
)
_TGI_DLC_TAG = lazy_compile(r"(?:^|-)tgi(\d+\.\d+(?:\.\d+)?)(?:-|$)")
# A registry host: the first path segment when it has a dot or a port, or is localhost
# (how Docker tells a host from a Docker Hub namespace).
_HOST = lazy_compile(r"^(?:[^/]*[.:][^/]*|localhost)/")
# The platform words of repositories and tags, one path or tag word each (rocm630,
# vllm-tpu, neuronx, gaudi2, habanalabs, intel-xpu, intel-cpu, cu128).
_PLATFORM_WORD = lazy_compile(
    r"^(?:(rocm)\d*|(tpu)\w*|(neuron)x?|(gaudi|habana|hpu)\w*|(xpu)|(cpu)|(cuda|cu\d)\d*)$"
)
_PLATFORM_NAMES = ("rocm", "tpu", "neuron", "hpu", "xpu", "cpu", "cuda")


class ImageInfo(NamedTuple):
    image: str
    repository: str
    tag: str
    digest: str
    server: str  # "" when the image is not a known server image
    official: bool
    version: str  # "" when unknown
    pinned: bool  # the version was read from a release tag
    build_date: str = ""  # YYYY-MM-DD a tag names instead of a release (2025-04-18)
    platform: str = ""  # cuda, rocm, tpu, xpu, hpu, neuron, cpu; "" when not known


def parse_image(image: str) -> ImageInfo:
    text = image.strip()
    name, _, digest = text.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    repository, tag = (name[:colon], name[colon + 1 :]) if colon > slash else (name, "")
    repository = _strip_docker_hub(repository)
    server, official = _server_of(repository)
    if (
        official
        and server != "nim"
        and repository.lower() not in _OFFICIAL
        and not _upstream_tag(server, tag)
    ):
        # A mirror's own tag (registry.corp/vllm/vllm-openai:team-build-42) is a custom build.
        official = False
    if server == "triton" and "trtllm" in tag:
        server = "trtllm"
    if server == "triton" and _TRITON_TOOLS.search(tag):
        server, official = "", False
    version = _version(server, tag) if official and not digest and "{" not in tag else ""
    if server and not official and not digest:
        version = _embedded_version(server, repository, tag)
    dated = _BUILD_DATE.search(tag) if server and not version and not digest else None
    build_date = "-".join(dated.groups()) if dated else ""
    platform = _platform(repository, tag, official) if server else ""
    return ImageInfo(
        text,
        repository,
        tag,
        digest,
        server,
        official,
        version,
        bool(version),
        build_date,
        platform,
    )


def _strip_docker_hub(repository: str) -> str:
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/"):
        if repository.startswith(prefix):
            return repository[len(prefix) :]
    return repository


def _hostless(repository: str) -> str:
    match = _HOST.match(repository)
    return repository[match.end() :] if match else repository


def _mirrored(lowered: str, names: Iterable[str]) -> str | None:
    """The name in ``names`` that ``lowered`` is, or mirrors in another registry (a host,
    perhaps a proxy-cache project, then the upstream path: harbor.corp/hub/vllm/vllm-openai)."""
    if lowered in names:
        return lowered
    if not _HOST.match(lowered):
        return None
    path = _hostless(lowered)
    return next(
        (n for n in names if path == _hostless(n) or path.endswith(f"/{_hostless(n)}")), None
    )


def _server_of(repository: str) -> tuple[str, bool]:
    lowered = repository.lower()
    official = _mirrored(lowered, _OFFICIAL)
    if official is not None:
        return _OFFICIAL[official], True
    if lowered.startswith(_NIM_PREFIX) and lowered.count("/") >= 3:
        return "nim", True
    last = lowered.rsplit("/", 1)[-1]
    if is_companion(last) or "/ai-dynamo/" in f"/{lowered}":
        # NVIDIA Dynamo's runtime images (ai-dynamo/sglang-runtime) run Dynamo's own
        # frontend and workers (python -m dynamo.sglang), not the server's entrypoint.
        return "", False
    for needle, server in _FAMILIES:
        if needle in last:
            return server, False
    return "", False


def is_companion(name: str) -> bool:
    """An image's last segment (lowercase, with or without its tag) that names a router,
    gateway, proxy or other program running beside a server, not the server itself. The
    tag is no part of the name: ``vllm-custom:gateway-fix`` is a server build."""
    name = name.split("@", 1)[0].split(":", 1)[0]
    if any(word in name for word in _ROUTER_WORDS):
        return True
    return not _COMPANION_WORDS.isdisjoint(_WORD_SPLIT.split(name))


def _upstream_tag(server: str, tag: str) -> bool:
    """A tag the server's own repository has: a release, or one that moves with it."""
    return not tag or "{" in tag or bool(_UNPINNED.match(tag)) or bool(_version(server, tag))


def _version(server: str, tag: str) -> str:
    if not tag or _UNPINNED.match(tag):
        return ""
    match = _NGC.match(tag) if server in ("triton", "trtllm") else _RELEASE.match(tag)
    return match.group(1) if match else ""


def _embedded_version(server: str, repository: str, tag: str) -> str:
    """The release a vendor build names (``_EMBEDDED``, the TGI Deep Learning Containers)."""
    if server == "tgi":
        return _tgi_dlc_version(repository, tag)
    embedded = _mirrored(repository.lower(), _EMBEDDED)
    match = _EMBEDDED[embedded].search(tag) if embedded is not None else None
    return match.group(1) if match else ""


def _platform(repository: str, tag: str, official: bool) -> str:
    for word in re.split(r"[-_./:]+", f"{repository}:{tag}".lower()):
        match = _PLATFORM_WORD.match(word)
        if match:
            return _PLATFORM_NAMES[match.lastindex - 1 if match.lastindex else 0]
    return "cuda" if official else ""


def _tgi_dlc_version(repository: str, tag: str) -> str:
    match = _TGI_DLC_REPO.search(repository.rsplit("/", 1)[-1])
    if match:
        return ".".join(part for part in match.groups() if part is not None)
    match = _TGI_DLC_TAG.search(tag)
    return match.group(1) if match else ""


def version_tuple(version: str) -> tuple[int, ...]:
    """``0.5.6.post2`` → (0, 5, 6, 2); ``24.08`` → (24, 8). Empty for unknown versions.

    A pre-release counts as the release it leads to without its number (``0.10.1rc1`` →
    (0, 10, 1)): it is never equal to a post-release or a four-part release of that line
    (0.10.1.1), and ``is_prerelease`` tells it from the release itself.
    """
    match = _PRERELEASE.search(version)
    if match:
        version = version[: match.start() + 1]
    return tuple(int(part) for part in re.findall(r"\d+", version))


def is_prerelease(version: str) -> bool:
    """``0.10.1rc1``: a release candidate, not a release any table holds."""
    return bool(_PRERELEASE.search(version))
