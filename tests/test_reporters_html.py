"""``--format html`` of lint, show and drift (linter/reporters/html.py, drift/report_html.py):
the memory bar's numbers are the findings' numbers, every input text is escaped, secrets are
masked, the page is valid HTML, and a real browser loads it with no error and no request."""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import html5lib
import pytest
from click.testing import Result
from gitops_repo import checkout

from linter.model.facts.budget import MemoryBudget
from linter.reporters.memory import text_lines

FIXTURES = Path(__file__).parent / "fixtures"
HTML = FIXTURES / "html"
DRIFT = FIXTURES / "drift"
ARTEFACTS = Path(__file__).parent / "artefacts"

Run = Callable[..., Result]

# tests/fixtures/html/deploy.yaml: Llama-3.1-8B on vLLM and Qwen2.5-7B on SGLang, one L4 each.
CHAT_LABELS = [
    "weights 15.0 GiB",
    "activations, CUDA graphs 1 GiB (allowance)",
    "KV cache that fits 4.3 GiB (35120 tokens at 128 KiB per token)",
    "outside gpu_memory_utilization 0.90 2.2 GiB (not given to the server)",
    "KV cache needed for one sequence of max_model_len 32768: 4 GiB, fits",
    "KV cache needed for max_num_seqs 64 × max_model_len 32768 = 2097152 tokens: 256 GiB, "
    "59× the 35120 tokens that fit",
]
SUMMARISE_LABELS = [
    "weights 14.2 GiB",
    "KV cache that fits 4.9 GiB (92402 tokens at 56 KiB per token)",
    "outside mem_fraction_static 0.85 3.4 GiB (activations, CUDA graphs)",
    "KV cache needed for one sequence of context_length 16384: 896 MiB, fits",
    "KV cache needed for max_running_requests 48 × context_length 16384 = 786432 tokens: "
    "42 GiB, 8× the 92402 tokens that fit",
]


def labels(page: str, css: str = "label") -> list[str]:
    return [html.unescape(t) for t in re.findall(rf'<text class="{css}"[^>]*>([^<]*)</text>', page)]


def sections(page: str) -> list[str]:
    return page.split('<section class="workload">')[1:]


def valid(page: str) -> None:
    """html5lib in strict mode raises on the first parse error of the WHATWG algorithm."""
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)


@pytest.fixture
def in_html(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HTML)  # links are relative to the working directory


def test_lint_draws_each_workloads_memory_with_the_numbers_its_findings_state(
    run_line: Run, in_html: None
) -> None:
    result = run_line(["lint", "--no-config", "--format", "html", "deploy.yaml"])
    assert result.exit_code == 0  # warnings only
    page = result.output
    chat, summarise = sections(page)
    assert labels(chat) == CHAT_LABELS
    assert labels(summarise) == SUMMARISE_LABELS
    assert labels(page, "device") == ["NVIDIA-L4 22.5 GiB", "NVIDIA-L4 22.5 GiB"]
    assert re.findall(r"<figcaption>([^<]*)</figcaption>", page) == [
        "GPU memory: one NVIDIA-L4 of 22.5 GiB; vLLM takes 20.2 GiB at gpu_memory_utilization 0.90",
        "GPU memory: one NVIDIA-L4 of 22.5 GiB; SGLang takes 19.1 GiB at mem_fraction_static 0.85",
    ]
    # The finding on max_num_seqs states the bar's figures.
    [message] = re.findall(r"<td>(max_num_seqs 64 [^<]*)</td>", chat)
    assert message.startswith(
        "max_num_seqs 64 × max_model_len 32768 = 2097152 tokens, 59× the about 35120 tokens "
        "the KV cache holds (128 KiB per token, about 4.3 GiB of KV cache on the NVIDIA L4)"
    )
    # One part per stretch of the device: the vLLM parts add up to its memory.
    widths = [
        float(w) for w in re.findall(r'class="part-\w+" x="[\d.]+" y="16" width="([\d.]+)"', chat)
    ]
    assert round(sum(widths)) == 640


def test_lint_groups_findings_by_workload_and_file_with_links_to_their_lines(
    run_line: Run, in_html: None
) -> None:
    page = run_line(["lint", "--no-config", "--format", "html", "deploy.yaml"]).output
    assert re.findall(r"<h2>([^<]*)</h2>", page) == [
        "Deployment/default/chat",
        "Deployment/default/summarise",
    ]
    rows = [re.findall(r'<a href="([^"]*)">(\d+:\d+)</a>', s) for s in sections(page)]
    assert rows == [
        [
            ("deploy.yaml#L14", "14:11"),
            ("deploy.yaml#L18", "18:15"),
            ("deploy.yaml#L22", "22:15"),
            ("deploy.yaml#L25", "25:11"),
        ],
        [("deploy.yaml#L40", "40:11"), ("deploy.yaml#L49", "49:15"), ("deploy.yaml#L52", "52:11")],
    ]
    assert '<h3><a href="deploy.yaml">deploy.yaml</a></h3>' in page
    valid(page)


