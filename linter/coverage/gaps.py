"""The facts a recognised workload lacks, and the rules that lack cost.

Which rules need which fact is read from the policies themselves, so a team's own
policies are covered too: a rule needs a fact when its policy's match conditions, the
variables it uses or its own expression read ``workload.capacity`` (the model's
architecture and the GPU's memory together) or ``workload.model.…`` (the architecture), and
it is version-gated when it reads ``workload.engine.version…``. A policy that names servers
in its match conditions (``== 'vllm'``) applies to those servers only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from linter.coverage.model import FLAGS_FACT, Gap, WorkloadEntry
from linter.findings import Severity
from linter.lazyregex import lazy_compile
from linter.model.engine import registry
from linter.model.engine.images import parse_image
from linter.model.facts.budget import memory_budget
from linter.model.facts.capacity import EVERY_FIGURE, FIGURES_OF_SETTING
from linter.model.frontends.shapes import FACT as SHAPE_FACT
from linter.model.records.located import value_of
from linter.model.records.workload import Workload
from linter.policy.model import Policy, Rule
from linter.positions import Origin
from linter.triton.fields import MODEL_CONFIG_KIND as TRITON_MODEL_KIND

if TYPE_CHECKING:
    from linter.policy.expr import CompiledExpr

# The servers whose KV-cache and memory arithmetic the serving model does.
CAPACITY_SERVERS = ("vllm", "tgi", "sglang")
SERVERS = ("vllm", "tgi", "sglang", "triton", "trtllm")
_SERVER_LITERAL = lazy_compile(r"""['"](vllm|tgi|sglang|triton|trtllm)['"]""")
_NEEDS_CAPACITY = lazy_compile(r"\bworkload\.capacity\b")
_NEEDS_MODEL = lazy_compile(r"\bworkload\.model\.(?!id\b)")
_VERSION_GATED = lazy_compile(r"\bworkload\.engine\.version")
_SETTING_READ = lazy_compile(r"\bworkload\.(?:engine|effective)\.(\w+)")
_CAPACITY_READ = lazy_compile(r"\bworkload\.capacity\.(\w+)")
# A guard that judges the kinds it lists (not one that leaves them out: ``!(… in [...])``).
_KIND_ALLOW_LIST = lazy_compile(r"(?<!!\()workload\.kind in \[([^\]]*)\]")

MODEL_FIX = (
    "give its architecture in .servelint.yaml: model: {{modelConfigs: {{{model}: "
    "path/to/config.json}}}} (or model.presets), see docs/serving-model.md"
)
GPU_FIX = (
    "name the GPU in the pod's node selector or affinity (for example "
    "cloud.google.com/gke-accelerator: nvidia-l4 or nvidia.com/gpu.product), or set "
    "model.gpuProduct / model.gpuMemory in .servelint.yaml"
)
# The labels that name the device on the other platforms (docs/serving-model.md).
PLATFORM_GPU_FIX = {
    "tpu": (
        "name the TPU in the pod's node selector or affinity (for example "
        "cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice, with "
        "cloud.google.com/gke-tpu-topology), or set model.gpuProduct / model.gpuMemory in "
        ".servelint.yaml"
    ),
    "neuron": (
        "name the instance type in the pod's node selector or affinity (for example "
        "node.kubernetes.io/instance-type: inf2.24xlarge), or set model.gpuProduct / "
        "model.gpuMemory in .servelint.yaml"
    ),
    "hpu": "set model.gpuProduct (Intel-Gaudi2, Intel-Gaudi3) or model.gpuMemory in .servelint.yaml",
}
SHAPE_GAP = "operator's additions"
SHAPE_FIX = (
    "lint the pod the operator creates (kubectl get pod -o yaml), or a manifest that "
    "holds the container in a pod template"
)
VERSION_FIX = "pin the image to a release tag (for example {example})"
# An image of a server's family that is not its own (a fork, a vendor or custom build) and
# names no release it embeds: its version line is its own (docs/serving-model.md).
BASED_ON = "image {image} is not a {server} release image: version unknown, based on {server}"
OTHER_IMAGE = "image {image} is not a {server} release image: version unknown"
OTHER_IMAGE_FIX = (
    "run a release image of the server (for example {example}), or a vendor build whose "
    "tag names the release it embeds"
)
SERVER_NAMES = {
    "vllm": "vLLM",
    "tgi": "TGI",
    "sglang": "SGLang",
    "triton": "Triton",
    "trtllm": "Triton",
}
# Each pod of a multi-node server gets its own (``$(LWS_WORKER_INDEX)``, ``$POD_INDEX``):
# a variable is how these are written, not a value the user left out.
_PER_POD = frozenset({"node_rank", "data_parallel_rank", "data_parallel_start_rank"})
_KIND_WORDS = {
    "int": "an integer",
    "hint": "an integer",
    "float": "a number",
    "bool": "true or false",
    "vbool": "true or false",
    "ints": "a list of integers",
    "json": "JSON",
}
UNREAD_FIX = "write the value itself, or lint the chart with --chart so that helm renders it"
_VERSION_EXAMPLES = {
    "vllm": "vllm/vllm-openai:v0.11.0",
    "tgi": "ghcr.io/huggingface/text-generation-inference:3.3.6",
    "sglang": "lmsysorg/sglang:v0.5.6.post2",
    "triton": "nvcr.io/nvidia/tritonserver:25.08-py3",
    "trtllm": "nvcr.io/nvidia/tritonserver:25.08-trtllm-python-py3",
}


