"""The serving model as typed records: every value carries the origin it was read from.

A workload is a ``ServingModel``: its identity, the ``pod`` and the server ``container``
(``pod_records.py``), the server's ``engine`` settings, the ``model``, ``gpu`` and
``capacity`` facts, the ``effective`` settings (defaults filled in), ``grpc`` keepalive
settings and, for a Triton model configuration, ``triton``. A value is a ``Located``
(``located.py``): the value and its ``Origin`` (None when it was not written anywhere, a
default). Derived values carry the origin of the input they were derived from
(``capacity.tokens_requested`` the line that set ``max_model_len``).

``celdata.cel_data`` is the one conversion of a record to what policies see as
``workload`` (docs/serving-model.md). ``tests/test_model_records.py`` checks
``schemas/workload.schema.json`` and the vocabulary page against the records' fields.
"""

from __future__ import annotations

import copy
from typing import Any

from linter.model.records.located import Located, Record, field, record
from linter.model.records.pod_records import Container, Pod
from linter.positions import Origin


@record
class CliFlag(Record):
    """A flag as written on the command line, with the server's verdict for the image's
    release (``flagtables.Verdict``). Its values are facts of the flag tables and of the
    command around the flag: the record's origin, the flag's token, is theirs."""

    written: str
    flag: str
    dest: str
    status: str
    accepted_in: str
    removed_in: str
    removed_on: str
    replacement: str
    candidates: list[str]
    newest: str
    oldest: str
    source: str
    command_line: bool
    official_image: bool
    parser_known: bool
    # A flag written in a values key that a chart profile or the chart's templates show
    # reaching the server's command line as written (``value_flags.py``).
    key_reaches: bool


@record
class Engine(Record):
    """The server and its settings. ``settings`` are the typed settings of the server's
    registry (``registry.py``: ``max_model_len``, ``tensor_parallel_size``, …), by name."""

    SPREAD = frozenset({"settings"})

    name: Located[str] | None = None
    image: Located[str] | None = None
    version: Located[str] | None = None
    version_parts: Located[list[int]] | None = None
    version_pinned: Located[bool] | None = None
    entrypoint: Located[str] | None = None
    args: Located[list[str]] | None = None
    env: Located[dict[str, Located[str]]] | None = None
    settings: dict[str, Located[Any]] = field(default_factory=dict)
    unparsed: Located[dict[str, Located[str]]] | None = None
    flags: Located[dict[str, Located[str]]] | None = None
    inline_bool_flags: Located[list[Located[str]]] | None = None
    positionals: Located[list[str]] | None = None
    model_id: Located[str] | None = None
    config_file: Located[str] | None = None
    cli_flags: Located[list[Located[CliFlag]]] | None = None
    # Values keys whose flags no rule judges: not shown to reach the server as written.
    unjudged_flags: Located[dict[str, Located[str]]] | None = None

    def setting(self, name: str) -> Located[Any] | None:
        return self.settings.get(name)

    def value(self, name: str, default: Any = None) -> Any:
        """A setting's value (``default`` when it is not set)."""
        found = self.settings.get(name)
        return default if found is None else found.value

    def values(self) -> dict[str, Any]:
        """The settings and the engine's own facts as the calculators read them
        (``defaults``, ``presets``): plain values, the environment as text; not the
        command line's flags and tokens, which no calculator reads."""
        out = {name: item.value for name, item in self.settings.items()}
        for name in _ENGINE_SCALARS:
            item = getattr(self, name)
            if item is not None:
                out[name] = item.value
        if self.env is not None:
            out["env"] = {name: item.value for name, item in self.env.value.items()}
        return out

    def origin_of(self, name: str) -> Origin | None:
        """Where the setting (or the engine's own fact) ``name`` was written."""
        found = self.settings.get(name)
        if found is None and name in ENGINE_FACTS:
            found = getattr(self, name)
        return found.origin if isinstance(found, Located) else None


# The engine's own facts: everything in ``engine`` that is not a setting of the registry.
ENGINE_FACTS = frozenset(Engine.FIELDS) - {"settings"}
# The engine's own facts a calculator may read (the version, the entry point, the model).
_ENGINE_SCALARS = (
    "name",
    "image",
    "version",
    "version_parts",
    "version_pinned",
    "entrypoint",
    "model_id",
    "config_file",
)


@record
class Image(Record):
    """The server image as written."""

    tag: Located[str]
    digest: Located[str]
    official: Located[bool]
    build_date: Located[str] | None = None
    # The software stack the image is built for (``images.ImageInfo.platform``).
    platform: Located[str] | None = None


