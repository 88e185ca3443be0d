"""RoleBasedGroup and kthena ModelServing: each role's pods as their controllers build them
(a role template patched by strategic merge, leader and worker patches, the environment
variables the controllers set), with every value located where it was written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from report_lines import report_lines

from linter.evaluate.inputs import read_inputs
from linter.model.frontends.extract import extract_workloads
from linter.model.frontends.strategic_merge import merge
from linter.model.records.workload import Workload
from linter.sources.files import expand

FIXTURES = Path(__file__).parent / "fixtures" / "model" / "role_groups"
RunLine = Callable[..., Result]


def _workloads(name: str) -> list[Workload]:
    parsed, failures = read_inputs(expand([str(FIXTURES / name)]))
    assert failures == []
    return extract_workloads(parsed)


def _at(workload: Workload, *path: str | int) -> tuple[int, int, str]:
    origin = workload.view().locate(path)
    return origin.line, origin.column, origin.key


def _lint(run_line: RunLine, name: str, *options: str) -> tuple[int, list[str]]:
    path = FIXTURES / name
    result = run_line(["lint", "--no-config", *options, str(path)])
    return result.exit_code, [
        line.replace(f"{path}:", "")[:150] for line in report_lines(result.output)
    ]


def test_each_role_of_a_rolebasedgroup_is_a_workload_built_from_its_role_template() -> None:
    workloads = _workloads("rbg-pd-templateref.yaml")
    # The router runs no engine and asks for no GPU: no workload.
    assert [
        (w.name, w.view().data["role"], w.view().data["replicas"], w.view().data["multi_node"])
        for w in workloads
    ] == [
        ("RoleBasedGroup/serving/qwen-pd/prefill", "prefill", 2, False),
        ("RoleBasedGroup/serving/qwen-pd/decode", "decode", 1, False),
    ]
    prefill, decode = workloads
    assert (prefill.view().data["engine"]["name"], prefill.view().data["engine"]["version"]) == (
        "vllm",
        "0.10.1",
    )
    assert prefill.view().data["engine"]["max_model_len"] == 16384
    assert prefill.view().data["engine"]["model_id"] == "Qwen/Qwen2.5-7B-Instruct"
    # Patched keys are located in the role's patch, inherited ones in the role template.
    patch = "spec.roles[1].standalonePattern.templateRef.patch.spec.containers[0]"
    template = "spec.roleTemplates[0].template.spec.containers[0]"
    assert _at(prefill, "engine", "max_model_len") == (62, 23, f"{patch}.args[2]")
    assert _at(prefill, "engine", "image") == (20, 15, f"{template}.image")
    assert _at(prefill, "container", "resources", "limits", "memory") == (
        30,
        19,
        f"{template}.resources.limits.memory",
    )
    # env merges by name: the patch's value replaces the template's.
    assert prefill.view().data["container"]["env"]["VLLM_NIXL_SIDE_CHANNEL_PORT"] == "5601"
    assert _at(prefill, "container", "env", "VLLM_NIXL_SIDE_CHANNEL_PORT") == (
        67,
        23,
        f"{patch}.env[0].value",
    )
    assert decode.view().data["container"]["env"]["VLLM_NIXL_SIDE_CHANNEL_PORT"] == "5600"
    assert _at(prefill, "replicas") == (47, 7, "spec.roles[1].replicas")
    assert _at(prefill, "gpu", "product") == (
        17,
        13,
        "spec.roleTemplates[0].template.spec.nodeSelector['cloud.google.com/gke-accelerator']",
    )
    # Labels: the template's, the patch's, and the two the controller adds.
    assert prefill.view().data["pod"]["labels"] == {
        "app": "qwen-pd",
        "pd-role": "prefill",
        "rbg.workloads.x-k8s.io/group-name": "qwen-pd",
        "rbg.workloads.x-k8s.io/role-name": "prefill",
    }
    assert _at(prefill, "pod", "labels", "pd-role")[:2] == (54, 17)
    # The decode patch deletes the template's readinessProbe (null in a strategic merge).
    assert "readiness" in prefill.view().data["container"]["probes"]
    assert "readiness" not in decode.view().data["container"].get("probes", {})


def test_a_role_whose_probe_the_patch_deletes_is_reported_at_the_template(
    run_line: RunLine,
) -> None:
    assert _lint(run_line, "rbg-pd-templateref.yaml") == (
        0,
        [
            "19:15: warning readiness/missing the vLLM container vllm has no readinessProbe: "
            "Kubernetes counts it ready as soon as it starts, so the Service sends requests "[:150],
            "0 errors, 1 warning, 0 info in 1 file",
        ],
    )


def test_leader_worker_pattern_is_a_multi_node_leader_and_worker() -> None:
    leader, worker = _workloads("rbg-leader-worker.yaml")
    assert [
        (w.name, w.view().data["role"], w.view().data["replicas"], w.view().data["multi_node"])
        for w in (leader, worker)
    ] == [
        ("RoleBasedGroup/default/qwen-tp/backend/leader", "backend/leader", 2, True),
        ("RoleBasedGroup/default/qwen-tp/backend/worker", "backend/worker", 2, True),
    ]
    # $(RBG_LWP_GROUP_SIZE) is the pattern's size; the leader's index is 0; a worker's
    # index and the leader's address differ per pod and stay unread.
    assert (leader.view().data["engine"]["nnodes"], leader.view().data["engine"]["node_rank"]) == (
        2,
        0,
    )
    assert worker.view().data["engine"]["nnodes"] == 2
    assert "node_rank" not in worker.view().data["engine"]
    assert worker.view().data["engine"]["unparsed"]["node_rank"] == "$(RBG_LWP_WORKER_INDEX)"
    command = "spec.roles[0].leaderWorkerPattern.template.spec.containers[0].command"
    assert _at(leader, "engine", "nnodes") == (29, 21, f"{command}[10]")
    assert leader.view().data["container"]["env"]["RBG_LWP_GROUP_SIZE"] == "2"
    assert _at(leader, "container", "env", "RBG_LWP_GROUP_SIZE") == (
        12,
        9,
        "added by RoleBasedGroup",
    )
    # The leader's patch adds a readiness probe to the template's container (by name).
    assert _at(leader, "container", "probes", "readiness")[2] == (
        "spec.roles[0].leaderWorkerPattern.leaderTemplatePatch.spec.containers[0].readinessProbe"
    )
    assert "readiness" not in worker.view().data["container"].get("probes", {})
    assert worker.view().data["pod"]["labels"]["role"] == "worker"


def test_leader_worker_group_is_clean_when_its_leader_has_a_probe(run_line: RunLine) -> None:
    # Two GPUs over two pods of one GPU each: the per-pod GPU checks do not judge a
    # multi-node group, and the worker takes no traffic.
    assert _lint(run_line, "rbg-leader-worker.yaml") == (
        0,
        ["0 errors, 0 warnings, 0 info in 1 file"],
    )


def test_v1alpha1_template_patch_and_leaderworkerset_workload() -> None:
    leader, worker = _workloads("rbg-v1alpha1-lws.yaml")
    assert [w.name for w in (leader, worker)] == [
        "RoleBasedGroup/default/legacy-tp/engine/leader",
        "RoleBasedGroup/default/legacy-tp/engine/worker",
    ]
    # Run as a LeaderWorkerSet: its LWS_GROUP_SIZE / LWS_WORKER_INDEX, no RBG_LWP_*.
    assert (leader.view().data["engine"]["nnodes"], leader.view().data["engine"]["node_rank"]) == (
        2,
        0,
    )
    assert "RBG_LWP_GROUP_SIZE" not in leader.view().data["container"]["env"]
    assert _at(leader, "container", "env", "LWS_GROUP_SIZE") == (
        43,
        9,
        "added by LeaderWorkerSet",
    )
    assert leader.view().data["engine"]["tp_size"] == 8
    assert _at(leader, "engine", "tp_size")[2] == (
        "spec.roles[0].templatePatch.spec.containers[0].command[6]"
    )
    assert _at(leader, "gpu", "count")[2] == (
        "spec.roleTemplates[0].template.spec.containers[0].resources.limits['nvidia.com/gpu']"
    )
    assert leader.view().data["pod"]["labels"]["role"] == "leader"


def test_v1alpha1_findings(run_line: RunLine) -> None:
    assert _lint(run_line, "rbg-v1alpha1-lws.yaml") == (
        0,
        [
            "13:15: warning readiness/missing the SGLang container sglang has no readinessProbe: "
            "Kubernetes counts it ready as soon as it starts, so the Service sends requests"[:150],
            "15:15: warning kubernetes-qos/gpu-pod-best-effort no container sets cpu or memory "
            "requests or limits (only nvidia.com/gpu), so the pod is BestEffort: under node me"[
                :150
            ],
            "37:19: warning shm/tensor-parallel-without-dev-shm SGLang with 4 ranks in the pod "
            "without a memory-backed volume at /dev/shm: the container has the runtime's 64 MiB"[
                :150
            ],
            "0 errors, 3 warnings, 0 info in 1 file",
        ],
    )


def test_a_role_whose_template_reference_is_unknown_is_not_understood(
    run_line: RunLine,
) -> None:
    [prefill] = _workloads("rbg-unknown-ref.yaml")
    assert prefill.name == "RoleBasedGroup/default/broken-pd/prefill"
    path = FIXTURES / "rbg-unknown-ref.yaml"
    result = run_line(["lint", "--no-config", "-v", str(path)])
    assert result.exit_code == 0
    assert (
        f"not understood: {path}:31:11: role decode of kind RoleBasedGroup "
        "(workloads.x-k8s.io/v1alpha2): templateRef vllm-decode names no entry of "
        "spec.roleTemplates, so its pods cannot be built; fix: complete the role's pod "
        "template (a templateRef must name an entry of spec.roleTemplates; workerReplicas "
        "needs a workerTemplate), so that the operator can create its pods"
    ) in result.output.splitlines()
    assert result.output.splitlines()[0] == (
        "coverage: 1 file, 1 workload recognised (vllm 1), 1 input not understood"
    )


def test_kthena_entry_and_worker_pods() -> None:
    workloads = _workloads("kthena-pd-multinode.yaml")
    assert [
        (w.name, w.view().data["role"], w.view().data["replicas"], w.view().data["multi_node"])
        for w in workloads
    ] == [
        ("ModelServing/serving/qwen-pd/prefill/entry", "prefill/entry", 2, True),
        ("ModelServing/serving/qwen-pd/prefill/worker", "prefill/worker", 2, True),
        ("ModelServing/serving/qwen-pd/decode", "decode", 6, False),
    ]
    entry, worker, decode = workloads
    # GROUP_SIZE is workerReplicas + 1, replacing the container's own "4".
    assert entry.view().data["engine"]["pipeline_parallel_size"] == 2
    # A flag inside the `- |` script points at its own line.
    assert _at(entry, "engine", "pipeline_parallel_size") == (
        29,
        49,
        "spec.template.roles[0].entryTemplate.spec.containers[0].args[0]",
    )
    assert entry.view().data["container"]["env"]["GROUP_SIZE"] == "2"
    assert _at(entry, "container", "env", "GROUP_SIZE") == (
        37,
        9,
        "added by kthena ModelServing",
    )
    assert entry.view().data["container"]["env"]["WORKER_INDEX"] == "0"
    assert "WORKER_INDEX" not in worker.view().data["container"]["env"]
    assert decode.view().data["container"]["env"]["GROUP_SIZE"] == "1"
    assert _at(decode, "engine", "max_model_len") == (
        55,
        83,
        "spec.template.roles[1].entryTemplate.spec.containers[0].command[4]",
    )
    assert _at(decode, "replicas") == (48, 9, "spec.template.roles[1].replicas")
    assert entry.view().data["pod"]["labels"] == {
        "app": "qwen-pd",
        "modelserving.volcano.sh/name": "qwen-pd",
        "modelserving.volcano.sh/role": "prefill",
        "modelserving.volcano.sh/entry": "true",
    }


def test_kthena_findings(run_line: RunLine) -> None:
    best_effort = (
        "warning kubernetes-qos/gpu-pod-best-effort no container sets cpu or memory requests "
        "or limits (only nvidia.com/gpu), so the pod is BestEffort: under node me"
    )
    assert _lint(run_line, "kthena-pd-multinode.yaml") == (
        0,
        [
            "21:17: warning readiness/missing the vLLM container entry has no readinessProbe: "
            "Kubernetes counts it ready as soon as it starts, so the Service sends requests"[:150],
            f"34:17: {best_effort}"[:150],
            f"44:17: {best_effort}"[:150],
            f"58:17: {best_effort}"[:150],
            "0 errors, 4 warnings, 0 info in 1 file",
        ],
    )


def test_strategic_merge_by_merge_key_replaces_other_lists_and_deletes_nulls() -> None:
    base = {
        "spec": {
            "containers": [
                {"name": "a", "args": ["x", "y"], "ports": [{"containerPort": 80}]},
                {"name": "b", "image": "b:1"},
            ],
            "tolerations": [{"key": "gpu"}],
        }
    }
    patch = {
        "spec": {
            "containers": [
                {"name": "a", "args": ["z"], "ports": [{"containerPort": 81}]},
                {"name": "b", "$patch": "delete"},
                {"name": "c", "image": "c:1"},
            ],
            "tolerations": [{"key": "other"}],
            "nodeSelector": None,
        }
    }
    merged, where = merge(base, ("base",), patch, ("patch",))
    assert merged == {
        "spec": {
            "containers": [
                {
                    "name": "a",
                    "args": ["z"],
                    "ports": [{"containerPort": 80}, {"containerPort": 81}],
                },
                {"name": "c", "image": "c:1"},
            ],
            "tolerations": [{"key": "other"}],
        }
    }
    # The merged container is the template's; a key the patch writes (its merge key
    # included) is the patch's.
    assert where[("spec", "containers", 0)] == ("base", "spec", "containers", 0)
    assert where[("spec", "containers", 0, "name")] == ("patch", "spec", "containers", 0, "name")
    assert where[("spec", "containers", 0, "ports", 0)] == (
        "base",
        "spec",
        "containers",
        0,
        "ports",
        0,
    )
    assert where[("spec", "containers", 0, "args", 0)] == (
        "patch",
        "spec",
        "containers",
        0,
        "args",
        0,
    )
    assert where[("spec", "containers", 0, "ports", 1)] == (
        "patch",
        "spec",
        "containers",
        0,
        "ports",
        0,
    )
    assert where[("spec", "containers", 1)] == ("patch", "spec", "containers", 2)


def test_roles_whose_pods_cannot_be_built_are_each_not_understood(run_line: RunLine) -> None:
    path = FIXTURES / "malformed.yaml"
    result = run_line(["lint", "--no-config", "-v", str(path)])
    assert result.exit_code == 0
    fix = (
        "fix: complete the role's pod template (a templateRef must name an entry of "
        "spec.roleTemplates; workerReplicas needs a workerTemplate), so that the operator "
        "can create its pods"
    )
    rbg = "of kind RoleBasedGroup (workloads.x-k8s.io/v1alpha2)"
    kthena = "of kind ModelServing (workload.serving.volcano.sh/v1alpha1)"
    assert [line for line in result.output.splitlines() if line.startswith("not understood")] == [
        f"not understood: {path}:18:9: role engine/leader {rbg}: leaderTemplatePatch is not "
        f"a map, so its pods cannot be built; {fix}",
        f"not understood: {path}:23:13: role sidecar-only {rbg}: a component without a pod "
        f"template, so its pods cannot be built; {fix}",
        f"not understood: {path}:25:7: role empty {rbg}: neither a template nor a "
        f"templateRef, so its pods cannot be built; {fix}",
        f"not understood: {path}:37:9: role prefill/worker {kthena}: workerReplicas 2 and no "
        f"workerTemplate, so its pods cannot be built; {fix}",
    ]
    # What can be built still is: the group's worker, and kthena's entry pod.
    assert [w.name for w in _workloads("malformed.yaml")] == [
        "RoleBasedGroup/default/half-written/engine/worker",
        "ModelServing/default/half-written/prefill/entry",
    ]


def test_services_select_role_pods_by_the_labels_their_controllers_add(
    run_line: RunLine,
) -> None:
    exposure = {w.name: w.view().data.get("exposure") for w in _workloads("public-services.yaml")}
    assert exposure == {
        "RoleBasedGroup/default/qwen/decode": [
            {
                "kind": "Service",
                "name": "qwen-decode",
                "service": "qwen-decode",
                "type": "LoadBalancer",
                "public": True,
                "target_ports": ["8000"],
            }
        ],
        "ModelServing/default/qwen-kthena/server": [
            {
                "kind": "Service",
                "name": "qwen-kthena",
                "service": "qwen-kthena",
                "type": "NodePort",
                "public": True,
                "target_ports": ["8000"],
            }
        ],
    }
    # The kthena server has an API key; the RoleBasedGroup's does not.
    assert _lint(run_line, "public-services.yaml") == (
        0,
        [
            "29:3: warning exposure/public-without-api-key Service qwen-decode (type "
            "LoadBalancer) makes vLLM of RoleBasedGroup/default/qwen/decode reachable from "
            "outside the cl"[:150],
            "0 errors, 1 warning, 0 info in 1 file",
        ],
    )


def test_controller_variables_replace_the_containers_but_leaderworkerset_ones_do_not(
    tmp_path: Path,
) -> None:
    # RBG_ROLE_NAME is RoleBasedGroup's own (it replaces the container's); LWS_GROUP_SIZE
    # comes from the LeaderWorkerSet the role runs as, which keeps the container's value.
    text = (FIXTURES / "rbg-v1alpha1-lws.yaml").read_text()
    anchor = "            - name: sglang\n              image: lmsysorg/sglang:v0.4.9\n"
    assert anchor in text
    path = tmp_path / "own-env.yaml"
    path.write_text(
        text.replace(
            anchor,
            anchor + "              env:\n"
            "                - {name: RBG_ROLE_NAME, value: mine}\n"
            "                - {name: LWS_GROUP_SIZE, value: '4'}\n",
        )
    )
    parsed, failures = read_inputs(expand([str(path)]))
    assert failures == []
    leader = extract_workloads(parsed)[0]
    assert leader.view().data["container"]["env"]["RBG_ROLE_NAME"] == "engine"
    assert leader.view().data["container"]["env"]["LWS_GROUP_SIZE"] == "4"
    assert leader.view().data["engine"]["nnodes"] == 4


def test_kthena_templates_without_containers_are_not_understood(run_line: RunLine) -> None:
    path = FIXTURES / "kthena-no-containers.yaml"
    result = run_line(["lint", "--no-config", "-v", str(path)])
    kthena = "of kind ModelServing (workload.serving.volcano.sh/v1alpha1)"
    fix = (
        "fix: complete the role's pod template (a templateRef must name an entry of "
        "spec.roleTemplates; workerReplicas needs a workerTemplate), so that the operator "
        "can create its pods"
    )
    assert [line for line in result.output.splitlines() if line.startswith("not understood")] == [
        f"not understood: {path}:12:9: role nulled {kthena}: an entryTemplate without a list "
        f"of containers, so its pods cannot be built; {fix}",
        f"not understood: {path}:17:9: role empty {kthena}: an entryTemplate without a list "
        f"of containers, so its pods cannot be built; {fix}",
        f"not understood: {path}:29:9: role serve/worker {kthena}: a workerTemplate without a "
        f"list of containers, so its pods cannot be built; {fix}",
    ]
    assert [w.name for w in _workloads("kthena-no-containers.yaml")] == [
        "ModelServing/default/ms/serve/entry"
    ]


def test_strategic_merge_patch_directives_replace_a_list_and_delete_a_map() -> None:
    base = {
        "spec": {
            "containers": [
                {"name": "vllm", "image": "vllm:1", "resources": {"limits": {"cpu": "4"}}},
                {"name": "sidecar", "image": "s:1"},
            ],
        }
    }
    patch = {
        "spec": {
            # {$patch: replace} in a list: the list is the patch's other items only.
            "containers": [{"$patch": "replace"}, {"name": "sglang", "image": "sglang:1"}],
        }
    }
    merged, where = merge(base, ("base",), patch, ("patch",))
    assert merged == {"spec": {"containers": [{"name": "sglang", "image": "sglang:1"}]}}
    assert where[("spec", "containers", 0, "image")] == ("patch", "spec", "containers", 1, "image")
    # {$patch: delete} on a map removes it, as null does.
    deleting = {"spec": {"containers": [{"name": "vllm", "resources": {"$patch": "delete"}}]}}
    merged, _ = merge(base, ("base",), deleting, ("patch",))
    assert merged == {
        "spec": {
            "containers": [{"name": "vllm", "image": "vllm:1"}, {"name": "sidecar", "image": "s:1"}]
        }
    }
