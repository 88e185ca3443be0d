"""vLLM: what its start-up log and its answers say the engine loaded.

Read at the source (vllm-project/vllm):

- ``non-default args: {...}``: ``log_non_default_args`` in
  ``vllm/entrypoints/utils.py`` (v0.9.0 and later): a Python dict of every argument that
  differs from the parser's default;
- ``args: Namespace(...)``: ``vllm/entrypoints/openai/api_server.py`` up to v0.8.x,
  every argument, defaults included;
- ``Initializing a V1 LLM engine (v0.11.0) with config: k=v, ...``
  (``vllm/v1/engine/core.py``), ``Initializing a V0 LLM engine (v0.8.2) with config:``
  and ``Initializing an LLM engine (v0.6.3) with config:`` (``vllm/engine/llm_engine.py``):
  ``key=value`` pairs where values are reprs (``dtype=torch.bfloat16``,
  ``load_format=LoadFormat.AUTO``), bare text (``served_model_name=org/model``), config
  objects (``ObservabilityConfig(...)``) or dicts with enum reprs;
- ``vLLM API server version 0.8.2``;
- the usage-stats record (``~/.config/vllm/usage_stats.json``, one JSON object a line,
  ``vllm/usage/usage_lib.py``): engine settings beside hardware fields.
"""

from __future__ import annotations

import functools
import pickle
import re
from collections.abc import Callable, Sequence
from typing import Any

from linter.drift.live import literal
from linter.drift.live.capture import DERIVED, EXPLICIT, FULL_DUMP, RESOLVED, Printed
from linter.drift.live.lines import Line

SERVER = "vllm"
MODEL_KEY = "model"

_NON_DEFAULT = re.compile(r"non-default args: (?P<rest>\{.*)$")
_NAMESPACE = re.compile(r"^args: (?P<rest>Namespace\(.*)$")
_ENGINE = re.compile(
    r"Initializing an? (?:(?P<engine>V[01]) )?LLM engine \(v(?P<version>[\w.+-]+)\) "
    r"with config: (?P<rest>.*)$"
)
_VERSION = re.compile(r"vLLM API server version (?P<version>[\w.+-]+)")
_CHUNKED = re.compile(r"Chunked prefill is enabled with max_num_batched_tokens=(?P<n>\d+)")
_KEY = re.compile(r"[A-Za-z_]\w*=")
# A piece of text each of the lines above holds: a log's other lines (hundreds: access
# lines, throughput) are passed over without a regular expression.
MARKS = ("args: ", "LLM engine", "vLLM API server version", "Chunked prefill")

# The engine config line names a few settings differently from the arguments.
ALIASES = {
    "max_seq_len": "max_model_len",
    "chunked_prefill_enabled": "enable_chunked_prefill",
    "device_config": "device",
    "max_capture_size": "max_cudagraph_capture_size",
}
# Fields that describe the invocation or the machine, not a setting (usage stats: the
# hardware beside the engine settings).
IGNORED = frozenset(
    {
        "subparser",
        "model_tag",
        "dispatch_function",
        "config",
        "uuid",
        "provider",
        "num_cpu",
        "cpu_type",
        "cpu_family_model_stepping",
        "total_memory",
        "architecture",
        "platform",
        "cuda_runtime",
        "gpu_count",
        "gpu_type",
        "gpu_memory_per_device",
        "env_var_json",
        "model_architecture",
        "vllm_version",
        "context",
        "log_time",
        "source",
        "usage_context",
    }
)
# The usage record prints these as the engine resolved them (vllm/usage/usage_lib.py:
# str(model_config.dtype), cache_config.block_size).
USAGE_RESOLVED = frozenset({"dtype", "block_size"})
# Keys only vLLM's usage-stats record carries together.
_USAGE_KEYS = frozenset({"vllm_version", "gpu_memory_utilization", "model_architecture"})


def from_lines(lines: Sequence[Line], problems: list[str]) -> tuple[list[Printed], str]:
    records: list[Printed] = []
    version = ""
    for line in lines:
        text = line.text
        if not any(mark in text for mark in MARKS):
            continue
        match = _VERSION.search(text)
        if match:
            version = version or match["version"]
            continue
        match = _NON_DEFAULT.search(text)
        if match:
            values, cut = _literal(match["rest"], line, "non-default args", problems)
            if isinstance(values, dict) and "model" not in values and "model_tag" in values:
                # vllm serve MODEL: some releases list the positional only as model_tag.
                values["model"] = values["model_tag"]
            if isinstance(values, dict):
                records.append(
                    Printed(
                        "non-default args",
                        EXPLICIT,
                        line.number,
                        line.process,
                        _aliased(values),
                        # Cut, it no longer lists every setting that was set.
                        lists_all_set=not cut,
                        truncated_after=cut,
                    )
                )
            continue
        match = _NAMESPACE.match(text)
        if match:
            values, cut = _literal(match["rest"], line, "args Namespace", problems)
            if isinstance(values, dict):
                records.append(
                    Printed(
                        "args Namespace",
                        FULL_DUMP,
                        line.number,
                        line.process,
                        _aliased(values),
                        truncated_after=cut,
                    )
                )
            continue
        match = _ENGINE.search(text)
        if match:
            version = version or match["version"]
            kind = f"{match['engine']} engine config" if match["engine"] else "engine config"
            values, cut = engine_fields(match["rest"])
            records.append(
                Printed(
                    kind, RESOLVED, line.number, line.process, _aliased(values), truncated_after=cut
                )
            )
            continue
        match = _CHUNKED.search(text)
        if match:
            records.append(
                Printed(
                    "scheduler defaults",
                    DERIVED,
                    line.number,
                    line.process,
                    {"max_num_batched_tokens": int(match["n"])},
                )
            )
    return records, version