class _RuleNeeds:
    """What one rule reads, asked only when a workload lacks a fact: the servers its guard
    names, whether it reads the capacity, the model, the version, which settings."""

    def __init__(self, rule: Rule, guard: _TextReads, reads: tuple[_TextReads, ...]) -> None:
        self.rule = rule
        self.guard = guard
        self.reads = reads  # its guard, its expression and the variables it needs

    @property
    def servers(self) -> frozenset[str]:
        """The servers its guard names; empty: every server."""
        return self.guard.servers

    @property
    def capacity(self) -> bool:
        """The model's architecture and the GPU's memory."""
        return any(r.capacity for r in self.reads)

    @property
    def model(self) -> bool:
        """The model's architecture alone."""
        return any(r.model for r in self.reads)

    @property
    def version_gated(self) -> bool:
        return any(r.version for r in self.reads)

    @property
    def whole_pod(self) -> bool:
        """Holds back on a container found by shape, whose pod the operator completes."""
        return any(r.whole_pod for r in self.reads)

    @functools.cached_property
    def settings(self) -> frozenset[str]:
        """``workload.engine.<name>``, ``workload.effective.<name>``."""
        return frozenset().union(*(r.settings for r in self.reads))

    @functools.cached_property
    def figures(self) -> frozenset[str]:
        """``workload.capacity.<name>``."""
        return frozenset().union(*(r.figures for r in self.reads))


def entry(
    workload: Workload, policies: Sequence[Policy], environment: str | None = None
) -> WorkloadEntry:
    """The coverage entry of one workload evaluated with ``policies``."""
    record = workload.record
    engine = record.engine.value if record.engine is not None else None
    model = record.model.value.plain() if record.model is not None else {}
    gpu = record.gpu.value.plain() if record.gpu is not None else {}
    server = value_of(engine.name) if engine is not None else None
    version = value_of(engine.version) if engine is not None else None
    model_id = model.get("id") if isinstance(model.get("id"), str) else None
    needs = functools.partial(_needs, tuple(policies))
    gaps = _gaps(workload, server, version, model_id, model, gpu, needs)
    gaps += _operator_pod(workload, server, needs)
    return WorkloadEntry(
        name=workload.name,
        kind=record.kind.value,
        file=workload.anchor.source,
        line=workload.anchor.line,
        server=server,
        version=version,
        model=model_id,
        model_source=_model_source(model),
        gpu=gpu.get("product") if isinstance(gpu.get("product"), str) else None,
        gpu_memory_known=isinstance(gpu.get("memory_bytes"), int),
        gaps=gaps,
        environment=environment,
        memory=memory_budget(workload),
    )


