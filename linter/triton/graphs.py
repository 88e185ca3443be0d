"""Which batch sizes get a CUDA graph in Triton's TensorRT backend, and which do not.

Mirrors tensorrt_backend:src/instance_state.cc:
- ``InitializeGraphSpecs``: without ``graph_spec``, graphs are captured for ``{1}`` plus
  the (normalised) ``dynamic_batching.preferred_batch_size`` plus ``max_batch_size``; with
  ``sequence_batching.oldest`` its preferred sizes instead; with no batcher at all for
  ``{1, 2, 3, 4, 6, 8, 12, 16, max_batch_size}``; every size above ``max_batch_size`` is
  dropped. With ``graph_spec``, exactly the listed ``batch_size`` values.
- ``model_state.cc`` auto-complete (on by default) adds ``dynamic_batching {}`` to a
  batching engine's config that has no scheduler, so the no-batcher set applies only
  with auto-complete off.
- ``FindClosestCudaGraph``: a batch uses a graph only on an exact match, unless some spec
  has a ``graph_lower_bound``; then any batch size between a spec's lower bound and its
  ``batch_size`` uses that spec's graph.
- ``ValidateGraphSpec``: the checks that make the model fail to load.

Only the batch dimension is modelled; graph_spec input shapes narrow the match further.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from linter.positions import PathT

_NO_BATCHER_DEFAULT = (1, 2, 3, 4, 6, 8, 12, 16)
_CUDA: PathT = ("optimization", "cuda")


def cuda_graphs(
    config: Mapping[str, Any], backend: str, max_batch: int | None, preferred: list[int] | None
) -> tuple[dict[str, Any], dict[PathT, PathT]] | None:
    cuda = _mapping(_mapping(config.get("optimization")).get("cuda"))
    written = cuda.get("graph_spec")
    specs = [s for s in written if isinstance(s, dict)] if isinstance(written, list) else []
    if "graphs" not in cuda and not specs:
        return None
    out: dict[str, Any] = {
        "enabled": cuda.get("graphs") is True,
        "graph_spec_written": bool(specs),
        "honoured": backend == "tensorrt",
        "spec_source": "graph_spec" if specs else "default",
        "inexact_matching": any(isinstance(s.get("graph_lower_bound"), dict) for s in specs),
    }
    where: PathT = (*_CUDA, "graph_spec") if specs else (*_CUDA, "graphs")
    sources: dict[PathT, PathT] = {("enabled",): (*_CUDA, "graphs")}
    for key in ("captured_batch_sizes", "ungraphed_batch_sizes", "inexact_matching"):
        sources[(key,)] = where
    if max_batch is None:
        return out, sources
    out["graph_spec_errors"] = [
        {
            "index": i,
            "message": message,
            "max_batch_size_zero": zero_branch,
            "path": ".".join(("optimization", "cuda", f"graph_spec[{i}]")),
        }
        for i, spec in enumerate(specs)
        for message, zero_branch in [_validate(spec, max_batch)]
        if message
    ]
    sources[("graph_spec_errors",)] = (*_CUDA, "graph_spec")
    if max_batch <= 0:
        return out, sources
    ranges = _spec_ranges(specs) if specs else _default_ranges(config, max_batch, preferred)
    if ranges is None:
        return out, sources
    captured = sorted({high for _, high in ranges if 1 <= high <= max_batch})
    graphed = {b for low, high in ranges for b in range(max(low, 1), min(high, max_batch) + 1)}
    ungraphed = [b for b in range(1, max_batch + 1) if b not in graphed]
    basis = _default_basis(config) if not specs else "graph_spec"
    out.update(
        {
            "captured_batch_sizes": captured,
            "captured_text": ", ".join(map(str, captured)) or "none",
            "ungraphed_batch_sizes": ungraphed,
            "ungraphed_text": ranges_text(ungraphed),
            "default_basis": basis,
        }
    )
    if basis == "no_batcher":
        without = sorted({b for b in (*_NO_BATCHER_DEFAULT, max_batch) if b <= max_batch})
        out["captured_text_without_auto_complete"] = ", ".join(map(str, without))
    return out, sources


def ranges_text(values: Iterable[int]) -> str:
    """``[2, 3, 4, 7]`` → ``"2–4, 7"``."""
    runs: list[list[int]] = []
    for value in sorted(values):
        if runs and value == runs[-1][1] + 1:
            runs[-1][1] = value
        else:
            runs.append([value, value])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def _default_basis(config: Mapping[str, Any]) -> str:
    if isinstance(config.get("dynamic_batching"), dict):
        return "dynamic_batching"
    oldest = _mapping(config.get("sequence_batching")).get("oldest")
    return "sequence_batching" if isinstance(oldest, dict) else "no_batcher"


def _default_ranges(
    config: Mapping[str, Any], max_batch: int, preferred: list[int] | None
) -> list[tuple[int, int]] | None:
    basis = _default_basis(config)
    sizes: set[int] = {1, max_batch}
    if basis == "dynamic_batching":
        if preferred is None:
            return None
        sizes.update(preferred)
    elif basis == "sequence_batching":
        oldest = _mapping(_mapping(config.get("sequence_batching")).get("oldest"))
        written = _ints(oldest.get("preferred_batch_size") or [])
        if written is None:
            return None
        sizes.update(written or [max_batch])
    # No scheduler: auto-complete (on by default) adds dynamic_batching {} for an engine
    # that batches (model_state.cc AutoCompleteConfigHelper), and the core normalises its
    # preferred sizes to [max_batch_size]; so {1, max_batch_size} as above. Only with
    # auto-complete off is the no-batcher set used (see _NO_BATCHER_DEFAULT).
    # Exact matching only: each captured size covers itself.
    return [(size, size) for size in sorted(sizes) if size <= max_batch]


def _spec_ranges(specs: list[dict[str, Any]]) -> list[tuple[int, int]] | None:
    inexact = any(isinstance(s.get("graph_lower_bound"), dict) for s in specs)
    ranges = []
    for spec in specs:
        batch = _int(spec.get("batch_size", 0))
        bound = spec.get("graph_lower_bound")
        low = _int(bound.get("batch_size", 0)) if inexact and isinstance(bound, dict) else batch
        if batch is None or low is None:
            return None
        ranges.append((low, batch))
    return ranges


def _validate(spec: Mapping[str, Any], max_batch: int) -> tuple[str, bool]:
    """The first ValidateGraphSpec error for one spec, and whether it is the max 0 branch."""
    batch = _int(spec.get("batch_size", 0))
    bound = spec.get("graph_lower_bound")
    has_bound = isinstance(bound, dict)
    low = _int(bound.get("batch_size", 0)) if isinstance(bound, dict) else batch
    if batch is None or low is None:
        return "", False
    if max_batch == 0:
        if batch != 0 or low != 0:
            return "graph spec expects 'batch_size' to be 0 if 'max_batch_size' is 0", True
    elif not (1 <= batch <= max_batch and 1 <= low <= max_batch):
        return f"graph spec expects 'batch_size' to be >= 1 and <= {max_batch}", False
    if low > batch:
        return (
            "graph lower bound spec expects 'batch_size' to be <= graph spec 'batch_size'"
        ), False
    shapes = _shapes(spec.get("input"))
    lower = _shapes(bound.get("input")) if isinstance(bound, dict) else shapes
    if shapes is None or lower is None:
        return "", False
    return _validate_shapes(shapes, lower if has_bound else shapes), False


def _validate_shapes(shapes: dict[str, list[int]], lower: dict[str, list[int]]) -> str:
    for name in sorted(shapes):  # std::map order, as the backend iterates
        dims = shapes[name]
        if name not in lower:
            return f"graph lower bound spec expects shape for input '{name}'"
        low = lower[name]
        if len(low) != len(dims):
            return f"graph lower bound spec expects to have '{len(dims)} dimensions, got {len(low)}"
        for low_dim, dim in zip(low, dims, strict=True):
            if low_dim < 0 or dim < 0:
                return f"graph spec expects input '{name}' to have dimension >= 0"
            if low_dim > dim:
                return f"graph lower bound spec expects input '{name}' to have dimension <= {dim}"
    return ""


def _shapes(inputs: Any) -> dict[str, list[int]] | None:
    shapes: dict[str, list[int]] = {}
    for name, tensor in _mapping(inputs).items():
        dims = _ints(_mapping(tensor).get("dim") or [])
        if dims is None:
            return None
        shapes[name] = dims
    return shapes


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _ints(values: Any) -> list[int] | None:
    if not isinstance(values, list):
        return None
    ints = [_int(v) for v in values]
    return None if any(v is None for v in ints) else [v for v in ints if v is not None]
