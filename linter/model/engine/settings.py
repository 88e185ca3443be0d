"""User settings that feed the serving model (from the configuration file or flags)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from linter.lightclass import frozen


@frozen
class ModelSettings:
    """What the extractors may be told instead of guessing.

    - ``profile_dirs``: extra chart-layout profile folders (besides the packaged ones).
    - ``presets``: extra model presets, keyed by model id (``meta-llama/Llama-3.1-8B``),
      each a mapping of Hugging Face ``config.json`` fields.
    - ``model_configs``: paths of Hugging Face ``config.json`` files, keyed by model id.
    - ``gpu_memory_bytes``: GPU memory when the manifest does not name the GPU type.
    - ``gpu_product``: GPU type (``NVIDIA-L4``) when the manifest does not name it.
    - ``gpus``: GPU catalogue entries added or replaced (``model.gpus``), keyed by product.
    - ``instance_types``: cloud instance types added or replaced (``model.instanceTypes``),
      each ``{"gpu": product, "count": GPUs per instance}``.
    - ``model_load_seconds``: the measured start-up time of the model servers (container
      start to ready, warm caches), for the probe rules: a probe that gives up sooner
      restarts the server forever (policies/probes.yaml).
    - ``load_bandwidth_bytes``: bytes per second at which the servers read their weights
      (storage or network), for the probe rules' load-time estimate when
      ``model_load_seconds`` is not given; the policies assume 1000 MiB/s without it.
    """

    profile_dirs: tuple[str, ...] = ()
    presets: Mapping[str, Mapping[str, object]] = dataclasses.field(default_factory=dict)
    model_configs: Mapping[str, str] = dataclasses.field(default_factory=dict)
    gpu_memory_bytes: int | None = None
    gpu_product: str | None = None
    gpus: Mapping[str, Mapping[str, object]] = dataclasses.field(default_factory=dict)
    instance_types: Mapping[str, Mapping[str, object]] = dataclasses.field(default_factory=dict)
    model_load_seconds: float | None = None
    load_bandwidth_bytes: int | None = None


DEFAULT_SETTINGS = ModelSettings()