def _gaps(
    workload: Workload,
    server: str | None,
    version: str | None,
    model_id: str | None,
    model: Mapping[str, Any],
    gpu: Mapping[str, Any],
    needs: Callable[[], Sequence[_RuleNeeds]],
) -> tuple[Gap, ...]:
    if server not in SERVERS:
        return ()
    applying: list[_RuleNeeds] | None = None

    def mine() -> list[_RuleNeeds]:
        # Which rules apply, and which read a fact, is asked only of a fact the workload
        # lacks: most lack none, and the policies' rules and texts are then never read.
        nonlocal applying
        if applying is None:
            applying = [n for n in needs() if not n.servers or server in n.servers]
        return applying

    gaps: list[Gap] = []
    if server in CAPACITY_SERVERS:
        model_rules = (
            [n.rule for n in mine() if n.capacity or n.model]
            if model_id is not None and not model.get("known")
            else []
        )
        if model_rules:
            gaps.append(
                _gap(
                    "model architecture",
                    f"{model_id} is not in the model catalogue",
                    "did not run",
                    model_rules,
                    MODEL_FIX.format(model=model_id),
                    workload.locate(("engine", "model_id")),
                )
            )
        unknown_memory = not isinstance(gpu.get("memory_bytes"), int) and _asks_for_gpus(gpu)
        capacity_rules = [n.rule for n in mine() if n.capacity] if unknown_memory else []
        if capacity_rules:
            candidates = gpu.get("candidates")
            detail = (
                f"GPU type not known from {', '.join(map(str, candidates))}"
                if isinstance(candidates, list) and candidates
                else "the pod does not name its GPU type"
            )
            gaps.append(
                _gap(
                    "GPU memory",
                    detail,
                    "did not run",
                    capacity_rules,
                    PLATFORM_GPU_FIX.get(str(gpu.get("platform")), GPU_FIX),
                    _gpu_request(workload, gpu),
                )
            )
    # A model configuration (config.pbtxt) runs on whatever server loads it: the version
    # belongs to the deployment that does, not to the file.
    record = workload.record
    deployed = record.kind.value != TRITON_MODEL_KIND
    unversioned = version is None and deployed and record.engine is not None
    gated = (
        [n.rule for n in mine() if n.rule.severity is Severity.ERROR and n.version_gated]
        if unversioned
        else []
    )
    if gated and record.engine is not None:
        image = value_of(record.engine.value.image)
        official = record.image is None or value_of(record.image.value.official)
        detail = (
            "no image is named"
            if not isinstance(image, str)
            else f"image {image} names no release"
            if official
            else _not_a_release(image, server)
        )
        fix = VERSION_FIX if official else OTHER_IMAGE_FIX
        gaps.append(
            _gap(
                "server version",
                detail,
                "report warnings instead of errors",
                gated,
                fix.format(example=_VERSION_EXAMPLES[server]),
                workload.locate(("engine", "image")),
            )
        )
    gaps.extend(_unread_settings(workload, mine))
    gaps.extend(_unjudged_flags(workload, mine))
    gaps.extend(_operator_additions(workload, mine))
    return tuple(gaps)


def _not_a_release(image: str, server: str) -> str:
    """A server's fork or vendor build is based on it; another image (ubuntu, a Python
    base) installs the server itself."""
    family = parse_image(image).server
    text = BASED_ON if family == server else OTHER_IMAGE
    return text.format(image=image, server=SERVER_NAMES[server])


def _operator_pod(
    workload: Workload, server: str | None, needs: Callable[[], Sequence[_RuleNeeds]]
) -> tuple[Gap, ...]:
    """A container found by shape (``model/frontends/shapes.py``): the rules that judge the whole
    pod held back, since its operator may add probes, /dev/shm and resources."""
    found = workload.record.extra.get(SHAPE_FACT)
    if found is None:
        return ()
    rules = [n.rule for n in needs() if n.whole_pod and (not n.servers or server in n.servers)]
    if not rules:
        return ()
    detail = (
        f"container found by shape at {found.value}; what the {workload.record.kind.value} "
        "operator adds to the pod is unknown"
    )
    effect = "did not judge what the operator may add (probes, /dev/shm, resources)"
    return (_gap(SHAPE_GAP, detail, effect, rules, SHAPE_FIX, found.origin or workload.anchor),)


