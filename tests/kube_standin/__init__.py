"""A stand-in for the Kubernetes API server (loopback only), and a kubeconfig writer.

Tests drive the real ``kubernetes`` client against it through a real kubeconfig file.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from kube_standin.cluster import TOKEN, Cluster, Container, Fault, HttpReply, Pod
from kube_standin.server import StandinServer

__all__ = [
    "TOKEN",
    "Cluster",
    "Container",
    "Fault",
    "HttpReply",
    "Pod",
    "StandinServer",
    "write_kubeconfig",
]


def write_kubeconfig(
    path: Path, server: str, *, token: str = TOKEN, namespace: str = "llm", context: str = "standin"
) -> Path:
    """A kubeconfig with one cluster, one token user and one context (the current one)."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "standin", "cluster": {"server": server}}],
        "users": [{"name": "drift-scanner", "user": {"token": token}}],
        "contexts": [
            {
                "name": context,
                "context": {"cluster": "standin", "user": "drift-scanner", "namespace": namespace},
            }
        ],
        "current-context": context,
        "preferences": {},
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path
