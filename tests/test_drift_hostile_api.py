"""``servelint drift --kube`` against a hostile or broken API server (loopback): every
request ends by its deadline, no answer is read beyond the size limit, and an answer of
the wrong shape fails the scan (or the one pod) with a clear reason, never a traceback;
the JSON report is still written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kube_standin import write_kubeconfig
from kube_standin.fixtures import isolate
from kube_standin.hostile import HostileServer

FIXTURES = Path(__file__).parent / "fixtures" / "drift"
CONFIG = (FIXTURES / "live" / "pod-config.json").read_bytes()
_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.monotonic()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, errors="replace")
print(json.dumps({"code": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                  "seconds": time.monotonic() - start,
                  "peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""
TIMEOUT = 2.0  # the scan's --timeout: the product's deadline under test, not a bound
# A hang guard: each case takes 0.5-3 s alone (the slow ones wait out the 2 s --timeout);
# twenty times the slowest keeps a busy machine green, and a request that ignored its
# deadline (the hostile server drips for minutes) still fails.
MAX_SECONDS = 60.0
# A 50 MiB answer limit; reading a 1 GiB answer whole took 2.1 GB.
MAX_RSS = 400 * 2**20


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(monkeypatch)


def _scan(
    mode: str, tmp_path: Path, fmt: str = "json"
) -> tuple[dict[str, Any], dict[str, Any] | str]:
    with HostileServer(mode, CONFIG) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        command = [sys.executable, "-c", _WRAPPER, sys.executable, "-m", "linter", "drift"]
        command += ["-f", str(FIXTURES / "values.yaml"), "--values-path", "server.config"]
        command += ["--kube", "--kubeconfig", str(kubeconfig), "--selector", "app=vllm"]
        command += ["--source", "exec:/etc/vllm/config.json", "--timeout", str(TIMEOUT)]
        command += ["--retries", "0", "--format", fmt, "-o", str(tmp_path / "drift.out")]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=300, check=True, env=os.environ
        )
    run = json.loads(done.stdout)
    assert "Traceback" not in run["stderr"], run["stderr"]
    assert run["seconds"] < MAX_SECONDS, f"took {run['seconds']:.1f} s"
    assert run["peak"] < MAX_RSS, f"peak RSS {run['peak'] / 2**20:.0f} MB"
    text = (tmp_path / "drift.out").read_text()
    return run, (json.loads(text) if fmt == "json" else text)


@pytest.mark.parametrize(
    ("mode", "reason", "message"),
    [
        ("slow-head", "timeout", "listing pods in namespace llm: no answer within the timeout"),
        ("slow-body", "timeout", "listing pods in namespace llm: no answer within the timeout"),
        (
            "huge-list",
            "too-large",
            "listing pods in namespace llm: /api/v1/namespaces/{namespace}/pods: the answer is "
            "larger than 52428800 bytes; raise --max-bytes if it is genuine",
        ),
        ("invalid-json", "invalid", "the pod list: the answer is not valid JSON"),
        ("list-for-object", "invalid", "the pod list: the answer is not a JSON object"),
        ("deep-json", "invalid", "the pod list: the answer is nested too deeply to be an object"),
    ],
)
def test_a_broken_answer_fails_the_scan_clearly_and_in_bounds(
    tmp_path: Path, mode: str, reason: str, message: str
) -> None:
    run, report = _scan(mode, tmp_path)
    assert run["code"] == 3
    assert report["error"]["reason"] == reason
    assert report["error"]["message"].startswith(message)


def test_pods_of_the_wrong_shape_fail_alone(tmp_path: Path) -> None:
    run, report = _scan("bad-items", tmp_path)
    outcomes = sorted((t["pod"], t["outcome"], t.get("reason")) for t in report["targets"])
    assert outcomes == [
        ("?", "error", "invalid"),
        ("broken", "error", "invalid"),
        ("vllm-good", "compared", None),
    ]
    # the good pod was compared: its hot-fixed max_num_seqs is drift
    assert run["code"] == 1
    assert [t["differences"] for t in report["targets"] if t["pod"] == "vllm-good"] == [1]


def test_an_endless_exec_message_is_cut_at_the_limit(tmp_path: Path) -> None:
    run, report = _scan("fragments", tmp_path)
    [target] = report["targets"]
    assert (target["pod"], target["outcome"], target["reason"]) == (
        "vllm-flood",
        "error",
        "too-large",
    )
    assert run["code"] == 3


def test_one_pods_hostile_live_file_stays_with_that_pod(
    tmp_path: Path, run_line: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kube_standin import Cluster, Container, Pod
    from kube_standin.fixtures import running

    monkeypatch.chdir(FIXTURES)
    hostile = (
        b"a: &x\n"
        + b"".join(b"  - k%d: v%d\n" % (i, i) for i in range(20_000))
        + b"b:\n  *x : 1\nc: 1"
        + b":00" * 300_000
        + b"\n"
    )

    def pod(name: str, config: bytes) -> Pod:
        files = {"/etc/vllm/config.yaml": config}
        return Pod(name, labels={"app": "vllm"}, containers=[Container("vllm", files=files)])

    cluster = Cluster(pods=[pod("vllm-hostile", hostile), pod("vllm-good", CONFIG)])
    with running(cluster, tmp_path) as api:
        result = run_line(
            [
                "drift",
                "-f",
                "values.yaml",
                "--values-path",
                "server.config",
                "--kube",
                "--kubeconfig",
                str(api.kubeconfig),
                "--selector",
                "app=vllm",
                "--source",
                "exec:/etc/vllm/config.yaml",
                "--timeout",
                "10",
                "--retries",
                "0",
                "--format",
                "json",
            ]
        )
    report = json.loads(result.output)
    outcomes = {t["pod"]: t["outcome"] for t in report["targets"]}
    assert outcomes == {"vllm-good": "compared", "vllm-hostile": "compared"}
    assert result.exit_code == 1


def test_a_pod_name_cannot_drive_the_terminal(tmp_path: Path) -> None:
    run, text = _scan("evil-names", tmp_path, "text")
    assert isinstance(text, str)
    assert "\x1b" not in text and not [line for line in text.splitlines() if line.startswith("::")]
    assert text.splitlines()[0] == (
        "kube://llm/vllm-\\x1b[2J\\x0a::error file=a.py::owned/vllm exec:/etc/vllm/config.json: "
        "1 difference (vllm defaults applied)"
    )
    assert run["code"] == 1
