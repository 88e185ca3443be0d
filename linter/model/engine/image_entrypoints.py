"""Images whose own entrypoint derives server settings the manifest never writes.

- ``substratusai/vllm`` up to v0.6.2 (https://github.com/substratusai/vllm-docker/blob/v0.6.2/entrypoint.sh#L12-L49,
  the image's ``ENTRYPOINT``) starts ``python3 -m vllm.entrypoints.openai.api_server``
  with ``--tensor-parallel-size`` set to the number of GPUs the container sees
  (``nvidia-smi -L | wc -l``), ``--model $MODEL``, ``--served-model-name``
  (``$SERVED_MODEL_NAME``, else the model), ``-q $QUANTIZATION --dtype $DTYPE``,
  ``--gpu-memory-utilization``, ``--max-model-len`` and ``--chat-template`` from their
  variables when set, and ``$EXTRA_ARGS``. From v0.6.3 the image runs vLLM's own
  entrypoint (the custom one was removed), so later and untagged images derive nothing.

The derived command line replaces a missing ``command``; each derived token is located at
what it comes from (the GPU limit, the environment variable), with the key naming the image.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from linter.model.engine.args import Token
from linter.model.engine.images import ImageInfo
from linter.model.facts import gpus
from linter.positions import Origin, PathT

_SUBSTRATUS_VLLM = "substratusai/vllm"
# The last image with the custom entrypoint.
_SUBSTRATUS_LAST = (0, 6, 2)
_RELEASE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)")
_SERVER = "vllm.entrypoints.openai.api_server"
# Environment variable → flag, in the order the entrypoint appends them (DTYPE only with
# QUANTIZATION: the script exits when QUANTIZATION is set without it).
_ENV_FLAGS = (
    ("GPU_MEMORY_UTILIZATION", "--gpu-memory-utilization"),
    ("MAX_MODEL_LEN", "--max-model-len"),
    ("CHAT_TEMPLATE", "--chat-template"),
)
EnvTokens = Mapping[str, Token]


def derived_command(
    image: ImageInfo | None,
    container: Mapping[str, Any],
    env: EnvTokens,
    locate: Callable[[PathT], Origin],
) -> list[Token]:
    """The command line the image's entrypoint runs (empty when it derives nothing)."""
    if image is None or not _substratus_legacy(image):
        return []
    model = env.get("MODEL")
    count = _gpu_count(container, locate)
    if model is None or not model.text or count is None:
        return []  # the script exits without MODEL; without GPUs nvidia-smi fails
    origin = locate(())._replace(key=f"the {_SUBSTRATUS_VLLM} entrypoint")
    tokens = [Token(t, origin) for t in ("python3", "-m", _SERVER)]
    tokens += [Token("--tensor-parallel-size", count.origin), count]
    tokens += [Token("--model", model.origin), model]
    served = env.get("SERVED_MODEL_NAME") or model
    tokens += [Token("--served-model-name", served.origin), served]
    for word, where in _words(env.get("EXTRA_ARGS")):
        tokens.append(Token(word, where))
    quantization, dtype = env.get("QUANTIZATION"), env.get("DTYPE")
    if quantization is not None and quantization.text and dtype is not None:
        tokens += [Token("-q", quantization.origin), quantization]
        tokens += [Token("--dtype", dtype.origin), dtype]
    for name, flag in _ENV_FLAGS:
        value = env.get(name)
        if value is not None and value.text:
            tokens += [Token(flag, value.origin), value]
    return tokens


def _substratus_legacy(image: ImageInfo) -> bool:
    if image.repository.lower() != _SUBSTRATUS_VLLM or image.digest:
        return False
    match = _RELEASE.match(image.tag)
    return match is not None and tuple(int(p) for p in match.groups()) <= _SUBSTRATUS_LAST


def _gpu_count(container: Mapping[str, Any], locate: Callable[[PathT], Origin]) -> Token | None:
    resources = container.get("resources")
    limits = resources.get("limits") if isinstance(resources, Mapping) else None
    if not isinstance(limits, Mapping):
        return None
    for name, value in limits.items():
        if gpus.is_gpu_resource(str(name)) and str(value).strip().isdigit():
            return Token(str(value).strip(), locate(("resources", "limits", str(name))))
    return None


def _words(token: Token | None) -> list[tuple[str, Origin]]:
    if token is None or not token.text.strip():
        return []
    try:
        words = shlex.split(token.text)
    except ValueError:
        return []  # unbalanced quotes: bash would split it differently; leave it unread
    return [(word, token.origin) for word in words]
