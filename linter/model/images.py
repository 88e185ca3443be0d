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
"""

from __future__ import annotations

import re
from typing import NamedTuple

from linter.lazyregex import lazy_compile

# repository (registry host stripped for Docker Hub) → server, for the official images.
_OFFICIAL = {
    "vllm/vllm-openai": "vllm",
    "ghcr.io/huggingface/text-generation-inference": "tgi",
    "huggingface/text-generation-inference": "tgi",
    "lmsysorg/sglang": "sglang",
    "nvcr.io/nvidia/tritonserver": "triton",
}
# NGC's NIM registry: every repository under it is a NIM microservice image.
_NIM_PREFIX = "nvcr.io/nim/"
# Substrings of the last path segment of other images that run a known server.
_FAMILIES = (
    ("text-generation-inference", "tgi"),
    ("tgi-inference", "tgi"),
    ("tritonserver", "triton"),
    ("sglang", "sglang"),
    ("vllm", "vllm"),
)
# Images of a family that run its request router, not the server (lmsysorg/sglang-router
# runs `python -m sglang_router.launch_router`; vllm-project's router images alike).
ROUTER_WORDS = ("router", "gateway")
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


def parse_image(image: str) -> ImageInfo:
    text = image.strip()
    name, _, digest = text.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    repository, tag = (name[:colon], name[colon + 1 :]) if colon > slash else (name, "")
    repository = _strip_docker_hub(repository)
    server, official = _server_of(repository)
    if server == "triton" and "trtllm" in tag:
        server = "trtllm"
    version = _version(server, tag) if official and not digest and "{" not in tag else ""
    if server == "tgi" and not official and not digest:
        version = _tgi_dlc_version(repository, tag)
    dated = _BUILD_DATE.search(tag) if server and not version and not digest else None
    build_date = "-".join(dated.groups()) if dated else ""
    return ImageInfo(
        text, repository, tag, digest, server, official, version, bool(version), build_date
    )


def _strip_docker_hub(repository: str) -> str:
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/"):
        if repository.startswith(prefix):
            return repository[len(prefix) :]
    return repository


def _server_of(repository: str) -> tuple[str, bool]:
    lowered = repository.lower()
    if lowered in _OFFICIAL:
        return _OFFICIAL[lowered], True
    if lowered.startswith(_NIM_PREFIX) and lowered.count("/") >= 3:
        return "nim", True
    last = lowered.rsplit("/", 1)[-1]
    if any(word in last for word in ROUTER_WORDS) or "/ai-dynamo/" in f"/{lowered}":
        # NVIDIA Dynamo's runtime images (ai-dynamo/sglang-runtime) run Dynamo's own
        # frontend and workers (python -m dynamo.sglang), not the server's entrypoint.
        return "", False
    for needle, server in _FAMILIES:
        if needle in last:
            return server, False
    return "", False


def _version(server: str, tag: str) -> str:
    if not tag or _UNPINNED.match(tag):
        return ""
    match = _NGC.match(tag) if server in ("triton", "trtllm") else _RELEASE.match(tag)
    return match.group(1) if match else ""


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
