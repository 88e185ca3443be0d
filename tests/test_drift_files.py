"""``servelint drift --live FILE``: pairing by --values-path, outputs, exit codes, masking."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

FIXTURES = Path(__file__).parent / "fixtures" / "drift"
VLLM = ["drift", "-f", "values.yaml", "-f", "values-prod.yaml", "--values-path", "server.config"]
SECRETS = ("sk-committed0123456789abcdefghij", "sk-hotfix9876543210zyxwvutsrqpo")

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)  # relative paths keep the expected output readable


def test_a_hot_fixed_setting_is_drift_pointing_at_the_overriding_file(run_line: Run) -> None:
    result = run_line([*VLLM, "--live", "live/vllm-config.json"])
    assert result.exit_code == 1
    assert result.output == (
        "live/vllm-config.json: 2 differences (vllm defaults applied)\n"
        "  field                     values.yaml  live  status   edit at\n"
        "  server.config.maxNumSeqs  256          128   changed  values-prod.yaml:4\n"
        "  server.config.apiKey      ****         ****  changed  values.yaml:19\n"
        "2 differences in 1 of 1 target, 0 in sync\n"
    )


def test_an_equal_config_in_other_spellings_is_in_sync(run_line: Run) -> None:
    result = run_line([*VLLM, "--live", "live/vllm-config-in-sync.yaml"])
    assert result.exit_code == 0
    assert result.output == (
        "live/vllm-config-in-sync.yaml: in sync (vllm defaults applied)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


def test_json_output_uses_the_lint_findings_schema(run_line: Run) -> None:
    result = run_line([*VLLM, "--live", "live/vllm-config.json", "--format", "json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["version"] == 1
    assert report["findings"] == [
        {
            "rule": "drift/changed",
            "severity": "error",
            "message": "server.config.maxNumSeqs is 128 in live/vllm-config.json; the values say 256",
            "file": "values-prod.yaml",
            "line": 4,
            "column": 5,
            "path": "server.config.maxNumSeqs",
            "desired": 256,
            "live": 128,
            "source": "live/vllm-config.json",
            "suppressed": False,
        },
        {
            "rule": "drift/changed",
            "severity": "error",
            "message": "server.config.apiKey is **** in live/vllm-config.json; the values say ****",
            "file": "values.yaml",
            "line": 19,
            "column": 5,
            "path": "server.config.apiKey",
            "desired": "****",
            "live": "****",
            "source": "live/vllm-config.json",
            "suppressed": False,
        },
    ]
    assert report["summary"] == {
        "error": 2,
        "warning": 0,
        "info": 0,
        "suppressed": 0,
        "targets": 1,
        "compared": 1,
        "in_sync": 0,
        "differences": 2,
        "errors": 0,
        "not_ready": 0,
    }
    assert report["targets"] == [
        {
            "source": "live/vllm-config.json",
            "outcome": "compared",
            "differences": 2,
            "server_defaults": "vllm",
        }
    ]


@pytest.mark.parametrize("fmt", ["text", "json", "prometheus", "html"])
def test_secrets_are_masked_in_every_format(run_line: Run, fmt: str) -> None:
    result = run_line([*VLLM, "--live", "live/vllm-config.json", "--format", fmt])
    assert result.exit_code == 1
    assert not any(secret in result.output for secret in SECRETS)
    assert ("****" in result.output) is (fmt != "prometheus")  # metrics carry no values


def test_one_unreadable_or_broken_file_does_not_stop_the_others(run_line: Run) -> None:
    result = run_line(
        [
            *VLLM,
            "--live",
            "live/truncated.json",
            "--live",
            "live/missing.json",
            "--live",
            "live/vllm-config-in-sync.yaml",
        ]
    )
    assert result.exit_code == 0
    assert result.output == (
        "live/missing.json: error (unreadable): live/missing.json: cannot read: "
        "No such file or directory\n"
        "live/truncated.json: error (invalid): the live config is not valid JSON or YAML: "
        "line 5, column 1: invalid JSON: Expecting value; not compared\n"
        "live/vllm-config-in-sync.yaml: in sync (vllm defaults applied)\n"
        "0 differences in 0 of 3 targets, 1 in sync, 2 errors\n"
    )


def test_nothing_compared_exits_3(run_line: Run) -> None:
    result = run_line([*VLLM, "--live", "live/truncated.json", "--format", "json"])
    assert result.exit_code == 3
    report = json.loads(result.output)
    assert [
        (f["rule"], f["severity"], f["file"], f["line"], f["reason"]) for f in report["findings"]
    ] == [("drift/fetch-error", "warning", "live/truncated.json", 0, "invalid")]


def test_set_wins_and_is_located(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "values.yaml",
            "--set",
            "server.config.maxNumSeqs=512",
            "--values-path",
            "server.config",
            "--live",
            "live/vllm-config.json",
            "--ignore",
            "server.config.apiKey",
        ]
    )
    assert result.exit_code == 1
    assert result.output == (
        "live/vllm-config.json: 1 difference (vllm defaults applied)\n"
        "  field                     values.yaml  live  status   edit at\n"
        "  server.config.maxNumSeqs  512          128   changed  <--set>:1\n"
        "1 difference in 1 of 1 target, 0 in sync\n"
    )


def test_ignore_and_exit_zero(run_line: Run) -> None:
    ignored = run_line(
        [
            *VLLM,
            "--live",
            "live/vllm-config.json",
            "--ignore",
            "*.apiKey",
            "--ignore",
            "server.config.max_num_seqs",
        ]
    )
    assert ignored.exit_code == 0
    assert ignored.output == (
        "live/vllm-config.json: in sync (vllm defaults applied)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )
    kept = run_line([*VLLM, "--live", "live/vllm-config.json", "--exit-zero"])
    assert kept.exit_code == 0
    assert kept.output.startswith("live/vllm-config.json: 2 differences")


def test_without_server_defaults_defaults_are_drift(run_line: Run) -> None:
    result = run_line(
        [*VLLM, "--live", "live/vllm-config.json", "--server", "none", "--ignore", "*.apiKey"]
    )
    assert result.exit_code == 1
    assert result.output == (
        "live/vllm-config.json: 3 differences\n"
        "  field                        values.yaml  live   status           edit at\n"
        "  server.config.block_size     -            16     unexpected-live  values-prod.yaml:3\n"
        "  server.config.enforce_eager  -            false  unexpected-live  values-prod.yaml:3\n"
        "  server.config.maxNumSeqs     256          128    changed          values-prod.yaml:4\n"
        "3 differences in 1 of 1 target, 0 in sync\n"
    )


def test_tgi_info_defaults_derived_and_status_fields(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "tgi-values.yaml",
            "--values-path",
            "tgi.launcher",
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
        "  field                               values.yaml  live   status           edit at\n"
        "  tgi.launcher.max_stop_sequences     -            8      unexpected-live  "
        "tgi-values.yaml:3\n"
        "  tgi.launcher.maxConcurrentRequests  128          64     changed          "
        "tgi-values.yaml:5\n"
        "  tgi.launcher.maxTotalTokens         32768        16384  changed          "
        "tgi-values.yaml:6\n"
        "live/tgi-info.json: in sync (tgi defaults applied; read: TGI 3.2.1: /info)\n"
        "3 differences in 1 of 2 targets, 1 in sync\n"
    )


def test_sglang_server_info_with_a_duration_in_minutes(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "sglang-values.yaml",
            "--values-path",
            "sglang.serverArgs",
            "--live",
            "live/sglang-server-info.json",
        ]
    )
    assert result.exit_code == 0
    assert result.output == (
        "live/sglang-server-info.json: in sync (sglang defaults applied; "
        "read: SGLang 0.5.2rc1: /get_server_info)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


def test_triton_config_prints_every_default(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "triton-values.yaml",
            "--values-path",
            "triton.modelConfig",
            "--live",
            "live/triton-config.json",
        ]
    )
    assert result.exit_code == 1
    assert result.output == (
        "live/triton-config.json: 1 difference (triton defaults applied)\n"
        "  field                                                             values.yaml  live  "
        "status   edit at\n"
        "  triton.modelConfig.dynamic_batching.max_queue_delay_microseconds  100          0     "
        "changed  triton-values.yaml:7\n"
        "1 difference in 1 of 1 target, 0 in sync\n"
    )


def test_a_values_string_holding_the_config_file(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "embedded-values.yaml",
            "--values-path",
            "engine.configJson",
            "--live",
            "live/embedded-config.json",
        ]
    )
    assert result.exit_code == 1
    assert result.output == (
        "live/embedded-config.json: 1 difference (vllm defaults applied)\n"
        "  field                           values.yaml  live  status   edit at\n"
        "  engine.configJson.max_num_seqs  64           32    changed  embedded-values.yaml:3\n"
        "1 difference in 1 of 1 target, 0 in sync\n"
    )


def test_live_path_selects_a_subtree(run_line: Run, tmp_path: Path) -> None:
    config = (FIXTURES / "live" / "vllm-config-in-sync.yaml").read_text()
    live = tmp_path / "wrapped.yaml"
    live.write_text(
        "engine:\n"
        + "".join(f"  {line}\n" for line in config.splitlines()).replace(
            "max-num-seqs: 256", "max-num-seqs: 64"
        )
    )
    result = run_line([*VLLM, "--live", str(live), "--live-path", "engine"])
    assert result.exit_code == 1
    assert result.output.splitlines()[1:3] == [
        "  field                     values.yaml  live  status   edit at",
        "  server.config.maxNumSeqs  256          64    changed  values-prod.yaml:4",
    ]
    missing = run_line([*VLLM, "--live", str(live), "--live-path", "nope"])
    assert missing.exit_code == 3
    assert missing.output == (
        f"{live}: error (no-live-path): --live-path nope: no such key in the live config "
        "(top-level keys: engine)\n0 differences in 0 of 1 target, 0 in sync, 1 error\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["drift", "-f", "values.yaml", "--values-path", "server.config"],
            "Error: give either --live FILE or --kube (with --source)",
        ),
        (
            ["drift", "-f", "values.yaml", "--live", "x.json", "--selector", "app=vllm"],
            "Error: --selector only applies with --kube",
        ),
        (
            ["drift", "-f", "values.yaml", "--kube", "--selector", "a=b"],
            "Error: --kube needs --source (exec:/path, http:PORT/PATH, configmap:NAME/KEY, "
            "podspec or logs)",
        ),
        (
            ["drift", "-f", "values.yaml", "--kube", "--source", "podspec"],
            "Error: --kube needs --selector LABELS or --pod NAME",
        ),
        (
            ["drift", "-f", "values.yaml", "--kube", "--source", "ftp:x", "--pod", "p"],
            "Error: Invalid value for '--source': 'ftp:x' is not a source; use "
            "exec:/path/in/container, http:PORT/PATH, configmap:NAME/KEY, podspec or logs",
        ),
    ],
    ids=["no-live", "kube-option-without-kube", "no-source", "no-pods", "bad-source"],
)
def test_usage_errors_exit_2(run_line: Run, args: list[str], message: str) -> None:
    result = run_line(args)
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == message


def test_a_values_path_that_does_not_exist_is_a_tool_failure(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            "values.yaml",
            "--values-path",
            "server.nope",
            "--live",
            "live/vllm-config.json",
        ]
    )
    assert result.exit_code == 3
    assert result.output == (
        "servelint: --values-path server.nope: no such key in the merged "
        "values (keys at server: args, config, env, resources); accepted forms: "
        'server.config, containers[0], configs["vllm-config.yaml"]\n'
    )


def test_output_file(run_line: Run, tmp_path: Path) -> None:
    target = tmp_path / "drift.json"
    result = run_line(
        [*VLLM, "--live", "live/vllm-config-in-sync.yaml", "--format", "json", "-o", str(target)]
    )
    assert result.exit_code == 0
    assert result.output == ""
    assert json.loads(target.read_text())["summary"]["in_sync"] == 1


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_live_only_env_list_is_masked_by_entry_name(
    run_line: Run, tmp_path: Path, fmt: str
) -> None:
    config = json.loads((FIXTURES / "live" / "pod-config.json").read_text())
    config["env"] = [
        {"name": "HF_TOKEN", "value": "hf_liveSecret0123456789abcdefgh"},
        {"name": "LOG_LEVEL", "value": "DEBUG"},
    ]
    live = tmp_path / "live.json"
    live.write_text(json.dumps(config))
    result = run_line([*VLLM, "--live", str(live), "--format", fmt])
    assert result.exit_code == 1
    assert "hf_liveSecret" not in result.output
    if fmt == "json":
        env = next(
            f for f in json.loads(result.output)["findings"] if f["path"] == "server.config.env"
        )
        assert env["live"] == [
            {"name": "HF_TOKEN", "value": "****"},
            {"name": "LOG_LEVEL", "value": "DEBUG"},
        ]
