"""gRPC keepalive and connection-management settings, normalised to gRPC core names in ms.

Recognised spellings (infra-rules.md §1.1):

- Triton server flags (``--grpc-keepalive-time``, …; milliseconds; server side);
- gRPC core channel arguments (``grpc.keepalive_time_ms``, ``grpc.http2.max_ping_strikes``)
  and their C macro names (``GRPC_ARG_KEEPALIVE_TIME_MS``) as keys or env names;
- grpc-go parameter names (``keepalive.time``, ``minTime``, ``maxConnectionAge``,
  ``permitWithoutStream``) with Go durations (``30s``, ``5m``), nested or as one dotted key
  (``grpc.server.keepalive.minTime: 5m``, as Spring-style property files write them).

The side is taken from the input: keys under a ``server``/``client`` key, server-only
concepts (minimum ping interval, ping strikes, connection age/idle), Triton flags (server),
env of a workload that runs no gRPC server (client). Otherwise ``unspecified``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from linter.lazyregex import lazy_compile
from linter.model.facts import quantities as q
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.records import Engine, Grpc, LoadBalancer
from linter.positions import Origin, PathT


class Knob(NamedTuple):
    name: str  # canonical gRPC core name
    kind: str  # ms | int | bool
    server_only: bool


_K = {
    k.name: k
    for k in (
        Knob("keepalive_time_ms", "ms", False),
        Knob("keepalive_timeout_ms", "ms", False),
        Knob("keepalive_permit_without_calls", "bool", False),
        Knob("http2_max_pings_without_data", "int", False),
        Knob("http2_min_recv_ping_interval_without_data_ms", "ms", True),
        Knob("http2_min_sent_ping_interval_without_data_ms", "ms", False),
        Knob("http2_max_ping_strikes", "int", True),
        Knob("max_connection_idle_ms", "ms", True),
        Knob("max_connection_age_ms", "ms", True),
        Knob("max_connection_age_grace_ms", "ms", True),
    )
}
# Normalised key (lower case, letters and digits only) → knob, for names that are
# unambiguous wherever they appear.
_FULL = {
    "keepalivetimems": "keepalive_time_ms",
    "keepalivetimeoutms": "keepalive_timeout_ms",
    "keepalivepermitwithoutcalls": "keepalive_permit_without_calls",
    "http2maxpingswithoutdata": "http2_max_pings_without_data",
    "http2minpingintervalwithoutdatams": "http2_min_recv_ping_interval_without_data_ms",
    "http2minrecvpingintervalwithoutdatams": "http2_min_recv_ping_interval_without_data_ms",
    "http2minsentpingintervalwithoutdatams": "http2_min_sent_ping_interval_without_data_ms",
    "http2mintimebetweenpingsms": "http2_min_sent_ping_interval_without_data_ms",
    "http2maxpingstrikes": "http2_max_ping_strikes",
    "maxconnectionidlems": "max_connection_idle_ms",
    "maxconnectionagems": "max_connection_age_ms",
    "maxconnectionagegracems": "max_connection_age_grace_ms",
    # grpc-go ServerParameters / EnforcementPolicy (durations).
    "maxconnectionidle": "max_connection_idle_ms",
    "maxconnectionage": "max_connection_age_ms",
    "maxconnectionagegrace": "max_connection_age_grace_ms",
    "permitwithoutstream": "keepalive_permit_without_calls",
    "keepalivetime": "keepalive_time_ms",
    "keepalivetimeout": "keepalive_timeout_ms",
    "keepalivepermitwithoutstream": "keepalive_permit_without_calls",
}
# Short grpc-go names, only under a keepalive/enforcement context.
_SHORT = {
    "time": "keepalive_time_ms",
    "timeout": "keepalive_timeout_ms",
    "interval": "keepalive_time_ms",
    "mintime": "http2_min_recv_ping_interval_without_data_ms",
}
_CONTEXT = lazy_compile(r"keepalive|enforcement|connectionkeepalive")
# Triton server flags (src/command_line_parser.cc) → knob.
TRITON_FLAGS = {
    "grpc_keepalive_time": "keepalive_time_ms",
    "grpc_keepalive_timeout": "keepalive_timeout_ms",
    "grpc_keepalive_permit_without_calls": "keepalive_permit_without_calls",
    "grpc_http2_max_pings_without_data": "http2_max_pings_without_data",
    "grpc_http2_min_recv_ping_interval_without_data": "http2_min_recv_ping_interval_without_data_ms",
    "grpc_http2_max_ping_strikes": "http2_max_ping_strikes",
    "grpc_max_connection_age": "max_connection_age_ms",
    "grpc_max_connection_age_grace": "max_connection_age_grace_ms",
}


# A Service annotation that asks for an AWS Network Load Balancer (the in-tree "nlb", the
# AWS Load Balancer Controller's "external" and its older "nlb-ip"); an NLB closes a TCP
# flow with no data for 350 s (the default of tcp.idle_timeout.seconds, fixed on TLS
# listeners: https://docs.aws.amazon.com/elasticloadbalancing/latest/network/update-idle-timeout.html).
AWS_LB_TYPE = "service.beta.kubernetes.io/aws-load-balancer-type"
AWS_NLB_TYPES = ("nlb", "external", "nlb-ip")
NLB_IDLE_TIMEOUT_MS = 350_000


# Every key of every values tree passes here, and keys repeat across workloads and files:
# cached, a bulk run stops spending most of its model time on these (README "Performance").
@functools.lru_cache(maxsize=8192)
# Every mapping of a values tree is looked at for keepalive keys: keys and contexts repeat.
@functools.lru_cache(maxsize=8192)
def _normal(key: str) -> str:
    text = re.sub(r"[^a-z0-9]", "", key.lower())
    for prefix in ("grpcarg", "grpc"):
        text = text.removeprefix(prefix)
    return text


@functools.lru_cache(maxsize=8192)
def knob_for(key: str, context: str = "") -> Knob | None:
    normal = _normal(key)
    name = _FULL.get(normal)
    if name is None and _CONTEXT.search(context):
        name = _SHORT.get(normal)
    return _K.get(name) if name else None


def convert(knob: Knob, value: object, key: str) -> Any:
    if knob.kind == "bool":
        return q.to_bool(value)
    if knob.kind == "int":
        return q.to_int(value)
    lowered = key.lower()
    if lowered.endswith(("ms", "_ms", "millis", "milliseconds")):
        return q.duration_ms(value, 1.0)
    if lowered.endswith(("seconds", "_s", "sec", "secs")):
        return q.duration_ms(value, 1000.0)
    # grpc-go names take durations; a bare number has no unit we can trust.
    return (
        q.duration_ms(value, 1.0)
        if isinstance(value, str) and not value.strip().lstrip("-").replace(".", "").isdigit()
        else None
    )


def side_of(path: PathT, knob: Knob, default: str) -> str:
    for part in reversed(path[:-1]):
        if isinstance(part, str):
            lowered = part.lower()
            if "client" in lowered or "dial" in lowered:
                return "client"
            if "server" in lowered:
                return "server"
    return "server" if knob.server_only else default


def put_knob(record: Grpc, side: str, knob: Knob, value: Any, origin: Origin | None) -> None:
    record.side(side)[knob.name] = Located(value, origin)


def grpc_from_tree(
    data: object, locate: Locate, record: Grpc, default_side: str, base: PathT = ()
) -> None:
    """Every keepalive setting in a values tree (or any mapping), wherever it sits, and
    the load balancer a Service annotation there asks for."""
    stack: list[tuple[object, PathT]] = [(data, base)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Mapping):
            context = _normal("".join(str(p) for p in path[-3:] if isinstance(p, str)))
            for key, value in node.items():
                child = (*path, key)
                if isinstance(value, Mapping | list):
                    stack.append((value, child))
                    continue
                if key == AWS_LB_TYPE and str(value).lower() in AWS_NLB_TYPES:
                    record.load_balancer = Located(
                        LoadBalancer(
                            kind=Located("aws-nlb"), idle_timeout_ms=Located(NLB_IDLE_TIMEOUT_MS)
                        ),
                        locate(child),
                    )
                    continue
                knob = knob_for(str(key), context)
                where = child
                if knob is None and "." in str(key):
                    # A flat dotted key (``grpc.server.keepalive.minTime: 5m``): its segments
                    # are the path that gives context and side.
                    *parents, last = str(key).split(".")
                    where = (*path, *parents, last)
                    context = "".join(str(p) for p in where[-4:-1] if isinstance(p, str))
                    knob = knob_for(last, _normal(context))
                if knob is None:
                    continue
                converted = convert(knob, value, str(key))
                if converted is not None:
                    put_knob(
                        record, side_of(where, knob, default_side), knob, converted, locate(child)
                    )
        elif isinstance(node, list):
            stack.extend((item, (*path, i)) for i, item in enumerate(node))


def grpc_from_env(env: Mapping[str, Located[str]], record: Grpc, default_side: str) -> None:
    for name, (value, origin) in env.items():
        if not name.upper().startswith(("GRPC_", "GRPC")):
            continue
        knob = knob_for(name)
        if knob is None:
            continue
        converted = convert(knob, value, name)
        if converted is None:
            continue
        lowered = name.lower()
        side = (
            "client"
            if "client" in lowered
            else "server"
            if "server" in lowered
            else ("server" if knob.server_only else default_side)
        )
        put_knob(record, side, knob, converted, origin)


def grpc_from_triton(engine: Engine, record: Grpc) -> None:
    for flag, name in TRITON_FLAGS.items():
        found = engine.setting(flag)
        if found is not None:
            knob = _K[name]
            converted = q.to_bool(found.value) if knob.kind == "bool" else found.value
            put_knob(record, "server", knob, converted, found.origin)
