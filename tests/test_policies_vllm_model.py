"""Serving-model facts the vLLM policies rely on: version numbers and nested extraArgs."""

from __future__ import annotations

from pathlib import Path

from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads

FIXTURES = Path(__file__).parent / "fixtures" / "vllm" / "model"


def test_version_parts_and_extra_args_beside_the_serving_keys() -> None:
    path = FIXTURES / "nested-extra-args.yaml"
    [workload] = extract_workloads([parse(str(path), path.read_text(encoding="utf-8"))])
    engine = workload.view().data["engine"]
    assert (engine["version"], engine["version_parts"]) == ("0.8.5.post1", [0, 8, 5, 1])
    # The serving keys are settings, not arguments: args are the values' own lists.
    assert engine["args"] == ["--enforce-eager", "--swap-space", "8"]
    assert (engine["model"], engine["max_model_len"], engine["swap_space"]) == (
        "meta-llama/Llama-3.1-8B-Instruct",
        8192,
        8,
    )
    # engine.flags names every setting by the flag the chart renders, keys first.
    assert engine["flags"] == {
        "--model": "meta-llama/Llama-3.1-8B-Instruct",
        "--max-model-len": "8192",
        "--enforce-eager": "true",
        "--swap-space": "8",
    }
    # Only what is written as a flag is judged as one.
    assert [f["written"] for f in engine["cli_flags"]] == ["--enforce-eager", "--swap-space"]
    where = {
        name: (
            workload.view().origins[("engine", name)].line,
            workload.view().origins[("engine", name)].column,
        )
        for name in ("model", "max_model_len", "enforce_eager", "swap_space")
    }
    assert where == {
        "model": (6, 3),
        "max_model_len": (7, 3),
        "enforce_eager": (11, 13),
        "swap_space": (10, 7),
    }


def test_effective_keeps_written_values_and_resolves_the_capture_size() -> None:
    path = FIXTURES / "effective.yaml"
    unpinned, h100, sizes, tgi = extract_workloads(
        [parse(str(path), path.read_text(encoding="utf-8"))]
    )
    effective = unpinned.view().data["effective"]
    assert (effective["max_num_seqs"], effective["max_num_batched_tokens"]) == (64, 4096)
    assert "max_cudagraph_capture_size" not in effective  # needs the version
    # H100 defaults of 0.11.1: 1024 sequences, 8192 tokens; min(1024 × 2 × 2, 512).
    effective = h100.view().data["effective"]
    assert (effective["max_num_seqs"], effective["max_cudagraph_capture_size"]) == (1024, 512)
    assert sizes.view().data["effective"]["max_cudagraph_capture_size"] == 128  # 512 > 256 dropped
    assert tgi.view().data["effective"]["max_total_tokens"] == 8192
