"""TGI: the launcher's start-up log and the router's answers.

Read at the source (huggingface/text-generation-inference, ``launcher/src/main.rs``):

- ``Args { model_id: "...", quantize: Some(Gptq), ... }``: ``tracing::info!("{:?}", args)``
  on one line (v0.9 to v1.x) and ``{:#?}`` pretty-printed over many lines (v2.0 and later);
  ``None`` is "not set", ``Some(x)`` is ``x``, enum variants are spelled as on the command
  line in lower case (``Gptq`` = ``gptq``, ``On`` = ``on``);
- the values the launcher derives when they were not given: "Default `max_input_tokens` to
  4095", "Default `max_total_tokens` to 4096", "Default `max_batch_prefill_tokens` to
  4145", "Using default cuda graphs [1, 2, 4, 8, 16, 32]";
- ``GET /info`` (router ``Info``; ``max_input_length`` until 2.x, ``max_input_tokens`` and
  ``router`` from 3.0) and the start event of its usage statistics
  (``docs/source/usage_statistics.md``), whose ``nvidia_env`` and ``system_env`` describe the
  machine.
"""

from __future__ import annotations

import re
from typing import Any

from linter.drift.live import literal
from linter.drift.live.capture import DERIVED, EXPLICIT, RESOLVED, Printed
from linter.drift.live.lines import Line
from linter.model.engine.live import is_tgi_info

SERVER = "tgi"
MODEL_KEY = "model_id"

_DEFAULT = re.compile(r"Default `(?P<key>\w+)` to (?P<value>\d+)")
_CUDA_GRAPHS = re.compile(r"Using default cuda graphs (?P<value>\[[\d, ]*\])")
_ARGS = re.compile(r"^Args \{")
# TGI 3 renamed max_input_length to max_input_tokens (the launcher accepts both).
ALIASES = {"max_input_length": "max_input_tokens", "model_dtype": "dtype"}
# /info prints the dtype the shards run with (model_dtype), chosen from the model when
# --dtype is not given.
INFO_RESOLVED = frozenset({"dtype"})
IGNORED = frozenset(
    {
        "model_sha",
        "model_pipeline_tag",
        "model_device_type",
        "version",
        "sha",
        "git_sha",
        "docker_label",
        "router",
        "event_type",
        "nvidia_env",
        "system_env",
        "model_config",
        "tokenizer_class",
        "xpu_env",
        "env",
    }
)


def from_lines(lines: list[Line], problems: list[str]) -> tuple[list[Printed], str]:
    records: list[Printed] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _ARGS.match(line.text):
            text, index = _struct(lines, index)
            try:
                values, cut = literal.parse_cut(text)
            except literal.LiteralError as error:
                problems.append(
                    f"line {line.number}: the launcher Args could not be read ({error})"
                )
                values, cut = None, ""
            if isinstance(values, dict):
                records.append(
                    Printed(
                        "launcher Args",
                        EXPLICIT,
                        line.number,
                        line.process,
                        aliased(values),
                        truncated_after=cut,
                    )
                )
            continue
        match = _DEFAULT.search(line.text)
        if match:
            key = ALIASES.get(match["key"], match["key"])
            records.append(
                Printed(
                    "launcher defaults",
                    DERIVED,
                    line.number,
                    line.process,
                    {key: int(match["value"])},
                )
            )
        match = _CUDA_GRAPHS.search(line.text)
        if match:
            records.append(
                Printed(
                    "launcher defaults",
                    DERIVED,
                    line.number,
                    line.process,
                    {"cuda_graphs": literal.parse(match["value"])},
                )
            )
        index += 1
    return _one_defaults_record(records), ""


def _struct(lines: list[Line], start: int) -> tuple[str, int]:
    """The text of ``Args { ... }`` from its first line to its closing brace."""
    parts: list[str] = []
    depth = 0
    index = start
    while index < len(lines):
        if index > start and lines[index].logged:
            break  # the next log line: Args was cut before its closing brace
        text = lines[index].text
        parts.append(text)
        depth += _balance(text)
        index += 1
        if depth <= 0:
            break
    return "\n".join(parts), index


def _balance(text: str) -> int:
    depth, quote, escaped = 0, False, False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quote = not quote
        elif not quote:
            depth += ch in "{[("
            depth -= ch in "}])"
    return depth


def _one_defaults_record(records: list[Printed]) -> list[Printed]:
    """The derived-default lines are one record (each line says one setting)."""
    defaults = [r for r in records if r.kind == "launcher defaults"]
    if len(defaults) < 2:
        return records
    merged: dict[str, Any] = {}
    for record in defaults:
        merged.update(record.values)
    first = defaults[0]
    rest = [r for r in records if r.kind != "launcher defaults"]
    return [*rest, Printed(first.kind, DERIVED, first.line, first.process, merged)]


def is_info(data: dict[str, Any]) -> bool:
    return is_tgi_info(data)


def is_usage_event(data: dict[str, Any]) -> bool:
    return "event_type" in data and "max_total_tokens" in data


def from_document(data: dict[str, Any]) -> tuple[list[Printed], str]:
    kind = "usage-stats start event" if is_usage_event(data) else "/info"
    version = str(data.get("version") or "")
    return [Printed(kind, RESOLVED, 0, "", aliased(data))], version


def aliased(values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        name = ALIASES.get(key, key)
        if name in out and value is None:
            continue  # max_input_length: None beside max_input_tokens: Some(..)
        out[name] = _dtype(value) if name == "dtype" else value
    return out


def _dtype(value: Any) -> Any:
    return value.removeprefix("torch.") if isinstance(value, str) else value
