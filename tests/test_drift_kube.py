"""``servelint drift --kube`` end to end: the real ``kubernetes`` client, configured from a
real kubeconfig file, against the loopback stand-in for the Kubernetes API server."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result
from kube_standin import Cluster, Container, Fault, HttpReply, Pod
from kube_standin.fixtures import Running, isolate, running
from prometheus_client.parser import text_string_to_metric_families

FIXTURES = Path(__file__).parent / "fixtures" / "drift"
LIVE = FIXTURES / "live"
SOURCE = "exec:/etc/vllm/config.json"

Run = Callable[..., Result]


def vllm_pod(suffix: str, config: str, phase: str = "Running", **container: object) -> Pod:
    files = {"/etc/vllm/config.json": (LIVE / config).read_bytes()} if config else {}
    return Pod(
        f"vllm-5d9c7-{suffix}",
        labels={"app": "vllm", "pod-template-hash": "5d9c7"},
        owner=("ReplicaSet", "vllm-5d9c7"),
        phase=phase,
        containers=[Container("vllm", files=files, **container)],
    )  # type: ignore[arg-type]


def scenario_cluster() -> Cluster:
    """Scenario 6: two pods hot-fixed to max_num_seqs 128, one in sync, one not ready."""
    return Cluster(
        pods=[
            vllm_pod("a2kq9", "pod-config-hotfix.json"),
            vllm_pod("b7xw4", "pod-config-hotfix.json"),
            vllm_pod("c9m2p", "pod-config.json"),
            vllm_pod("d4r8t", "pod-config.json", phase="Pending"),
        ]
    )


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(monkeypatch)
    monkeypatch.chdir(FIXTURES)


@pytest.fixture
def cluster() -> Cluster:
    return scenario_cluster()


@pytest.fixture
def api(cluster: Cluster, tmp_path: Path) -> Iterator[Running]:
    with running(cluster, tmp_path) as standin:
        yield standin


def drift(run_line: Run, api: Running, *extra: str, source: str = SOURCE) -> Result:
    return run_line(
        [
            "drift",
            "-f",
            "values.yaml",
            "-f",
            "values-prod.yaml",
            "--values-path",
            "server.config",
            "--kube",
            "--kubeconfig",
            str(api.kubeconfig),
            "--source",
            source,
            # Slack for a busy machine (the stand-in answers in milliseconds); only the
            # pod made slow on purpose waits it out.
            "--timeout",
            "3",
            "--retries",
            "1",
            *extra,
        ]
    )


def test_scenario_hot_fixed_pods_are_drift_not_ready_pods_are_listed(
    run_line: Run, api: Running
) -> None:
    result = drift(run_line, api, "--namespace", "llm", "--selector", "app=vllm")
    assert result.exit_code == 1
    row = "  server.config.maxNumSeqs  256          128   changed  values-prod.yaml:4"
    header = "  field                     values.yaml  live  status   edit at"
    assert result.output.splitlines() == [
        "kube://llm/vllm-5d9c7-a2kq9/vllm exec:/etc/vllm/config.json: 1 difference "
        "(vllm defaults applied)",
        header,
        row,
        "kube://llm/vllm-5d9c7-b7xw4/vllm exec:/etc/vllm/config.json: 1 difference "
        "(vllm defaults applied)",
        header,
        row,
        "kube://llm/vllm-5d9c7-c9m2p/vllm exec:/etc/vllm/config.json: in sync "
        "(vllm defaults applied)",
        "kube://llm/vllm-5d9c7-d4r8t/vllm exec:/etc/vllm/config.json: not ready: pod is "
        "Pending, not Running; not compared",
        "2 differences in 2 of 4 targets, 1 in sync, 1 not ready",
    ]
    assert "sk-committed" not in result.output


def test_json_groups_results_per_pod(run_line: Run, api: Running) -> None:
    result = drift(run_line, api, "--selector", "app=vllm", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert [
        (t["pod"], t["workload"], t["outcome"], t.get("differences"), t.get("reason"))
        for t in report["targets"]
    ] == [
        ("vllm-5d9c7-a2kq9", "vllm", "compared", 1, None),
        ("vllm-5d9c7-b7xw4", "vllm", "compared", 1, None),
        ("vllm-5d9c7-c9m2p", "vllm", "compared", 0, None),
        ("vllm-5d9c7-d4r8t", "vllm", "not-ready", None, "not-ready"),
    ]
    assert [
        (f["rule"], f["file"], f["line"], f.get("desired"), f.get("live"))
        for f in report["findings"]
    ] == [
        (
            "drift/not-ready",
            "kube://llm/vllm-5d9c7-d4r8t/vllm exec:/etc/vllm/config.json",
            0,
            None,
            None,
        ),
        ("drift/changed", "values-prod.yaml", 4, 256, 128),
        ("drift/changed", "values-prod.yaml", 4, 256, 128),
    ]


def test_prometheus_output_parses_back(run_line: Run, api: Running, cluster: Cluster) -> None:
    cluster.pods[2].containers[0].files.clear()  # one pod: the file is missing
    result = drift(run_line, api, "--selector", "app=vllm", "--format", "prometheus")
    assert result.exit_code == 1
    families = {f.name: f for f in text_string_to_metric_families(result.output)}
    items = {s.labels["pod"]: s.value for s in families["servelint_drift_items"].samples}
    assert items == {"vllm-5d9c7-a2kq9": 1.0, "vllm-5d9c7-b7xw4": 1.0}
    sample = families["servelint_drift_items"].samples[0]
    assert sample.labels == {
        "namespace": "llm",
        "workload": "vllm",
        "pod": "vllm-5d9c7-a2kq9",
        "container": "vllm",
        "source": SOURCE,
    }
    errors = [
        (s.labels["pod"], s.labels["reason"], s.value)
        for s in families["servelint_drift_fetch_errors"].samples
    ]
    assert errors == [("vllm-5d9c7-c9m2p", "file-missing", 1.0)]
    not_ready = [s.labels["pod"] for s in families["servelint_drift_pods_not_ready"].samples]
    assert not_ready == ["vllm-5d9c7-d4r8t"]
    targets = {s.labels["outcome"]: s.value for s in families["servelint_drift_targets"].samples}
    assert targets == {"compared": 2.0, "error": 1.0, "not-ready": 1.0}
    assert families["servelint_drift_scan_success"].samples[0].value == 1.0
    assert families["servelint_drift_last_scan_timestamp_seconds"].samples[0].value > 1.7e9
    assert [s.labels["status"] for s in families["servelint_drift_items_by_status"].samples] == [
        "changed",
        "changed",
    ]


def test_every_failure_is_reported_for_its_pod_and_the_others_are_compared(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    cluster.pods = [
        vllm_pod("good1", "pod-config.json"),
        vllm_pod("slow2", "pod-config.json"),
        vllm_pod("nocat3", ""),
        vllm_pod("broken4", "truncated.json"),
        vllm_pod("done5", "pod-config.json", phase="Succeeded"),
        Pod("vllm-5d9c7-other6", labels={"app": "vllm"}, containers=[Container("engine")]),
    ]
    cluster.pods[1].delay = 30.0  # never answers within --timeout 3
    result = drift(run_line, api, "--selector", "app=vllm", "--container", "vllm")
    assert result.exit_code == 0  # one pod compared and in sync; the rest are reported
    assert result.output.splitlines() == [
        "kube://llm/vllm-5d9c7-broken4/vllm exec:/etc/vllm/config.json: error (invalid): the "
        "live config is not valid JSON or YAML: line 5, column 1: invalid JSON: Expecting "
        "value; not compared",
        "kube://llm/vllm-5d9c7-done5/vllm exec:/etc/vllm/config.json: not ready: pod is "
        "Succeeded, not Running; not compared",
        "kube://llm/vllm-5d9c7-good1/vllm exec:/etc/vllm/config.json: in sync (vllm defaults "
        "applied)",
        "kube://llm/vllm-5d9c7-nocat3/vllm exec:/etc/vllm/config.json: error (file-missing): "
        "/etc/vllm/config.json does not exist in container 'vllm' (cat: /etc/vllm/config.json:"
        " No such file or directory); check the path in --source and the volume mounts",
        "kube://llm/vllm-5d9c7-other6/vllm exec:/etc/vllm/config.json: error "
        "(container-missing): reading /etc/vllm/config.json over exec: HTTP 400: container "
        "vllm is not valid for pod vllm-5d9c7-other6; the pod's containers are: engine (pass "
        "--container)",
        "kube://llm/vllm-5d9c7-slow2/vllm exec:/etc/vllm/config.json: error (timeout): reading "
        "/etc/vllm/config.json over exec: no answer within the timeout; raise --timeout if the "
        "pod is slow, or check that it is not overloaded",
        "0 differences in 0 of 6 targets, 1 in sync, 4 errors, 1 not ready",
    ]


def test_forbidden_exec_says_which_permission_is_missing(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    cluster.denied.add(("create", "pods/exec"))
    result = drift(run_line, api, "--pod", "vllm-5d9c7-a2kq9")
    assert result.exit_code == 3
    assert result.output.splitlines() == [
        "kube://llm/vllm-5d9c7-a2kq9/vllm exec:/etc/vllm/config.json: error (forbidden): "
        "reading /etc/vllm/config.json over exec: 403 Forbidden: the user may not create "
        "'pods/exec' in namespace 'llm'; grant verb 'create' on resource 'pods/exec' in a Role "
        "bound to it (see deploy/drift-scan/rbac.yaml)",
        "0 differences in 0 of 1 target, 0 in sync, 1 error",
    ]
    assert cluster.count("/exec") == 1  # 403 is never retried


def test_before_1_35_a_websocket_exec_needs_get(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    cluster.websocket_create_check = False
    cluster.denied.add(("get", "pods/exec"))
    result = drift(run_line, api, "--pod", "vllm-5d9c7-c9m2p", "--format", "json")
    assert result.exit_code == 3
    assert json.loads(result.output)["targets"][0]["message"].startswith(
        "reading /etc/vllm/config.json over exec: 403 Forbidden: the user may not get "
        "'pods/exec' in namespace 'llm'"
    )


def test_unauthorized_listing_stops_the_scan(
    run_line: Run, cluster: Cluster, tmp_path: Path
) -> None:
    with running(cluster, tmp_path, token="expired") as api:
        result = drift(run_line, api, "--selector", "app=vllm", "--format", "prometheus")
    assert result.exit_code == 3
    families = {f.name: f for f in text_string_to_metric_families(result.output)}
    assert [(s.labels, s.value) for s in families["servelint_drift_scan_error"].samples] == [
        ({"reason": "unauthorized"}, 1.0)
    ]
    assert families["servelint_drift_scan_success"].samples[0].value == 0.0
    assert cluster.count("/pods") == 1


def test_unauthorized_text(run_line: Run, cluster: Cluster, tmp_path: Path) -> None:
    with running(cluster, tmp_path, token="expired") as api:
        result = drift(run_line, api, "--selector", "app=vllm")
    assert result.exit_code == 3
    assert result.output == (
        "error (unauthorized): listing pods in namespace llm: 401 Unauthorized: the API server "
        "rejected the credentials; renew the kubeconfig token (or the ServiceAccount token) and "
        "check --context\n0 differences in 0 of 0 targets, 0 in sync\n"
    )


def test_transient_failures_are_retried_with_backoff(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    cluster.faults.append(Fault("/pods/vllm-5d9c7-a2kq9/exec", 503, times=2))
    cluster.faults.append(Fault("/pods/vllm-5d9c7-b7xw4/exec", 429, times=5, retry_after="0"))
    result = drift(run_line, api, "--selector", "app=vllm", "--retries", "2", "--format", "json")
    outcomes = {
        t["pod"]: (t["outcome"], t.get("reason")) for t in json.loads(result.output)["targets"]
    }
    assert outcomes["vllm-5d9c7-a2kq9"] == ("compared", None)  # third try succeeded
    assert outcomes["vllm-5d9c7-b7xw4"] == ("error", "unavailable")  # gave up after 3 tries
    assert cluster.count("/pods/vllm-5d9c7-a2kq9/exec") == 3
    assert cluster.count("/pods/vllm-5d9c7-b7xw4/exec") == 3


def test_an_unreachable_api_server_is_bounded(run_line: Run, tmp_path: Path) -> None:
    with running(Cluster(), tmp_path) as api:
        pass  # the port is closed once the stand-in stops
    result = drift(run_line, api, "--selector", "app=vllm", "--retries", "1")
    assert result.exit_code == 3
    assert result.output.startswith(
        "error (unreachable): listing pods in namespace llm: cannot connect to the API server"
    )


def test_http_source_through_the_pod_proxy(run_line: Run, cluster: Cluster, tmp_path: Path) -> None:
    info = (LIVE / "tgi-info.json").read_bytes()
    hotfixed = (LIVE / "tgi-info-hotfixed.json").read_bytes()
    cluster.pods = [
        Pod(
            f"tgi-{n}",
            labels={"app": "tgi"},
            owner=("StatefulSet", "tgi"),
            containers=[Container("tgi", http={(80, "/info"): HttpReply(body)})],
        )
        for n, body in enumerate((info, hotfixed))
    ]
    cluster.pods.append(
        Pod(
            "tgi-2",
            labels={"app": "tgi"},
            owner=("StatefulSet", "tgi"),
            containers=[Container("tgi", http={(80, "/health"): HttpReply(b"")})],
        )
    )
    with running(cluster, tmp_path) as api:
        result = run_line(
            [
                "drift",
                "-f",
                "tgi-values.yaml",
                "--values-path",
                "tgi.launcher",
                "--kube",
                "--kubeconfig",
                str(api.kubeconfig),
                "-l",
                "app=tgi",
                "--source",
                "http:80/info",
                "--timeout",
                "3",
                "--retries",
                "0",
            ]
        )
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "kube://llm/tgi-0/tgi http:80/info: in sync (tgi defaults applied; read: TGI 3.2.1: /info)",
        "kube://llm/tgi-1/tgi http:80/info: 3 differences (tgi defaults applied; "
        "read: TGI 3.2.1: /info)",
        "  field                               values.yaml  live   status           edit at",
        "  tgi.launcher.max_stop_sequences     -            8      unexpected-live  "
        "tgi-values.yaml:3",
        "  tgi.launcher.maxConcurrentRequests  128          64     changed          "
        "tgi-values.yaml:5",
        "  tgi.launcher.maxTotalTokens         32768        16384  changed          "
        "tgi-values.yaml:6",
        "kube://llm/tgi-2/tgi http:80/info: error (not-found): GET :80/info through the pod "
        'proxy: 404 Not Found: {"detail":"Not Found"}',
        "3 differences in 1 of 3 targets, 1 in sync, 1 error",
    ]


def test_configmap_source(run_line: Run, cluster: Cluster, tmp_path: Path) -> None:
    cluster.configmaps[("llm", "vllm-config")] = {
        "config.json": (LIVE / "pod-config-hotfix.json").read_text()
    }
    with running(cluster, tmp_path) as api:
        found = drift(run_line, api, source="configmap:vllm-config/config.json")
        missing_key = drift(run_line, api, source="configmap:vllm-config/config.yaml")
        missing = drift(run_line, api, source="configmap:other/config.json")
    assert found.exit_code == 1
    assert found.output.splitlines()[0] == (
        "kube://llm/configmap/vllm-config configmap:vllm-config/config.json: 1 difference "
        "(vllm defaults applied)"
    )
    assert missing_key.exit_code == 3
    assert missing_key.output.splitlines()[0] == (
        "kube://llm/configmap/vllm-config configmap:vllm-config/config.yaml: error "
        "(not-found): ConfigMap vllm-config has no key 'config.yaml' (keys: config.json)"
    )
    assert missing.output.splitlines()[0] == (
        "kube://llm/configmap/other configmap:other/config.json: error (not-found): reading "
        'ConfigMap other: 404 Not Found: configmaps "other" not found'
    )


def test_podspec_source_compares_args_env_and_resources(
    run_line: Run, cluster: Cluster, tmp_path: Path
) -> None:
    container = Container(
        "vllm",
        args=[
            "--max-num-seqs",
            "128",
            "--api-key",
            "sk-live0000000000000000000000000",
            "--max-model-len",
            "32768",
        ],
        env=[
            {"name": "VLLM_LOGGING_LEVEL", "value": "DEBUG"},
            {
                "name": "HF_TOKEN",
                "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}},
            },
        ],
        resources={
            "limits": {"nvidia.com/gpu": 2, "memory": "65536Mi", "cpu": 8},
            "requests": {"nvidia.com/gpu": "2", "memory": "48Gi", "cpu": "4"},
        },
    )
    cluster.pods = [Pod("vllm-0", labels={"app": "vllm"}, containers=[container])]
    with running(cluster, tmp_path) as api:
        result = run_line(
            [
                "drift",
                "-f",
                "values.yaml",
                "--values-path",
                "server",
                "--kube",
                "--kubeconfig",
                str(api.kubeconfig),
                "--pod",
                "vllm-0",
                "--source",
                "podspec",
            ]
        )
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "kube://llm/vllm-0/vllm podspec: 2 differences",
        "  field                values.yaml  live   status   edit at",
        "  server.args[4]       ****         ****   changed  values.yaml:25",
        "  server.env[1].value  INFO         DEBUG  changed  values.yaml:33",
        "2 differences in 1 of 1 target, 0 in sync",
    ]
    assert "sk-live" not in result.output and "sk-committed" not in result.output


def test_pod_by_name_and_contexts(run_line: Run, cluster: Cluster, tmp_path: Path) -> None:
    with running(cluster, tmp_path, namespace="other") as api:
        wrong_namespace = drift(run_line, api, "--pod", "vllm-5d9c7-c9m2p")
        right = drift(run_line, api, "--pod", "vllm-5d9c7-c9m2p", "-n", "llm")
        bad_context = drift(run_line, api, "--pod", "vllm-5d9c7-c9m2p", "--context", "prod")
    assert wrong_namespace.exit_code == 3
    assert wrong_namespace.output == (
        "error (no-pods): pod 'vllm-5d9c7-c9m2p' not found in namespace 'other'\n"
        "0 differences in 0 of 0 targets, 0 in sync\n"
    )
    assert right.exit_code == 0
    assert right.output.splitlines()[0].endswith(": in sync (vllm defaults applied)")
    assert bad_context.exit_code == 3
    assert bad_context.output.startswith("servelint: cannot use the kubeconfig (")
    assert "prod" in bad_context.output


def test_no_pods_match(run_line: Run, api: Running) -> None:
    result = drift(run_line, api, "--selector", "app=sglang")
    assert result.exit_code == 3
    assert result.output == (
        "error (no-pods): no pods match selector 'app=sglang' in "
        "namespace 'llm'\n0 differences in 0 of 0 targets, 0 in sync\n"
    )


def test_concurrency_is_bounded(run_line: Run, cluster: Cluster, tmp_path: Path) -> None:
    cluster.pods = [vllm_pod(f"p{n:02d}", "pod-config.json") for n in range(12)]
    cluster.latency = 0.1
    with running(cluster, tmp_path) as api:
        result = drift(
            run_line, api, "--selector", "app=vllm", "--concurrency", "4", "--format", "json"
        )
    assert result.exit_code == 0
    assert json.loads(result.output)["summary"]["in_sync"] == 12
    assert 2 <= cluster.max_inflight <= 4


def test_per_pod_401_403_and_not_ready_while_the_others_are_compared(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    cluster.pods[3].phase = "Running"
    cluster.pods[3].containers[0].ready = False  # Running, not Ready
    cluster.faults.append(Fault("/pods/vllm-5d9c7-a2kq9/exec", 401))  # a token expiring
    cluster.denied.add(("create", "pods/exec", "vllm-5d9c7-b7xw4"))
    result = drift(run_line, api, "--selector", "app=vllm", "--format", "json")
    assert result.exit_code == 0  # the one compared pod is in sync
    assert [
        (t["pod"], t["outcome"], t.get("reason")) for t in json.loads(result.output)["targets"]
    ] == [
        ("vllm-5d9c7-a2kq9", "error", "unauthorized"),
        ("vllm-5d9c7-b7xw4", "error", "forbidden"),
        ("vllm-5d9c7-c9m2p", "compared", None),
        ("vllm-5d9c7-d4r8t", "not-ready", "not-ready"),
    ]
    messages = {t["pod"]: t.get("message") for t in json.loads(result.output)["targets"]}
    assert messages["vllm-5d9c7-d4r8t"] == (
        "pod is Running but not Ready (containers not ready: vllm); not compared"
    )
    assert cluster.count("/pods/vllm-5d9c7-a2kq9/exec") == 1  # 401 is never retried


def test_pods_compared_after_the_scan_give_the_report_of_pods_compared_while_read(
    run_line: Run, api: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers compare the pods they read unless the diff library is still importing or
    another worker is analysing the same configuration; the main thread compares those
    after the scan. Whoever compares a pod, and however many threads read, the report is
    the same."""

    def report(*extra: str) -> dict[str, object]:
        result = drift(run_line, api, "--selector", "app=vllm", "--format", "json", *extra)
        assert result.exit_code == 1
        data: dict[str, object] = json.loads(result.output)
        return data

    while_read = report("--concurrency", "4")
    one_at_a_time = report("--concurrency", "1")
    monkeypatch.setattr("linter.drift.compare.ready", lambda: False)
    after_the_scan = report("--concurrency", "4")
    assert while_read == one_at_a_time == after_the_scan
    targets = after_the_scan["targets"]
    assert isinstance(targets, list)
    assert [t.get("differences") for t in targets] == [1, 1, 0, None]