def usage_records(data: Any) -> list[dict[str, Any]] | None:
    """The usage-stats records in a parsed document (one object, or one per line)."""
    items = data if isinstance(data, list) else [data]
    # The first record describes the engine; the periodic ones after it carry the
    # uuid and the time only.
    records = [i for i in items if isinstance(i, dict) and set(i) >= _USAGE_KEYS]
    if records and all(isinstance(i, dict) and "uuid" in i for i in items):
        return records
    if records and records == items:
        return records
    return None


def from_usage(records: list[dict[str, Any]]) -> tuple[list[Printed], str]:
    """The last record: the file is appended to by every start on the machine."""
    last = records[-1]
    version = str(last.get("vllm_version") or "")
    return [Printed("usage-stats record", RESOLVED, 0, "", _aliased(last))], version


# Longer lines are parsed each time, not kept: the cache stays small.
_CACHED_LINE = 64 * 1024


def _parsed_once(parse: Callable[[str], Any], text: str) -> Any:
    """``parse(text)``, a copy of the caller's own. The replicas of a deployment (and its
    engine cores) print the same lines: each is parsed once, from the bytes kept for it, or
    each time when it is too long to keep."""
    if len(text) > _CACHED_LINE:
        return parse(text)
    return pickle.loads(_pickled(parse, text))


@functools.lru_cache(maxsize=64)
def _pickled(parse: Callable[[str], Any], text: str) -> bytes:
    """``parse(text)`` kept as bytes that each caller loads into a copy of its own
    (callers drop fields of what they get). The bytes never leave this process; loading
    them is several times faster than copying the maps field by field."""
    return pickle.dumps(parse(text), protocol=pickle.HIGHEST_PROTOCOL)


def key_values(text: str) -> dict[str, Any]:
    """``a=1, b=torch.bfloat16, c=org/model, d={...}`` as a map; a value that is not a
    repr is kept as its text."""
    out: dict[str, Any] = {}
    for key, raw in _split_pairs(text):
        raw = raw.strip().rstrip(",").strip()
        if raw.endswith(")") and raw.count("(") < raw.count(")"):
            raw = raw[:-1]  # v0.6 closes the line with ")"
        try:
            out[key] = literal.parse(raw) if raw else None
        except literal.LiteralError:
            out[key] = raw
    return out


def _split_pairs(text: str) -> list[tuple[str, str]]:
    """Split at the commas that separate ``key=`` pairs, outside quotes and brackets."""
    pairs: list[tuple[str, str]] = []
    depth, quote, start, key = 0, "", 0, ""
    index = 0
    match = _KEY.match(text.lstrip())
    if not match:
        return []
    offset = len(text) - len(text.lstrip())
    key, start, index = match.group()[:-1], offset + match.end(), offset + match.end()
    while index < len(text):
        ch = text[index]
        if quote:
            if ch == "\\":
                index += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"" and (index == start or text[index - 1] in "=[{(:, "):
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth = max(depth - 1, 0)
        elif ch in ", " and depth == 0:
            # v0.6 prints one pair without its comma ("chunked_prefill_enabled=False
            # multi_step_stream_outputs=True"): a space before "key=" separates too.
            following = _KEY.match(text, index + 1 + _spaces(text, index + 1))
            if following and (ch == "," or text[start:index].strip()):
                pairs.append((key, text[start:index]))
                key = following.group()[:-1]
                index = following.end()
                start = index
                continue
        index += 1
    pairs.append((key, text[start:]))
    return pairs


def _spaces(text: str, index: int) -> int:
    count = 0
    while index + count < len(text) and text[index + count] == " ":
        count += 1
    return count


def _literal(text: str, line: Line, kind: str, problems: list[str]) -> tuple[Any, str]:
    """The value and, when the line was cut, the last complete field read."""
    try:
        parsed: tuple[Any, str] = _parsed_once(literal.parse_cut, text)
        return parsed
    except literal.LiteralError as error:
        problems.append(f"line {line.number}: the {kind} could not be read ({error})")
        return None, ""


# The last field of a complete engine line: compilation_config (0.6.4 and later, V1),
# use_cached_outputs (V0 of 0.7 and 0.8); the lines of 0.6.0 to 0.6.3 close with ")".
_LAST_ENGINE_FIELDS = frozenset({"compilation_config", "use_cached_outputs"})


def engine_fields(text: str) -> tuple[dict[str, Any], str]:
    """The fields of an engine config line and, when the line was cut before its end, the
    last complete field: the field the cut went through is dropped (``enforce_eager=Fal``
    is not a value)."""
    values: dict[str, Any] = _parsed_once(key_values, text)
    stripped = text.rstrip()
    if not values or (stripped.endswith(")") and not _open(stripped)):
        return values, ""
    last = list(values)[-1]
    if last in _LAST_ENGINE_FIELDS and not _open(stripped):
        return values, ""
    del values[last]
    return values, (list(values)[-1] if values else "")


def _open(text: str) -> bool:
    """The text ends inside brackets or a string."""
    return literal.ends_open(text)


def _aliased(values: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in values.items():
        name = ALIASES.get(key, key)
        if name == "dtype" and isinstance(value, str):
            value = value.removeprefix("torch.")  # usage stats: str(torch.bfloat16)
        out[name] = value
    return out