OPERATOR_FIX = (
    "lint the pods the operator creates (kubectl get pod -o yaml) or a rendered manifest; "
    "docs/operators.md lists the operators whose additions are read"
)


def _operator_additions(
    workload: Workload, applying: Callable[[], Sequence[_RuleNeeds]]
) -> list[Gap]:
    """A custom resource whose operator was not read may add probes, ``/dev/shm`` or
    environment to its pods: the rules that judge only kinds whose pods are known
    (their guard lists the kinds) did not run on it."""
    record = workload.record
    kind = record.kind.value
    if value_of(record.source) != "manifest" or SHAPE_FACT in record.extra:
        return []  # a container found by shape has its own, wider gap (_operator_pod)
    # Only with manifests: a values file's hook run never loads the table.
    from linter.model.facts.operator_additions import additions_known

    if additions_known(kind, value_of(record.role) or ""):
        return []
    literal = f"'{kind}'"
    rules = [
        n.rule
        for n in applying()
        if "workload.kind in [" in n.guard.text
        and any(literal not in listed for listed in _KIND_ALLOW_LIST.findall(n.guard.text))
    ]
    if not rules:
        return []
    return [
        _gap(
            "operator additions",
            f"the operator of {kind} may add probes, /dev/shm or environment to its pods",
            "did not run",
            rules,
            OPERATOR_FIX,
            workload.anchor,
        )
    ]


FLAGS_FIX = (
    "lint the chart with --chart so that helm renders it, or use a chart profile that names "
    "the key (docs/coverage.md)"
)


def _unjudged_flags(workload: Workload, applying: Callable[[], Sequence[_RuleNeeds]]) -> list[Gap]:
    """Values keys holding flags that neither a chart profile nor the chart's templates
    show reaching the server as written (``linter/model/frontends/value_flags.py``)."""
    engine = workload.record.engine
    keys = engine.value.unjudged_flags if engine is not None else None
    if keys is None:
        return []
    # The rules that judge a flag from a values key only where it reaches the server.
    rules = [n.rule for n in applying() if "item.key_reaches" in n.rule.expression.text]
    if not rules:
        return []
    return [
        _gap(
            FLAGS_FACT,
            f"flags in {name} are not judged without rendering",
            "did not judge them",
            rules,
            FLAGS_FIX,
            key.origin or workload.anchor,
        )
        for name, key in keys.value.items()
    ]


def _unread_settings(workload: Workload, applying: Callable[[], Sequence[_RuleNeeds]]) -> list[Gap]:
    """A setting whose written value does not read as its type (``{{ .Values.x }}``,
    ``$(VAR)`` without a literal value, a list where a number belongs): the rules that
    read it did not judge the value the server gets."""
    engine = workload.record.engine
    unread = engine.value.unparsed if engine is not None else None
    if engine is None or unread is None:
        return []
    server = value_of(engine.value.name) or ""
    gaps = []
    for name, written in unread.value.items():
        if name in _PER_POD:
            continue
        setting = registry.by_name(server, name)
        kind = _KIND_WORDS.get(setting.kind, "a value") if setting is not None else "a value"
        figures = FIGURES_OF_SETTING.get(name, frozenset())
        rules = [
            n.rule
            for n in applying()
            if name in n.settings
            or (n.figures and (figures is EVERY_FIGURE or not figures.isdisjoint(n.figures)))
        ]
        if rules:
            gaps.append(
                _gap(
                    "setting value",
                    f"{name} is written as {written.value!r}, not as {kind}",
                    "did not judge it",
                    rules,
                    UNREAD_FIX,
                    written.origin or workload.anchor,
                )
            )
    return gaps