@record
class ModelFacts(Record):
    """The served model's architecture (its config.json's fields, from the packaged presets
    or the user's settings) and what its weights take (``presets.model_facts``). Its
    values are facts of the model the engine names: the record's origin, that of
    ``engine.model_id``, is theirs."""

    id: str | None = None
    known: bool | None = None
    source: str | None = None
    preset: str | None = None
    config_url: str | None = None
    num_hidden_layers: int | None = None
    num_attention_heads: int | None = None
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    hidden_size: int | None = None
    intermediate_size: int | None = None
    moe_intermediate_size: int | None = None
    max_position_embeddings: int | None = None
    vocab_size: int | None = None
    sliding_window: int | None = None
    use_sliding_window: bool | None = None
    attention_chunk_size: int | None = None
    rope_scaling: dict[str, Any] | None = None
    tie_word_embeddings: bool | None = None
    model_type: str | None = None
    num_local_experts: int | None = None
    num_experts: int | None = None
    n_routed_experts: int | None = None
    n_shared_experts: int | None = None
    num_experts_per_tok: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    q_lora_rank: int | None = None
    dtype: str | None = None
    checkpoint_dtype: str | None = None
    quantization: str | None = None
    parameters: int | None = None
    weight_bytes: int | None = None
    weight_bytes_exact: bool | None = None


@record
class Gpu(Record):
    """Which GPU resource the server asks for and which product it lands on."""

    resource: Located[str] | None = None
    limits: Located[int | float] | None = None
    requests: Located[int | float] | None = None
    count: Located[int] | None = None
    mig: Located[bool] | None = None
    candidates: Located[list[str]] | None = None
    instance_types: Located[list[str]] | None = None
    node_gpus: Located[int] | None = None
    product: Located[str] | None = None
    product_source: Located[str] | None = None
    memory_bytes: Located[int] | None = None
    peer_to_peer: Located[bool] | None = None
    interconnect: Located[str] | None = None
    memory_source: Located[str] | None = None
    platform: Located[str] | None = None
    topology: Located[str] | None = None
    slice_chips: Located[int] | None = None
    cores: Located[int] | None = None


@record
class Capacity(Record):
    """The memory arithmetic of one GPU (``capacity.py``)."""

    tensor_parallel_size: Located[int] | None = None
    pipeline_parallel_size: Located[int] | None = None
    gpu_memory_bytes: Located[int] | None = None
    memory_fraction: Located[float] | None = None
    kv_dtype_bytes: Located[float] | None = None
    kv_bytes_per_token_per_gpu: Located[int] | None = None
    memory_budget_bytes_per_gpu: Located[int] | None = None
    overhead_bytes_per_gpu: Located[int] | None = None
    kv_estimate_exact: Located[bool] | None = None
    weight_bytes_per_gpu: Located[int] | None = None
    weight_bytes_exact: Located[bool] | None = None
    weights_exceed_gpu_memory: Located[bool] | None = None
    weights_exceed_budget: Located[bool] | None = None
    free_after_weights_bytes_per_gpu: Located[int] | None = None
    kv_budget_bytes_per_gpu: Located[int] | None = None
    kv_tokens_per_gpu: Located[int] | None = None
    kv_tokens_upper_per_gpu: Located[int] | None = None
    tokens_requested: Located[int] | None = None
    kv_bytes_requested: Located[int] | None = None
    tokens_for_all_sequences: Located[int] | None = None
    assumptions: Located[list[str]] | None = None


@record
class Effective(Record):
    """The settings the server runs with: written ones, else the release's defaults
    (``defaults.py``); ``defaulted`` names those that were not written."""

    SPREAD = frozenset({"settings"})

    settings: dict[str, Located[Any]] = field(default_factory=dict)
    defaulted: Located[list[str]] | None = None
    termination_grace_period_seconds: Located[int] | None = None


@record
class LoadBalancer(Record):
    kind: Located[str]
    idle_timeout_ms: Located[int | float]


