"""The drift-scan CronJob example: its manifests lint cleanly, its scan command runs, and
its push script sends the exposition to a Pushgateway."""

from __future__ import annotations

import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from click.testing import Result
from kube_standin import Cluster, Container, Pod
from kube_standin.fixtures import isolate, running
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).parent.parent
DEPLOY = ROOT / "deploy" / "drift-scan"
FIXTURES = Path(__file__).parent / "fixtures" / "drift"
POLICY = FIXTURES / "policies"
Run = Callable[..., Result]


def documents(name: str) -> list[dict[str, Any]]:
    return list(yaml.safe_load_all((DEPLOY / name).read_text()))


def test_the_manifests_lint_cleanly(run_line: Run) -> None:
    result = run_line(["lint", "--no-builtin", str(DEPLOY)])
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 info in 3 files\n")
    checked = run_line(["lint", "--no-builtin", "--policy-dir", str(POLICY), str(DEPLOY)])
    assert (checked.exit_code, checked.output) == (0, "0 errors, 0 warnings, 0 info in 3 files\n")


def test_the_policy_catches_a_writable_role_and_a_missing_metrics_format(
    run_line: Run, tmp_path: Path
) -> None:
    rbac = (
        (DEPLOY / "rbac.yaml")
        .read_text()
        .replace('verbs: ["get", "list"]', 'verbs: ["get", "list", "delete"]')
    )
    cronjob = (DEPLOY / "cronjob.yaml").read_text().replace("--format prometheus", "--format json")
    (tmp_path / "rbac.yaml").write_text(rbac)
    (tmp_path / "cronjob.yaml").write_text(cronjob)
    result = run_line(["lint", "--no-builtin", "--policy-dir", str(POLICY), str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (
        f"{tmp_path}/cronjob.yaml:38:11: error drift-scan/prometheus-output the drift scan "
        "must write --format prometheus\n"
        f"{tmp_path}/rbac.yaml:24:5: error drift-scan/read-only-role Role rule 0 grants more "
        "than reading\n"
        "2 errors, 0 warnings, 0 info in 2 files\n"
    )


def test_the_role_grants_exactly_what_the_sources_need() -> None:
    role = next(d for d in documents("rbac.yaml") if d["kind"] == "Role")
    assert [(r["resources"], r["verbs"], r.get("resourceNames")) for r in role["rules"]] == [
        (["pods"], ["get", "list"], None),
        (["pods/log"], ["get"], None),
        (["pods/exec"], ["get", "create"], None),
        (["pods/proxy"], ["get"], None),
        (["configmaps"], ["get"], ["llm-vllm-config"]),
    ]
    binding = next(d for d in documents("rbac.yaml") if d["kind"] == "RoleBinding")
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "servelint-drift", "namespace": "llm"}
    ]


def scan_command() -> list[str]:
    cronjob = next(d for d in documents("cronjob.yaml") if d["kind"] == "CronJob")
    script = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"][0]
    first = script.replace("\\\n", " ").splitlines()[0]
    words = shlex.split(first)
    assert words[:2] == ["servelint", "drift"]
    return words[1:]


@pytest.fixture
def vllm_release(tmp_path: Path) -> Iterator[Path]:
    args = [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--max-model-len=131072",
        "--dtype=bfloat16",
        "--gpu-memory-utilization=0.9",
        "--enable-prefix-caching",
        "--max-num-seqs=32",
        "--tensor-parallel-size=1",
        "--port=8000",
    ]
    pods = [
        Pod(
            f"llm-vllm-7f9c-{n}",
            labels={"app.kubernetes.io/name": "vllm"},
            containers=[Container("vllm", command=["vllm", "serve"], args=args)],
        )
        for n in range(3)
    ]
    with running(Cluster(pods=pods), tmp_path) as api:
        yield api.kubeconfig


def test_the_cronjob_scan_command_runs(
    run_line: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, vllm_release: Path
) -> None:
    isolate(monkeypatch)
    words = scan_command()
    words = [
        str(FIXTURES / "chart-values.yaml") if w == "/values/values.yaml" else w for w in words
    ]
    at = words.index("/values/values-prod.yaml")
    del words[at - 1 : at + 1]  # the fixture chart has one values file
    output = tmp_path / "drift.prom"
    words[words.index("/tmp/drift.prom")] = str(output)
    result = run_line([*words, "--kubeconfig", str(vllm_release)])
    assert (result.exit_code, result.output) == (0, "")
    families = {f.name: f for f in text_string_to_metric_families(output.read_text())}
    assert sorted(
        (s.labels["pod"], s.value) for s in families["servelint_drift_items"].samples
    ) == [("llm-vllm-7f9c-0", 0.0), ("llm-vllm-7f9c-1", 0.0), ("llm-vllm-7f9c-2", 0.0)]


class _Pushgateway(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, str, bytes]]] = []

    def do_PUT(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append(("PUT", self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_the_push_script_puts_the_exposition(tmp_path: Path) -> None:
    configmap = next(d for d in documents("cronjob.yaml") if d["kind"] == "ConfigMap")
    script = tmp_path / "push.py"
    script.write_text(configmap["data"]["push.py"])
    exposition = tmp_path / "drift.prom"
    exposition.write_text("servelint_drift_scan_success 1\n")
    server = HTTPServer(("127.0.0.1", 0), _Pushgateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = (
            f"http://127.0.0.1:{server.server_address[1]}/metrics/job/servelint-drift/"
            "cluster/prod/scan/llm-vllm"
        )
        done = subprocess.run(
            [sys.executable, str(script), url, str(exposition)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert (done.returncode, done.stderr) == (0, "")
    assert _Pushgateway.received == [
        (
            "PUT",
            "/metrics/job/servelint-drift/cluster/prod/scan/llm-vllm",
            "text/plain; version=0.0.4; charset=utf-8",
            b"servelint_drift_scan_success 1\n",
        )
    ]
