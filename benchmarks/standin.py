"""Serve a generated cluster of vLLM pods with the tests' Kubernetes API stand-in.

Run by ``drift.py`` as a process of its own, so that the stand-in's CPU (it is Python
too) does not share an interpreter lock with the scan being measured:

    python benchmarks/standin.py PODS LATENCY KUBECONFIG_DIR

prints the API server's URL, serves until standard input closes, then prints the number
of requests it served. Every pod serves both live sources: the engine's config file over
exec (``--source exec:/etc/vllm/config.json``) and its start-up log over the Pod log API
(``--source logs``, ``podlogs.py``); a hot-fixed pod is hot-fixed in both.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

import podlogs  # noqa: E402
from kube_standin import Cluster, Container, Pod, StandinServer, write_kubeconfig  # noqa: E402

LIVE = ROOT / "tests" / "fixtures" / "drift" / "live"


def cluster(pods: int, latency: float, seed: int = 8) -> Cluster:
    """``pods`` Running vLLM pods of one Deployment: most in sync, one in ten hot-fixed
    (``max_num_seqs`` 128), one in fifty not Ready."""
    rng = random.Random(seed)
    # The logs draw from a generator of their own: which pods are hot-fixed or not Ready
    # is the same as before the logs existed, so exec figures stay comparable.
    log_rng = random.Random(seed + 1)
    in_sync = (LIVE / "pod-config.json").read_bytes()
    hotfixed = (LIVE / "pod-config-hotfix.json").read_bytes()
    made = []
    for index in range(pods):
        hot = rng.random() < 0.1
        container = Container(
            "vllm",
            files={"/etc/vllm/config.json": hotfixed if hot else in_sync},
            ready=rng.random() >= 0.02,
            log=podlogs.start_log(log_rng, 128 if hot else 256),
        )
        made.append(
            Pod(
                f"vllm-5d9c7-{index:04d}",
                labels={"app": "vllm", "pod-template-hash": "5d9c7"},
                owner=("ReplicaSet", "vllm-5d9c7"),
                containers=[container],
            )
        )
    return Cluster(pods=made, latency=latency)


def main() -> int:
    pods, latency, directory = int(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3])
    served = cluster(pods, latency)
    server = StandinServer(served).start()
    # Many short-lived connections at once: a deeper accept queue than the default 5.
    server.socket.listen(256)
    write_kubeconfig(directory / "kubeconfig", server.url)
    print(server.url, flush=True)
    sys.stdin.read()
    server.stop()
    print(len(served.requests), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
