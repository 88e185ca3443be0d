"""servelint's values merge against the real helm: the same inputs give the same .Values.

The fixture chart ``tests/fixtures/helm/dump`` renders ``toJson .Values`` into a ConfigMap,
so each case compares ``merge_values(...).data`` with what helm itself computed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from linter.helm.values import ValuesError, load_values, merge_values

DUMP = Path(__file__).parent / "fixtures" / "helm" / "dump"
A = str(DUMP / "values-a.yaml")
B = str(DUMP / "values-b.yaml")


def helm_values(helm: str, files: list[str], sets: list[str]) -> dict[str, object] | None:
    command = [helm, "template", "dump", str(DUMP)]
    for path in files:
        command += ["--values", path]
    for argument in sets:
        command += ["--set", argument]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        return None
    rendered = yaml.safe_load(done.stdout)
    values: dict[str, object] = json.loads(rendered["data"]["values.json"])
    return values


def ours(files: list[str], sets: list[str]) -> dict[str, object]:
    chart = load_values(DUMP / "values.yaml")
    return merge_values(chart, [load_values(f) for f in files], sets).data


CASES = [
    ([], []),
    ([A], []),
    ([A, B], []),
    ([B, A], []),
    ([], ["vllm.maxModelLen=65536"]),
    ([], ["image.tag=latest,replicaCount=3"]),
    ([], ["vllm.extraArgs={--a,--b}"]),
    ([A], ["vllm.extraArgs[1]=--x"]),
    ([B], ["tolerations[0].key=example.com/other"]),
    ([], [r"nodeSelector.nvidia\.com/gpu\.product=NVIDIA-A100-SXM4-80GB"]),
    ([], ["resources.limits.memory=null"]),
    ([], ["keepNull=5"]),
    ([], ["n=0755,m=-01,t=TRUE,f=False,z=null,e="]),
    ([], ["a=1", "a=2"]),
    ([], ["big=9223372036854775808,small=-9223372036854775808"]),
    ([], ["x[2][1]=y"]),
    ([], ["vllm=null"]),
    ([], ["image=plain"]),
    ([], ["list={}"]),
    ([], [r"v=x\,y\=z"]),
    ([A], ["vllm.extraArgs=null"]),
    ([], ["resources.limits={1,2}"]),
    ([], ["a.b.c.d=1,a.b.e=2"]),
    ([], ["l[1].name=b,l[0].name=a"]),
    ([], ["replicaCount=1.5,ratio=+3"]),
]


@pytest.mark.parametrize(("files", "sets"), CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_merge_matches_helm(helm: str, files: list[str], sets: list[str]) -> None:
    expected = helm_values(helm, files, sets)
    assert expected is not None
    assert ours(files, sets) == expected


REJECTED = [
    ([], ["a"]),
    ([], ["a.b"]),
    ([], ["a[x]=1"]),
    ([], ["a[-1]=1"]),
    ([], ["a={x"]),
    ([], ["a,b=1"]),
    ([A], ["image.tag.x=1"]),
    ([A], ["vllm.extraArgs.x=1"]),
    ([B], ["resources[0]=1"]),
]


@pytest.mark.parametrize(
    ("files", "sets"), REJECTED, ids=[f"rejected{i}" for i in range(len(REJECTED))]
)
def test_rejected_like_helm(helm: str, files: list[str], sets: list[str]) -> None:
    assert helm_values(helm, files, sets) is None
    with pytest.raises(ValuesError):
        ours(files, sets)
