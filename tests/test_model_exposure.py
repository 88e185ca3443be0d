"""``workload.exposure``: the Services, Ingresses and HTTPRoutes of a file that reach a
workload's pods, and the pod labels they are matched on."""

from __future__ import annotations

from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads
from linter.positions import Origin

STREAM = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: sglang
spec:
  template:
    metadata:
      labels: {app: sglang}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.6.post2
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct"]
---
apiVersion: v1
kind: Service
metadata:
  name: rank0
spec:
  type: NodePort
  selector: {app: sglang, apps.kubernetes.io/pod-index: "0"}
  ports: [{port: 30000}]
---
apiVersion: v1
kind: Service
metadata:
  name: all
spec:
  selector: {app: sglang}
  ports: [{port: 80, targetPort: http}, {port: 9000}]
---
apiVersion: v1
kind: Service
metadata:
  name: elsewhere
  namespace: other
spec:
  type: LoadBalancer
  selector: {app: sglang}
---
apiVersion: v1
kind: Service
metadata:
  name: manual
spec:
  type: LoadBalancer
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route
spec:
  rules:
    - backendRefs:
        - {name: all, port: 30000}
"""


def test_services_and_routes_that_select_the_pods() -> None:
    (workload,) = extract_workloads([parse("deploy/sglang.yaml", STREAM)])
    assert workload.view().data["pod"]["labels"] == {"app": "sglang"}
    assert workload.view().data["exposure"] == [
        {
            "kind": "Service",
            "name": "rank0",
            "service": "rank0",
            "type": "NodePort",
            "public": True,
            "target_ports": ["30000"],
        },
        {
            "kind": "Service",
            "name": "all",
            "service": "all",
            "type": "ClusterIP",
            "public": False,
            "target_ports": ["http", "9000"],
        },
        {
            "kind": "HTTPRoute",
            "name": "route",
            "service": "all",
            "type": "ClusterIP",
            "public": True,
            "target_ports": ["http", "9000"],
        },
    ]
    assert [workload.view().origins[("exposure", i)] for i in range(3)] == [
        Origin("deploy/sglang.yaml", 20, 3, 1, "spec.type"),
        Origin("deploy/sglang.yaml", 24, 1, 2, ""),
        Origin("deploy/sglang.yaml", 55, 12, 5, "spec.rules[0].backendRefs[0].name"),
    ]


def test_leader_worker_set_pods_carry_the_controller_labels() -> None:
    text = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      metadata:
        labels: {role: leader}
      spec:
        containers:
          - name: leader
            image: vllm/vllm-openai:v0.11.0
    workerTemplate:
      spec:
        containers:
          - name: worker
            image: vllm/vllm-openai:v0.11.0
---
apiVersion: v1
kind: Service
metadata:
  name: leader
spec:
  type: LoadBalancer
  selector: {leaderworkerset.sigs.k8s.io/name: vllm, role: leader}
"""
    leader, worker = extract_workloads([parse("lws.yaml", text)])
    assert leader.view().data["pod"]["labels"] == {
        "role": "leader",
        "leaderworkerset.sigs.k8s.io/name": "vllm",
        "leaderworkerset.sigs.k8s.io/worker-index": "0",
    }
    assert worker.view().data["pod"]["labels"] == {"leaderworkerset.sigs.k8s.io/name": "vllm"}
    assert [e["name"] for e in leader.view().data["exposure"]] == ["leader"]
    assert "exposure" not in worker.view().data


def test_services_of_another_file_are_not_linked() -> None:
    deployment, service = STREAM.split("---\n")[:2]
    workloads = extract_workloads([parse("a.yaml", deployment), parse("b.yaml", service)])
    assert [w.view().data.get("exposure") for w in workloads] == [None]