def test_show_prints_the_budget_as_text_and_draws_it_in_html(run_line: Run, in_html: None) -> None:
    text = run_line(["show", "--no-config", "deploy.yaml"]).output.splitlines()
    start = text.index(
        "  GPU memory (one NVIDIA-L4 of 22.5 GiB; vLLM takes 20.2 GiB at gpu_memory_utilization "
        "0.90):"
    )
    assert text[start + 1 : start + 8] == [
        "    weights                              15.0 GiB",
        "    activations, CUDA graphs             1 GiB (allowance)",
        "    KV cache that fits                   4.3 GiB (35120 tokens at 128 KiB per token)",
        "    outside gpu_memory_utilization 0.90  2.2 GiB (not given to the server)",
        "    left after the weights               5.3 GiB",
        "    KV cache needed for one sequence of max_model_len 32768: 4 GiB, fits",
        "    KV cache needed for max_num_seqs 64 × max_model_len 32768 = 2097152 tokens: 256 GiB, "
        "59× the 35120 tokens that fit",
    ]
    page = run_line(["show", "--no-config", "--format", "html", "deploy.yaml"]).output
    assert [labels(s) for s in sections(page)] == [CHAT_LABELS, SUMMARISE_LABELS]
    assert '<a href="deploy.yaml#L20">deploy.yaml:20:15</a>' in page  # max_model_len's line
    valid(page)


def test_show_json_carries_the_budget(run_line: Run, in_html: None) -> None:
    import json

    shown = json.loads(run_line(["show", "--no-config", "--format", "json", "deploy.yaml"]).output)
    memory = shown["workloads"][0]["gpuMemory"]
    assert memory == {
        "server": "vllm",
        "gpu": "NVIDIA-L4",
        "deviceBytes": 24152899584,
        "fraction": 0.9,
        "budgetBytes": 21737609625,
        "weightBytes": 16060522496,
        "overheadBytes": 1073741824,
        "kvBudgetBytes": 4603345305,
        "kvTokens": 35120,
        "kvBytesPerToken": 131072,
        "outsideBytes": 2415289959,
        "freeBytes": 0,
        "maxModelLen": 32768,
        "maxNumSeqs": 64,
        "kvBytesNeeded": 274877906944,
        "assumptions": [],
    }
    assert text_lines(MemoryBudget.from_json(memory))[0] == (
        "  GPU memory (one NVIDIA-L4 of 22.5 GiB; vLLM takes 20.2 GiB at "
        "gpu_memory_utilization 0.90):"
    )


