"""The serving model's records: the schema and the vocabulary page are checked against
them, values carry their origins, and the one conversion to what CEL sees."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from linter import _resources
from linter.evaluate.parsers import parse
from linter.model.engine import registry
from linter.model.frontends.extract import extract_workloads
from linter.model.records.celdata import cel_data, origins_of
from linter.model.records.located import DROPPED, Located, Record
from linter.model.records.pod_records import (
    Container,
    EnvRef,
    EnvSource,
    Mount,
    Pod,
    PreStop,
    Probe,
    Resources,
    Shm,
    Volume,
)
from linter.model.records.records import (
    Capacity,
    ChartPod,
    CliFlag,
    Effective,
    Engine,
    Exposure,
    Gpu,
    Grpc,
    Image,
    LoadBalancer,
    ModelFacts,
    ProbeOff,
    ServingModel,
    Triton,
    TritonDerived,
    TritonModel,
)
from linter.model.records.workload import Workload
from linter.positions import Origin

DOC = Path(__file__).parent.parent / "docs" / "serving-model.md"

# Each record and where the schema describes it (a path of property names from the root).
SCHEMA_OF: list[tuple[type[Record], tuple[str, ...]]] = [
    (ServingModel, ()),
    (Image, ("image",)),
    (ModelFacts, ("model",)),
    (Gpu, ("gpu",)),
    (Capacity, ("capacity",)),
    (Effective, ("effective",)),
    (Pod, ("pod",)),
    (Container, ("container",)),
    (Resources, ("container", "resources")),
    (Probe, ("container", "probes", "liveness")),
    (Mount, ("container", "mounts", "[]")),
    (EnvRef, ("container", "env_refs", "{}")),
    (Volume, ("pod", "volumes", "[]")),
    (Shm, ("pod", "shm")),
    (CliFlag, ("engine", "cli_flags", "[]")),
    (Grpc, ("grpc",)),
    (LoadBalancer, ("grpc", "load_balancer")),
    (Triton, ("triton",)),
    (Exposure, ("exposure", "[]")),
    (ChartPod, ("chart_pod",)),
    (ProbeOff, ("probes_off", "[]")),
    (PreStop, ("container", "pre_stop")),
    (EnvSource, ("container", "env_from", "[]")),
    (TritonDerived, ("triton", "models", "[]", "derived")),
]
# Each record and the section of docs/serving-model.md that names its fields.
DOC_SECTION_OF: dict[type[Record], str] = {
    ServingModel: "Top level",
    Image: "Top level",
    Engine: "`engine`",
    CliFlag: "`engine`",
    Effective: "`effective`",
    ModelFacts: "`model`",
    Gpu: "`gpu`",
    Capacity: "`capacity`",
    Pod: "`pod` and `container`",
    Container: "`pod` and `container`",
    Resources: "`pod` and `container`",
    Probe: "`pod` and `container`",
    Mount: "`pod` and `container`",
    EnvRef: "`pod` and `container`",
    Volume: "`pod` and `container`",
    Shm: "`pod` and `container`",
    Grpc: "`grpc`",
    LoadBalancer: "`grpc`",
    TritonDerived: "`triton`",
    Exposure: "`exposure`",
    ChartPod: "Top level",
    ProbeOff: "Top level",
    PreStop: "`pod` and `container`",
    EnvSource: "`pod` and `container`",
}


def _fields(kind: type[Record]) -> set[str]:
    """The names a record shows in CEL (a spread field's keys are not fixed)."""
    return set(kind.FIELDS) - kind.SPREAD


def _schema_node(path: tuple[str, ...]) -> dict[str, Any]:
    schema = _resources.load_schema("workload.schema.json")

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
        return node

    node = resolve(schema)
    for step in path:
        if step == "[]":
            node = resolve(node["items"])
        elif step == "{}":
            node = resolve(node["additionalProperties"])
        else:
            node = resolve(node["properties"][step])
    return node


@pytest.mark.parametrize("kind,path", SCHEMA_OF, ids=lambda x: getattr(x, "__name__", ""))
def test_the_schema_names_exactly_the_fields_of_each_record(
    kind: type[Record], path: tuple[str, ...]
) -> None:
    assert set(_schema_node(path)["properties"]) == _fields(kind)


def test_a_triton_model_is_its_configuration_and_what_is_derived_from_it() -> None:
    node = _schema_node(("triton", "models", "[]"))
    assert set(node["properties"]) == _fields(TritonModel) == {"derived"}
    assert {"config"} == TritonModel.SPREAD


def test_the_schema_names_the_engine_facts_and_only_registry_settings_besides() -> None:
    properties = set(_schema_node(("engine",))["properties"])
    settings = {s.name for table in registry.REGISTRIES.values() for s in table}
    assert _fields(Engine) <= properties
    assert properties - _fields(Engine) <= settings
    # A setting under an engine fact's name would be hidden by it in CEL: only TGI's
    # model_id is both, and the fact is that setting.
    assert settings & _fields(Engine) == {"model_id"}


@pytest.mark.parametrize("kind", list(DOC_SECTION_OF), ids=lambda k: k.__name__)
def test_the_vocabulary_page_names_every_field(kind: type[Record]) -> None:
    text = DOC.read_text(encoding="utf-8")
    heading = DOC_SECTION_OF[kind]
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else None]
    missing = [
        name
        for name in sorted(_fields(kind) - {"extra"})
        if not re.search(rf"`(?:[\w.]*\.)?{name}`", section)
    ]
    assert missing == []


