"""Helpers for tests that run the real ``kubernetes`` client against the stand-in."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from kube_standin import Cluster, StandinServer, write_kubeconfig

_PROXY_VARIABLES = (
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
)


@dataclasses.dataclass(frozen=True)
class Running:
    server: StandinServer
    kubeconfig: Path

    @property
    def url(self) -> str:
        return self.server.url


@contextlib.contextmanager
def running(cluster: Cluster, directory: Path, **kubeconfig: str) -> Iterator[Running]:
    """The stand-in serving ``cluster`` on loopback, and a kubeconfig file pointing at it."""
    server = StandinServer(cluster).start()
    try:
        path = write_kubeconfig(directory / "kubeconfig", server.url, **kubeconfig)
        yield Running(server, path)
    finally:
        server.stop()


def isolate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback only: no proxy from the environment, no user kubeconfig, no in-cluster
    configuration. Every test names its kubeconfig explicitly."""
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
