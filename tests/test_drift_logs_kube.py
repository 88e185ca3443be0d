"""``servelint drift --kube --source logs``: the real ``kubernetes`` client reads pod logs
through the Pod log API of the loopback stand-in for the Kubernetes API server (a real API
server cannot run here), with the container, ``--previous`` and a byte limit."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import Result
from kube_standin import Cluster, Container, Pod
from kube_standin.fixtures import Running, isolate, running
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

LOGS = Path(__file__).parent / "fixtures" / "drift" / "logs"
START = (LOGS / "vllm-0.11-dp2.log").read_bytes()
# The same server, started with --max-model-len 4096 (the pod was edited by hand).
HOTFIXED = START.replace(b"'max_model_len': 8192", b"'max_model_len': 4096").replace(
    b"max_seq_len=8192", b"max_seq_len=4096"
)
# What a server prints after its start: one access line per request.
SERVING = b"".join(
    b'(APIServer pid=1) INFO:     10.4.0.%d:51234 - "POST /v1/chat/completions HTTP/1.1" '
    b"200 OK\n" % (i % 250)
    for i in range(40_000)
)
Run = Callable[..., Result]


def pod(suffix: str, log: bytes, previous: bytes | None = None, ready: bool = True) -> Pod:
    return Pod(
        f"llm-vllm-7f9c-{suffix}",
        labels={"app": "vllm", "pod-template-hash": "7f9c"},
        owner=("ReplicaSet", "llm-vllm-7f9c"),
        containers=[
            Container("vllm", log=log, previous_log=previous, ready=ready),
            Container("metrics", image="busybox:1.36", log=b"listening on :9090\n"),
        ],
        annotations={"kubectl.kubernetes.io/default-container": "vllm"},
    )


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(monkeypatch)
    monkeypatch.chdir(LOGS)


@pytest.fixture
def cluster() -> Cluster:
    return Cluster(
        pods=[
            pod("a2kq9", START + SERVING),
            pod("b7xw4", HOTFIXED + SERVING),
            pod("c9m2p", START, ready=False),  # still loading: the start-up is printed
        ]
    )


@pytest.fixture
def api(cluster: Cluster, tmp_path: Path) -> Iterator[Running]:
    with running(cluster, tmp_path) as standin:
        yield standin


def drift(run_line: Run, api: Running, *extra: str) -> Result:
    """The scan of every pod, or of the one ``--pod`` in ``extra``."""
    select = [] if "--pod" in extra else ["-l", "app=vllm"]
    return run_line(
        [
            "drift",
            "-f",
            "vllm-values.yaml",
            "--kube",
            "--kubeconfig",
            str(api.kubeconfig),
            *select,
            "--source",
            "logs",
            *extra,
        ]
    )


def test_start_up_logs_of_every_pod(run_line: Run, api: Running, cluster: Cluster) -> None:
    result = drift(run_line, api)
    assert result.exit_code == 1
    read = "read: vLLM 0.11.0: non-default args, scheduler defaults, V1 engine config"
    assert result.output == (
        f"kube://llm/llm-vllm-7f9c-a2kq9/vllm logs: in sync (vllm defaults applied; {read})\n"
        f"kube://llm/llm-vllm-7f9c-b7xw4/vllm logs: 1 difference (vllm defaults applied; "
        f"{read})\n"
        "  field          values.yaml  live  status   edit at\n"
        "  max_model_len  8192         4096  changed  vllm-values.yaml:10\n"
        f"kube://llm/llm-vllm-7f9c-c9m2p/vllm logs: in sync (vllm defaults applied; {read})\n"
        "1 difference in 1 of 3 targets, 2 in sync\n"
    )
    # The start of each log, as kubectl logs --limit-bytes asks for it.
    assert sorted(q["container"][0] for q in cluster.log_queries) == ["vllm"] * 3
    assert {q["limitBytes"][0] for q in cluster.log_queries} == {"8388608"}
    assert not [q for q in cluster.log_queries if "previous" in q]


def test_the_start_up_part_is_found_in_a_long_log(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    # 2.6 MB of access lines after the start-up: only the first 64 KiB are read.
    assert len(START + SERVING) > 2_500_000
    result = drift(run_line, api, "--log-bytes", "65536", "--pod", "llm-vllm-7f9c-b7xw4")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == "1 difference in 1 of 1 target, 0 in sync"
    assert cluster.log_queries[-1]["limitBytes"] == ["65536"]


def test_a_start_up_beyond_the_byte_limit_says_so(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    download = b"".join(
        b"(APIServer pid=1) INFO 10-21 09:13:%02d [weight_utils.py:392] Downloading shard %d\n"
        % (i % 60, i)
        for i in range(200)
    )
    cluster.pods[0].containers[0].log = download + START
    result = drift(run_line, api, "--log-bytes", "4096", "--pod", "llm-vllm-7f9c-a2kq9")
    assert result.exit_code == 3
    assert result.output.startswith(
        "kube://llm/llm-vllm-7f9c-a2kq9/vllm logs: error (unrecognised-format): this is a "
        "log, but it holds no start-up configuration that servelint reads (was the start of "
        "the log cut off? with --source logs, raise --log-bytes); the formats understood are: "
    )
    assert drift(run_line, api, "--pod", "llm-vllm-7f9c-a2kq9").exit_code == 0


def test_previous_reads_the_instance_before_the_restart(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    # a2kq9 crashed with the hot-fixed configuration and runs the committed one now.
    cluster.pods[0].containers[0].previous_log = HOTFIXED
    result = drift(run_line, api, "--previous", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert [(t["pod"], t["outcome"], t.get("reason")) for t in report["targets"]] == [
        ("llm-vllm-7f9c-a2kq9", "compared", None),
        ("llm-vllm-7f9c-b7xw4", "error", "no-previous-log"),
        ("llm-vllm-7f9c-c9m2p", "error", "no-previous-log"),
    ]
    assert report["targets"][1]["message"] == (
        "reading the previous log of container 'vllm': HTTP 400: previous terminated "
        'container "vllm" in pod "llm-vllm-7f9c-b7xw4" not found; container \'vllm\' has not '
        "restarted, drop --previous to read its current log"
    )
    assert [(f["rule"], f["path"], f["live"]) for f in report["findings"] if f["line"]] == [
        ("drift/changed", "max_model_len", 4096)
    ]
    assert {q.get("previous", [""])[0] for q in cluster.log_queries} == {"true"}


def test_a_container_the_pod_does_not_have(run_line: Run, api: Running) -> None:
    result = drift(run_line, api, "--pod", "llm-vllm-7f9c-a2kq9", "-c", "engine")
    assert result.exit_code == 3
    assert result.output.splitlines()[0] == (
        "kube://llm/llm-vllm-7f9c-a2kq9/engine logs: error (container-missing): reading the "
        "log of container 'engine': HTTP 400: container engine is not valid for pod "
        "llm-vllm-7f9c-a2kq9; the pod's containers are: vllm, metrics (pass --container)"
    )


def test_the_sidecar_log_holds_no_configuration(run_line: Run, api: Running) -> None:
    result = drift(run_line, api, "--pod", "llm-vllm-7f9c-a2kq9", "-c", "metrics")
    assert result.exit_code == 3
    assert "error (unrecognised-format): the live text is neither a config document" in (
        result.output
    )


def test_the_shipped_role_is_enough_for_logs(run_line: Run, api: Running, cluster: Cluster) -> None:
    # The stand-in refuses every request the Role in deploy/drift-scan/rbac.yaml does not
    # grant: the scheduled scan with --source logs reads the server's log.
    rbac = Path(__file__).parent.parent / "deploy" / "drift-scan" / "rbac.yaml"
    role = next(d for d in yaml.safe_load_all(rbac.read_text()) if d["kind"] == "Role")
    granted = {(v, r) for rule in role["rules"] for r in rule["resources"] for v in rule["verbs"]}
    checked = {("get", "pods"), ("list", "pods"), ("get", "pods/log"), ("get", "pods/proxy")}
    cluster.denied |= checked - granted
    result = drift(run_line, api, "--pod", "llm-vllm-7f9c-b7xw4")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == "1 difference in 1 of 1 target, 0 in sync"
    assert [q["container"][0] for q in cluster.log_queries] == ["vllm"]


def test_forbidden_logs_name_the_permission(run_line: Run, api: Running, cluster: Cluster) -> None:
    cluster.denied.add(("get", "pods/log"))
    result = drift(run_line, api, "--pod", "llm-vllm-7f9c-a2kq9")
    assert result.exit_code == 3
    line = result.output.splitlines()[0]
    assert line.startswith(
        "kube://llm/llm-vllm-7f9c-a2kq9/vllm logs: error (forbidden): reading the log of "
        "container 'vllm': 403 Forbidden: "
    )
    assert line.endswith(
        "grant verb 'get' on resource 'pods/log' in a Role bound to it "
        "(see deploy/drift-scan/rbac.yaml)"
    )


def test_secrets_in_logs_never_leave(run_line: Run, api: Running) -> None:
    for fmt in ("text", "json", "prometheus", "html"):
        result = drift(run_line, api, "--values-path", "vllm", "--format", fmt)
        assert result.exit_code == 1
        assert "sk-live-0a1b2c3d4e5f60718293a4b5c6d7e8f9" not in result.output


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--previous"], "Error: --previous only apply with --kube --source logs"),
        (["--log-bytes", "4096"], "Error: --log-bytes only apply with --kube --source logs"),
    ],
)
def test_log_options_need_the_logs_source(run_line: Run, option: list[str], message: str) -> None:
    result = run_line(["drift", "-f", "vllm-values.yaml", "--live", "x.log", *option])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == message


# -- the stand-in's Pod log API, as the real client sees it --------------------------------


def test_standin_log_query_parameters(api: Running) -> None:
    api_client = config.new_client_from_config(config_file=str(api.kubeconfig))
    core = client.CoreV1Api(api_client)
    try:
        name = "llm-vllm-7f9c-a2kq9"
        head = core.read_namespaced_pod_log(name, "llm", container="vllm", limit_bytes=100)
        assert head == START[:100].decode()
        tail = core.read_namespaced_pod_log(name, "llm", container="vllm", tail_lines=2)
        assert tail == b"".join(SERVING.splitlines(keepends=True)[-2:]).decode()
        both = core.read_namespaced_pod_log(
            name, "llm", container="vllm", tail_lines=2, limit_bytes=10
        )
        assert both == tail[:10]
        with pytest.raises(ApiException) as previous:
            core.read_namespaced_pod_log(name, "llm", container="vllm", previous=True)
        assert previous.value.status == 400
        with pytest.raises(ApiException) as unnamed:
            core.read_namespaced_pod_log(name, "llm")
        assert json.loads(unnamed.value.body)["message"] == (
            f"a container name must be specified for pod {name}, choose one of: [vllm metrics]"
        )
        with pytest.raises(ApiException) as invalid:
            core.read_namespaced_pod_log(name, "llm", container="vllm", limit_bytes=0)
        assert invalid.value.status == 422
        assert json.loads(invalid.value.body)["message"] == (
            "limitBytes: Invalid value: 0: must be greater than 0"
        )
    finally:
        api_client.close()


def test_a_pending_pod_has_no_log_yet(run_line: Run, api: Running, cluster: Cluster) -> None:
    cluster.pods[2].phase = "Pending"
    result = drift(run_line, api)
    assert result.exit_code == 1
    assert result.output.splitlines()[-2:] == [
        "kube://llm/llm-vllm-7f9c-c9m2p/vllm logs: not ready: pod is Pending, not Running; "
        "not compared",
        "1 difference in 1 of 3 targets, 1 in sync, 1 not ready",
    ]
    assert cluster.count("/pods/llm-vllm-7f9c-c9m2p/log") == 0
    assert cluster.count("/pods/llm-vllm-7f9c-a2kq9/log") == 1


def test_a_secret_in_a_json_argument_of_the_log_is_masked_in_every_format(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    cluster.pods[0].containers[0].log = START.replace(
        b"'served_model_name': ['llama-3.1-8b']",
        b"'served_model_name': ['{\"api_key\": \"Wq83nBv5Lk20Xc7Rt\"}']",
    )
    pod = ("--pod", "llm-vllm-7f9c-a2kq9")
    text = drift(run_line, api, *pod)
    assert text.exit_code == 1
    assert text.output.splitlines()[1:] == [
        "  field              values.yaml   live                 status   edit at",
        '  served_model_name  llama-3.1-8b  {"api_key": "****"}  changed  vllm-values.yaml:11',
        "1 difference in 1 of 1 target, 0 in sync",
    ]
    report = json.loads(drift(run_line, api, *pod, "--format", "json").output)
    assert [f["live"] for f in report["findings"]] == ['{"api_key": "****"}']
    for fmt in ("json", "prometheus"):
        assert "Wq83nBv5Lk20Xc7Rt" not in drift(run_line, api, *pod, "--format", fmt).output


def test_a_hostile_start_up_line_does_not_hold_the_scan(
    run_line: Run, api: Running, cluster: Cluster
) -> None:
    # A 3 KB line the literal reader took cubic time on (issue 31): the scan ends within
    # its --timeout, that pod's log is not understood, the other pod is compared.
    hostile = (
        b"(APIServer pid=1) INFO 10-21 09:14:02 [utils.py:233] non-default args: "
        b"{'model': 'm', 'max_model_len': " + b"1" * 3000 + b"x}\n"
    )
    cluster.pods[0].containers[0].log = hostile
    started = time.monotonic()
    result = drift(run_line, api, "--timeout", "20")
    lines = result.output.splitlines()
    assert (result.exit_code, lines[0].split(": ", 1)[0], lines[-1]) == (
        1,
        "kube://llm/llm-vllm-7f9c-a2kq9/vllm logs",
        "1 difference in 1 of 3 targets, 1 in sync, 1 error",
    )
    assert "the non-default args could not be read (unexpected '1' at character 34)" in lines[0]
    assert time.monotonic() - started < 20