def _workloads(tmp_path: Path, name: str, text: str) -> list[Workload]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return extract_workloads([parse(str(path), text)])


MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args:
            - --model=meta-llama/Llama-3.1-8B-Instruct
            - --max-model-len=32768
          resources:
            limits: {nvidia.com/gpu: 1}
"""


def test_values_carry_the_origin_they_were_read_from(tmp_path: Path) -> None:
    [workload] = _workloads(tmp_path, "deploy.yaml", MANIFEST)
    record = workload.record
    assert record.engine is not None and record.capacity is not None and record.gpu is not None
    engine, capacity, gpu = record.engine.value, record.capacity.value, record.gpu.value
    written = engine.settings["max_model_len"]
    assert (written.value, written.origin) == (
        32768,
        Origin(
            str(tmp_path / "deploy.yaml"), 13, 15, 0, "spec.template.spec.containers[0].args[1]"
        ),
    )
    # Derived values carry the origin of their input.
    assert capacity.tokens_requested == Located(32768, written.origin)
    assert engine.model_id is not None and record.model is not None
    assert record.model.origin == engine.model_id.origin
    # The GPU product at the node label that names it.
    assert gpu.product is not None and gpu.product.origin is not None
    assert (gpu.product.value, gpu.product.origin.line, gpu.product.origin.column) == (
        "NVIDIA-L4",
        7,
        22,
    )
    # Defaults were written nowhere: they locate to the section they belong to.
    effective = record.effective
    assert effective is not None
    assert effective.value.settings["gpu_memory_utilization"] == Located(0.9, None)
    assert effective.value.settings["max_model_len"] == written


def test_the_view_is_what_cel_sees_with_every_origin(tmp_path: Path) -> None:
    [workload] = _workloads(tmp_path, "deploy.yaml", MANIFEST)
    view = workload.view()
    assert view.data["engine"]["max_model_len"] == 32768
    # The server container is one map under both paths, as CEL saw it before records.
    assert view.data["container"] is view.data["pod"]["containers"][0]
    assert (view.data["container"]["name"], view.data["container"]["is_server"]) == ("vllm", True)
    assert view.locate(("capacity", "tokens_requested"))[1:3] == (13, 15)
    gpus = ("resources", "limits", "nvidia.com/gpu")
    assert view.locate(("container", *gpus))[1:3] == (15, 22)
    assert view.locate(("pod", "containers", 0, *gpus))[1:3] == (15, 22)
    # A value without an origin of its own locates at its closest located ancestor.
    assert view.locate(("effective", "gpu_memory_utilization")) == view.origins[("effective",)]


def _identity(**facts: Any) -> ServingModel:
    return ServingModel(
        id=Located("x"),
        kind=Located("Test"),
        name=Located("x"),
        source=Located("manifest"),
        **facts,
    )


def test_the_view_narrows_integers_wider_than_cel_holds() -> None:
    at = Origin("x.yaml", 1, 1)
    capacity = Capacity(kv_bytes_requested=Located(10**30, at), tokens_requested=Located(7))
    record = _identity(capacity=Located(capacity))
    assert cel_data(record)["capacity"] == {"tokens_requested": 7, "kv_bytes_requested": 1e30}
    assert origins_of(record) == {("capacity", "kv_bytes_requested"): at}
    # Calculators get the integer as it is.
    assert capacity.plain() == {"tokens_requested": 7, "kv_bytes_requested": 10**30}


def test_a_written_key_the_json_form_drops_keeps_its_origin() -> None:
    at = Origin("config.pbtxt", 3, 1)
    derived = TritonDerived(name=Located("m"), backend_kind=Located("onnxruntime"))
    model = TritonModel(
        config={"max_batch_size": Located(DROPPED, at), "name": Located("m")},
        derived=Located(derived),
    )
    record = _identity(triton=Located(Triton(models=Located([Located(model)]))))
    [shown] = cel_data(record)["triton"]["models"]
    assert shown == {"name": "m", "derived": {"name": "m", "backend_kind": "onnxruntime"}}
    assert origins_of(record) == {("triton", "models", 0, "max_batch_size"): at}
    assert model.plain() == shown


def test_a_triton_max_batch_size_of_zero_locates_at_its_line(tmp_path: Path) -> None:
    text = 'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 0\n'
    [workload] = _workloads(tmp_path, "config.pbtxt", text)
    view = workload.view()
    assert "max_batch_size" not in view.data["triton"]["models"][0]
    assert view.locate(("triton", "models", 0, "max_batch_size"))[1:3] == (3, 1)


def test_a_record_refuses_a_name_it_does_not_have() -> None:
    with pytest.raises(TypeError, match="Capacity has no field no_such_figure"):
        Capacity.of({"no_such_figure": 1}, lambda name: None)
    with pytest.raises(TypeError, match="ServingModel needs id, kind"):
        ServingModel(name=Located("x"), source=Located("manifest"))
    made = Engine()
    assert (made.name, made.settings, Engine().settings is made.settings) == (None, {}, False)


def test_records_own_their_pods_when_a_pod_has_two_servers(tmp_path: Path) -> None:
    text = MANIFEST.replace(
        "          resources:\n",
        "        - name: sglang\n          image: lmsysorg/sglang:v0.4.9\n"
        "          command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen2.5-7B]\n"
        "          resources:\n",
    )
    first, second = _workloads(tmp_path, "deploy.yaml", text)
    assert (first.name.rsplit("/", 1)[-1], second.name.rsplit("/", 1)[-1]) == ("vllm", "sglang")
    servers = [
        [c["is_server"] for c in w.view().data["pod"]["containers"]] for w in (first, second)
    ]
    assert servers == [[True, False], [False, True]]
    # Each workload owns its pod: a later step (a chart's /dev/shm) changes one only.
    assert first.record.pod is not None and second.record.pod is not None
    assert first.record.pod.value.volumes is not None
    first.record.pod.value.volumes.value.append(Located(Volume(name=Located("dshm"))))
    assert [v["name"] for v in first.view().data["pod"]["volumes"]] == ["dshm"]
    assert second.view().data["pod"]["volumes"] == []


def test_calculators_see_what_cel_sees(tmp_path: Path) -> None:
    """``plain`` (the calculators' form) and ``cel_data`` agree on every section."""
    for workload in _workloads(tmp_path, "deploy.yaml", RICH):
        assert workload.record.plain() == workload.view().data


RICH = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: rich, namespace: serving}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: rich}}
    spec:
      terminationGracePeriodSeconds: 120
      volumes:
        - name: dshm
          emptyDir: {medium: Memory, sizeLimit: 8Gi}
        - name: cache
          persistentVolumeClaim: {claimName: hf-cache}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, "2"]
          env:
            - {name: GRPC_ARG_KEEPALIVE_TIME_MS, value: "10000"}
            - name: HF_TOKEN
              valueFrom: {secretKeyRef: {name: hf, key: token}}
          envFrom:
            - configMapRef: {name: tuning}
          volumeMounts:
            - {name: dshm, mountPath: /dev/shm}
            - {name: cache, mountPath: /root/.cache, readOnly: true}
          readinessProbe:
            httpGet: {path: /health, port: 8000}
            periodSeconds: 5
          lifecycle:
            preStop:
              exec: {command: [sh, -c, sleep 20]}
          resources:
            limits: {nvidia.com/gpu: 2, memory: 64Gi}
