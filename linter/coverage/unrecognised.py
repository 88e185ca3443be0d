"""Inputs that name an inference server but yielded no workload: said, never skipped.

A document counts as an inference deployment when an image key (``image``,
``containerImage``, ``imageName``, ``repository``) names a server image, or a
``command``/``args``/``cmd`` entry starts a server (``vllm serve``, ``trtllm-serve``,
``python3 -m dynamo.vllm`` ...); and, under keys of its own (a cloud vendor's JSON recipe),
when any string is a server image with its tag (``vllm/vllm-openai:v0.9.1``), any string or
list of strings starts a server, a mapping's keys or a string's options are mostly one
server's flags (``coverage/flagkeys.py``), or a Ray Serve application's import path or
deployment is named after a server. Objects that only carry such text for something else — a
ConfigMap's script, a Kustomization's image override, a CI workflow's job container, a
helm-unittest suite's ``set`` — are not deployments and stay quiet.

A role of a multi-role object (RoleBasedGroup, kthena ModelServing) whose pod cannot be
built from what is written (a ``templateRef`` naming no ``roleTemplates`` entry) is not
understood either, even when the object's other roles are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from linter.coverage.flagkeys import FlagKeys, flag_keys, flag_string
from linter.coverage.model import NotUnderstood
from linter.lazyregex import lazy_compile
from linter.model.engine.images import is_companion, parse_image
from linter.model.frontends.role_groups import unbuilt_roles
from linter.model.frontends.shapes import NOT_DEPLOYMENTS
from linter.parsing.documents import Document, ParsedFile
from linter.positions import PathT, format_path

_IMAGE_KEYS = frozenset({"repository", "img"})  # and every key ending in "image"
_COMMAND_KEYS = frozenset({"command", "args", "cmd", "entrypoint"})
_SERVER_COMMAND = lazy_compile(
    r"(?:^|[\s/;&|])(?:vllm\s+serve|vllm\.entrypoints|text-generation-launcher"
    r"|sglang\.launch_server|sglang\s+serve|tritonserver|trtllm-serve"
    r"|dynamo\.(?:vllm|sglang|trtllm))\b"
)
# A string that is a whole command line starting a server, under a key of its own
# (SageMaker's ``ContainerArguments``, a recipe's ``startup``), after a shell's ``exec``
# or environment assignments; prose that mentions a command does not start with it.
_STARTS_SERVER = lazy_compile(
    r"\s*(?:exec\s+)?(?:\w+=\S*\s+)*(?:python3?\s+(?:-u\s+)?-m\s+)?"
    r"(?:vllm\s+serve|vllm\.entrypoints|text-generation-launcher|sglang\.launch_server"
    r"|sglang\s+serve|tritonserver|trtllm-serve|dynamo\.(?:vllm|sglang|trtllm))\b"
)
# A Ray Serve application (a RayService's or another operator's ``serveConfigV2``, a
# ``serve run`` config) whose import path or deployment is named after a server: Ray runs
# the server inside Python code of the user's, with its settings where that code reads them.
_SERVE_NAME = r"[\w.:/-]*(?i:vllm|sglang|ray\.serve\.llm)[\w.:/-]*"
_SERVE_APP = lazy_compile(rf"(?m)^\s*-?\s*(?:import_path|name):\s*[\"']?(?P<name>{_SERVE_NAME})")
_SERVE_IMPORT_PATH = lazy_compile(rf"\s*[\"']?{_SERVE_NAME}")
# An image reference with a tag or digest: registry/path:tag, no spaces, no URL scheme.
# A tag of digits alone is a port (``tgi-service:8080``), not an image's tag.
_IMAGE_WITH_TAG = lazy_compile(
    r"[a-z0-9][\w.\-]*(?:/[\w.\-]+)*(?::(?![0-9]+$)[\w.\-]+|@sha256:[0-9a-f]{64})$"
)
# Every image and command marker above contains one of these words: a file without any
# is not walked, so a mapping of a server's flags counts only in a file naming a server.
_NAMES_A_SERVER = lazy_compile(
    r"vllm|text-generation|tgi|sglang|tritonserver|trtllm|dynamo\.|nvcr\.io/nim/"
    r"|huggingfaceserver|ray\.serve\.llm",
    re.IGNORECASE,
)
# A server family named anywhere in an image's last segment or tag, for images servelint
# does not model as that server: builds of other projects that carry its name, and
# engine images that name the server in the tag (kthena-engine:vllm-ascend_v0.10.1rc1).
_FAMILY_WORD = lazy_compile(
    r"text-generation-inference|tritonserver|trtllm|sglang|vllm|tgi|huggingfaceserver"
)
_FAMILY_SERVER = {
    # KServe's Hugging Face runtime: vLLM inside for the models vLLM supports.
    "huggingfaceserver": "kserve-huggingface",
    "text-generation-inference": "tgi",
    "tgi": "tgi",
    "tritonserver": "triton",
    "trtllm": "trtllm",
    "sglang": "sglang",
    "vllm": "vllm",
}
_SERVER_NAMES = {
    "vllm": "vLLM",
    "tgi": "TGI",
    "sglang": "SGLang",
    "triton": "Triton",
    "trtllm": "Triton TensorRT-LLM",
    "nim": "NIM",
    "kserve-huggingface": "KServe Hugging Face server (vLLM backend)",
}
_SERVE_EVIDENCE = "Ray Serve application"
SERVE_FIX = (
    "the server runs inside the application's own Python code, whose settings servelint "
    "does not read: lint the pods Ray creates, or run the server's image with its command"
)
KIND_FIX = (
    "servelint has no reading of this kind yet: lint the rendered pod template, or describe "
    "the layout with a chart profile (docs/serving-model.md#profiles)"
)
ROLE_FIX = (
    "complete the role's pod template (a templateRef must name an entry of "
    "spec.roleTemplates; workerReplicas needs a workerTemplate), so that the operator "
    "can create its pods"
)
VALUES_FIX = (
    "describe this values layout with a chart profile (docs/serving-model.md#profiles), "
    "or lint the chart with --chart so the rendered manifests are read"
)


def not_understood(
    parsed: Sequence[ParsedFile], recognised: set[tuple[str, int]]
) -> list[NotUnderstood]:
    """Documents of ``parsed`` that look like inference deployments, none of whose
    ``(source, document index)`` is in ``recognised``."""
    out: list[NotUnderstood] = []
    for parsed_file in parsed:
        if parsed_file.problems and not parsed_file.documents:
            continue  # its syntax finding already says it was not read
        if parsed_file.text and not _NAMES_A_SERVER.search(parsed_file.text):
            continue  # no server named anywhere: nothing to walk
        for document in parsed_file.documents:
            roles = unbuilt(document)
            out.extend(roles)
            if roles or (document.source, document.index) in recognised:
                continue
            found = describe(document)
            if found is not None:
                out.append(found)
    return out


def describe(document: Document) -> NotUnderstood | None:
    """A note for ``document`` when it names an inference server; None otherwise."""
    data = document.data
    if not isinstance(data, dict) or _is_workflow(data) or _is_unittest_suite(data):
        return None
    kind = data.get("kind")
    if isinstance(kind, str) and kind in NOT_DEPLOYMENTS:
        return None
    if ("model_path" in data or "model_id" in data) and _live_answer(data):
        return None
    marker = next(_markers(data, ()), None)
    if marker is None:
        return None
    path, evidence = marker
    if isinstance(kind, str) and "apiVersion" in data:
        what = f"kind {kind} ({data.get('apiVersion')})"
        fix = SERVE_FIX if evidence.startswith(_SERVE_EVIDENCE) else KIND_FIX
    else:
        what = "values layout"
        fix = SERVE_FIX if evidence.startswith(_SERVE_EVIDENCE) else VALUES_FIX
    span = document.span(path)
    return NotUnderstood(
        document.source,
        span.line,
        span.column,
        what,
        f"{evidence} at {format_path(path) or 'the top level'}",
        fix,
    )


def unbuilt(document: Document) -> list[NotUnderstood]:
    """A note for each role of ``document`` whose pod its operator cannot build."""
    data = document.data
    out: list[NotUnderstood] = []
    for role in unbuilt_roles(data):
        assert isinstance(data, dict)  # unbuilt_roles finds none otherwise
        span = document.span(role.path)
        out.append(
            NotUnderstood(
                document.source,
                span.line,
                span.column,
                f"role {role.role} of kind {data.get('kind')} ({data.get('apiVersion')})",
                f"{role.reason}, so its pods cannot be built",
                ROLE_FIX,
            )
        )
    return out


def _markers(node: Any, path: PathT) -> Iterator[tuple[PathT, str]]:
    if isinstance(node, dict):
        flags = flag_keys(node)
        if flags is not None:
            yield path, _flags_text(flags)
            return
        for key, value in node.items():
            here = (*path, key)
            if isinstance(value, str):
                found = _marker(key, value)
                if found is not None:
                    yield here, found
            elif isinstance(value, list) and key in _COMMAND_KEYS:
                for index, item in enumerate(value):
                    if isinstance(item, str) and _SERVER_COMMAND.search(item):
                        yield (*here, index), f"command {_short(item)}"
                        break
                else:
                    yield from _list_markers(value, here)
            elif isinstance(value, list):
                yield from _list_markers(value, here)
            else:
                yield from _markers(value, here)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, str):
                found = _marker(None, item)
                if found is not None:
                    yield (*path, index), found
            else:
                yield from _markers(item, (*path, index))


def _list_markers(items: list[Any], path: PathT) -> Iterator[tuple[PathT, str]]:
    if _launches(items):
        yield path, f"command {_short(' '.join(items))}"
    else:
        yield from _markers(items, path)


def _launches(items: list[Any]) -> bool:
    """A list of strings that, joined, starts a server (``[vllm, serve, ...]``)."""
    return (
        bool(items)
        and all(isinstance(item, str) for item in items)
        and _STARTS_SERVER.match(" ".join(items)) is not None
    )


def _live_answer(data: dict[str, Any]) -> bool:
    """A running server's answer (SGLang ``/get_server_info``, TGI ``/info``): its settings
    as it runs them, which ``servelint drift`` reads; it deploys nothing."""
    from linter.model.engine.live import is_sglang_server_info, is_tgi_info

    return is_sglang_server_info(data) or is_tgi_info(data)


def _flags_text(flags: FlagKeys) -> str:
    shown = ", ".join(flags.keys[:3]) + (", ..." if len(flags.keys) > 3 else "")
    return f"{len(flags.keys)} {_SERVER_NAMES[flags.server]} flags as keys ({shown})"


def _is_image_key(key: object) -> bool:
    """``image``, ``containerImage``, ``imageName``, ``repository``: keys that name an image."""
    if not isinstance(key, str):
        return False
    lowered = key.lower()
    return key in _IMAGE_KEYS or lowered.endswith("image") or lowered.startswith("image")


def _marker(key: object, value: str) -> str | None:
    if key == "import_path" and _SERVE_IMPORT_PATH.match(value):
        return f"{_SERVE_EVIDENCE} {value}"  # a ``serve run`` config of its own
    if _is_image_key(key) and value and " " not in value.strip():
        server = _family_of(value)
        if server:
            return f"{_SERVER_NAMES[server]} image {value}"
    elif _IMAGE_WITH_TAG.match(value):
        # Under a key of its own, only a reference with its tag or digest is an image:
        # a bare name (``vllm``) or a repository (``vllm-project/vllm``) is not.
        server = _family_of(value)
        if server:
            return f"{_SERVER_NAMES[server]} image {value}"
    if key in _COMMAND_KEYS and _SERVER_COMMAND.search(value):
        return f"command {_short(value)}"
    if _STARTS_SERVER.match(value):
        return f"command {_short(value)}"
    app = _SERVE_APP.search(value) if "\n" in value and "import_path" in value else None
    if app is not None:
        return f"{_SERVE_EVIDENCE} {app['name']}"
    flags = flag_string(value)
    if flags is not None:
        return f"{_SERVER_NAMES[flags.server]} flags in a string ({_short(value)})"
    return None


def _family_of(image: str) -> str:
    """The server an image runs, or the family it names in its last segment or tag."""
    server = parse_image(image).server
    if server:
        return server
    last = image.strip().lower().rsplit("/", 1)[-1]
    if is_companion(last):  # a router or a proxy runs no server
        return ""
    found = _FAMILY_WORD.search(last)
    return _FAMILY_SERVER[found.group(0)] if found else ""


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."


def _is_unittest_suite(data: dict[str, Any]) -> bool:
    """A helm-unittest suite (a chart's ``tests/*_test.yaml``): its tests ``set`` images to
    assert on the rendered templates; it deploys nothing. Every test has ``asserts``."""
    tests = data.get("tests")
    return (
        isinstance(tests, list)
        and bool(tests)
        and all(isinstance(test, dict) and "asserts" in test for test in tests)
    )


def _is_workflow(data: dict[str, Any]) -> bool:
    """A CI workflow (GitHub Actions, GitLab CI): its jobs run images, they deploy nothing."""
    return ("jobs" in data and ("on" in data or True in data)) or "stages" in data
