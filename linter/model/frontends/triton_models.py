"""The Triton extractor: every model configuration becomes a ``TritonModelConfig`` workload.

Inputs are ``config.pbtxt`` documents (format ``pbtxt``) and JSON documents that are a
model configuration's JSON form (``GET /v2/models/<model>/config``). The workload holds
the configuration as ``triton.models[0]`` in that JSON form, plus ``derived`` facts
(``derive``); origins point every path, derived ones included, at the line to edit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePath
from typing import Any

from linter.model.engine.settings import ModelSettings
from linter.model.records.located import DROPPED, Located, located_tree
from linter.model.records.records import Engine, ServingModel, Triton, TritonDerived, TritonModel
from linter.model.records.workload import Workload
from linter.parsing.documents import Document, ParsedFile
from linter.positions import Origin, PathT, format_path
from linter.triton import jsonform
from linter.triton.derive import derive
from linter.triton.detect import is_model_config_json
from linter.triton.fields import MODEL_CONFIG_KIND

KIND = MODEL_CONFIG_KIND
SOURCE = "triton-config"
_TRTLLM_PARAMETERS = frozenset({"gpt_model_type", "gpt_model_path"})


def extract_triton(files: Sequence[ParsedFile], settings: ModelSettings) -> list[Workload]:
    """One workload per Triton model configuration found in ``files``."""
    return [
        _workload(document)
        for parsed in files
        for document in parsed.documents
        if document.fmt == "pbtxt"
        or (document.fmt == "json" and is_model_config_json(document.data))
    ]


def _workload(document: Document) -> Workload:
    config: dict[str, Any] = _without_nulls(document.data)
    if document.fmt == "json":
        jsonform.normalize(config)
    parent = PurePath(document.source).parent.name
    derived, sources = derive(config, parent or document.source)
    # proto3 drops a written "max_batch_size: 0" from the JSON form; the line map keeps it.
    derived["max_batch_size_written"] = ("max_batch_size",) in document.line_map
    derived["trtllm"] = derived["backend_kind"] == "tensorrtllm" or bool(
        _TRTLLM_PARAMETERS & set(derived["parameters"])
    )
    suffix = f"#{document.index}" if document.index else ""
    anchor = _origin(document, ())
    written = document.line_map

    def config_origin(path: PathT) -> Origin | None:
        return _origin(document, path) if path in written else None

    located = located_tree(config, config_origin)
    _keep_dropped(located, written, document)
    derived_at: dict[PathT, Origin] = {}
    for derived_path, config_path in sources.items():
        derived_at[derived_path] = _origin(document, config_path)
    for derived_path, config_path in _written_inputs(derived):
        if config_path in written and derived_path not in derived_at:
            derived_at[derived_path] = _origin(document, config_path)
    computed = TritonDerived(
        **{
            field: located_tree(value, _under(derived_at, field))
            for field, value in derived.items()
        }
    )
    model = TritonModel(config=located.value, derived=Located(computed, anchor))
    # Derived from the whole configuration (its backend and parameters): at its start.
    engine = Engine(name=Located("trtllm" if derived["trtllm"] else "triton"))
    record = ServingModel(
        id=Located(f"file:{document.source}{suffix}", anchor),
        kind=Located(KIND, anchor),
        name=Located(derived["name"], anchor),
        source=Located(SOURCE, anchor),
        engine=Located(engine),
        triton=Located(Triton(models=Located([Located(model, located.origin)]))),
    )
    return Workload(derived["name"], record, anchor)


def _under(table: Mapping[PathT, Origin], field: str) -> Callable[[PathT], Origin | None]:
    """Origins of the paths under one derived field."""
    return lambda path: table.get((field, *path))


def _keep_dropped(config: Located[Any], written: Mapping[PathT, Any], document: Document) -> None:
    """Written keys the JSON form leaves out, kept for their origin (``located.DROPPED``)."""
    for path in written:
        node: Located[Any] | None = config
        for key in path[:-1]:
            node = _child(node.value, key) if node is not None else None
        if node is not None and path and isinstance(node.value, dict):
            node.value.setdefault(path[-1], Located(DROPPED, _origin(document, path)))


def _child(inner: Any, key: str | int) -> Located[Any] | None:
    if isinstance(inner, dict):
        return inner.get(key)
    if isinstance(inner, list) and isinstance(key, int) and 0 <= key < len(inner):
        found: Located[Any] = inner[key]
        return found
    return None


def _written_inputs(derived: dict[str, Any]) -> list[tuple[PathT, PathT]]:
    """Derived facts read straight from one written field: (derived path, config path)."""
    pairs: list[tuple[PathT, PathT]] = [
        (("name",), ("name",)),
        (("dynamic_batching",), ("dynamic_batching",)),
        (("sequence_batching",), ("sequence_batching",)),
        (("max_batch_size_written",), ("max_batch_size",)),
        (("trtllm",), ("backend",)),
    ]
    for index, group in enumerate(derived.get("instance_groups", [])):
        pairs.append((("instance_groups", index), ("instance_group", index)))
        pairs.extend(
            (("instance_groups", index, field), ("instance_group", index, written))
            for field, written in (
                ("count", "count"),
                ("kind", "kind"),
                ("gpus_listed", "gpus"),
                ("gpus", "gpus"),
            )
            if field in group
        )
    return pairs


def _without_nulls(value: Any) -> Any:
    """A copy without JSON nulls: protobuf reads null as "not set", and the CEL runtime
    (cel-expr-python 0.1.3) mishandles the reference count of Python's None."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value if v is not None]
    return value


def _origin(document: Document, path: PathT) -> Origin:
    span = document.span(path)
    return Origin(document.source, span.line, span.column, document.index, format_path(path))
