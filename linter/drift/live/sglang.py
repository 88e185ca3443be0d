"""SGLang: ``server_args=ServerArgs(...)`` in the log and its server-info answers.

Read at the source (sgl-project/sglang, ``python/sglang/srt``):

- ``server_args=ServerArgs(model_path='...', tp_size=2, ...)``: the dataclass repr of
  every field, logged by ``launch_server``/``Engine`` at start (``entrypoints/engine.py``,
  ``entrypoints/http_server.py``; v0.3 and later);
- ``GET /get_server_info``: every ``ServerArgs`` field at the top level, then the
  scheduler's state (``status``, ``max_total_num_tokens``, ``max_req_input_len``,
  ``internal_states``, ``memory_usage``, ``version``), which is not configuration;
- the gRPC ``GetServerInfo`` answer (``grpc/sglang_scheduler.proto``) as JSON
  (``grpcurl``, ``MessageToDict``): ``server_args`` (``serverArgs``) nested beside
  ``scheduler_info``, ``sglang_version`` and timings.
"""

from __future__ import annotations

import re
from typing import Any

from linter.drift.live import literal
from linter.drift.live.capture import EXPLICIT, RESOLVED, Printed
from linter.drift.live.lines import Line

SERVER = "sglang"
MODEL_KEY = "model_path"

_SERVER_ARGS = re.compile(r"server_args=(?P<rest>ServerArgs\(.*)$")
_VERSION = re.compile(r"\bsglang(?:[ =]|==)v?(?P<version>\d+\.\d+[\w.+-]*)", re.IGNORECASE)
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
    }
)


def from_lines(lines: list[Line], problems: list[str]) -> tuple[list[Printed], str]:
    records: list[Printed] = []
    version = ""
    for line in lines:
        match = _SERVER_ARGS.search(line.text)
        if match:
            try:
                values = literal.parse(match["rest"])
            except literal.LiteralError as error:
                problems.append(f"line {line.number}: the server_args could not be read ({error})")
                continue
            if isinstance(values, dict):
                records.append(Printed("server_args", EXPLICIT, line.number, line.process, values))
            continue
        match = _VERSION.search(line.text)
        if match and not version:
            version = match["version"]
    return records, version


def grpc_server_args(data: dict[str, Any]) -> dict[str, Any] | None:
    nested = data.get("server_args", data.get("serverArgs"))
    return nested if isinstance(nested, dict) and "model_path" in nested else None


def is_server_info(data: dict[str, Any]) -> bool:
    return "model_path" in data and bool(set(data) & {"mem_fraction_static", "tp_size"})


def from_document(data: dict[str, Any]) -> tuple[list[Printed], str]:
    nested = grpc_server_args(data)
    if nested is not None:
        version = str(data.get("sglang_version", data.get("sglangVersion", "")) or "")
        return [Printed("gRPC GetServerInfo", RESOLVED, 0, "", nested)], version
    return [Printed("/get_server_info", RESOLVED, 0, "", data)], str(data.get("version") or "")
