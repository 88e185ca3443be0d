"""Per-release flag tables: version boundaries read from the releases' own argument code,
argparse prefix resolution (vLLM and SGLang keep allow_abbrev), and the command-line fact."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.evaluate.parsers import parse
from linter.model.engine import flagtables
from linter.model.engine.args import Token, parse_args
from linter.model.frontends.extract import extract_workloads
from linter.positions import Origin

FIXTURES = Path(__file__).parent / "fixtures" / "flagtables"


def _tokens(*texts: str) -> list[Token]:
    return [Token(text, Origin("f.yaml", line, 3)) for line, text in enumerate(texts, 1)]


@pytest.mark.parametrize(
    ("server", "version", "flag", "status", "removed_in"),
    [
        # --disable-log-requests: vllm/engine/arg_utils.py has it up to v0.16.0; no release
        # from 0.17.0 to 0.33.0 defines it again (nor a flag it is the prefix of).
        ("vllm", "0.16.0", "--disable-log-requests", "accepted", "0.17.0"),
        ("vllm", "0.17.0", "--disable-log-requests", "rejected", "0.17.0"),
        ("vllm", "0.33.0", "--disable-log-requests", "rejected", "0.17.0"),
        ("vllm", "0.17.1", "--swap-space", "accepted", "0.18.0"),
        ("vllm", "0.18.0", "--swap-space", "rejected", "0.18.0"),
        ("vllm", "0.10.2", "--max-seq-len-to-capture", "accepted", "0.11.0"),
        ("vllm", "0.11.0", "--max-seq-len-to-capture", "rejected", "0.11.0"),
        ("vllm", "0.12.0", "--cuda-graph-sizes", "accepted", "0.13.0"),
        ("vllm", "0.13.0", "--cuda-graph-sizes", "rejected", "0.13.0"),
        ("vllm", "0.11.0", "--cudagraph-capture-sizes", "rejected", ""),
        ("vllm", "0.11.1", "--cudagraph-capture-sizes", "accepted", ""),
        ("sglang", "0.5.19", "--cuda-graph-max-bs", "accepted", "0.5.20"),
        ("sglang", "0.5.20", "--cuda-graph-max-bs", "ambiguous", "0.5.20"),
        ("sglang", "0.5.23", "--cuda-graph-bs", "ambiguous", "0.5.20"),
        ("sglang", "0.5.21", "--attn-dp-size", "rejected", ""),
        ("sglang", "0.5.22", "--attn-dp-size", "accepted", ""),
        # TGI 2.0.0 added --max-input-tokens; --max-input-length stays as its alias.
        ("tgi", "1.4.5", "--max-input-tokens", "rejected", ""),
        ("tgi", "2.0.0", "--max-input-tokens", "accepted", ""),
        ("tgi", "3.3.7", "--max-input-length", "accepted", ""),
        ("tgi", "1.4.5", "--enable-cuda-graphs", "accepted", "2.0.0"),
        ("tgi", "2.0.0", "--enable-cuda-graphs", "rejected", "2.0.0"),
        # Triton: the NGC container tag names the release (build.py: 24.08 is 2.49.0).
        ("triton", "24.08", "--grpc-keepalive-time", "accepted", ""),
        ("triton", "24.08", "--tf-allow-soft-placement", "rejected", "2.2.0"),
        ("triton", "20.11", "--tf-allow-soft-placement", "rejected", "2.2.0"),
    ],
)
def test_version_boundaries(
    server: str, version: str, flag: str, status: str, removed_in: str
) -> None:
    verdict = flagtables.judge(server, version, flag)
    assert (verdict.status, verdict.removed_in) == (status, removed_in)


def test_removed_alias_names_the_flags_it_now_abbreviates() -> None:
    verdict = flagtables.judge("sglang", "0.5.20", "--cuda-graph-max-bs")
    assert verdict.candidates == ("--cuda-graph-max-bs-decode", "--cuda-graph-max-bs-prefill")
    assert verdict.accepted_in == "0.4.0–0.5.19"
    assert verdict.replacement == "--cuda-graph-max-bs-decode"


def test_unique_prefix_sets_the_setting_as_argparse_does() -> None:
    parsed = parse_args(
        "vllm", _tokens("--max-num-batched-token=32768", "--max-num-seq", "64"), "0.11.0"
    )
    flags = {f.flag: (f.raw, f.value, f.setting.name if f.setting else None) for f in parsed.flags}
    assert flags == {
        "--max-num-batched-tokens": ("32768", 32768, "max_num_batched_tokens"),
        "--max-num-seqs": ("64", 64, "max_num_seqs"),
    }
    assert [(w.name, w.verdict.status, w.verdict.flag) for w in parsed.written] == [
        ("--max-num-batched-token", "accepted", "--max-num-batched-tokens"),
        ("--max-num-seq", "accepted", "--max-num-seqs"),
    ]


def test_ambiguous_prefix_is_the_servers_own_start_up_error() -> None:
    parsed = parse_args("vllm", _tokens("--max-num", "64"), "0.11.0")
    [written] = parsed.written
    assert (written.name, written.verdict.status) == ("--max-num", "ambiguous")
    assert written.verdict.candidates == (
        "--max-num-batched-tokens",
        "--max-num-partial-prefills",
        "--max-num-seqs",
    )
    # Not resolved: no setting is read from it.
    assert [f.setting for f in parsed.flags] == [None]


def test_unknown_version_resolves_only_what_every_release_agrees_on() -> None:
    assert flagtables.judge("vllm", "", "--swap-space").status == "some"
    assert flagtables.judge("vllm", "", "--max-modle-len").status == "never"
    # Taken by the newest release: not reported for an image whose tag hides the version.
    assert flagtables.judge("vllm", "", "--cudagraph-capture-sizes").status == "accepted"
    # Newer than the table: a flag no listed release has is not called a typo.
    assert flagtables.judge("vllm", "0.99.0", "--brand-new-flag").status == "newer"
    assert flagtables.judge("vllm", "0.5.4", "--swap-space").status == "unchecked"


def test_removed_flags_name_their_replacement() -> None:
    assert flagtables.judge("tgi", "3.3.6", "--enable-cuda-graphs").replacement == "--cuda-graphs"
    assert flagtables.judge("vllm", "0.13.0", "--cuda-graph-sizes").replacement == (
        "--cudagraph-capture-sizes"
    )
    # a rename the next release shows by the same argparse dest
    assert flagtables.judge("sglang", "0.5.20", "--cuda-graph-bs").replacement == (
        "--cuda-graph-bs-decode"
    )


def test_tgi_takes_no_abbreviations() -> None:
    assert flagtables.judge("tgi", "3.3.7", "--max-input-tok").status == "rejected"
    assert flagtables.judge("sglang", "0.5.23", "--mem-fraction-stat").status == "accepted"


def test_cli_flags_fact_lists_each_flag_as_written_at_its_token() -> None:
    path = FIXTURES / "kubeai-model.yaml"
    [workload] = extract_workloads([parse(str(path), path.read_text(encoding="utf-8"))])
    engine = workload.view().data["engine"]
    assert engine["entrypoint"] == "vllm.entrypoints.openai.api_server"
    assert engine["max_num_batched_tokens"] == 32768
    items = [(i["written"], i["flag"], i["status"], i["command_line"]) for i in engine["cli_flags"]]
    assert items == [
        ("--max-model-len", "--max-model-len", "accepted", True),
        ("--max-num-batched-token", "--max-num-batched-tokens", "accepted", True),
        ("--disable-log-requests", "--disable-log-requests", "some", True),
    ]
    lines = [workload.view().origins[("engine", "cli_flags", i)].line for i in range(3)]
    assert lines == [9, 10, 11]


def test_abbreviations_repeated_flags_and_json_values() -> None:
    parsed = parse_args(
        "vllm",
        _tokens(
            "--max-num-seqs",
            "8",
            "--max-num-seq=16",
            "--compilation-conf",
            '{"cudagraph_capture_sizes": [1, 2]}',
            "--no-enable-prefix-cach",
        ),
        "0.11.1",
    )
    values = [(f.flag, f.value) for f in parsed.flags]
    assert values == [
        ("--max-num-seqs", 8),
        ("--max-num-seqs", 16),  # argparse keeps the last occurrence
        ("--compilation-config", {"cudagraph_capture_sizes": [1, 2]}),
        ("--no-enable-prefix-caching", False),
    ]
    assert [w.verdict.flag for w in parsed.written] == [
        "--max-num-seqs",
        "--max-num-seqs",
        "--compilation-config",
        "--no-enable-prefix-caching",
    ]


def test_words_the_parser_never_sees_as_written_are_not_judged() -> None:
    parsed = parse_args("vllm", _tokens("$(EXTRA_ARGS)", "--{{ .Values.flag }}", "-O3"), "0.18.0")
    # $(EXTRA_ARGS) is a positional word; the flags built from templates are not judged, nor
    # vLLM's -O3 (its parser rewrites it before argparse sees it).
    assert [t.text for t in parsed.positionals] == ["$(EXTRA_ARGS)"]
    assert [(w.name, w.verdict.status) for w in parsed.written] == [
        ("--{{ .Values.flag }}", "unchecked"),
        ("-O3", "unchecked"),
    ]


def test_a_four_part_release_is_the_tabled_release() -> None:
    # --swap-space was accepted up to 0.17.1; 0.10.1.1 is in the table.
    verdict = flagtables.judge("vllm", "0.10.1.1", "--swap-space")
    assert (verdict.status, verdict.flag) == ("accepted", "--swap-space")
    assert flagtables.table("vllm").index_of("0.10.1.1") == 29  # type: ignore[union-attr]


def test_a_release_candidate_is_judged_between_its_neighbours() -> None:
    # 0.10.1rc1 is no tabled release (and not 0.10.1.1): a flag both 0.10.0 and 0.10.1 take
    # is accepted; one the release it leads to dropped is only "some releases".
    tab = flagtables.table("vllm")
    assert tab is not None and tab.index_of("0.10.1rc1") is None
    assert flagtables.judge("vllm", "0.10.1rc1", "--max-model-len").status == "accepted"
    assert flagtables.judge("vllm", "0.18.0rc1", "--swap-space").status == "some"
    assert flagtables.judge("vllm", "0.10.1rc1", "--max-modle-len").status == "never"
