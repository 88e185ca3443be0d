"""Reading only the lines of a log that can hold a parser's marks gives that parser
exactly what cleaning every line gives it: same lines, numbers, processes and texts."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from linter.drift.live import read_capture, vllm
from linter.drift.live.lines import Line, clean, clean_marked

LOGS = Path(__file__).parent / "fixtures" / "drift" / "logs"
CAPTURES = Path(__file__).parent / "fixtures" / "drift" / "captures"

# Pieces that put marks, prefixes and what cleaning rewrites (colour codes, carriage
# returns, JSON-quoted messages with escapes) next to each other and across lines.
PIECES = [
    *vllm.MARKS,
    "\n",
    "\x1b[0m",
    "\x1b[32m",
    "\r",
    "\\",
    "\\u0020",
    '"',
    " ",
    "x",
    "INFO 10-08 08:39:01 [utils.py:233] ",
    "(EngineCore_0 pid=12) ",
    "2025-01-01T00:00:00.000Z ",
    "[pod/vllm-0/vllm] ",
    "Chunked prefill is enabled with max_num_batched_tokens=2048.",
    "vLLM API server version 0.9.1",
]


def with_marks(lines: list[Line]) -> list[Line]:
    return [line for line in lines if any(mark in line.text for mark in vllm.MARKS)]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_marked_lines_are_the_cleaned_lines_with_marks(text: str) -> None:
    assert with_marks(clean_marked(text, vllm.MARKS)) == with_marks(clean(text))


def test_every_log_fixture_reads_the_same_either_way() -> None:
    logs = sorted({*LOGS.glob("*.log"), *CAPTURES.glob("*.log")})
    assert len(logs) >= 10
    for log in logs:
        text = log.read_text(encoding="utf-8", errors="replace")
        assert with_marks(clean_marked(text, vllm.MARKS)) == with_marks(clean(text)), log


def test_a_line_with_two_marks_is_read_once_with_its_number() -> None:
    text = "noise\nINFO 10-08 08:39:01 [a.py:1] args: x LLM engine y\r\nmore\n"
    assert clean_marked(text, vllm.MARKS) == [Line(2, "args: x LLM engine y", "", True)]


def test_replicas_lines_parsed_once_are_still_each_pods_own() -> None:
    """The parse of a line is kept for the next replica; what one pod's capture does to
    its maps never reaches another's."""
    text = (LOGS / "vllm-0.11-dp2.log").read_text()
    first = read_capture(text)
    assert first is not None
    kept = copy.deepcopy(first.settings)
    first.settings["compilation_config"]["level"] = -1
    first.settings.clear()
    second = read_capture(text)
    assert second is not None
    assert second.settings == kept
    assert second.settings["compilation_config"]["level"] != -1


def test_a_replicas_log_with_other_times_and_process_ids_reads_as_the_first() -> None:
    """What the marked lines say is read once per scan; the second replica's capture is
    equal to the first's, with maps of its own."""
    text = (LOGS / "vllm-0.11-dp2.log").read_text()
    replica = text.replace("10-21 ", "10-22 ").replace("pid=", "pid=9")
    assert replica != text
    first, second = read_capture(text), read_capture(replica)
    assert first is not None and second is not None
    assert second == first
    # The scan keys its shared analyses by the capture: the replica's key is known
    # without formatting the capture again, and equals the first's.
    assert first.fingerprint in ("", repr(first))  # "" when first read in this process
    assert second.fingerprint == repr(first)
    assert second.key() == first.key() == repr(first)
    changed = dataclasses.replace(second, version="0.12.0")  # no longer the same capture
    assert changed.fingerprint == "" and changed.key() == repr(changed) != first.key()
    second.settings["compilation_config"]["level"] = -1
    third = read_capture(text)
    assert third is not None and third == first
    assert third.settings["compilation_config"]["level"] != -1


def test_processes_that_disagree_are_named_from_each_log_read() -> None:
    """A capture with disagreements names the processes of its own log, although the
    lines of another replica said the same."""
    text = (LOGS / "vllm-two-replicas.log").read_text()
    other = text.replace("pod/llm-vllm-7f9c-a2kq9", "pod/llm-vllm-7f9c-zz111")
    first, second = read_capture(text), read_capture(other)
    assert first is not None and second is not None
    assert [d.setting for d in first.disagreements] == ["api_key", "max_model_len"]
    assert [p for p, _, _ in first.disagreements[1].seen] == [
        "pod/llm-vllm-7f9c-a2kq9/vllm",
        "pod/llm-vllm-7f9c-c9m2p/vllm",
    ]
    assert [p for p, _, _ in second.disagreements[1].seen] == [
        "pod/llm-vllm-7f9c-zz111/vllm",
        "pod/llm-vllm-7f9c-c9m2p/vllm",
    ]
