"""Triton: the server option table and the model configurations of a verbose log.

Read at the source (triton-inference-server/server ``src/server.cc``… core
``tritonserver.cc``, ``TRITONSERVER_ServerNew``): at start the server logs a table
``| Option | Value |`` whose rows differ by version (``server_id``, ``server_version``,
``model_repository_path[0]``, ``model_control_mode``, ``strict_model_config``,
``rate_limit``, ``pinned_memory_pool_byte_size``, ``cuda_memory_pool_byte_size{0}``,
``min_supported_compute_capability``, ``strict_readiness``, ``exit_timeout``,
``cache_enabled``, ...); long values wrap onto rows with an empty option name. With
``--log-verbose=1`` each model's completed configuration is logged as JSON after a
``model configuration:`` line (the backends' ``model_state.cc``), and in protobuf text
format after ``Server side auto-completed config:`` (core ``model_config_utils.cc``). The rows are mapped to the
command-line flags they come from.
"""

from __future__ import annotations

import json
import re
from typing import Any

from linter.drift.live.capture import RESOLVED, Printed
from linter.drift.live.lines import Line

SERVER = "triton"
MODEL_KEY = ""

_ROW = re.compile(r"^\|\s*(?P<name>[^|]*?)\s*\|\s*(?P<value>.*?)\s*\|$")
_INDEXED = re.compile(r"^(?P<name>\w+)(?:\[(?P<index>\d+)\]|\{(?P<device>\d+)\})$")
_STARTUP_MODEL = re.compile(r"^startup_models_\d+$")
_MODEL_CONFIG = re.compile(r"model configuration:\s*(?P<rest>.*)$")
# Verbose logs also print the completed config in protobuf text format (core
# model_config_utils.cc): on the same line (2.3x) or on the lines after it (2.4x and later).
_AUTO_COMPLETED = re.compile(r"Server side auto-completed config:\s*(?P<rest>.*)$")
# Option rows named after something else than their flag.
ROW_FLAGS = {
    "model_repository_path": "model_repository",
    "exit_timeout": "exit_timeout_secs",
    "min_supported_compute_capability": "min_supported_compute_capability",
}
_BOOLEAN_ROWS = frozenset({"strict_model_config", "strict_readiness", "cache_enabled"})
IGNORED = frozenset({"server_version", "server_extensions", "cache_enabled"})


def from_lines(lines: list[Line], problems: list[str]) -> tuple[list[Printed], str]:
    records: list[Printed] = []
    version = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if _is_option_header(line.text):
            values, raw_version, index = _table(lines, index + 1)
            version = version or raw_version
            records.append(Printed("option table", RESOLVED, line.number, line.process, values))
            continue
        match = _AUTO_COMPLETED.search(line.text)
        if match:
            config, index = _pbtxt_block(lines, index, match["rest"])
            if isinstance(config, dict) and isinstance(config.get("name"), str):
                records.append(
                    Printed(
                        f"auto-completed config {config['name']}",
                        RESOLVED,
                        line.number,
                        line.process,
                        {"models": {config["name"]: config}},
                    )
                )
            else:
                problems.append(f"line {line.number}: the auto-completed config could not be read")
            continue
        match = _MODEL_CONFIG.search(line.text)
        if match:
            config, index = _json_block(lines, index, match["rest"])
            if not (isinstance(config, dict) and isinstance(config.get("name"), str)):
                problems.append(
                    f"line {line.number}: the model configuration is not a JSON object with a name"
                )
            else:
                records.append(
                    Printed(
                        f"model configuration {config['name']}",
                        RESOLVED,
                        line.number,
                        line.process,
                        {"models": {config["name"]: config}},
                    )
                )
            continue
        index += 1
    return records, version


def _is_option_header(text: str) -> bool:
    match = _ROW.match(text.strip())
    return bool(match and match["name"] == "Option" and match["value"] == "Value")


def _table(lines: list[Line], index: int) -> tuple[dict[str, Any], str, int]:
    rows: list[list[str]] = []
    while index < len(lines):
        text = lines[index].text.strip()
        index += 1
        if text.startswith("+"):
            if rows:
                break
            continue
        match = _ROW.match(text)
        if not match:
            break
        if match["name"] or not rows:
            rows.append([match["name"], match["value"]])
        else:  # a long value continues on a row with no name
            rows[-1][1] += match["value"]
    values: dict[str, Any] = {}
    version = ""
    for name, value in rows:
        if name == "server_version":
            version = value
        key, item = _row(name, value)
        if isinstance(item, list) and isinstance(values.get(key), list):
            values[key].extend(item)
        else:
            values[key] = item
    return values, version, index


def _row(name: str, value: str) -> tuple[str, Any]:
    if _STARTUP_MODEL.match(name):  # startup_models_0: one --load-model each
        return "load_model", [value]
    match = _INDEXED.match(name)
    if match:
        key = ROW_FLAGS.get(match["name"], match["name"])
        if match["device"] is not None:  # cuda_memory_pool_byte_size{0}: the CLI's 0:SIZE
            return key, [f"{match['device']}:{value}"]
        return key, [value]
    key = ROW_FLAGS.get(name, name)
    if name in _BOOLEAN_ROWS and value in ("0", "1"):
        return key, value == "1"
    if name in ("model_control_mode",) and value.startswith("MODE_"):
        return key, value.removeprefix("MODE_").lower()  # MODE_NONE is --model-control-mode=none
    if name == "rate_limit":
        return key, value.lower()
    return key, value if value else None


def _json_block(lines: list[Line], index: int, rest: str) -> tuple[Any, int]:
    parts = [rest] if rest else []
    depth = rest.count("{") - rest.count("}")
    index += 1
    while index < len(lines) and (depth > 0 or not "".join(parts).strip()):
        text = lines[index].text
        parts.append(text)
        depth += text.count("{") - text.count("}")
        index += 1
    try:
        return json.loads("\n".join(parts)), index
    except ValueError:
        return None, index


def _pbtxt_block(lines: list[Line], index: int, rest: str) -> tuple[Any, int]:
    """The config text after the marker: the lines of the same message, or the lines
    without a logging prefix that follow it."""
    from linter.triton.pbtxt import parse_pbtxt

    number = lines[index].number
    parts = [rest.strip()] if rest.strip() else []
    index += 1
    while index < len(lines) and (not lines[index].logged or lines[index].number == number):
        if lines[index].text.strip():
            parts.append(lines[index].text)
        index += 1
    parsed = parse_pbtxt("config.pbtxt", "\n".join(parts) + "\n")
    if parsed.problems or not parsed.documents:
        return None, index
    return parsed.documents[0].data, index
