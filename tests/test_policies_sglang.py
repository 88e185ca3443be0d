"""Every built-in SGLang rule, end to end: fixtures that fire it and fixtures that must not.

Each case lints one folder of tests/fixtures/sglang with only the sglang policy and compares
the exact output. The folders cover container args (args_pinned, v0523, versions, ok), a
shell script (shell_unpinned), generic Helm values with camelCase keys and extraArgs
(values_generic) and the llm-d modelservice chart profile with SGLang containers (llmd).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from report_lines import report_lines

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "sglang"
POLICY = ["--no-config", "--no-builtin", "--policy-dir", str(ROOT / "policies" / "sglang.yaml")]

# folder → (exit code, findings with paths relative to the folder, summary line)
CASES: dict[str, tuple[int, list[str], str]] = {
    "args_pinned": (
        1,
        [
            "deployment.yaml:23:15: error sglang/chunked-prefill-not-page-multiple "
            "chunked_prefill_size 1000 is not a multiple of page_size 16 (as written): SGLang does "
            "not start (AssertionError: chunked_prefill_size must be divisible by page_size); use a "
            "multiple of 16",
            "deployment.yaml:27:15: error sglang/max-running-requests-zero max_running_requests is 0:"
            " SGLang 0.5.6.post2 does not start (AssertionError: max_running_request is zero)",
            "deployment.yaml:29:15: error sglang/kv-cache-dtype-invalid --kv-cache-dtype fp8 is not a"
            " choice of SGLang 0.5.6.post2: it exits before starting (argument --kv-cache-dtype: "
            "invalid choice: 'fp8' (choose from auto, fp8_e5m2, fp8_e4m3, bf16, bfloat16, fp4_e2m1));"
            " SGLang spells it fp8_e4m3 or fp8_e5m2",
            "deployment.yaml:31:15: info sglang/mem-fraction-static-like-vllm mem_fraction_static "
            "0.95 covers only weights and the KV pool in SGLang, unlike vLLM's "
            "gpu_memory_utilization: activations and CUDA graphs get the remaining 1.1 GiB of 22 GiB;"
            " SGLang's own choice for this GPU is about 0.84. Leave it out, or lower it if CUDA-graph"
            " capture runs out of memory",
        ],
        "3 errors, 0 warnings, 1 info in 1 file",
    ),
    "llmd": (
        1,
        [
            "values.yaml:41:11: error sglang/chunked-prefill-not-page-multiple chunked_prefill_size "
            "6000 is not a multiple of page_size 64 (as written): SGLang does not start "
            "(AssertionError: chunked_prefill_size must be divisible by page_size); use a multiple of"
            " 64",
        ],
        "1 error, 0 warnings, 0 info in 1 file",
    ),
    "ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "shell_unpinned": (
        1,
        [
            "statefulset.yaml:24:34: error sglang/parallelism-not-divisible-by-nodes tp_size 16 × "
            "pp_size 1 = 16 is not divisible by nnodes 3: SGLang does not start (AssertionError: "
            "tp_size must be divisible by number of nodes)",
            "statefulset.yaml:25:74: warning sglang/max-running-requests-zero-unverified "
            "max_running_requests 1 is below dp_size 2 with dp-attention: SGLang 0.5.6 does not start"
            " (max_running_request is zero), and later versions size the request pool for at least "
            "one request; the SGLang version of image lmsysorg/sglang:latest could not be told",
            "statefulset.yaml:26:40: warning sglang/chunked-prefill-page-size-unknown "
            "chunked_prefill_size 3000 is not a multiple of 64: page_size is not set, and if SGLang "
            "picks an MLA attention backend for this model (flashmla and trtllm_mla use page size 64,"
            " cutlass_mla 128) it does not start (chunked_prefill_size must be divisible by "
            "page_size); use a multiple of 128",
            "statefulset.yaml:26:45: warning sglang/flag-not-accepted-version-unknown "
            "--cuda-graph-max-bs is accepted by SGLang 0.4.0–0.5.19 only (removed in 0.5.20): later "
            "releases exit at once (unrecognized arguments), and the SGLang version of image "
            "lmsysorg/sglang:latest could not be told; use --cuda-graph-max-bs-decode",
            "statefulset.yaml:26:86: warning sglang/kv-cache-dtype-invalid-unverified --kv-cache-"
            "dtype fp4_e2m1 is a choice of SGLang 0.5.6 but not of 0.5.23: argparse rejects it where "
            "it is not a choice (invalid choice); the SGLang version of image lmsysorg/sglang:latest "
            "could not be told",
        ],
        "1 error, 4 warnings, 0 info in 1 file",
    ),
    "v0523": (
        1,
        [
            "deployment.yaml:20:15: error sglang/pipeline-parallel-incompatible pp_size 2 with "
            "speculative algorithm NGRAM: SGLang 0.5.23 does not start (its argument checks refuse "
            "speculative decoding with pipeline parallelism unless SGLANG_ENABLE_PP_SPEC is set)",
            # --dp-size 2 --enable-dp-attention over two nodes starts: resolve_once rewrites it to
            # attn_dp_size=2, dp_size=1 before the check (arg_groups/parallel_hook.py @v0.5.23).
            "deployment.yaml:25:15: error sglang/flag-not-accepted '--cuda-graph-max-bs' is not a "
            "flag of SGLang 0.5.23 (removed in 0.5.20) but the prefix of --cuda-graph-max-bs-decode,"
            " --cuda-graph-max-bs-prefill: the server exits before starting (ambiguous option: "
            "--cuda-graph-max-bs could match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-"
            "prefill); use --cuda-graph-max-bs-decode",
            "deployment.yaml:26:15: error sglang/kv-cache-dtype-invalid --kv-cache-dtype fp4_e2m1 is "
            "not a choice of SGLang 0.5.23: it exits before starting (argument --kv-cache-dtype: "
            "invalid choice: 'fp4_e2m1' (choose from auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16,"
            " nvfp4, fp4_mx_block16))",
        ],
        "3 errors, 0 warnings, 0 info in 1 file",
    ),
    "values_generic": (
        1,
        [
            "values.yaml:6:1: info sglang/mem-fraction-static-like-vllm mem_fraction_static 0.92 "
            "covers only weights and the KV pool in SGLang, unlike vLLM's gpu_memory_utilization: "
            "activations and CUDA graphs get the remaining 6.4 GiB of 80 GiB; SGLang's own choice for"
            " this GPU is about 0.84. Leave it out, or lower it if CUDA-graph capture runs out of "
            "memory",
            "values.yaml:10:5: warning sglang/running-requests-above-cuda-graph-bs "
            "max_running_requests 512, but CUDA graphs are captured for decode batches up to 128 "
            "(cuda_graph_max_bs): larger decode batches run without a CUDA graph; raise --cuda-graph-"
            "max-bs to 512, or lower max_running_requests",
            "values.yaml:12:5: error sglang/pipeline-parallel-incompatible pp_size 2 with --enable-"
            "mixed-chunk: SGLang 0.5.6.post2 does not start (Pipeline parallelism is not compatible "
            "with overlap schedule, speculative decoding, mixed chunked prefill.)",
        ],
        "1 error, 1 warning, 1 info in 1 file",
    ),
    "versions": (
        1,
        [
            "deployments.yaml:17:90: warning sglang/kv-cache-dtype-invalid-unverified --kv-cache-"
            "dtype fp4_e2m1 is a choice of SGLang 0.5.6 but not of 0.5.23: argparse rejects it where "
            "it is not a choice (invalid choice); the choices of SGLang 0.5.14 were not read",
            "deployments.yaml:17:115: warning sglang/pipeline-parallel-incompatible-unverified "
            "pp_size 2 with --enable-mixed-chunk: SGLang 0.5.6 refuses it (Pipeline parallelism is "
            "not compatible with overlap schedule, speculative decoding, mixed chunked prefill.); "
            "whether SGLang 0.5.14 accepts it was not verified",
            "deployments.yaml:38:122: error sglang/chunked-prefill-not-page-multiple "
            "chunked_prefill_size 4000 is not a multiple of page_size 64 (which the flashmla "
            "attention backend sets): SGLang does not start (AssertionError: chunked_prefill_size "
            "must be divisible by page_size); use a multiple of 64",
            "deployments.yaml:38:179: error sglang/multi-node-data-parallel dp_size 2 over nnodes 2 "
            "without --enable-dp-attention: SGLang 0.5.6.post2 does not start (multi-node data "
            "parallel is not supported unless dp attention!; add --enable-dp-attention)",
            "deployments.yaml:59:150: warning sglang/running-requests-above-cuda-graph-bs "
            "max_running_requests 1024 (256 per dp-attention rank), but CUDA graphs are captured for "
            "decode batches up to 128 (cuda_graph_max_bs): larger decode batches run without a CUDA "
            "graph; raise --cuda-graph-max-bs to 256, or lower max_running_requests",
            "deployments.yaml:80:150: error sglang/max-running-requests-zero max_running_requests 2 "
            "is below dp_size 4 with dp-attention, so each rank gets 0: SGLang 0.5.6.post2 does not "
            "start (AssertionError: max_running_request is zero)",
        ],
        "3 errors, 3 warnings, 0 info in 1 file",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fixture_findings(run_line: RunLine, case: str) -> None:
    code, findings, summary = CASES[case]
    result = run_line(["lint", *POLICY, str(FIXTURES / case)])
    prefix = f"{FIXTURES / case}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        *findings,
        summary,
    ]
    assert result.exit_code == code


def _rules(with_data: bool = False) -> list[Any]:
    policy = yaml.safe_load((ROOT / "policies" / "sglang.yaml").read_text(encoding="utf-8"))
    return [(rule["id"], rule) if with_data else rule["id"] for rule in policy["spec"]["rules"]]


def test_every_rule_fires_somewhere_and_the_clean_fixture_stays_clean() -> None:
    fired = {line.split(" ")[2] for _, findings, _ in CASES.values() for line in findings}
    assert {f"sglang/{rule}" for rule in _rules()} - fired == set()
    assert {case for case, (_, findings, _) in CASES.items() if not findings} == {"ok"}


def test_rules_cite_sources_and_explain_themselves() -> None:
    for rule, data in _rules(with_data=True):
        assert data["references"], rule
        # Pinned: every source is a link; a file of the repository is at a tag or commit,
        # with the lines.
        assert all(ref.startswith("https://") for ref in data["references"]), rule
        assert all(
            "#L" in ref for ref in data["references"] if "/sgl-project/sglang/blob/" in ref
        ), rule
        assert data["title"] and data["description"] and data["fix"], rule
        assert re.search(r"\b[A-Z]{2,6}-[0-9]{3}\b", data["description"]) is None, rule


def test_the_llm_d_profile_reads_both_pools(run_line: RunLine) -> None:
    """The decode pool is exempt from the chunked-prefill rule (disaggregation decode), the prefill pool is not."""
    import json

    result = run_line(["lint", *POLICY, "--format", "json", str(FIXTURES / "llmd")])
    found = [(f["rule"], f["line"], f["path"]) for f in json.loads(result.output)["findings"]]
    assert found == [
        ("sglang/chunked-prefill-not-page-multiple", 41, "prefill.containers[0].args[5]")
    ]


@pytest.mark.parametrize(
    ("tag", "severity", "rule", "text"),
    [
        (
            "v0.5.23",
            "error",
            "sglang/flag-not-accepted",
            "'--cuda-graph-max-bs' is not a flag of SGLang 0.5.23 (removed in 0.5.20) but the prefix"
            " of --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill",
        ),
        # A release candidate is not in the table of releases: the version-unknown twin.
        (
            "v0.5.20rc1",
            "warning",
            "sglang/flag-not-accepted-version-unknown",
            "--cuda-graph-max-bs is accepted by SGLang 0.4.0–0.5.19 only (removed in 0.5.20)",
        ),
        (
            "latest",
            "warning",
            "sglang/flag-not-accepted-version-unknown",
            "--cuda-graph-max-bs is accepted by SGLang 0.4.0–0.5.19 only (removed in 0.5.20)",
        ),
        ("v0.5.19", None, None, None),
        ("v0.5.6.post2", None, None, None),
    ],
)
def test_cuda_graph_max_bs_by_version(
    run_line: RunLine,
    tmp_path: Path,
    tag: str,
    severity: str | None,
    rule: str | None,
    text: str | None,
) -> None:
    manifest = tmp_path / "sglang.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: sglang}\nspec:\n  containers:\n"
        f"    - name: sglang\n      image: lmsysorg/sglang:{tag}\n"
        "      command: [python3, -m, sglang.launch_server]\n"
        "      args: [--model-path, m, --cuda-graph-max-bs, '64']\n",
        encoding="utf-8",
    )
    result = run_line(["lint", *POLICY, str(manifest)])
    lines = report_lines(result.output)[:-1]
    if severity is None:
        assert lines == []
    else:
        [line] = lines
        assert line.startswith(f"{manifest}:9:31: {severity} {rule} {text}")
