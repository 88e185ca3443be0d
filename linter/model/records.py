"""The serving model as typed records: every value carries the origin it was read from.

A workload is a ``ServingModel``: its identity, the ``pod`` and the server ``container``,
the server's ``engine`` settings, the ``model``, ``gpu`` and ``capacity`` facts, the
``effective`` settings (defaults filled in), ``grpc`` keepalive settings and, for a Triton
model configuration, ``triton``. A value is a ``Located``: the value and its ``Origin``
(None when it was not written anywhere, a default). Derived values carry the origin of the
input they were derived from (``capacity.tokens_requested`` the line that set
``max_model_len``).

``cel_data`` is the one conversion of a record to what policies see as ``workload``
(docs/serving-model.md): plain JSON-ready data. The policy engine calls it once per
workload (``policy/engine.py`` ``workload_subject``); ``origins_of`` gives the origin of
every path, for locating a finding with ``positions.nearest``.
``tests/test_model_records.py`` checks ``schemas/workload.schema.json`` and the
vocabulary page against the records' fields.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar, dataclass_transform

from linter.positions import Origin, PathT

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
R = TypeVar("R", bound="Record")


class Located(NamedTuple, Generic[T_co]):
    """A value and where it was written. None: it has no origin of its own (a default, a
    catalogue figure, a fact of the record as a whole) and is located at the nearest
    enclosing value that has one."""

    value: T_co
    origin: Origin | None = None


class Record:
    """Base of the model's records (classes made by ``record``), whose fields are
    ``Located`` values, nested records, or lists and maps of them. A field holding None
    is absent."""

    # The fields, in order, and each one's place (set by ``record``).
    FIELDS: ClassVar[tuple[str, ...]] = ()
    ORDER: ClassVar[dict[str, int]] = {}
    # Fields whose map is spread into the record's own keys in the CEL view (the
    # engine's settings sit beside its name and image: ``engine.max_model_len``).
    SPREAD: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def of(
        cls: type[R],
        values: Mapping[str, Any],
        origin_of: Callable[[str], Origin | None] | None = None,
    ) -> R:
        """A record from a calculator's result, each value at ``origin_of(its name)``
        (none of its own without it: the record's origin covers them).

        An unknown name is a programming error and raises ``TypeError``."""
        if origin_of is None:
            return cls(**{name: Located(value) for name, value in values.items()})
        return cls(**{name: Located(value, origin_of(name)) for name, value in values.items()})

    def plain(self) -> dict[str, Any]:
        """The record's values without origins, as calculators take them."""
        found: dict[str, Any] = plain(self)
        return found

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and all(
            getattr(self, name) == getattr(other, name) for name in self.FIELDS
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}"
            for name in self.FIELDS
            if (value := getattr(self, name)) is not None
        )
        return f"{self.__class__.__name__}({shown})"


