"""Recognise Triton model configurations by content, cheaply and without protobuf."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from linter.lazyregex import lazy_compile
from linter.triton.fields import CHARACTERISTIC_FIELDS, MODEL_CONFIG_FIELDS

_TOP_FIELD = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(:|\{|\[|<)")
# "name {" or "input [" with no colon: protobuf text format, never valid YAML block syntax.
_BLOCK_WITHOUT_COLON = lazy_compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*[{\[<]", re.MULTILINE)


def is_model_config_name(source: str) -> bool:
    """Triton reads exactly ``config.pbtxt``; copies are often named ``<model>_config.pbtxt``."""
    return PurePath(source).name.lower().endswith("config.pbtxt")


def first_field(text: str) -> str | None:
    """The first field name of a text-format message (comments and blank lines skipped)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _TOP_FIELD.match(stripped)
        return match.group(1) if match else None
    return None


def looks_like_model_config(text: str) -> bool:
    """A ``.pbtxt`` whose first field belongs to ModelConfig (not a TensorFlow graph, say)."""
    return first_field(text) in MODEL_CONFIG_FIELDS


def looks_like_pbtxt(text: str) -> bool:
    """For input without a telling name (stdin): a model config in protobuf text format.

    YAML can look alike (``name: x``), so this also asks for a block opened without a
    colon (``dynamic_batching {``, ``input [``), which YAML never has.
    """
    return looks_like_model_config(text) and _BLOCK_WITHOUT_COLON.search(text) is not None


def is_model_config_json(data: Any) -> bool:
    """The JSON form (``GET /v2/models/<m>/config``): only ModelConfig keys, and telling ones.

    Triton itself rejects unknown keys when it reads this form back, so a mapping with
    any other key is not a model configuration.
    """
    if not isinstance(data, Mapping) or not data:
        return False
    keys = set(data)
    telling = keys & CHARACTERISTIC_FIELDS
    return keys <= MODEL_CONFIG_FIELDS and ("max_batch_size" in telling or len(telling) >= 2)