def _gap(
    fact: str, detail: str, effect: str, rules: Sequence[Rule], fix: str, origin: Origin
) -> Gap:
    return Gap(
        fact,
        detail,
        effect,
        tuple(sorted(rule.id for rule in rules)),
        sum(rule.severity is Severity.ERROR for rule in rules),
        fix,
        origin.source,
        origin.line,
        origin.column,
    )


def _gpu_request(workload: Workload, gpu: Mapping[str, Any]) -> Origin:
    """Where the pod asks for GPUs: the fact the missing GPU type is about."""
    origins = workload.origins()
    resource = str(gpu.get("resource"))
    for side in ("limits", "requests"):
        origin = origins.get(("container", "resources", side, resource))
        if origin is not None:
            return origin
    return workload.locate(("gpu",))


def _asks_for_gpus(gpu: Mapping[str, Any]) -> bool:
    count = gpu.get("count")
    return "resource" in gpu and not (isinstance(count, int) and count <= 0)


def _model_source(model: Mapping[str, Any]) -> str | None:
    if not model.get("known"):
        return None
    source = str(model.get("source", ""))
    return {"preset": "catalogue", "settings": "configuration"}.get(source, "config.json")


# Keyed by the identity of a run's policies, which the entry keeps alive.
_NEEDS: dict[tuple[int, ...], tuple[tuple[Policy, ...], tuple[_RuleNeeds, ...]]] = {}


def _needs(policies: tuple[Policy, ...]) -> tuple[_RuleNeeds, ...]:
    key = tuple(map(id, policies))
    cached = _NEEDS.get(key)
    if cached is None:
        if len(_NEEDS) > 8:
            _NEEDS.clear()
        cached = _NEEDS[key] = (policies, _analyse(policies))
    return cached[1]


def _analyse(policies: tuple[Policy, ...]) -> tuple[_RuleNeeds, ...]:
    out: list[_RuleNeeds] = []
    for policy in policies:
        if policy.target != "workload":
            continue
        # A rule reads a fact when its guard, its expression or a variable it needs does:
        # each text is searched once, not again for every rule that reads it.
        guard = _TextReads(*(c.expr for c in policy.match_conditions))
        variables = {v.name: _TextReads(v.expr) for v in policy.variables}
        for rule in policy.rules:
            reads = (
                guard,
                _TextReads(rule.expression),
                *(variables[name] for name in rule.needs if name in variables),
            )
            out.append(_RuleNeeds(rule, guard, reads))
    return tuple(out)


class _TextReads:
    """What one expression's text reads: the capacity, the model's architecture, the
    server version, the settings and capacity figures it names. Each is searched for when
    first asked (most workloads lack no fact), its pattern's literal part first."""

    def __init__(self, *expressions: CompiledExpr) -> None:
        self._expressions = expressions

    @functools.cached_property
    def text(self) -> str:
        # Read when first asked: the policy cache reads the texts only when one is needed.
        return " ".join(e.text for e in self._expressions)

    @functools.cached_property
    def servers(self) -> frozenset[str]:
        """The servers a guard names."""
        return frozenset(_SERVER_LITERAL.findall(self.text))

    @functools.cached_property
    def capacity(self) -> bool:
        text = self.text
        return "workload.capacity" in text and _NEEDS_CAPACITY.search(text) is not None

    @functools.cached_property
    def model(self) -> bool:
        text = self.text
        return "workload.model." in text and _NEEDS_MODEL.search(text) is not None

    @functools.cached_property
    def version(self) -> bool:
        text = self.text
        return "workload.engine.version" in text and _VERSION_GATED.search(text) is not None

    @functools.cached_property
    def whole_pod(self) -> bool:
        return SHAPE_FACT in self.text

    @functools.cached_property
    def settings(self) -> frozenset[str]:
        text = self.text
        return frozenset(_SETTING_READ.findall(text)) if "workload.e" in text else frozenset()

    @functools.cached_property
    def figures(self) -> frozenset[str]:
        text = self.text
        found = "workload.capacity" in text
        return frozenset(_CAPACITY_READ.findall(text)) if found else frozenset()