def test_weights_beyond_the_budget_overflow_the_device_in_the_drawing(
    run_line: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(FIXTURES / "vllm" / "manifests")
    page = run_line(["lint", "--no-config", "--format", "html", "sglang-memory.yaml"]).output
    first = sections(page)[0]
    assert labels(first) == [
        "weights 65.7 GiB",
        "KV cache that fits 0 B (0 tokens at 160 KiB per token)",
        "outside mem_fraction_static 0.83 3.8 GiB (activations, CUDA graphs)",
        "KV cache needed for one sequence of context_length 131072: 20 GiB, no KV cache fits",
    ]
    # The device ends a third of the way along: 22.5 GiB of 69.5 GiB drawn.
    assert '<line x1="207.1"' in first


HOSTILE_FILE = 'a"<b>&c.yaml'


def test_every_input_text_is_escaped(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile = (
        (HTML / "deploy.yaml")
        .read_text()
        .replace("name: chat", 'name: "<img src=x onerror=alert(1)>\\e[31m"')
        .replace(
            "- --gpu-memory-utilization",
            '- "--x</td><script>alert(2)</script>"\n            - --gpu-memory-utilization',
        )
    )
    (tmp_path / HOSTILE_FILE).write_text(hostile)
    monkeypatch.chdir(tmp_path)
    pages = {
        command: run_line([command, "--no-config", "--format", "html", HOSTILE_FILE]).output
        for command in ("lint", "show")
    }
    for page in pages.values():
        assert "<img" not in page
        assert "<script" not in page
        assert "\x1b" not in page  # the escape character itself
        assert "<h2>Deployment/default/&lt;img src=x onerror=alert(1)&gt;\\x1b[31m</h2>" in page
        valid(page)
    assert (
        '<h3><a href="a%22%3Cb%3E%26c.yaml">a&quot;&lt;b&gt;&amp;c.yaml</a></h3>' in pages["lint"]
    )
    # A finding quotes the flag: vllm/flag-not-accepted.
    assert (
        "--x&lt;/td&gt;&lt;script&gt;alert(2)&lt;/script&gt; is not a flag of vLLM"
        in (pages["lint"])
    )
    assert '<a href="a%22%3Cb%3E%26c.yaml#L3">a&quot;&lt;b&gt;&amp;c.yaml:3:1</a>' in pages["show"]


def test_a_fraction_read_from_a_secret_is_masked_in_the_bar(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout(tmp_path, monkeypatch, FIXTURES / "gitops" / "repo")
    for command in ("lint", "show"):
        page = run_line([command, "--format", "html", "flux/release.yaml"]).output
        assert "0.97" not in page
        [caption] = re.findall(r"<figcaption>([^<]*)</figcaption>", page)
        assert caption == (
            "GPU memory: one NVIDIA-L4 of 22.5 GiB; vLLM takes 21.8 GiB at "
            "gpu_memory_utilization ****"
        )
    text = run_line(["show", "flux/release.yaml"]).output
    assert "0.97" not in text
    assert "gpu_memory_utilization ****):" in text


def test_drift_is_a_table_of_committed_and_live_values(
    run_line: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(DRIFT)
    result = run_line(
        [
            "drift",
            "-f",
            "values.yaml",
            "-f",
            "values-prod.yaml",
            "--values-path",
            "server.config",
            "--live",
            "live/vllm-config.json",
            "--format",
            "html",
        ]
    )
    assert result.exit_code == 1
    rows = re.findall(r"<tr>(<td.*?)</tr>", result.output)
    assert rows == [
        '<td class="mono">server.config.maxNumSeqs</td><td class="mono">256</td>'
        '<td class="mono">128</td><td>changed</td>'
        '<td><a href="values-prod.yaml#L4">values-prod.yaml:4</a></td>',
        '<td class="mono">server.config.apiKey</td><td class="mono">****</td>'
        '<td class="mono">****</td><td>changed</td>'
        '<td><a href="values.yaml#L19">values.yaml:19</a></td>',
    ]
    assert "<h2>live/vllm-config.json: 2 differences (vllm defaults applied)</h2>" in result.output
    valid(result.output)


def test_a_real_browser_loads_the_page_with_no_error_and_no_request(
    run_line: Run, in_html: None, tmp_path: Path
) -> None:
    from chromium import Browser

    report = tmp_path / "report.html"
    shutil.copy(HTML / "deploy.yaml", tmp_path / "deploy.yaml")
    page = run_line(["lint", "--no-config", "--format", "html", "deploy.yaml"]).output
    report.write_text(page, encoding="utf-8")
    with Browser(tmp_path / "profile") as browser:
        loaded = browser.load(report.as_uri())
        assert loaded.console == []
        assert loaded.requests == [report.as_uri()]
        assert loaded.evaluate("document.querySelectorAll('svg.memory').length") == 2
        assert loaded.evaluate(
            "[...document.querySelectorAll('section.workload')].map("
            "s => s.querySelectorAll('svg.memory').length)"
        ) == [1, 1]
        # The bar is drawn: its first part is the weights' share of the device (the bar
        # is 640 of the drawing's 780 units, however wide the page shows it).
        share = loaded.evaluate(
            "document.querySelector('rect.part-weights').getBoundingClientRect().width"
            " / document.querySelector('svg.memory').getBoundingClientRect().width"
        )
        assert round(share, 3) == round(640 / 780 * 16060522496 / 24152899584, 3)
        loaded.screenshot(ARTEFACTS / "html-report.png")
    assert (ARTEFACTS / "html-report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_charts_environments_are_one_group_with_a_named_bar_each(
    run_line: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(__file__).parent.parent)  # the README's first command
    args = ["lint", "--today=2026-12-01", "--format", "html", "examples/charts/vllm"]
    page = run_line(args).output
    [section] = sections(page)
    assert re.findall(r"<figcaption>GPU memory of (.*?\]):", section) == [
        "helm:examples/charts/vllm@default [default]",
        "helm:examples/charts/vllm@prod [prod]",
        "helm:examples/charts/vllm@staging [staging]",
    ]
    # prod's bar: the KV cache one sequence needs, as its finding says (16 GiB).
    assert (
        "KV cache needed for one sequence of max_model_len 131072: 16 GiB, more than the "
        "4.3 GiB that fit"
    ) in labels(section)
    assert re.findall(r'<a href="([^"]*)">(\d+:\d+)</a>', section) == [
        ("examples/charts/vllm/values-prod.yaml#L42", "42:7"),
        ("examples/charts/vllm/values-staging.yaml#L6", "6:7"),
        ("examples/charts/vllm/values-staging.yaml#L10", "10:7"),
    ]
    assert "max_model_len 131072 needs 16 GiB of KV cache" in section
