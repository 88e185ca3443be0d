"""The GPU catalogue (catalogue/gpus.yaml): its schema, products told from the node labels of
GPU feature discovery, GKE, EKS/Karpenter and AMD's labeller, cloud instance types with
their GPU count, and the user's own products and instance types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from linter.errors import ConfigError
from linter.evaluate.parsers import parse
from linter.model.engine.settings import ModelSettings
from linter.model.facts import gpus
from linter.model.frontends.extract import extract_workloads
from linter.run.config import load_config

CATALOGUE = Path(__file__).parent.parent / "catalogue" / "gpus.yaml"
MIB = 2**20


def _catalogue() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    return loaded


def test_names_are_unambiguous_and_instance_types_name_known_products() -> None:
    data = _catalogue()
    owners: dict[str, str] = {}
    for name, entry in data["gpus"].items():
        for alias in (name, *entry.get("aliases", ())):
            key = gpus._key(alias)
            assert owners.setdefault(key, name) == name, (alias, owners[key], name)
    types = [t for family in data["instanceTypes"] for t in family["sizes"]]
    assert len(types) == len({t.lower() for t in types})
    for family in data["instanceTypes"]:
        assert family["gpu"] in data["gpus"], family["family"]


def test_the_catalogue_covers_the_gpus_people_serve_on() -> None:
    names = set(_catalogue()["gpus"])
    assert {
        "Tesla-V100-SXM2-16GB",
        "Tesla-V100-SXM2-32GB",
        "Tesla-T4",
        "NVIDIA-A10",
        "NVIDIA-A10G",
        "NVIDIA-L4",
        "NVIDIA-L40",
        "NVIDIA-L40S",
        "NVIDIA-A100-SXM4-40GB",
        "NVIDIA-A100-SXM4-80GB",
        "NVIDIA-A100-PCIE-40GB",
        "NVIDIA-A100-80GB-PCIe",
        "NVIDIA-H100-PCIe",
        "NVIDIA-H100-80GB-HBM3",
        "NVIDIA-H100-NVL",
        "NVIDIA-H200",
        "NVIDIA-H20",
        "NVIDIA-GH200-480GB",
        "NVIDIA-GH200-144G-HBM3e",
        "NVIDIA-B200",
        "NVIDIA-GB200",
        "NVIDIA-RTX-6000-Ada-Generation",
        "NVIDIA-RTX-A6000",
        "AMD-Instinct-MI210",
        "AMD-Instinct-MI250",
        "AMD-Instinct-MI300X",
        "AMD-Instinct-MI325X",
        "Intel-Gaudi2",
        "Intel-Gaudi3",
        "AMD-Radeon-PRO-W7900",
        "Google-TPU-v4",
        "Google-TPU-v5e",
        "Google-TPU-v5p",
        "Google-TPU-v6e",
        "AWS-Inferentia2",
        "AWS-Trainium",
        "AWS-Trainium2",
    } <= names


@pytest.mark.parametrize(
    ("label", "value", "product", "mib", "p2p", "node_gpus"),
    [
        # GPU feature discovery (GPU operator, NFD).
        (
            "nvidia.com/gpu.product",
            "Tesla-V100-SXM2-32GB",
            "Tesla-V100-SXM2-32GB",
            32768,
            True,
            None,
        ),
        ("nvidia.com/gpu.product", "NVIDIA-H100-NVL", "NVIDIA-H100-NVL", 96256, None, None),
        ("nvidia.com/gpu.product", "NVIDIA-H20", "NVIDIA-H20", 98304, True, None),
        ("nvidia.com/gpu.product", "NVIDIA-GH200-480GB", "NVIDIA-GH200-480GB", 98304, None, None),
        # A bare GH200 may be the 144 GB part: the larger figure, so no shortfall is invented.
        ("nvidia.com/gpu.product", "GH200", "NVIDIA-GH200-144G-HBM3e", 147456, None, None),
        (
            "nvidia.com/gpu.product",
            "NVIDIA-GH200-144G-HBM3e",
            "NVIDIA-GH200-144G-HBM3e",
            147456,
            None,
            None,
        ),
        (
            "nvidia.com/gpu.product",
            "NVIDIA-RTX-6000-Ada-Generation",
            "NVIDIA-RTX-6000-Ada-Generation",
            49152,
            None,
            None,
        ),
        (
            "nvidia.com/gpu.product",
            "NVIDIA-RTX-A6000-SHARED",
            "NVIDIA-RTX-A6000",
            49152,
            None,
            None,
        ),
        ("nvidia.com/gpu.product", "NVIDIA-L40", "NVIDIA-L40", 46068, False, None),
        # GKE.
        (
            "cloud.google.com/gke-accelerator",
            "nvidia-h100-mega-80gb",
            "NVIDIA-H100-80GB-HBM3",
            81559,
            True,
            None,
        ),
        (
            "cloud.google.com/gke-accelerator",
            "nvidia-h200-141gb",
            "NVIDIA-H200",
            143771,
            True,
            None,
        ),
        (
            "cloud.google.com/gke-accelerator",
            "nvidia-tesla-v100",
            "Tesla-V100-SXM2-16GB",
            16160,
            True,
            None,
        ),
        ("cloud.google.com/gke-accelerator", "nvidia-gb200", "NVIDIA-GB200", 190464, True, None),
        # Karpenter on AWS.
        ("karpenter.k8s.aws/instance-gpu-name", "l40s", "NVIDIA-L40S", 46068, False, None),
        ("karpenter.k8s.aws/instance-family", "g6e", "NVIDIA-L40S", 46068, False, None),
        ("karpenter.k8s.aws/instance-family", "p5en", "NVIDIA-H200", 143771, True, None),
        # AMD's node labeller.
        (
            "amd.com/gpu.product-name",
            "AMD_Instinct_MI300X",
            "AMD-Instinct-MI300X",
            196608,
            True,
            None,
        ),
        # Instance types (EKS, GKE, AKS), with the GPUs each carries.
        (
            "node.kubernetes.io/instance-type",
            "p4d.24xlarge",
            "NVIDIA-A100-SXM4-40GB",
            40960,
            True,
            8,
        ),
        (
            "node.kubernetes.io/instance-type",
            "p4de.24xlarge",
            "NVIDIA-A100-SXM4-80GB",
            81920,
            True,
            8,
        ),
        (
            "node.kubernetes.io/instance-type",
            "p5.48xlarge",
            "NVIDIA-H100-80GB-HBM3",
            81559,
            True,
            8,
        ),
        ("node.kubernetes.io/instance-type", "g5.12xlarge", "NVIDIA-A10G", 23028, False, 4),
        ("node.kubernetes.io/instance-type", "g5.2xlarge", "NVIDIA-A10G", 23028, False, 1),
        ("node.kubernetes.io/instance-type", "g6.48xlarge", "NVIDIA-L4", 23034, False, 8),
        ("node.kubernetes.io/instance-type", "g6e.xlarge", "NVIDIA-L40S", 46068, False, 1),
        (
            "node.kubernetes.io/instance-type",
            "a2-ultragpu-8g",
            "NVIDIA-A100-SXM4-80GB",
            81920,
            True,
            8,
        ),
        (
            "node.kubernetes.io/instance-type",
            "a3-highgpu-8g",
            "NVIDIA-H100-80GB-HBM3",
            81559,
            True,
            8,
        ),
        ("node.kubernetes.io/instance-type", "g2-standard-24", "NVIDIA-L4", 23034, False, 2),
        (
            "node.kubernetes.io/instance-type",
            "Standard_ND96asr_v4",
            "NVIDIA-A100-SXM4-40GB",
            40960,
            True,
            8,
        ),
        (
            "node.kubernetes.io/instance-type",
            "Standard_NC24ads_A100_v4",
            "NVIDIA-A100-80GB-PCIe",
            81920,
            None,
            1,
        ),
        (
            "beta.kubernetes.io/instance-type",
            "standard_nd96isr_h100_v5",
            "NVIDIA-H100-80GB-HBM3",
            81559,
            True,
            8,
        ),
        (
            "node.kubernetes.io/instance-type",
            "Standard_ND96isr_MI300X_v5",
            "AMD-Instinct-MI300X",
            196608,
            True,
            8,
        ),
    ],
)
def test_products_from_node_labels(
    label: str, value: str, product: str, mib: int, p2p: bool | None, node_gpus: int | None
) -> None:
    spec = {"nodeSelector": {label: value}}
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 1}}, ModelSettings())
    assert (facts["product"], facts["memory_bytes"], facts.get("peer_to_peer")) == (
        product,
        mib * MIB,
        p2p,
    )
    assert facts.get("node_gpus") == node_gpus
    assert facts["candidates"] == [value]


def _affinity(label: str, values: list[str]) -> dict[str, Any]:
    expression = {"key": label, "operator": "In", "values": values}
    term = {"matchExpressions": [expression]}
    return {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
            }
        }
    }


def test_alternative_instance_types_of_one_gpu_name_it() -> None:
    spec = _affinity("node.kubernetes.io/instance-type", ["g6e.12xlarge", "g6e.24xlarge"])
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 4}}, ModelSettings())
    assert facts == {
        "resource": "nvidia.com/gpu",
        "limits": 4,
        "count": 4,
        "platform": "cuda",
        "candidates": ["g6e.12xlarge", "g6e.24xlarge"],
        "instance_types": ["g6e.12xlarge", "g6e.24xlarge"],
        "node_gpus": 4,
        "product": "NVIDIA-L40S",
        "product_source": "manifest",
        "memory_bytes": 46068 * MIB,
        "peer_to_peer": False,
        "interconnect": "pcie",
    }


def test_alternatives_with_different_memory_name_no_product() -> None:
    spec = _affinity("node.kubernetes.io/instance-type", ["p4d.24xlarge", "p4de.24xlarge"])
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 8}}, ModelSettings())
    assert "product" not in facts and "memory_bytes" not in facts
    assert (facts["instance_types"], facts["node_gpus"]) == (["p4d.24xlarge", "p4de.24xlarge"], 8)


def test_an_unknown_alternative_keeps_the_product_open() -> None:
    spec = _affinity("karpenter.k8s.aws/instance-gpu-name", ["a10g", "a100"])
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 1}}, ModelSettings())
    assert "product" not in facts and "memory_bytes" not in facts


def test_a_product_label_and_an_instance_type_that_agree() -> None:
    spec = {
        "nodeSelector": {
            "cloud.google.com/gke-accelerator": "nvidia-l4",
            "node.kubernetes.io/instance-type": "g2-standard-48",
        }
    }
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 4}}, ModelSettings())
    assert (facts["product"], facts["node_gpus"], facts["candidates"]) == (
        "NVIDIA-L4",
        4,
        ["nvidia-l4", "g2-standard-48"],
    )


def test_an_unknown_instance_type_beside_a_product_label_tells_nothing() -> None:
    # GKE's N1 machines carry attached T4 or V100 GPUs: the machine type names no GPU.
    spec = {
        "nodeSelector": {
            "cloud.google.com/gke-accelerator": "nvidia-tesla-t4",
            "node.kubernetes.io/instance-type": "n1-standard-8",
        }
    }
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 1}}, ModelSettings())
    assert (facts["product"], facts["memory_bytes"], "node_gpus" in facts) == (
        "Tesla-T4",
        15360 * MIB,
        False,
    )


def test_labels_that_contradict_each_other_name_no_product() -> None:
    spec = {
        "nodeSelector": {
            "cloud.google.com/gke-accelerator": "nvidia-l4",
            "node.kubernetes.io/instance-type": "a3-highgpu-8g",
        }
    }
    facts = gpus.gpu_facts(spec, {"limits": {"nvidia.com/gpu": 8}}, ModelSettings())
    assert "product" not in facts and "memory_bytes" not in facts
    assert facts["node_gpus"] == 8


def test_the_configured_gpu_applies_when_the_manifest_names_none() -> None:
    settings = ModelSettings(gpu_product="Gaudi3")
    cpu_node = gpus.gpu_facts(
        {"nodeSelector": {"node.kubernetes.io/instance-type": "m5.xlarge"}}, {}, settings
    )
    assert (cpu_node["product"], cpu_node["product_source"]) == ("Intel-Gaudi3", "settings")
    other = gpus.gpu_facts({"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-X9"}}, {}, settings)
    assert "product" not in other


def test_user_products_and_instance_types() -> None:
    settings = ModelSettings(
        gpus={
            "ACME-Accel-16G": {"memoryMiB": 16384, "interconnect": "pcie", "aliases": ["acme-16g"]},
            # Replaces the packaged L4 (for example a different memory reservation).
            "NVIDIA-L4": {"memoryMiB": 22000, "interconnect": "pcie", "peerToPeer": False},
        },
        instance_types={"acme.gpu.2x": {"gpu": "acme-16g", "count": 2}},
    )
    own = gpus.gpu_facts(
        {"nodeSelector": {"node.kubernetes.io/instance-type": "acme.gpu.2x"}}, {}, settings
    )
    assert (own["product"], own["memory_bytes"], own["node_gpus"], "peer_to_peer" in own) == (
        "ACME-Accel-16G",
        16384 * MIB,
        2,
        False,
    )
    l4 = gpus.gpu_facts({"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L4"}}, {}, settings)
    assert l4["memory_bytes"] == 22000 * MIB
    # A packaged instance type now resolves to the replaced product.
    g6 = gpus.gpu_facts(
        {"nodeSelector": {"node.kubernetes.io/instance-type": "g6.xlarge"}}, {}, settings
    )
    assert (g6["product"], g6["memory_bytes"]) == ("NVIDIA-L4", 22000 * MIB)
    assert gpus.product("NVIDIA-L4") == gpus.GpuProduct("NVIDIA-L4", 23034, False, "pcie", "nvidia")


def test_gpus_from_the_configuration_file(tmp_path: Path) -> None:
    config = tmp_path / ".servelint.yaml"
    config.write_text(
        "model:\n"
        "  gpus:\n"
        "    ACME-Accel-96G: {memory: 96Gi, interconnect: nvlink, peerToPeer: true}\n"
        "  instanceTypes:\n"
        "    acme.gpu.8x: {gpu: ACME-Accel-96G, count: 8}\n",
        encoding="utf-8",
    )
    settings = load_config(config).model
    assert settings.gpus == {
        "ACME-Accel-96G": {"interconnect": "nvlink", "peerToPeer": True, "memoryMiB": 98304}
    }
    found = gpus.instance_type("ACME.GPU.8X", settings)
    assert found == gpus.InstanceType("acme.gpu.8x", "ACME-Accel-96G", 8)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "model:\n  gpus:\n    ACME-X: {interconnect: pcie}\n",
            ".servelint.yaml:3:5: model.gpus.ACME-X: needs exactly one of: memoryMiB, memory",
        ),
        (
            "model:\n  gpus:\n    ACME-X:\n      memory: 96 gigs\n",
            ".servelint.yaml:4:7: model.gpus.ACME-X.memory: '96 gigs' is not valid: memory of one "
            "device: bytes, or a quantity such as 80Gi or 24GB",
        ),
        (
            "model:\n  gpus:\n    ACME-X:\n      memoryMiB: 1024\n      interconnect: warp\n",
            ".servelint.yaml:5:7: model.gpus.ACME-X.interconnect: 'warp' is not one of ['pcie', "
            "'nvlink', 'nvlink-c2c', 'xgmi', 'roce', 'ici', 'neuronlink']",
        ),
        (
            "model:\n  instanceTypes:\n    acme.8x:\n      gpu: ACME-X\n      count: 0\n",
            ".servelint.yaml:5:7: model.instanceTypes['acme.8x'].count: 0 is less than the "
            "minimum of 1",
        ),
        (
            "model:\n  instanceTypes:\n    acme.8x: {gpus: ACME-X, count: 8}\n",
            ".servelint.yaml:3:5: model.instanceTypes['acme.8x']: 'gpu' is a required property\n"
            ".servelint.yaml:3:15: model.instanceTypes['acme.8x'].gpus: unknown key 'gpus' (known "
            "keys: count, gpu)",
        ),
    ],
    ids=["no-memory", "memory-quantity", "interconnect", "count", "unknown-key"],
)
def test_wrong_gpus_name_file_line_and_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".servelint.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(Path(".servelint.yaml"))
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("resources", "selector", "expected"),
    [
        (
            {"limits": {"google.com/tpu": 4}},
            {
                "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
                "cloud.google.com/gke-tpu-topology": "2x2x2",
            },
            {
                "resource": "google.com/tpu",
                "limits": 4,
                "count": 4,
                "platform": "tpu",
                "candidates": ["tpu-v5p-slice"],
                "product": "Google-TPU-v5p",
                "product_source": "manifest",
                "memory_bytes": 95 * 1024 * MIB,
                "interconnect": "ici",
                "topology": "2x2x2",
                "slice_chips": 8,
            },
        ),
        (
            {"limits": {"aws.amazon.com/neuron": 2}},
            {"node.kubernetes.io/instance-type": "ml.trn1.32xlarge"},
            {
                "resource": "aws.amazon.com/neuron",
                "limits": 2,
                "count": 2,
                "platform": "neuron",
                "candidates": ["ml.trn1.32xlarge"],
                "instance_types": ["trn1.32xlarge"],
                "node_gpus": 16,
                "product": "AWS-Trainium",
                "product_source": "manifest",
                "memory_bytes": 16 * 1024 * MIB,
                "interconnect": "neuronlink",
                "cores": 4,
            },
        ),
        (
            {"limits": {"aws.amazon.com/neuroncore": 4}},
            {"cloud.google.com/gke-accelerator": "Trainium2"},
            {
                "resource": "aws.amazon.com/neuroncore",
                "limits": 4,
                "count": 4,
                "platform": "neuron",
                "candidates": ["Trainium2"],
                "product": "AWS-Trainium2",
                "product_source": "manifest",
                "interconnect": "neuronlink",
                "cores": 4,
            },
        ),
        (
            {"limits": {"amd.com/gpu": 1}},
            {"beta.amd.com/gpu.product-name": "AMD_Radeon_PRO_W7900"},
            {
                "resource": "amd.com/gpu",
                "limits": 1,
                "count": 1,
                "platform": "rocm",
                "candidates": ["AMD_Radeon_PRO_W7900"],
                "product": "AMD-Radeon-PRO-W7900",
                "product_source": "manifest",
                "memory_bytes": 48 * 1024 * MIB,
                "interconnect": "pcie",
            },
        ),
        (
            {"requests": {"habana.ai/gaudi": 8}},
            {"cloud.google.com/gke-tpu-topology": "2x4"},
            {"resource": "habana.ai/gaudi", "requests": 8, "count": 8, "platform": "hpu"},
        ),
    ],
    ids=["tpu-v5p-topology", "trn1-devices-in-cores", "trn2-cores-no-memory", "w7900", "gaudi"],
)
def test_accelerator_facts(
    resources: dict[str, Any], selector: dict[str, str], expected: dict[str, Any]
) -> None:
    """The platform, a TPU slice's chips from GKE's topology label (not for other
    platforms), a Neuron device request in NeuronCores with one core's memory (unknown on
    Trainium2, whose cores per device the node's setting decides), SageMaker's ml. names."""
    facts = gpus.gpu_facts({"nodeSelector": selector}, resources, ModelSettings())
    assert facts == expected


@pytest.mark.parametrize(
    ("value", "chips"),
    [("2x4", 8), ("2x2x1", 4), ("16x16", 256), ("1x1", 1), ("2x", None), ("0x4", None)],
)
def test_tpu_topology_chips(value: str, chips: int | None) -> None:
    assert gpus.topology_chips(value) == chips


def test_tpu_topology_from_affinity_is_located() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
        "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "        nodeSelectorTerms:\n          - matchExpressions:\n"
        "              - {key: cloud.google.com/gke-tpu-topology, operator: In, values: [2x4]}\n"
        "  containers:\n    - name: vllm\n      image: vllm/vllm-tpu:v0.11.1\n"
        "      args: [--model, Qwen/Qwen2.5-7B-Instruct]\n"
        "      resources: {limits: {google.com/tpu: 8}}\n"
    )
    [workload] = extract_workloads([parse("pod.yaml", text)], ModelSettings())
    view = workload.view()
    assert (view.data["gpu"]["slice_chips"], view.data["gpu"]["topology"]) == (8, "2x4")
    origin = view.locate(("gpu", "slice_chips"))
    assert (origin.line, origin.column) == (10, 17)