"""


def test_every_kind_of_value_locates_at_its_own_key(tmp_path: Path) -> None:
    [workload] = _workloads(tmp_path, "rich.yaml", RICH)
    at = {path: (o.line, o.column) for path, o in origins_of(workload.record).items()}
    c = ("container",)
    expected = {
        ("replicas",): (5, 3),
        ("pod", "termination_grace_period_seconds"): (9, 7),
        ("pod", "volumes", 0): (11, 11),
        ("pod", "volumes", 0, "size_limit_bytes"): (12, 38),
        ("pod", "volumes", 1, "claim_name"): (14, 35),
        ("pod", "shm"): (11, 11),
        ("pod", "shm", "size_limit_bytes"): (12, 38),
        (*c, "env", "GRPC_ARG_KEEPALIVE_TIME_MS"): (20, 50),
        (*c, "env_refs", "HF_TOKEN"): (21, 15),
        (*c, "env_refs", "HF_TOKEN", "type"): (22, 27),
        (*c, "env_refs", "HF_TOKEN", "name"): (22, 42),
        (*c, "env_from", 0): (24, 15),
        (*c, "env_from", 0, "name"): (24, 30),
        (*c, "mounts", 1): (27, 15),
        (*c, "mounts", 1, "read_only"): (27, 54),
        (*c, "probes", "readiness"): (28, 11),
        (*c, "probes", "readiness", "period_seconds"): (30, 13),
        (*c, "probes", "readiness", "http_path"): (29, 23),
        (*c, "pre_stop"): (32, 13),
        (*c, "pre_stop", "command"): (33, 22),
        (*c, "pre_stop_seconds"): (33, 22),
        (*c, "resources", "limits", "memory"): (35, 41),
        ("engine", "tensor_parallel_size"): (18, 84),
        ("grpc", "client", "keepalive_time_ms"): (20, 50),
        ("gpu", "count"): (35, 22),
    }
    assert {path: at.get(path) for path in expected} == expected


def test_a_values_tree_keepalive_wins_over_the_container_environment() -> None:
    env_at, tree_at, lb_at = Origin("v.yaml", 3, 1), Origin("v.yaml", 9, 5), Origin("v.yaml", 12, 7)
    own = Grpc(client={"keepalive_time_ms": Located(10000, env_at)})
    balancer = LoadBalancer(kind=Located("aws-nlb"), idle_timeout_ms=Located(350000))
    tree = Grpc(
        client={"keepalive_time_ms": Located(30000, tree_at)},
        server={"http2_max_ping_strikes": Located(2, tree_at)},
        load_balancer=Located(balancer, lb_at),
    )
    own.merge(tree)
    assert own.client == {"keepalive_time_ms": Located(30000, tree_at)}
    assert own.server == {"http2_max_ping_strikes": Located(2, tree_at)}
    assert own.load_balancer is not None and own.load_balancer.origin == lb_at
    # Each workload gets its own copy of the tree's records.
    assert own.load_balancer.value == balancer and own.load_balancer.value is not balancer
    assert own.server is not tree.server


def test_a_field_set_to_none_is_absent_as_an_unset_one() -> None:
    record = _identity(namespace=None, replicas=Located(2), engine=Located(Engine(image=None)))
    assert cel_data(record) == {
        "id": "x",
        "kind": "Test",
        "name": "x",
        "source": "manifest",
        "replicas": 2,
        "engine": {},
    }
    assert record.plain() == cel_data(record)


def test_a_finding_locates_as_the_whole_origin_map_would(tmp_path: Path) -> None:
    """``WorkloadView.locate`` reads only the origins along the path it is asked for;
    every path of the data, and paths below it, locate as over the whole map."""
    from linter.positions import nearest

    for workload in _workloads(tmp_path, "rich.yaml", RICH):
        view = workload.view()
        every = origins_of(workload.record)
        paths = [*every, ("container", "probes", "startup", "period_seconds"), ("nothing",)]
        for path in paths:
            assert view.locate(path) == nearest(every, path, workload.anchor, shortest=1), path


_JSON_TYPES = {
    "str": {"string"},
    "int": {"integer"},
    "float": {"number"},
    "bool": {"boolean"},
    "list": {"array"},
    "dict": {"object"},
}


def _json_types(annotation: str) -> set[str]:
    """The JSON types a field's annotation allows: ``Located[int | float] | None`` →
    integer, number; a record → object; ``Any`` → every type (None)."""
    inner = re.sub(r"^Located\[(.*)\]$", r"\1", annotation.removesuffix(" | None"))
    found: set[str] = set()
    for part in re.split(r" \| (?![^\[]*\])", inner):
        head = part.split("[", 1)[0]
        if head == "Any":
            return set()
        found |= _JSON_TYPES.get(head, {"object"} if head[:1].isupper() else set())
    return found


@pytest.mark.parametrize("kind,path", SCHEMA_OF, ids=lambda x: getattr(x, "__name__", ""))
def test_the_schema_gives_each_field_the_type_of_the_record(
    kind: type[Record], path: tuple[str, ...]
) -> None:
    properties = _schema_node(path)["properties"]
    annotations = inspect.get_annotations(kind)
    wrong = []
    for name in sorted(_fields(kind)):
        declared = properties[name].get("type")
        if declared is None or not (allowed := _json_types(annotations[name])):
            continue  # an enum, a reference, or a value of any type
        declared = {declared} if isinstance(declared, str) else set(declared)
        # A JSON integer is also a number: an int | float field may say either.
        if not declared <= allowed | ({"integer"} if "number" in allowed else set()):
            wrong.append(f"{name}: schema {sorted(declared)}, record {annotations[name]}")
    assert wrong == []
