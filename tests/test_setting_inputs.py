"""Serving keys of values files are settings applied where the chart renders them.

A key (``maxModelLen: 8192``) is typed as its setting and placed after the flags of the
section's ``command`` and before its ``args``: argparse keeps the last occurrence, so a
flag also written in ``args``/``extraArgs`` wins, and a key wins over a flag written in the
command. A shell script or an unknown wrapper takes the container's arguments itself: the
keys do not reach the server.
"""

from __future__ import annotations

from typing import Any

from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads
from linter.model.records.workload import Workload

_IMAGE = "image:\n  repository: vllm/vllm-openai\n  tag: v0.11.0\n"


def _workload(text: str) -> Workload:
    [workload] = extract_workloads([parse("values.yaml", text)])
    return workload


def _at(workload: Workload, *path: Any) -> tuple[int, int]:
    origin = workload.view().origins[path]
    return origin.line, origin.column


def test_a_flag_in_extra_args_wins_over_the_key() -> None:
    workload = _workload(_IMAGE + "maxModelLen: 8192\nextraArgs: [--max-model-len, '4096']\n")
    engine = workload.view().data["engine"]
    assert engine["max_model_len"] == 4096
    assert _at(workload, "engine", "max_model_len") == (5, 30)
    assert engine["flags"] == {"--max-model-len": "4096"}
    assert [f["written"] for f in engine["cli_flags"]] == ["--max-model-len"]
    assert engine["args"] == ["--max-model-len", "4096"]


def test_the_key_wins_over_a_flag_of_the_command() -> None:
    workload = _workload(
        _IMAGE + "command: [vllm, serve, m, --max-model-len, '2048']\nmaxModelLen: 8192\n"
    )
    engine = workload.view().data["engine"]
    assert (engine["entrypoint"], engine["model"], engine["max_model_len"]) == (
        "vllm serve",
        "m",
        8192,
    )
    assert _at(workload, "engine", "max_model_len") == (5, 1)
    # The command's flag is still judged as written; the key is not a flag.
    assert [f["written"] for f in engine["cli_flags"]] == ["--max-model-len"]


def test_a_shell_script_takes_the_arguments_and_the_keys_do_not_reach_the_server() -> None:
    workload = _workload(
        _IMAGE + "command: [sh, -c, 'vllm serve m --max-model-len 2048']\nmaxModelLen: 8192\n"
    )
    engine = workload.view().data["engine"]
    assert engine["max_model_len"] == 2048
    assert engine["flags"] == {"--max-model-len": "2048"}


def test_a_switch_written_off_and_a_value_that_is_not_the_setting_s_type() -> None:
    workload = _workload(_IMAGE + "enforceEager: false\nmaxModelLen: $(MAX_LEN)\n")
    engine = workload.view().data["engine"]
    assert engine["enforce_eager"] is False
    assert "max_model_len" not in engine
    assert engine["unparsed"] == {"max_model_len": "$(MAX_LEN)"}
    assert engine["flags"] == {"--no-enforce-eager": "true", "--max-model-len": "$(MAX_LEN)"}
    assert _at(workload, "engine", "unparsed", "max_model_len") == (5, 1)
    assert "cli_flags" not in engine


def test_a_kubernetes_variable_in_a_key_is_expanded_from_the_section_s_env() -> None:
    workload = _workload(
        _IMAGE + "env: {MAX_LEN: '16384'}\nmaxModelLen: $(MAX_LEN)\nmaxNumSeqs: 64\n"
    )
    engine = workload.view().data["engine"]
    assert (engine["max_model_len"], engine["max_num_seqs"]) == (16384, 64)
    assert engine["flags"]["--max-model-len"] == "16384"
