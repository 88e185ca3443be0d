"""SGLang: ``server_args=ServerArgs(...)`` in the log and its server-info answers.

Read at the source (sgl-project/sglang, ``python/sglang/srt``):

- ``server_args=ServerArgs(model_path='...', tp_size=2, ...)``: the dataclass repr of
  every field, logged by ``launch_server``/``Engine`` at start (``entrypoints/engine.py``,
  ``entrypoints/http_server.py``; v0.3 and later);
- ``GET /get_server_info``: every ``ServerArgs`` field at the top level, then the
  scheduler's state (``status``, ``max_total_num_tokens``, ``max_req_input_len``,
  ``internal_states``, ``memory_usage``, ``version``), which is not configuration;
- the gRPC ``GetServerInfo`` answer (``grpc/sglang_scheduler.proto``, v0.5.4 to v0.5.6) as
  JSON (``grpcurl``, ``MessageToDict``): the ``server_args`` Struct (``serverArgs``) nested
  beside ``scheduler_info`` (``status``, ``max_total_num_tokens``, ``max_req_input_len``),
  ``active_requests``, ``is_paused``, ``last_receive_timestamp``, ``uptime_seconds``,
  ``sglang_version``, ``server_type`` and ``start_time``;
- the gRPC ``GetModelInfo`` answer: five ``ServerArgs`` fields (``model_path``,
  ``tokenizer_path``, ``preferred_sampling_params``, ``weight_version``,
  ``served_model_name``), ``is_generation`` (``not server_args.is_embedding``: the scheduler
  reports no ``is_generation`` of its own), and what the model and the memory pool give:
  ``max_context_length`` is the scheduler's ``max_total_num_tokens`` (the KV-cache size in
  tokens, not ``context_length``), ``vocab_size``, ``model_type``, token ids and
  ``max_req_input_len`` (``entrypoints/grpc_server.py``, ``GetModelInfo`` and
  ``serve_grpc``, v0.5.4 to v0.5.6).

Proto3 JSON leaves out fields that hold their zero value (``grpcurl`` and ``MessageToDict``
alike, unless told to print them): an absent ``isGeneration`` is false, an absent string is
empty, which SGLang sends for an unset ``Optional[str]``.
"""

from __future__ import annotations

import re
from typing import Any

from linter.drift.live import literal
from linter.drift.live.capture import EXPLICIT, RESOLVED, Printed
from linter.drift.live.lines import Line
from linter.model.engine.live import is_sglang_server_info

SERVER = "sglang"
MODEL_KEY = "model_path"

_SERVER_ARGS = re.compile(r"server_args=(?P<rest>ServerArgs\(.*)$")
_VERSION = re.compile(r"\bsglang(?:[ =]|==)v?(?P<version>\d+\.\d+[\w.+-]*)", re.IGNORECASE)
# GetModelInfoResponse, field by field: proto name → the ServerArgs field it carries, or ""
# for what the model config and the memory pool give (not configuration).
_MODEL_INFO_FIELDS = {
    "model_path": "model_path",
    "tokenizer_path": "tokenizer_path",
    "is_generation": "is_embedding",
    "preferred_sampling_params": "preferred_sampling_params",
    "weight_version": "weight_version",
    "served_model_name": "served_model_name",
    "max_context_length": "",
    "vocab_size": "",
    "supports_vision": "",
    "model_type": "",
    "eos_token_ids": "",
    "pad_token_id": "",
    "bos_token_id": "",
    "max_req_input_len": "",
}
_MODEL_INFO_ONLY = frozenset(_MODEL_INFO_FIELDS) - {"model_path", "tokenizer_path"}
# Fields SGLang fills in when they are not given (``ServerArgs.__post_init__``: the model
# path), so that the answer shows them as the server resolved them.
MODEL_INFO_RESOLVED = frozenset({"tokenizer_path", "served_model_name"})
IGNORED = frozenset(
    {
        "status",
        "version",
        "sglang_version",
        "internal_states",
        "memory_usage",
        "max_total_num_tokens",
        "max_req_input_len",
        "scheduler_info",
        "active_requests",
        "is_paused",
        "last_receive_timestamp",
        "uptime_seconds",
        "server_type",
        "start_time",
        "tokenizer_info",
        # GetModelInfo: what the model config and the memory pool give.
        *(name for name, setting in _MODEL_INFO_FIELDS.items() if not setting),
    }
)


def from_lines(lines: list[Line], problems: list[str]) -> tuple[list[Printed], str]:
    records: list[Printed] = []
    version = ""
    for line in lines:
        match = _SERVER_ARGS.search(line.text)
        if match:
            try:
                values, cut = literal.parse_cut(match["rest"])
            except literal.LiteralError as error:
                problems.append(f"line {line.number}: the server_args could not be read ({error})")
                continue
            if isinstance(values, dict):
                records.append(
                    Printed(
                        "server_args",
                        EXPLICIT,
                        line.number,
                        line.process,
                        values,
                        truncated_after=cut,
                    )
                )
            continue
        match = _VERSION.search(line.text)
        if match and not version:
            version = match["version"]
    return records, version


def _snake(name: str) -> str:
    """``maxContextLength`` → ``max_context_length``: proto3 JSON names of the fields."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m[1].lower(), name)


def model_info_fields(data: dict[str, Any]) -> dict[str, Any] | None:
    """The fields of a ``GetModelInfo`` answer under their proto names, or None when
    ``data`` is not one (a field of no other message, and nothing but its fields)."""
    fields = {_snake(str(key)): value for key, value in data.items()}
    if "model_path" not in fields or not set(fields) <= set(_MODEL_INFO_FIELDS):
        return None
    return fields if set(fields) & _MODEL_INFO_ONLY else None


def from_model_info(fields: dict[str, Any]) -> list[Printed]:
    """The ``ServerArgs`` fields a ``GetModelInfo`` answer carries, under their own names,
    and the model and pool fields under theirs (``IGNORED`` drops them)."""
    values: dict[str, Any] = {}
    for name, setting in _MODEL_INFO_FIELDS.items():
        if setting == "is_embedding":
            values[setting] = not fields.get(name, False)
        elif setting:
            # An empty string is how the answer carries an unset Optional[str].
            values[setting] = fields.get(name) or None
        elif name in fields:
            values[name] = fields[name]
    return [Printed("gRPC GetModelInfo", RESOLVED, 0, "", values)]


def grpc_server_args(data: dict[str, Any]) -> dict[str, Any] | None:
    nested = data.get("server_args", data.get("serverArgs"))
    return nested if isinstance(nested, dict) and "model_path" in nested else None


def is_server_info(data: dict[str, Any]) -> bool:
    return is_sglang_server_info(data)


def from_document(data: dict[str, Any]) -> tuple[list[Printed], str]:
    nested = grpc_server_args(data)
    if nested is not None:
        version = str(data.get("sglang_version", data.get("sglangVersion", "")) or "")
        return [Printed("gRPC GetServerInfo", RESOLVED, 0, "", nested)], version
    return [Printed("/get_server_info", RESOLVED, 0, "", data)], str(data.get("version") or "")
