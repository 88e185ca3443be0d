"""Pairing through the serving model (no --values-path): engine settings of the values
against what a running server reports, whatever the chart layout and key spelling."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result
from kube_standin import Cluster, Container, Pod
from kube_standin.fixtures import Running, isolate, running

FIXTURES = Path(__file__).parent / "fixtures" / "drift"
Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(monkeypatch)
    monkeypatch.chdir(FIXTURES)


def test_values_keys_against_a_vllm_config_file(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "values.yaml",
            "-f",
            "values-prod.yaml",
            "--live",
            "live/vllm-config.json",
            "--live",
            "live/vllm-config-in-sync.yaml",
        ]
    )
    assert result.exit_code == 1
    assert result.output == (
        "live/vllm-config-in-sync.yaml: in sync (vllm defaults applied)\n"
        "live/vllm-config.json: 1 difference (vllm defaults applied)\n"
        "  field         values.yaml  live  status   edit at\n"
        "  max_num_seqs  256          128   changed  values-prod.yaml:4\n"
        "1 difference in 1 of 2 targets, 1 in sync\n"
    )


def test_grouped_chart_values_against_v1_models(run_line: Run) -> None:
    # /v1/models reports max_model_len and the model only: nothing else is compared.
    result = run_line(["drift", "-f", "chart-values.yaml", "--live", "live/vllm-models.json"])
    assert result.exit_code == 1
    assert result.output == (
        "live/vllm-models.json: 1 difference (vllm defaults applied)\n"
        "  not reported by this source (not compared): dtype, enable_prefix_caching, "
        "gpu_memory_utilization, max_num_seqs, tensor_parallel_size\n"
        "  field          values.yaml  live   status   edit at\n"
        "  max_model_len  131072       65536  changed  chart-values.yaml:10\n"
        "1 difference in 1 of 1 target, 0 in sync\n"
    )


def test_tgi_launcher_values_against_info(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "tgi-values.yaml",
            "--live",
            "live/tgi-info.json",
            "--live",
            "live/tgi-info-hotfixed.json",
        ]
    )
    assert result.exit_code == 1
    assert result.output == (
        "live/tgi-info-hotfixed.json: 3 differences (tgi defaults applied; "
        "read: TGI 3.2.1: /info)\n"
        "  field                    values.yaml  live   status           edit at\n"
        "  max_stop_sequences       -            8      unexpected-live  tgi-values.yaml:1\n"
        "  max_concurrent_requests  128          64     changed          tgi-values.yaml:5\n"
        "  max_total_tokens         32768        16384  changed          tgi-values.yaml:6\n"
        "live/tgi-info.json: in sync (tgi defaults applied; read: TGI 3.2.1: /info)\n"
        "3 differences in 1 of 2 targets, 1 in sync\n"
    )


def test_sglang_values_against_server_info(run_line: Run) -> None:
    result = run_line(
        ["drift", "-f", "sglang-values.yaml", "--live", "live/sglang-server-info.json"]
    )
    assert result.exit_code == 0
    assert result.output == (
        "live/sglang-server-info.json: in sync (sglang defaults applied; "
        "read: SGLang 0.5.2rc1: /get_server_info)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


def test_a_live_server_the_values_do_not_describe(run_line: Run) -> None:
    result = run_line(["drift", "-f", "chart-values.yaml", "--live", "live/tgi-info.json"])
    assert result.exit_code == 3
    assert result.output == (
        "live/tgi-info.json: error (no-pairing): the live server is tgi but the committed files "
        "describe: vllm; pair the sides with --values-path\n"
        "0 differences in 0 of 1 target, 0 in sync, 1 error\n"
    )


def test_a_live_document_the_serving_model_cannot_read(run_line: Run) -> None:
    result = run_line(["drift", "-f", "values.yaml", "--live", "live/triton-config.json"])
    assert result.exit_code == 3
    assert result.output.startswith(
        "live/triton-config.json: error (unrecognised): the live config is not one the "
        "serving model reads"
    )


def test_values_without_a_server_are_compared_as_a_whole(run_line: Run, tmp_path: Path) -> None:
    values = tmp_path / "config-values.yaml"
    values.write_text("maxModelLen: 4096\nreplicaCount: 2\n")
    live = tmp_path / "live.json"
    live.write_text('{"max_model_len": 8192, "replica_count": "2"}\n')
    result = run_line(["drift", "-f", str(values), "--live", str(live)])
    assert result.exit_code == 1
    assert result.output == (
        "note: the values describe no inference server that the serving model recognises: "
        "they are compared as a whole with the live document (--values-path compares a "
        "subtree)\n"
        f"{live}: 1 difference\n"
        "  field        values.yaml  live  status   edit at\n"
        f"  maxModelLen  4096         8192  changed  {values}:1\n"
        "1 difference in 1 of 1 target, 0 in sync\n"
    )


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Running]:
    args = [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--max-model-len=131072",
        "--dtype=bfloat16",
        "--gpu-memory-utilization=0.9",
        "--enable-prefix-caching",
        "--max-num-seqs=16",
        "--tensor-parallel-size=1",
        "--port=8000",
    ]
    pod = Pod(
        "llm-vllm-7f9c-x2kq9",
        labels={"app.kubernetes.io/name": "vllm", "pod-template-hash": "7f9c"},
        owner=("ReplicaSet", "llm-vllm-7f9c"),
        containers=[
            Container(
                "vllm",
                command=["vllm", "serve"],
                args=args,
                resources={"limits": {"nvidia.com/gpu": 1}},
            ),
            Container("metrics-sidecar", image="busybox:1.36"),
        ],
    )
    with running(Cluster(pods=[pod]), tmp_path) as standin:
        yield standin


def test_podspec_args_against_grouped_values(run_line: Run, api: Running) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "chart-values.yaml",
            "--kube",
            "--kubeconfig",
            str(api.kubeconfig),
            "-l",
            "app.kubernetes.io/name=vllm",
            "--source",
            "podspec",
            "--format",
            "prometheus",
        ]
    )
    assert result.exit_code == 1
    assert (
        'servelint_drift_items{namespace="llm",workload="llm-vllm",'
        'pod="llm-vllm-7f9c-x2kq9",container="vllm",source="podspec"} 1'
        in result.output.splitlines()
    )
    text = run_line(
        [
            "drift",
            "-f",
            "chart-values.yaml",
            "--kube",
            "--kubeconfig",
            str(api.kubeconfig),
            "-l",
            "app.kubernetes.io/name=vllm",
            "--source",
            "podspec",
        ]
    )
    assert text.output.splitlines()[1:3] == [
        "  field         values.yaml  live  status   edit at",
        "  max_num_seqs  32           16    changed  chart-values.yaml:16",
    ]


def test_podspec_of_a_container_without_a_server(run_line: Run, api: Running) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "chart-values.yaml",
            "--kube",
            "--kubeconfig",
            str(api.kubeconfig),
            "--pod",
            "llm-vllm-7f9c-x2kq9",
            "-c",
            "metrics-sidecar",
            "--source",
            "podspec",
        ]
    )
    assert result.exit_code == 3
    assert result.output.splitlines()[0] == (
        "kube://llm/llm-vllm-7f9c-x2kq9/metrics-sidecar podspec: error (unrecognised): "
        "container 'metrics-sidecar' does not run an inference server the serving model "
        "recognises; pair the sides with --values-path"
    )
