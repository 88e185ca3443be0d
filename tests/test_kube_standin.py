"""The stand-in for the Kubernetes API server itself: framing, selectors, large exec output
and failures, as the real ``kubernetes`` client sees them."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from kube_standin import Cluster, Container, Pod
from kube_standin import websocket as ws
from kube_standin.cluster import matches_selector
from kube_standin.fixtures import isolate, running
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
from kubernetes.stream import stream


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 200_000])
def test_frames_round_trip_at_every_length_encoding(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    left, right = socket.socketpair()
    with left, right:
        left.sendall(ws.encode_frame(ws.OP_BINARY, payload))
        assert ws.read_frame(right) == (ws.OP_BINARY, payload)


def test_accept_key_of_rfc_6455() -> None:
    # The example handshake of RFC 6455, section 1.3.
    assert ws.accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("app=vllm", True),
        ("app==vllm", True),
        ("app!=vllm", False),
        ("app", True),
        ("!app", False),
        ("tier in (gpu, cpu)", True),
        ("tier notin (gpu)", False),
        ("app=vllm,tier=cpu", False),
        ("", True),
    ],
)
def test_label_selectors(selector: str, expected: bool) -> None:
    assert matches_selector({"app": "vllm", "tier": "gpu"}, selector) is expected


def test_large_exec_output_and_failures_through_the_real_client(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    isolate(monkeypatch)
    big = json.dumps({"k": "x" * 300_000}).encode()
    cluster = Cluster(pods=[Pod("p", containers=[Container("c", files={"/big.json": big})])])
    with running(cluster, tmp_path) as api:
        api_client = config.new_client_from_config(
            config_file=str(api.kubeconfig), persist_config=False
        )
        core = client.CoreV1Api(api_client)
        session = stream(
            core.connect_get_namespaced_pod_exec,
            "p",
            "llm",
            command=["cat", "/big.json"],
            container="c",
            stderr=True,
            stdin=False,
            stdout=True,
            tty=False,
            _preload_content=False,
        )
        session.run_forever(timeout=5)
        output = session.read_channel(1)
        code = session.returncode
        session.close()
        session.sock.shutdown()
        with pytest.raises(ApiException) as missing:
            core.read_namespaced_config_map("nope", "llm")
        with pytest.raises(ApiException) as unknown:
            core.list_namespaced_service("llm")
        api_client.close()
    assert (len(output), code) == (len(big), 0)
    assert json.loads(missing.value.body) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'configmaps "nope" not found',
        "reason": "NotFound",
        "details": {"name": "nope", "kind": "configmaps"},
        "code": 404,
    }
    assert unknown.value.status == 404