@record
class Grpc(Record):
    """Keepalive settings by side, in gRPC core names and milliseconds (``grpc.py``)."""

    server: dict[str, Located[Any]] | None = None
    client: dict[str, Located[Any]] | None = None
    unspecified: dict[str, Located[Any]] | None = None
    server_kind: Located[str] | None = None
    load_balancer: Located[LoadBalancer] | None = None

    def side(self, name: str) -> dict[str, Located[Any]]:
        """The settings of one side, made on first use."""
        current: dict[str, Located[Any]] | None = getattr(self, name)
        if current is None:
            current = {}
            setattr(self, name, current)
        return current

    def merge(self, other: Grpc) -> None:
        """Add ``other``'s settings (a values tree's) to this one's sides."""
        for name in ("server", "client", "unspecified"):
            theirs: dict[str, Located[Any]] | None = getattr(other, name)
            if theirs:
                self.side(name).update(theirs)
        if other.load_balancer is not None:
            # Each workload's own copy: the tree's record is shared by its workloads.
            self.load_balancer = Located(
                copy.copy(other.load_balancer.value), other.load_balancer.origin
            )
        if other.server_kind is not None:
            self.server_kind = other.server_kind


@record
class TritonDerived(Record):
    """What Triton and its backends compute from a model configuration
    (``triton/derive.py``), each at the field it was read from."""

    name: Located[str]
    backend_kind: Located[str]
    max_batch_size: Located[int] | None = None
    decoupled: Located[bool] | None = None
    dynamic_batching: Located[bool] | None = None
    sequence_batching: Located[bool] | None = None
    preferred_batch_size_written: Located[list[int]] | None = None
    preferred_batch_size: Located[list[int]] | None = None
    max_queue_delay_microseconds: Located[int] | None = None
    priority_levels: Located[int] | None = None
    default_priority_level: Located[int] | None = None
    priority_queue_policy_levels: Located[list[int]] | None = None
    cuda_graphs: Located[dict[str, Any]] | None = None
    instance_groups: Located[list[Any]] | None = None
    parameters: Located[dict[str, Any]] | None = None
    gpu_device_id_sets: Located[list[Any]] | None = None
    unfilled_parameters: Located[list[str]] | None = None
    unfilled_fields: Located[list[str]] | None = None
    max_batch_size_written: Located[bool] | None = None
    trtllm: Located[bool] | None = None


@record
class TritonModel(Record):
    """One model configuration in Triton's JSON form (every node at its line) and what
    the server derives from it."""

    SPREAD = frozenset({"config"})

    config: dict[str, Located[Any]]
    derived: Located[TritonDerived]


@record
class Triton(Record):
    models: Located[list[Located[TritonModel]]]


@record
class Exposure(Record):
    """A Service, Ingress, HTTPRoute or Compose port that reaches the workload's pods,
    at the line that exposes them (``exposure.py``)."""

    kind: Located[str]
    name: Located[str]
    service: Located[str]
    type: Located[str]
    public: Located[bool]
    target_ports: Located[list[str]]


@record
class ProbeOff(Record):
    """A probe a values key switches off in the chart's templates, as a chart profile
    says (``profile_probes.py``), at the values line that switches it off."""

    probe: Located[str]
    key: Located[str]
    value: Located[str]
    reference: Located[str]


@record
class ChartPod(Record):
    """What the chart's templates add to a values workload's pod around ``/dev/shm``
    (``helm/podfacts.py``): proven, or why not."""

    proven: Located[bool]
    unseen: Located[str] | None = None


@record
class ServingModel(Record):
    """One workload: what CEL sees as ``workload``."""

    SPREAD = frozenset({"extra"})

    id: Located[str]
    kind: Located[str]
    name: Located[str]
    source: Located[str]
    namespace: Located[str] | None = None
    replicas: Located[int] | None = None
    role: Located[str] | None = None
    multi_node: Located[bool] | None = None
    # A Docker Compose service; the chart profile that read a values entry and the kind
    # its chart renders.
    compose: Located[bool] | None = None
    chart_profile: Located[str] | None = None
    renders: Located[str] | None = None
    # Facts of an extractor outside this vocabulary (``extract.EXTRACTORS`` is open).
    extra: dict[str, Located[Any]] = field(default_factory=dict)
    pod: Located[Pod] | None = None
    engine: Located[Engine] | None = None
    image: Located[Image] | None = None
    container: Located[Container] | None = None
    gpu: Located[Gpu] | None = None
    model: Located[ModelFacts] | None = None
    effective: Located[Effective] | None = None
    capacity: Located[Capacity] | None = None
    grpc: Located[Grpc] | None = None
    model_load_seconds: Located[int | float] | None = None
    load_bandwidth_bytes: Located[int] | None = None
    exposure: Located[list[Located[Exposure]]] | None = None
    chart_pod: Located[ChartPod] | None = None
    probes_off: Located[list[Located[ProbeOff]]] | None = None
    triton: Located[Triton] | None = None
