"""Drift against what servers print: start-up logs and info answers of vLLM, TGI, SGLang and
Triton, read from files and from standard input (fixtures in tests/fixtures/drift/logs,
written in the shapes the servers print)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.drift.live import UnknownCapture, literal, read_capture
from linter.drift.live.lines import clean
from linter.drift.live.vllm import key_values

LOGS = Path(__file__).parent / "fixtures" / "drift" / "logs"
Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(LOGS)


def _rows(result: Result) -> list[tuple[str, str, str, str, str]]:
    """The (rule, path, desired, live, file:line) of every finding of a JSON report."""
    report = json.loads(result.output)
    return [
        (f["rule"], f["path"], f.get("desired"), f.get("live"), f"{f['file']}:{f['line']}")
        for f in report["findings"]
    ]


# -- the printed forms ---------------------------------------------------------------------


def test_python_reprs_enums_and_torch_dtypes() -> None:
    text = (
        "{'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': "
        "<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'config_format': "
        "<ConfigFormat.AUTO: 'auto'>, 'dtype': torch.bfloat16, 'load': LoadFormat.AUTO, "
        "'fn': <function ServeSubcommand.cmd at 0x7f225baa9a80>, 'sizes': [1, 2], "
        "'none': None, 'json': {\"a\": true, \"b\": null}}"
    )
    assert literal.parse(text) == {
        "mode": "VLLM_COMPILE",
        "cudagraph_mode": "FULL_AND_PIECEWISE",
        "config_format": "auto",
        "dtype": "bfloat16",
        "load": "auto",
        "fn": "<function ServeSubcommand.cmd at 0x7f225baa9a80>",
        "sizes": [1, 2],
        "none": None,
        "json": {"a": True, "b": None},
    }


def test_rust_debug_struct_with_some_none_and_enums() -> None:
    text = (
        'Args {\n    model_id: "org/m",\n    quantize: Some(\n        BitsandbytesNF4,\n    ),\n'
        '    revision: Some("main"),\n    speculate: None,\n    cors_allow_origin: [],\n'
        '    usage_stats: On,\n    note: "a \\"quoted\\"\\nline",\n}'
    )
    assert literal.parse(text) == {
        "model_id": "org/m",
        "quantize": "bitsandbytes-nf4",
        "revision": "main",
        "speculate": None,
        "cors_allow_origin": [],
        "usage_stats": "on",
        "note": 'a "quoted"\nline',
    }


def test_namespace_and_server_args_calls_are_maps() -> None:
    assert literal.parse("Namespace(model='m', tp=2, x=ObservabilityConfig(a=None))") == {
        "model": "m",
        "tp": 2,
        "x": {"a": None},
    }


def test_a_broken_literal_says_where() -> None:
    with pytest.raises(literal.LiteralError, match="missing '}' at character 10"):
        literal.parse("{'a': 1, ")


def test_engine_config_pairs_with_bare_text_and_a_missing_comma() -> None:
    # vLLM 0.6 prints "chunked_prefill_enabled=False multi_step_stream_outputs=True" and
    # closes the line with ")"; bare values (paths, enum names) stay text.
    text = (
        "model='/m', served_model_name=org/model, dtype=torch.float16, "
        "load_format=LoadFormat.AUTO, kv_cache_dtype=auto,  device_config=cuda, "
        "chunked_prefill_enabled=False multi_step_stream_outputs=True, "
        "mm_processor_kwargs=None)"
    )
    assert key_values(text) == {
        "model": "/m",
        "served_model_name": "org/model",
        "dtype": "float16",
        "load_format": "auto",
        "kv_cache_dtype": "auto",
        "device_config": "cuda",
        "chunked_prefill_enabled": False,
        "multi_step_stream_outputs": True,
        "mm_processor_kwargs": None,
    }


@pytest.mark.parametrize(
    ("raw", "text", "process"),
    [
        (
            "2025-10-21T09:14:21.581194280Z \x1b[1;36m(EngineCore_DP0 pid=231)\x1b[0;0m "
            "INFO 10-21 09:14:21 [core.py:77] Initializing",
            "Initializing",
            "EngineCore_DP0 pid=231",
        ),
        ("vLLM STDOUT: INFO 05-05 15:15:08 [api_server.py:982] args: x", "args: x", ""),
        (
            "(RayWorkerWrapper pid=9120, ip=10.4.0.17) INFO 03-02 10:00:00 worker.py:1] x",
            "x",
            "RayWorkerWrapper pid=9120, ip=10.4.0.17",
        ),
        ("[pod/vllm-0/vllm] INFO 10-21 09:14:02 [utils.py:233] y", "y", "pod/vllm-0/vllm"),
        ("[2025-11-03 14:02:19 TP1] Load weight begin.", "Load weight begin.", "TP1"),
        (
            "\x1b[2m2024-09-20T08:31:40.102381Z\x1b[0m \x1b[32m INFO\x1b[0m "
            "\x1b[2mtext_generation_launcher\x1b[0m\x1b[2m:\x1b[0m Args {",
            "Args {",
            "",
        ),
        ("I0717 23:01:28.501073 300 tritonserver.cc:2579] ", "", ""),
        # Nested, in the order they nest: kubectl's prefix and time, Ray, a wrapper, vLLM.
        (
            "[pod/vllm-0/vllm] 2025-10-21T09:14:21Z (EngineCore_DP0 pid=7) vLLM STDOUT: "
            "INFO 10-21 09:14:21 [core.py:77] z",
            "z",
            "pod/vllm-0/vllm EngineCore_DP0 pid=7",
        ),
        # A prefix uncovered by removing another, in a second pass.
        (
            "(APIServer pid=1) (EngineCore_DP0 pid=7) INFO 10-21 09:14:21 [core.py:77] w",
            "w",
            "APIServer pid=1 EngineCore_DP0 pid=7",
        ),
        ("[2025-11-03 14:02:19 DP1 TP2] INFO x.py:3: v", "v", "DP1 TP2"),
    ],
)
def test_prefixes_of_other_tools_are_removed(raw: str, text: str, process: str) -> None:
    (line,) = clean(raw)
    assert (line.text, line.process, line.logged) == (text, process, True)


@pytest.mark.parametrize(
    ("raw", "text", "process"),
    [
        ("plain text (pid=3) INFO", "plain text (pid=3) INFO", ""),
        # SGLang's rank names the process even where no prefix is removed.
        ("[2025-11-03 14:02:19 TP1]x", "[2025-11-03 14:02:19 TP1]x", "TP1"),
        ("  indented: yes  ", "  indented: yes", ""),
    ],
)
def test_lines_without_a_logging_prefix_are_kept(raw: str, text: str, process: str) -> None:
    (line,) = clean(raw)
    assert (line.text, line.process, line.logged) == (text, process, False)


def test_triton_json_quoted_messages_become_lines() -> None:
    raw = 'I0219 10:54:00.817137 1 python_be.cc:1574] "model configuration:\\n{\\n}"'
    assert [line.text for line in clean(raw)] == ["model configuration:", "{", "}"]


# -- what each capture is read as --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "described", "settings"),
    [
        (
            "vllm-0.11-dp2.log",
            "vLLM 0.11.0: non-default args, scheduler defaults, V1 engine config",
            {"max_model_len": 8192, "max_num_seqs": 64, "data_parallel_size": 2},
        ),
        (
            "vllm-0.7-namespace.log",
            "vLLM 0.7.3: args Namespace, V0 engine config",
            {"max_model_len": 16384, "tensor_parallel_size": 2, "quantization": "awq_marlin"},
        ),
        (
            "vllm-usage-stats.jsonl",
            "vLLM 0.7.3: usage-stats record (JSON lines)",
            {"dtype": "float16", "gpu_memory_utilization": 0.95, "block_size": 16},
        ),
        (
            "tgi-2.3-launcher.log",
            "TGI: launcher Args, launcher defaults",
            {"max_input_tokens": 7168, "max_batch_prefill_tokens": 7218, "quantize": "eetq"},
        ),
        (
            "tgi-1.4-launcher.log",
            "TGI: launcher Args",
            {"max_input_tokens": 2048, "sharded": False, "waiting_served_ratio": 1.2},
        ),
        (
            "sglang-0.5-launch.log",
            "SGLang: server_args",
            {"tp_size": 2, "mem_fraction_static": 0.85, "context_length": 16384},
        ),
        (
            "sglang-grpc-server-info.json",
            "SGLang 0.5.4: gRPC GetServerInfo",
            {"tp_size": 2, "max_running_requests": 256},
        ),
        (
            "sglang-grpc-server-info-messagetodict.txt",
            "SGLang 0.5.4: gRPC GetServerInfo (Python repr)",
            {"tp_size": 2.0, "max_running_requests": 256.0},
        ),
        (
            "sglang-grpc-model-info.json",
            "SGLang: gRPC GetModelInfo",
            {"model_path": "Qwen/Qwen2.5-7B-Instruct", "is_embedding": False},
        ),
        (
            "triton-24.08-verbose.log",
            "Triton 2.49.0: model configuration llama, option table",
            {"model_control_mode": "explicit", "strict_model_config": False},
        ),
    ],
)
def test_each_capture_names_server_version_and_formats(
    name: str, described: str, settings: dict[str, object]
) -> None:
    capture = read_capture((LOGS / name).read_text())
    assert capture is not None
    assert capture.describe() == described
    assert {k: capture.settings[k] for k in settings} == settings


def test_metadata_and_hardware_fields_are_ignored() -> None:
    capture = read_capture((LOGS / "vllm-usage-stats.jsonl").read_text())
    assert capture is not None
    assert "gpu_type" not in capture.settings and "num_cpu" not in capture.settings
    assert capture.ignored == (
        "architecture",
        "context",
        "cpu_family_model_stepping",
        "cpu_type",
        "cuda_runtime",
        "env_var_json",
        "gpu_count",
        "gpu_memory_per_device",
        "gpu_type",
        "log_time",
        "model_architecture",
        "num_cpu",
        "platform",
        "provider",
        "source",
        "total_memory",
        "uuid",
        "vllm_version",
    )


def test_identical_configs_of_several_processes_collapse() -> None:
    capture = read_capture((LOGS / "vllm-0.11-dp2.log").read_text())
    assert capture is not None
    assert capture.disagreements == ()
    assert capture.formats.count("V1 engine config") == 1


def test_explicit_none_is_unset_not_derived() -> None:
    capture = read_capture((LOGS / "sglang-0.5-launch.log").read_text())
    assert capture is not None
    assert "max_total_tokens" in capture.unset and "max_total_tokens" not in capture.settings


def test_text_that_is_no_format_is_an_error_naming_the_formats() -> None:
    with pytest.raises(UnknownCapture) as caught:
        read_capture((LOGS / "yaml-shaped.log").read_text())
    assert str(caught.value).startswith(
        "this is a log, but it holds no start-up configuration that servelint reads"
    )
    assert "vLLM start-up log (non-default args, args: Namespace(...)" in str(caught.value)


def test_a_config_document_is_left_to_the_document_reader() -> None:
    assert read_capture("max-model-len: 4096\nmax-num-seqs: 64\n") is None


# -- per server: planted drift reports exactly what was planted; in sync exits 0 ----------


def test_vllm_v1_log_in_sync(run_line: Run) -> None:
    result = run_line(["drift", "-f", "vllm-values.yaml", "--live", "vllm-0.11-dp2.log"])
    assert result.exit_code == 0
    assert result.output == (
        "vllm-0.11-dp2.log: in sync (vllm defaults applied; read: vLLM 0.11.0: non-default "
        "args, scheduler defaults, V1 engine config)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


def test_vllm_v1_log_planted_drift_by_setting_name(run_line: Run) -> None:
    result = run_line(["drift", "-f", "vllm-values-drifted.yaml", "--live", "vllm-0.11-dp2.log"])
    assert result.exit_code == 1
    assert result.output == (
        "vllm-0.11-dp2.log: 3 differences (vllm defaults applied; read: vLLM 0.11.0: "
        "non-default args, scheduler defaults, V1 engine config)\n"
        "  field           values.yaml  live  status   edit at\n"
        "  max_model_len   16384        8192  changed  vllm-values-drifted.yaml:10\n"
        "  kv_cache_dtype  fp8          auto  changed  vllm-values-drifted.yaml:15\n"
        "  max_num_seqs    128          64    changed  vllm-values-drifted.yaml:17\n"
        "3 differences in 1 of 1 target, 0 in sync\n"
    )


def test_several_served_model_names_compare_as_the_command_line_gives_them(
    run_line: Run, tmp_path: Path
) -> None:
    """``--served-model-name a b`` prints as a list of two: the committed list is in sync
    with it, and a name changed on either side is reported at its line."""
    log = (LOGS / "vllm-0.11-dp2.log").read_text()
    two = log.replace(
        "'served_model_name': ['llama-3.1-8b']", "'served_model_name': ['llama-3.1-8b', 'llama']"
    )
    assert two != log
    (tmp_path / "two-names.log").write_text(two)
    values = (LOGS / "vllm-values.yaml").read_text()
    listed = values.replace(
        "      servedModelName: llama-3.1-8b\n",
        "      servedModelName:\n        - llama-3.1-8b\n        - llama\n",
    )
    assert listed != values
    (tmp_path / "values.yaml").write_text(listed)
    (tmp_path / "renamed.yaml").write_text(listed.replace("        - llama\n", "        - l3\n"))
    in_sync = run_line(
        ["drift", "-f", str(tmp_path / "values.yaml"), "--live", str(tmp_path / "two-names.log")]
    )
    assert in_sync.exit_code == 0, in_sync.output
    renamed = run_line(
        [
            "drift",
            "-f",
            str(tmp_path / "renamed.yaml"),
            "--live",
            str(tmp_path / "two-names.log"),
            "--format",
            "json",
        ]
    )
    assert renamed.exit_code == 1
    findings = json.loads(renamed.output)["findings"]
    assert [(f["rule"], f["path"], f["desired"], f["live"], f["line"]) for f in findings] == [
        (
            "drift/served-model-name",
            "served_model_name",
            "llama-3.1-8b l3",
            "llama-3.1-8b llama",
            11,
        )
    ]


def test_vllm_v0_namespace_log(run_line: Run) -> None:
    args = ["drift", "-f", "vllm-0.7-values.yaml", "--live", "vllm-0.7-namespace.log"]
    assert run_line(args).exit_code == 0
    drifted = run_line(
        [
            *args,
            "--set",
            "vllm.engineArgs.parallel.tensorParallelSize=4",
            "--set",
            "vllm.engineArgs.cache.swapSpace=8",
            "--set",
            "vllm.engineArgs.scheduler.maxNumSeqs=32",
            "--format",
            "json",
        ]
    )
    assert drifted.exit_code == 1
    # max_num_seqs=None in the Namespace: not set, so the values' 32 never reached vLLM.
    assert _rows(drifted) == [
        ("drift/changed", "tensor_parallel_size", 4, 2, "<--set>:1"),
        ("drift/changed", "swap_space", 8, 4, "<--set>:2"),
        ("drift/missing-live", "max_num_seqs", 32, None, "<--set>:3"),
    ]


def test_vllm_usage_record_ignores_the_hardware(run_line: Run) -> None:
    args = ["drift", "-f", "vllm-0.7-values.yaml", "--live", "vllm-usage-stats.jsonl"]
    assert run_line(args).output == (
        "vllm-usage-stats.jsonl: in sync (vllm defaults applied; read: vLLM 0.7.3: "
        "usage-stats record (JSON lines))\n"
        "  not reported by this source (not compared): disable_log_requests, max_model_len, "
        "model_id, served_model_name\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )
    drifted = run_line([*args, "--set", "vllm.engineArgs.model.dtype=bfloat16", "--format", "json"])
    assert drifted.exit_code == 1
    assert _rows(drifted) == [("drift/changed", "dtype", "bfloat16", "float16", "<--set>:1")]


def test_tgi_pretty_launcher_log_with_derived_defaults(run_line: Run) -> None:
    args = ["drift", "-f", "tgi-values.yaml", "--live", "tgi-2.3-launcher.log"]
    result = run_line(args)
    assert result.exit_code == 0
    assert result.output == (
        "tgi-2.3-launcher.log: in sync (tgi defaults applied; read: TGI: launcher Args, "
        "launcher defaults)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )
    drifted = run_line(
        [
            *args,
            "--set",
            "tgi.launcher.maxTotalTokens=16384",
            "--set",
            "tgi.launcher.quantize=awq",
            "--set",
            "tgi.launcher.maxBatchPrefillTokens=8192",
            "--format",
            "json",
        ]
    )
    assert drifted.exit_code == 1
    assert _rows(drifted) == [
        ("drift/changed", "max_total_tokens", 16384, 8192, "<--set>:1"),
        ("drift/changed", "quantize", "awq", "eetq", "<--set>:2"),
        ("drift/changed", "max_batch_prefill_tokens", 8192, 7218, "<--set>:3"),
    ]


def test_tgi_one_line_launcher_log_and_the_renamed_input_limit(run_line: Run) -> None:
    # Values say maxInputLength (TGI 1.x), the launcher prints max_input_length: the
    # setting is compared as max_input_tokens, at the values line that wrote it.
    args = ["drift", "-f", "tgi-1.4-values.yaml", "--live", "tgi-1.4-launcher.log"]
    assert run_line(args).exit_code == 0
    drifted = run_line(
        [*args, "--set", "tgi.launcher.maxInputLength=3072", "--set", "tgi.launcher.sharded=true"]
    )
    assert drifted.exit_code == 1
    assert drifted.output == (
        "tgi-1.4-launcher.log: 2 differences (tgi defaults applied; read: TGI: launcher Args)\n"
        "  field             values.yaml  live   status   edit at\n"
        "  max_input_tokens  3072         2048   changed  <--set>:1\n"
        "  sharded           true         false  changed  <--set>:2\n"
        "2 differences in 1 of 1 target, 0 in sync\n"
    )


def test_sglang_log_and_grpc_server_info(run_line: Run) -> None:
    args = [
        "drift",
        "-f",
        "sglang-values.yaml",
        "--live",
        "sglang-0.5-launch.log",
        "--live",
        "sglang-grpc-server-info.json",
    ]
    result = run_line(args)
    assert result.exit_code == 0
    assert result.output == (
        "sglang-0.5-launch.log: in sync (sglang defaults applied; read: SGLang: server_args)\n"
        "sglang-grpc-server-info.json: in sync (sglang defaults applied; read: SGLang 0.5.4: "
        "gRPC GetServerInfo)\n"
        "0 differences in 0 of 2 targets, 2 in sync\n"
    )
    drifted = run_line(
        [
            *args,
            "--set",
            "sglang.serverArgs.memFractionStatic=0.9",
            "--set",
            "sglang.serverArgs.maxTotalTokens=500000",
            "--format",
            "json",
        ]
    )
    assert drifted.exit_code == 1
    # max_total_tokens=None: SGLang derives it when not set, but the values set it, so
    # the server did not get them.
    assert sorted(_rows(drifted)) == [
        ("drift/changed", "mem_fraction_static", 0.9, 0.85, "<--set>:1"),
        ("drift/changed", "mem_fraction_static", 0.9, 0.85, "<--set>:1"),
        ("drift/missing-live", "max_total_tokens", 500000, None, "<--set>:2"),
        ("drift/missing-live", "max_total_tokens", 500000, None, "<--set>:2"),
    ]


def test_sglang_grpc_model_info_settings_and_ignored_fields() -> None:
    # max_context_length is the scheduler's KV-cache size, not context_length: never a
    # setting. An absent isGeneration (proto3 leaves out false) is an embedding server.
    capture = read_capture((LOGS / "sglang-grpc-model-info-drifted.txt").read_text())
    assert capture is not None
    assert capture.partial
    assert capture.settings == {
        "model_path": "Qwen/Qwen2.5-7B-Instruct",
        "tokenizer_path": "Qwen/Qwen2.5-7B-Instruct",
        "is_embedding": True,
        "preferred_sampling_params": '{"temperature": 0.2, "top_p": 0.9}',
        "weight_version": "ckpt-1103",
        "served_model_name": "qwen2.5-7b-canary",
    }
    assert capture.ignored == (
        "bos_token_id",
        "max_context_length",
        "max_req_input_len",
        "model_type",
        "vocab_size",
    )
    assert capture.model == "Qwen/Qwen2.5-7B-Instruct"


def test_sglang_grpc_model_info_in_sync_and_planted_drift(run_line: Run) -> None:
    # Through the serving model, the settings GetModelInfo does not carry are named.
    unreported = (
        "  not reported by this source (not compared): chunked_prefill_size, "
        "context_length, enable_metrics, max_running_requests, mem_fraction_static, tp_size\n"
    )
    for by_path, coverage in (([], unreported), (["--values-path", "sglang.serverArgs"], "")):
        args = ["drift", "-f", "sglang-values.yaml", *by_path]
        in_sync = run_line([*args, "--live", "sglang-grpc-model-info.json"])
        assert in_sync.exit_code == 0, in_sync.output
        assert in_sync.output == (
            "sglang-grpc-model-info.json: in sync (sglang defaults applied; read: SGLang: "
            "gRPC GetModelInfo)\n"
            f"{coverage}"
            "0 differences in 0 of 1 target, 1 in sync\n"
        )
    # Planted in the live answer: another served name, a weight version, preferred
    # sampling parameters, and no isGeneration (an embedding server).
    drifted = run_line(
        [
            "drift",
            "-f",
            "sglang-values.yaml",
            "--live",
            "sglang-grpc-model-info-drifted.txt",
            "--format",
            "json",
        ]
    )
    assert drifted.exit_code == 1
    assert sorted(_rows(drifted)) == [
        (
            "drift/served-model-name",
            "served_model_name",
            "qwen2.5-7b",
            "qwen2.5-7b-canary",
            "sglang-values.yaml:5",
        ),
        ("drift/unexpected-live", "is_embedding", None, True, "sglang-values.yaml:1"),
        (
            "drift/unexpected-live",
            "preferred_sampling_params",
            None,
            '{"temperature": 0.2, "top_p": 0.9}',
            "sglang-values.yaml:1",
        ),
        ("drift/unexpected-live", "weight_version", None, "ckpt-1103", "sglang-values.yaml:1"),
    ]
    # The settings GetModelInfo does not carry (tp_size, api_key, ...) are not compared,
    # by path either; the planted ones are reported the same way.
    by_path = run_line(
        [
            "drift",
            "-f",
            "sglang-values.yaml",
            "--values-path",
            "sglang.serverArgs",
            "--live",
            "sglang-grpc-model-info-drifted.txt",
            "--format",
            "json",
        ]
    )
    assert by_path.exit_code == 1
    assert sorted(_rows(by_path)) == [
        (
            "drift/served-model-name",
            "sglang.serverArgs.servedModelName",
            "qwen2.5-7b",
            "qwen2.5-7b-canary",
            "sglang-values.yaml:5",
        ),
        (
            "drift/unexpected-live",
            "sglang.serverArgs.is_embedding",
            None,
            True,
            "sglang-values.yaml:3",
        ),
        (
            "drift/unexpected-live",
            "sglang.serverArgs.preferred_sampling_params",
            None,
            '{"temperature": 0.2, "top_p": 0.9}',
            "sglang-values.yaml:3",
        ),
        (
            "drift/unexpected-live",
            "sglang.serverArgs.weight_version",
            None,
            "ckpt-1103",
            "sglang-values.yaml:3",
        ),
    ]


def test_sglang_grpc_server_info_as_messagetodict_prints_it(run_line: Run) -> None:
    # A Struct holds numbers as doubles: MessageToDict prints tp_size as 2.0.
    args = ["drift", "-f", "sglang-values.yaml", "--live"]
    in_sync = run_line([*args, "sglang-grpc-server-info-messagetodict.txt"])
    assert in_sync.exit_code == 0
    assert in_sync.output == (
        "sglang-grpc-server-info-messagetodict.txt: in sync (sglang defaults applied; read: "
        "SGLang 0.5.4: gRPC GetServerInfo (Python repr))\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )
    drifted = run_line(
        [
            *args,
            "sglang-grpc-server-info-messagetodict.txt",
            "--set",
            "sglang.serverArgs.tpSize=4",
            "--format",
            "json",
        ]
    )
    assert drifted.exit_code == 1
    assert _rows(drifted) == [("drift/changed", "tp_size", 4, 2, "<--set>:1")]


def test_triton_option_table_and_model_configuration(run_line: Run) -> None:
    server = ["drift", "-f", "triton-values.yaml", "--values-path", "triton.server"]
    server += ["--live", "triton-24.08-verbose.log"]
    model = ["drift", "-f", "triton-values.yaml", "--values-path", "triton.modelConfig"]
    model += ["--live-path", "models.llama", "--live", "triton-24.08-verbose.log"]
    assert run_line(server).exit_code == 0
    assert run_line(model).exit_code == 0
    drifted = run_line(
        [
            *server,
            "--set",
            "triton.server.exit_timeout_secs=60",
            "--set",
            "triton.server.model_control_mode=poll",
        ]
    )
    assert drifted.exit_code == 1
    assert drifted.output == (
        "triton-24.08-verbose.log: 2 differences (triton defaults applied; read: Triton "
        "2.49.0: model configuration llama, option table)\n"
        "  field                             values.yaml  live      status   edit at\n"
        "  triton.server.exit_timeout_secs   60           30        changed  <--set>:1\n"
        "  triton.server.model_control_mode  poll         explicit  changed  <--set>:2\n"
        "2 differences in 1 of 1 target, 0 in sync\n"
    )
    batch = run_line([*model, "--set", "triton.modelConfig.max_batch_size=16", "--format", "json"])
    assert _rows(batch) == [
        ("drift/changed", "triton.modelConfig.max_batch_size", 16, 8, "<--set>:1")
    ]


# -- processes, inputs, secrets, paths -----------------------------------------------------


def test_replicas_that_disagree_are_drift_of_their_own(run_line: Run) -> None:
    result = run_line(
        ["drift", "-f", "vllm-values.yaml", "--live", "vllm-two-replicas.log", "--format", "json"]
    )
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert [(f["rule"], f["path"], f["file"], f["line"]) for f in report["findings"]] == [
        ("drift/process-disagreement", "api_key", "vllm-two-replicas.log", 2),
        ("drift/process-disagreement", "max_model_len", "vllm-two-replicas.log", 2),
    ]
    assert report["findings"][1]["message"] == (
        "max_model_len differs between the processes that printed the non-default args in "
        "vllm-two-replicas.log: 8192 (pod/llm-vllm-7f9c-a2kq9/vllm, line 2), "
        "4096 (pod/llm-vllm-7f9c-c9m2p/vllm, line 4)"
    )
    assert report["findings"][0]["live"] == {
        "pod/llm-vllm-7f9c-a2kq9/vllm (line 2)": "****",
        "pod/llm-vllm-7f9c-c9m2p/vllm (line 4)": "****",
    }


def test_a_log_from_standard_input(run_line: Run) -> None:
    text = (LOGS / "vllm-0.11-dp2.log").read_text()
    result = run_line(["drift", "-f", "vllm-values-drifted.yaml", "--live", "-"], input=text)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "<stdin>: 3 differences (vllm defaults applied; read: vLLM 0.11.0: non-default args, "
        "scheduler defaults, V1 engine config)"
    )


def test_standard_input_only_once(run_line: Run) -> None:
    result = run_line(["drift", "-f", "vllm-values.yaml", "--live", "-", "--live", "-"])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == "Error: --live - (standard input) can be given once"


def test_a_log_that_happens_to_be_yaml_is_never_read_as_yaml(run_line: Run) -> None:
    result = run_line(["drift", "-f", "vllm-values.yaml", "--live", "yaml-shaped.log"])
    assert result.exit_code == 3
    assert result.output.startswith(
        "yaml-shaped.log: error (unrecognised-format): this is a log, but it holds no "
        "start-up configuration that servelint reads (was the start of the log cut off? "
        "with --source logs, raise --log-bytes); the formats understood are: vLLM start-up "
        "log (non-default args, args: Namespace(...), V0/V1 engine config line); "
    )


def test_text_that_is_neither_document_nor_log(run_line: Run, tmp_path: Path) -> None:
    live = tmp_path / "notes.txt"
    live.write_text("the pod printed nothing useful\n")
    result = run_line(["drift", "-f", "vllm-values.yaml", "--live", str(live)])
    assert result.exit_code == 3
    assert result.output.startswith(
        f"{live}: error (unrecognised-format): the live text is neither a config document "
        "nor a log servelint reads; the formats understood are: "
    )


SECRETS = (
    "sk-live-0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    "sk-rotated-ffeeddccbbaa99887766554433221100",
    "tgi-router-key-5f0e8d7c6b5a4f3e2d1c",
    "sgl-admin-key-7c1d9e2f",
    "sk-team-a-9f8e7d6c5b4a39281706f5e4d3c2b1a0",
)


@pytest.mark.parametrize("fmt", ["text", "json", "prometheus", "html"])
@pytest.mark.parametrize(
    ("values", "live", "values_path"),
    [
        ("vllm-values-drifted.yaml", "vllm-two-replicas.log", None),
        ("vllm-values-drifted.yaml", "vllm-0.7-namespace.log", "vllm"),
        ("tgi-values.yaml", "tgi-2.3-launcher.log", "tgi.launcher"),
        ("sglang-values.yaml", "sglang-0.5-launch.log", "sglang.serverArgs"),
        ("sglang-values.yaml", "sglang-grpc-server-info.json", "sglang.serverArgs"),
        ("sglang-values.yaml", "sglang-grpc-server-info-messagetodict.txt", "sglang.serverArgs"),
    ],
)
def test_key_named_secrets_never_appear(
    run_line: Run, fmt: str, values: str, live: str, values_path: str | None
) -> None:
    # By path, the api keys on both sides are compared (and differ for vLLM 0.7).
    args = ["drift", "-f", values, "--live", live, "--format", fmt]
    if values_path:
        args += ["--values-path", values_path, "--set", f"{values_path}.apiKey=sk-other-key"]
    result = run_line(args)
    assert result.exit_code == 1
    assert not [secret for secret in (*SECRETS, "sk-other-key") if secret in result.output]
    if fmt == "json" and values_path:
        masked = [f for f in json.loads(result.output)["findings"] if "api" in f["path"].lower()]
        assert masked and all(f["live"] in ("****", None) for f in masked)
        assert all(f["desired"] in ("****", None) for f in masked)


def test_values_path_with_dots_in_a_key(run_line: Run, tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        "configs:\n"
        "  vllm-config.yaml: |\n"
        "    model: meta-llama/Llama-3.1-8B-Instruct\n"
        "    served-model-name: [llama-3.1-8b]\n"
        "    host: 0.0.0.0\n"
        "    max-model-len: 8192\n"
        "    max-num-seqs: 64\n"
        "    data-parallel-size: 2\n"
        "    gpu-memory-utilization: 0.92\n"
        "    enable-prefix-caching: true\n"
    )
    dotted = run_line(
        ["drift", "-f", str(values), "--values-path", "configs.vllm-config.yaml", "--live", "x"]
    )
    assert dotted.exit_code == 3
    assert dotted.output == (
        "servelint: --values-path configs.vllm-config.yaml: no such key in the merged values "
        "(keys at configs: vllm-config.yaml); a key with dots is written in brackets: "
        "configs['vllm-config.yaml']\n"
    )
    result = run_line(
        [
            "drift",
            "-f",
            str(values),
            "--values-path",
            'configs["vllm-config.yaml"]',
            "--live",
            "vllm-0.11-dp2.log",
            "--format",
            "json",
        ]
    )
    # The key is in the pod's arguments, not in the values (where a Secret holds it).
    assert _rows(result) == [
        (
            "drift/unexpected-live",
            "configs['vllm-config.yaml'].api_key",
            None,
            "****",  # vLLM logs its one key as a one-item list: the same as the key alone
            f"{values}:2",
        )
    ]
    broken = run_line(["drift", "-f", str(values), "--values-path", 'configs["vllm', "--live", "x"])
    assert broken.exit_code == 2
    assert broken.output.splitlines()[-1] == (
        "Error: Invalid value for --values-path: 'configs[\"vllm': unbalanced brackets or "
        "quotes; accepted forms: dotted keys (server.config), a list index (containers[0]), "
        "a key with dots or other characters in brackets and quotes "
        "(configs[\"vllm-config.yaml\"] or configs['vllm-config.yaml'])"
    )


def test_the_help_shows_the_path_forms(run_line: Run) -> None:
    help_text = "".join(run_line(["drift", "--help"]).output.split())
    assert "configs[\"vllm-config.yaml\"]orconfigs['vllm-config.yaml']" in help_text
    assert "-readsstandardinput" in help_text


def test_tgi_info_as_a_python_print_and_as_php_print_r(run_line: Run) -> None:
    args = ["drift", "-f", "tgi-values.yaml", "--live", "tgi-info-python-repr.txt"]
    args += ["--live", "tgi-info-print_r.txt"]
    result = run_line(args)
    assert result.exit_code == 0
    assert result.output == (
        "tgi-info-print_r.txt: in sync (tgi defaults applied; read: TGI 3.0.1: /info "
        "(PHP print_r))\n"
        "  not reported by this source (not compared): num_shard, quantize\n"
        "tgi-info-python-repr.txt: in sync (tgi defaults applied; read: TGI 2.3.0: /info "
        "(Python repr))\n"
        "  not reported by this source (not compared): num_shard, quantize\n"
        "0 differences in 0 of 2 targets, 2 in sync\n"
    )
    drifted = run_line([*args, "--set", "tgi.launcher.maxTotalTokens=16384", "--format", "json"])
    assert drifted.exit_code == 1
    assert [(r[0], r[1], r[2], r[3]) for r in _rows(drifted)] == [
        ("drift/changed", "max_total_tokens", 16384, 8192),
        ("drift/changed", "max_total_tokens", 16384, 8192),
    ]


@pytest.mark.parametrize(("dtype", "code"), [("bf16", 0), ("torch.bfloat16", 0), ("half", 1)])
def test_dtype_spellings(run_line: Run, dtype: str, code: int) -> None:
    # The V1 engine line prints the resolved torch.bfloat16.
    result = run_line(
        [
            "drift",
            "-f",
            "vllm-values.yaml",
            "--live",
            "vllm-0.11-dp2.log",
            "--set",
            f"vllm.engineArgs.model.dtype={dtype}",
            "--format",
            "json",
        ]
    )
    assert result.exit_code == code
    expected = [("drift/changed", "dtype", "float16", "bfloat16", "<--set>:1")] if code else []
    assert _rows(result) == expected


def test_a_marker_line_that_cannot_be_read_is_named(run_line: Run, tmp_path: Path) -> None:
    live = tmp_path / "hostile.log"
    nested = "[" * 5000 + "]" * 5000
    live.write_text(f"INFO 10-21 09:14:02 [utils.py:233] non-default args: {{'a': {nested}}}\n")
    result = run_line(["drift", "-f", "vllm-values.yaml", "--live", str(live)])
    assert result.exit_code == 3
    assert result.output.startswith(
        f"{live}: error (unrecognised-format): line 1: the non-default args could not be "
        "read (nested deeper than 100 levels at character 106); the formats understood are: "
    )


def test_tgi_usage_start_event_ignores_the_machine(run_line: Run) -> None:
    args = ["drift", "-f", "tgi-values.yaml", "--live", "tgi-usage-start.json"]
    result = run_line(args)
    assert result.exit_code == 0
    assert result.output == (
        "tgi-usage-start.json: in sync (tgi defaults applied; read: TGI: usage-stats start "
        "event)\n"
        "  not reported by this source (not compared): model_id, num_shard, quantize\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )
    drifted = run_line([*args, "--set", "tgi.launcher.maxInputLength=4096", "--format", "json"])
    assert _rows(drifted) == [("drift/changed", "max_input_tokens", 4096, 7168, "<--set>:1")]


def test_the_last_usage_record_is_the_running_engine() -> None:
    # usage_stats.json is appended to at every start: an older start is not a process
    # that disagrees, and the time and uuid of each record are metadata.
    first = json.loads((LOGS / "vllm-usage-stats.jsonl").read_text().splitlines()[0])
    older = dict(first, log_time=1740040000000000000, gpu_memory_utilization=0.9)
    capture = read_capture(json.dumps(older) + "\n" + json.dumps(first) + "\n")
    assert capture is not None
    assert capture.disagreements == ()
    assert capture.settings["gpu_memory_utilization"] == 0.95


def test_metadata_that_differs_between_processes_is_no_disagreement() -> None:
    text = (LOGS / "vllm-0.11-dp2.log").read_text()
    # The two engine cores with different (ignored) model_tag in a second non-default line.
    extra = text.splitlines()[1].replace("'model_tag': 'meta-llama", "'model_tag': 'org")
    other = extra.replace("(APIServer pid=1)", "(APIServer pid=2)")
    capture = read_capture(text + other + "\n")
    assert capture is not None
    assert capture.disagreements == ()
    longer = other.replace("'max_model_len': 8192", "'max_model_len': 16384")
    capture = read_capture(text + longer + "\n")
    assert capture is not None
    assert [(d.setting, d.seen) for d in capture.disagreements] == [
        ("max_model_len", (("APIServer pid=1", 2, 8192), ("APIServer pid=2", 15, 16384)))
    ]


def test_triton_auto_completed_config_on_the_same_line(run_line: Run) -> None:
    args = ["drift", "-f", "triton-values.yaml", "--values-path", "triton.modelConfig"]
    args += ["--live-path", "models.llama", "--live", "triton-23.10-autocomplete.log"]
    result = run_line(args)
    assert result.exit_code == 0
    assert result.output == (
        "triton-23.10-autocomplete.log: in sync (triton defaults applied; read: Triton: "
        "auto-completed config llama)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )
    drifted = run_line(
        [
            *args,
            "--set",
            "triton.modelConfig.dynamic_batching.max_queue_delay_microseconds=500",
            "--format",
            "json",
        ]
    )
    assert _rows(drifted) == [
        (
            "drift/changed",
            "triton.modelConfig.dynamic_batching.max_queue_delay_microseconds",
            500,
            100,
            "<--set>:1",
        )
    ]


def test_triton_auto_completed_config_after_a_quoted_marker() -> None:
    text = (
        'I0602 21:22:32.942157 23 server.cc:376] "Polling model repository"\n'
        'I0602 21:22:32.942499 23 model_config_utils.cc:753] "Server side auto-completed '
        'config: "\n'
        'name: "lr"\nplatform: "pytorch_libtorch"\nmax_batch_size: 4\n'
        'input {\n  name: "input_name"\n  data_type: TYPE_FP32\n  dims: 1\n}\n'
        'backend: "pytorch"\n'
        'I0602 21:22:33.101322 23 model_lifecycle.cc:472] "loading: lr:1"\n'
    )
    capture = read_capture(text)
    assert capture is not None
    assert capture.describe() == "Triton: auto-completed config lr"
    model = capture.settings["models"]["lr"]
    assert (model["max_batch_size"], model["backend"], model["input"][0]["dims"]) == (
        4,
        "pytorch",
        [1],
    )
