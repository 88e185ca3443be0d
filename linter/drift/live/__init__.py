"""Live captures: start-up logs and info answers of vLLM, TGI, SGLang and Triton.

``read_capture(text)`` finds what the server loaded in a capture (docs/drift.md, "Logs and
info answers") and returns a ``Capture`` naming the server, its version and the formats it
read; None when the text is an ordinary JSON or YAML document (a config file); and
``UnknownCapture`` when the text is a log (or no document at all) in which no format is
found, so that a log is never read as YAML.
"""

from __future__ import annotations

import dataclasses
import pickle
import threading
from typing import Any

from linter.drift.live import documents, lines, sglang, tgi, triton, vllm
from linter.drift.live.capture import Capture, Disagreement, assemble

__all__ = ["FORMATS", "Capture", "Disagreement", "UnknownCapture", "read_capture"]

FORMATS = (
    "vLLM start-up log (non-default args, args: Namespace(...), V0/V1 engine config line)",
    "vLLM usage-stats record",
    "TGI launcher log (Args { ... } on one line or pretty-printed, derived defaults)",
    "TGI /info or usage-stats start event (JSON, Python repr, PHP print_r)",
    "SGLang log (server_args=ServerArgs(...))",
    "SGLang /get_server_info, gRPC GetServerInfo or GetModelInfo (grpcurl JSON, MessageToDict)",
    "Triton log (option table, model configuration JSON, auto-completed config)",
    "a JSON or YAML config (vllm serve --config, /v1/models, /v2/models/<m>/config)",
)

# Tried after vLLM's, in this order.
_OTHER_LOG_PARSERS = (tgi, sglang, triton)


class UnknownCapture(ValueError):
    """A log, or text that is no document, in which no known format was found."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"{detail}; the formats understood are: " + "; ".join(FORMATS))


def read_capture(text: str) -> Capture | None:
    document = documents.read(text)
    if document is not None:
        data, form = document
        return _from_document(data, form)
    problems: list[str] = []
    # vLLM's parser acts only on lines holding one of its marks: in a log of any size
    # those are a handful, and cleaning the rest would cost more than the parse.
    marked = lines.clean_marked(text, vllm.MARKS)
    said = tuple((line.number, line.text, line.logged) for line in marked)
    known = _VLLM_READ.get(said)
    if known is not None:
        capture, settings = known
        # Its maps are each caller's own; every other field is immutable.
        copy = dataclasses.replace(capture, settings=pickle.loads(settings))
        return copy.with_fingerprint(capture.fingerprint)
    records, version = vllm.from_lines(marked, problems)
    if records:
        capture = assemble(vllm.SERVER, version, records, vllm.IGNORED, vllm.MODEL_KEY)
        if not capture.disagreements:
            # Kept for its fields but its maps, which each later caller loads afresh.
            capture.with_fingerprint(repr(capture))
            _remember(said, (capture, pickle.dumps(capture.settings, pickle.HIGHEST_PROTOCOL)))
        return capture
    cleaned = lines.clean(text)
    for parser in _OTHER_LOG_PARSERS:
        records, version = parser.from_lines(cleaned, problems)
        if records:
            return assemble(parser.SERVER, version, records, parser.IGNORED, parser.MODEL_KEY)
    if problems:
        raise UnknownCapture("; ".join(problems[:3]))
    if lines.looks_like_log(cleaned):
        raise UnknownCapture(
            "this is a log, but it holds no start-up configuration that servelint reads "
            "(was the start of the log cut off? with --source logs, raise --log-bytes)"
        )
    return None


# The replicas of a deployment print the same marked lines, only the times and process
# ids in front of them differ: what those lines say is read once. The process labels
# reach a capture only through its disagreements, so a capture with none is kept by the
# numbers and messages of its lines, its settings as bytes that each caller loads into
# maps of its own (what one pod's analysis does to them never reaches another's).
_Said = tuple[tuple[int, str, bool], ...]
_VLLM_READ: dict[_Said, tuple[Capture, bytes]] = {}
_VLLM_READ_MAX = 64
_VLLM_READ_LOCK = threading.Lock()


def _remember(said: _Said, capture: tuple[Capture, bytes]) -> None:
    with _VLLM_READ_LOCK:
        if len(_VLLM_READ) >= _VLLM_READ_MAX:
            del _VLLM_READ[next(iter(_VLLM_READ))]
        _VLLM_READ[said] = capture


def _from_document(data: Any, form: str) -> Capture | None:
    usage = vllm.usage_records(data)
    if usage is not None:
        records, version = vllm.from_usage(usage)
        capture = assemble("vllm", version, records, vllm.IGNORED, vllm.MODEL_KEY)
        return _with_form(_reports_a_few(capture, vllm.USAGE_RESOLVED), form)
    if not isinstance(data, dict):
        return None
    if tgi.is_info(data) or tgi.is_usage_event(data):
        records, version = tgi.from_document(data)
        capture = assemble("tgi", version, records, tgi.IGNORED, tgi.MODEL_KEY)
        return _with_form(_reports_a_few(capture, tgi.INFO_RESOLVED), form)
    model_info = sglang.model_info_fields(data)
    if model_info is not None:
        records = sglang.from_model_info(model_info)
        capture = assemble("sglang", "", records, sglang.IGNORED, sglang.MODEL_KEY)
        return _with_form(_reports_a_few(capture, sglang.MODEL_INFO_RESOLVED), form)
    if sglang.grpc_server_args(data) is not None or sglang.is_server_info(data):
        records, version = sglang.from_document(data)
        return _with_form(
            assemble("sglang", version, records, sglang.IGNORED, sglang.MODEL_KEY), form
        )
    if form != "JSON":
        raise UnknownCapture(f"a {form} that is not a server's info answer")
    return None


def _reports_a_few(capture: Capture, resolved: frozenset[str]) -> Capture:
    """TGI's /info and the usage records print a fixed handful of settings: a setting
    they do not print is not evidence. ``resolved``: settings they print as the server
    resolved them (vLLM's usage record: the dtype chosen for "auto")."""
    return dataclasses.replace(capture, partial=True, resolved=resolved & set(capture.settings))


def _with_form(capture: Capture, form: str) -> Capture:
    if form == "JSON":
        return capture
    formats = tuple(f"{kind} ({form})" for kind in capture.formats)
    return dataclasses.replace(capture, formats=formats)