class _Factory(NamedTuple):
    make: Callable[[], Any]


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made per record (``field(default_factory=dict)``)."""
    return _Factory(default_factory)  # type: ignore[return-value]


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
def record(cls: type[R]) -> type[R]:
    """Make ``cls`` a record: its annotated fields, in order, as ``FIELDS``, unset ones
    None, and a keyword-only ``__init__`` that refuses a name the record does not have.
    ``dataclasses.dataclass`` would do; it takes about 0.4 ms per class to build (it
    compiles the methods it writes), and these ~25 classes are built on every run, a
    pre-commit hook on every commit: this takes about a tenth of that."""
    names = tuple(inspect.get_annotations(cls))
    fields = frozenset(names)
    factories: list[tuple[str, Callable[[], Any]]] = []
    required: set[str] = set()
    for name in names:
        default = cls.__dict__.get(name, _UNSET)
        if isinstance(default, _Factory):
            factories.append((name, default.make))
            delattr(cls, name)
        elif default is _UNSET:
            required.add(name)
        elif default is not None:
            # The class attribute is what an unset field reads: None.
            raise TypeError(f"{cls.__name__}.{name}: a record's default is None or a factory")

    needed = tuple(required)

    def __init__(self: Record, **values: Any) -> None:
        if not fields.issuperset(values):
            unknown = ", ".join(sorted(set(values) - fields))
            raise TypeError(f"{cls.__name__} has no field {unknown}")
        for name in needed:
            if name not in values:
                missing = ", ".join(sorted(n for n in needed if n not in values))
                raise TypeError(f"{cls.__name__} needs {missing}")
        state = self.__dict__
        state.update(values)
        for name, make in factories:
            if name not in values:
                state[name] = make()

    setattr(cls, "__init__", __init__)  # noqa: B010 - mypy takes the signature from the fields
    cls.FIELDS = names
    cls.ORDER = {name: index for index, name in enumerate(names)}
    _RECORDS.add(cls)
    return cls


_UNSET: Any = object()
# Every record class (exact-class dispatch in the conversions).
_RECORDS: set[type[Record]] = set()


class _Dropped:
    """The value of a key that was written but that the model's form of the input leaves
    out (proto3's JSON form drops a zero ``max_batch_size``): CEL does not see the key,
    a finding about it still points at the line that wrote it."""

    def __repr__(self) -> str:
        return "DROPPED"


DROPPED: Any = _Dropped()


def value_of(item: Located[T] | None) -> T | None:
    """The value of an optional field (None when it is absent)."""
    return None if item is None else item.value


def located_tree(
    data: Any, locate: Callable[[PathT], Origin | None], path: PathT = ()
) -> Located[Any]:
    """Plain data (a parsed document's subtree) with every node at ``locate(its path)``."""
    if isinstance(data, Mapping):
        value: Any = {k: located_tree(v, locate, (*path, k)) for k, v in data.items()}
    elif isinstance(data, list):
        value = [located_tree(v, locate, (*path, i)) for i, v in enumerate(data)]
    else:
        value = data
    return Located(value, locate(path))


# ---- pod and containers -----------------------------------------------------------


@record
class Resources(Record):
    """A container's or pod's resources in numbers (cpu in cores, memory in bytes)."""

    requests: Located[dict[str, Located[Any]]] | None = None
    limits: Located[dict[str, Located[Any]]] | None = None
    invalid: Located[list[Any]] | None = None


@record
class Probe(Record):
    """A probe with the Kubernetes API defaults filled in."""

    initial_delay_seconds: Located[int] | None = None
    period_seconds: Located[int] | None = None
    timeout_seconds: Located[int] | None = None
    failure_threshold: Located[int] | None = None
    success_threshold: Located[int] | None = None
    termination_grace_period_seconds: Located[int] | None = None
    defaulted: Located[list[str]] | None = None
    type: Located[str] | None = None
    port: Located[int | str] | None = None
    http_path: Located[str] | None = None
    scheme: Located[str] | None = None
    command: Located[list[str]] | None = None
    budget_seconds: Located[int] | None = None


@record
class Mount(Record):
    name: Located[str]
    mount_path: Located[str]
    read_only: Located[bool] | None = None


@record
class EnvRef(Record):
    """An env variable whose value comes from elsewhere (``valueFrom``)."""

    type: Located[str]
    name: Located[str]


@record
class EnvSource(Record):
    """A source of the whole environment (``envFrom``)."""

    type: Located[str]
    name: Located[str]


@record
class PreStop(Record):
    """The ``preStop`` hook: its handler and, for ``exec``, the command."""

    type: Located[str]
    command: Located[list[str]] | None = None


@record
class Container(Record):
    name: Located[str]
    image: Located[str] | None = None
    is_init: Located[bool]
    is_server: Located[bool]
    sidecar: Located[bool] | None = None
    command: Located[list[str]] | None = None
    args: Located[list[str]] | None = None
    resources: Located[Resources]
    env: Located[dict[str, Located[str]]]
    env_from_secret: Located[list[str]]
    env_refs: Located[dict[str, Located[EnvRef]]]
    env_from: Located[list[Located[EnvSource]]]
    probes: Located[dict[str, Located[Probe]]]
    pre_stop: Located[PreStop] | None = None
    pre_stop_seconds: Located[int | float] | None = None
    privileged: Located[bool]
    capabilities_add: Located[list[str]] | None = None
    mounts: Located[list[Located[Mount]]]
    mounts_host_cgroup: Located[bool]
    writes_cgroup_memory: Located[bool]
    cgroup_memory_files: Located[list[str]] | None = None


@record
class Volume(Record):
    name: Located[str]
    added_by: Located[str] | None = None
    type: Located[str] | None = None
    medium: Located[str] | None = None
    size_limit_bytes: Located[int] | None = None
    path: Located[str] | None = None
    claim_name: Located[str] | None = None
    # Container fields written in the volume entry (an indentation slip).
    misplaced: Located[list[Located[str]]] | None = None


@record
class Shm(Record):
    """What the pod has at ``/dev/shm``."""

    mounted: Located[bool]
    host_ipc: Located[bool]
    volume: Located[str] | None = None
    medium: Located[str] | None = None
    size_limit_bytes: Located[int] | None = None


@record
class Pod(Record):
    volumes: Located[list[Located[Volume]]] | None = None
    init_containers: Located[list[Located[Container]]] | None = None
    containers: Located[list[Located[Container]]] | None = None
    qos_class: Located[str] | None = None
    resources: Located[Resources] | None = None
    host_ipc: Located[bool] | None = None
    host_network: Located[bool] | None = None
    host_pid: Located[bool] | None = None
    termination_grace_period_seconds: Located[int] | None = None
    runtime_class_name: Located[str] | None = None
    service_account_name: Located[str] | None = None
    node_selector: Located[dict[str, Located[str]]] | None = None
    privileged: Located[bool] | None = None
    writes_cgroup_memory: Located[bool] | None = None
    shm: Located[Shm] | None = None
    labels: Located[dict[str, Located[str]]] | None = None

    def all_containers(self) -> list[Container]:
        return [
            item.value
            for group in (self.init_containers, self.containers)
            if group is not None
            for item in group.value
        ]


# ---- the server ---------------------------------------------------------------------


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
    triton: Located[Triton] | None = None


# ---- the one conversion to what CEL sees ---------------------------------------------

# cel-expr-python holds 64-bit integers: a wider one (a computed budget of an absurd
# setting) becomes a float, as JSON readers make it, instead of failing every rule.
_INT64 = 1 << 63


def cel_data(record: Record) -> dict[str, Any]:
    """The record as CEL sees it: JSON-ready data, integers wider than CEL's 64 bits as
    floats (as JSON readers make them) instead of failing every rule, a record met twice
    (the server ``container``, also an entry of ``pod.containers``) as one map."""
    data: dict[str, Any] = _Data().convert(record)
    return data


def origins_of(record: Record) -> dict[PathT, Origin]:
    """The origin of every path of the record's CEL data that has one of its own (for
    ``positions.nearest``, when a finding is located or ``servelint show`` prints)."""
    origins: dict[PathT, Origin] = {}
    _collect_origins(record, (), origins)
    return origins


def origins_along(record: Record, path: PathT) -> dict[PathT, Origin]:
    """The origins of ``path`` and of each of its ancestors, as ``origins_of`` has them:
    all that ``positions.nearest`` needs to locate one finding, without the origin of
    every value of the workload."""
    origins: dict[PathT, Origin] = {}
    node: Any = record
    for end in range(1, len(path) + 1):
        node = _child(node, path[end - 1])
        if node is _UNSET:
            break
        if node.__class__ is Located:
            if node.origin is not None:
                origins[path[:end]] = node.origin
            node = node.value
    return origins


def _child(node: Any, key: str | int) -> Any:
    """The value at ``key`` of a record, map or list, as the CEL data names it (``_UNSET``:
    there is none)."""
    kind = node.__class__
    if kind in _RECORDS or isinstance(node, Record):
        state = node.__dict__
        found = state.get(key) if key not in node.SPREAD else None
        if found is not None:
            return found
        for name in node.SPREAD:
            spread = state.get(name)
            if spread and key in spread:
                return spread[key]
        return _UNSET
    if kind is dict or isinstance(node, Mapping):
        return node.get(key, _UNSET)
    if kind is list or kind is tuple:
        kept = [item for item in node if not _dropped(item)]
        return kept[key] if isinstance(key, int) and 0 <= key < len(kept) else _UNSET
    return _UNSET


# Exact types of the JSON scalars a record holds (dispatch on the class: a workload has a
# few hundred values, a bulk run millions).
_SCALARS = frozenset({str, bool, float, type(None)})


class _Data:
    """One conversion to plain data: CEL's (``narrow``: integers wider than 64 bits as
    floats) or the calculators' (``plain``). Scalars, plain or located (most of a
    workload's values), are taken inline, without a call: the conversion runs for every
    workload."""

    def __init__(self, *, narrow: bool = True) -> None:
        self.narrow = narrow
        self.seen: dict[int, dict[str, Any]] = {}

    def convert(self, node: Any) -> Any:
        kind = node.__class__
        if kind is Located:
            node = node.value
            kind = node.__class__
        if kind in _SCALARS:
            return node
        if kind is int:
            return float(node) if self.narrow and not -_INT64 <= node < _INT64 else node
        if kind is dict or (kind not in _RECORDS and isinstance(node, Mapping)):
            return self.entries(node.items(), {})
        if kind is list or kind is tuple:
            items: list[Any] = []
            for item in node:
                inner = item.__class__
                if inner is Located:
                    item = item.value
                    inner = item.__class__
                if inner in _SCALARS or (inner is int and -_INT64 <= item < _INT64):
                    items.append(item)
                elif item is not DROPPED:
                    items.append(self.convert(item))
            return items
        if kind in _RECORDS or isinstance(node, Record):
            found = self.seen.get(id(node))
            if found is None:
                found = self.seen[id(node)] = self.record(node)
            return found
        return node

    def entries(self, items: Iterable[tuple[Any, Any]], out: dict[Any, Any]) -> dict[Any, Any]:
        """``(key, value)`` pairs into ``out``; a ``DROPPED`` value leaves its key out."""
        for key, item in items:
            kind = item.__class__
            if kind is Located:
                item = item.value
                kind = item.__class__
            if kind in _SCALARS or (kind is int and -_INT64 <= item < _INT64):
                out[key] = item
            elif item is not DROPPED:
                out[key] = self.convert(item)
        return out

    def record(self, node: Record) -> dict[str, Any]:
        spread = node.SPREAD
        fields = _set_fields(node)
        if not spread:
            return self.entries(fields, {})
        pairs: list[tuple[Any, Any]] = []
        for name, value in fields:
            if name in spread:
                pairs.extend(value.items())
            else:
                pairs.append((name, value))
        return self.entries(pairs, {})


def _collect_origins(node: Any, path: PathT, origins: dict[PathT, Origin]) -> None:
    kind = node.__class__
    if kind is Located:
        if node.origin is not None:
            origins[path] = node.origin
        node = node.value
        kind = node.__class__
    if kind in _SCALARS or kind is int:
        return
    if kind is dict or (kind not in _RECORDS and isinstance(node, Mapping)):
        items: Iterable[tuple[Any, Any]] = node.items()
    elif kind is list or kind is tuple:
        items = enumerate(item for item in node if not _dropped(item))
    elif kind in _RECORDS or isinstance(node, Record):
        spread = node.SPREAD
        for name, value in _set_fields(node):
            if name in spread:
                _collect_origins(value, path, origins)
            else:
                _collect_origins(value, (*path, name), origins)
        return
    else:
        return
    for key, item in items:
        inner = item.__class__
        if inner is Located:
            value = item.value
            if value.__class__ in _SCALARS or value.__class__ is int or value is DROPPED:
                # A located scalar (most of a workload's values): its origin, no call.
                if item.origin is not None:
                    origins[(*path, key)] = item.origin
                continue
        elif inner in _SCALARS or inner is int:
            continue
        _collect_origins(item, (*path, key), origins)


def _set_fields(node: Record) -> list[tuple[str, Any]]:
    """The fields set on a record (not None), in field order: an unset one is not in the
    instance's dict (a workload's records have about 250 fields, most of them unset)."""
    state = node.__dict__
    return [
        (name, value)
        for name in sorted(state, key=node.ORDER.__getitem__)
        if (value := state[name]) is not None
    ]


def plain(node: Any) -> Any:
    """``node`` without origins, integers as they are (``cel_data`` narrows wide ones):
    the form calculators take."""
    return _Data(narrow=False).convert(node)


def _dropped(item: Any) -> bool:
    return item.__class__ is Located and item.value is DROPPED
