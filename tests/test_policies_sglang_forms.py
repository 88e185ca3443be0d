"""Every SGLang rule in every input form: the same server arguments written as container args,
in a shell script, as extraArgs of generic Helm values, as camelCase keys of Helm values,
and in a container of the llm-d modelservice chart (a chart profile). Each rule fires in each
form, at the line of the setting, and a corrected variant does not fire it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import Result

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
POLICY = ["--no-config", "--no-builtin", "--policy-dir", str(ROOT / "policies" / "sglang.yaml")]
MODEL = "meta-llama/Llama-3.1-8B-Instruct"

# rule → (image tag, flags that fire it, flags that do not, the flag it points at);
# a flag whose value is "" is a switch.
RULES: dict[str, tuple[str, dict[str, str], dict[str, str], str]] = {
    "chunked-prefill-not-page-multiple": (
        "v0.5.6.post2",
        {"--chunked-prefill-size": "1000", "--page-size": "16"},
        {"--chunked-prefill-size": "1024", "--page-size": "16"},
        "--chunked-prefill-size",
    ),
    "running-requests-above-cuda-graph-bs": (
        "v0.5.6.post2",
        {"--max-running-requests": "512", "--cuda-graph-max-bs": "128"},
        {"--max-running-requests": "128", "--cuda-graph-max-bs": "128"},
        "--max-running-requests",
    ),
    "max-running-requests-zero": (
        "v0.5.6.post2",
        {"--max-running-requests": "0"},
        {"--max-running-requests": "16"},
        "--max-running-requests",
    ),
    "kv-cache-dtype-invalid": (
        "v0.5.6.post2",
        {"--kv-cache-dtype": "fp8"},
        {"--kv-cache-dtype": "fp8_e4m3"},
        "--kv-cache-dtype",
    ),
    "parallelism-not-divisible-by-nodes": (
        "v0.5.6.post2",
        {"--tp-size": "16", "--nnodes": "3"},
        {"--tp-size": "16", "--nnodes": "2"},
        "--nnodes",
    ),
    "pipeline-parallel-incompatible": (
        "v0.5.6.post2",
        {"--pp-size": "2", "--enable-mixed-chunk": ""},
        {"--pp-size": "2"},
        "--pp-size",
    ),
    "multi-node-data-parallel": (
        "v0.5.6.post2",
        {"--tp-size": "16", "--nnodes": "2", "--dp-size": "2"},
        {"--tp-size": "16", "--nnodes": "2", "--dp-size": "2", "--enable-dp-attention": ""},
        "--dp-size",
    ),
    "mem-fraction-static-like-vllm": (
        "v0.5.6.post2",
        {"--mem-fraction-static": "0.95"},
        {"--mem-fraction-static": "0.8"},
        "--mem-fraction-static",
    ),
}
FORMS = ("manifest-args", "shell", "values-extra-args", "values-camel", "llm-d")


def _words(flags: Mapping[str, str]) -> list[str]:
    return [w for flag, value in flags.items() for w in ((flag, value) if value else (flag,))]


def _camel(flag: str) -> str:
    first, *rest = flag.removeprefix("--").split("-")
    return first + "".join(part.title() for part in rest)


def render(form: str, tag: str, flags: Mapping[str, str]) -> str:
    image = f"lmsysorg/sglang:{tag}"
    args = ["--model-path", MODEL, *_words(flags)]
    listed = [f'            - "{w}"' for w in args]
    if form == "manifest-args":
        return "\n".join(
            [
                "apiVersion: v1",
                "kind: Pod",
                "metadata: {name: sglang}",
                "spec:",
                "  containers:",
                "    - name: sglang",
                f"      image: {image}",
                '      command: ["python3", "-m", "sglang.launch_server"]',
                "      args:",
                *(line[6:] for line in listed),
                "      resources: {limits: {nvidia.com/gpu: 1}}",
                "",
            ]
        )
    if form == "shell":
        return "\n".join(
            [
                "apiVersion: v1",
                "kind: Pod",
                "metadata: {name: sglang}",
                "spec:",
                "  containers:",
                "    - name: sglang",
                f"      image: {image}",
                "      command:",
                "        - bash",
                "        - -c",
                "        - |",
                "          set -e",
                f"          python3 -m sglang.launch_server --model-path {MODEL} \\",
                *(f"            {flag} {value}".rstrip() + " \\" for flag, value in flags.items()),
                "            --port 30000",
                "      resources: {limits: {nvidia.com/gpu: 1}}",
                "",
            ]
        )
    if form == "values-extra-args":
        return "\n".join(
            [
                f"image: {{repository: lmsysorg/sglang, tag: {tag}}}",
                f"modelPath: {MODEL}",
                "extraArgs:",
                *(line[10:] for line in listed[2:]),
                "resources: {limits: {nvidia.com/gpu: 1}}",
                "",
            ]
        )
    if form == "values-camel":
        return "\n".join(
            [
                "sglang:",
                f"  image: {image}",
                f"  modelPath: {MODEL}",
                *(f"  {_camel(flag)}: {value or 'true'}" for flag, value in flags.items()),
                "  resources: {limits: {nvidia.com/gpu: 1}}",
                "",
            ]
        )
    return "\n".join(
        [
            f"modelArtifacts: {{name: {MODEL}}}",
            "decode:",
            "  create: true",
            "  containers:",
            "    - name: sglang",
            f"      image: {image}",
            "      modelCommand: custom",
            '      command: ["python3", "-m", "sglang.launch_server"]',
            "      args:",
            *(line[4:] for line in listed),
            "      resources: {limits: {nvidia.com/gpu: 1}}",
            "",
        ]
    )


def line_of(form: str, text: str, flag: str, flags: Mapping[str, str]) -> int:
    lines = text.splitlines()
    if form == "values-camel":
        fragment = f"  {_camel(flag)}:"
    elif form == "shell":
        fragment = f" {flag} "
    else:
        fragment = f'- "{flag}"'
    number = next(n for n, line in enumerate(lines, 1) if fragment in line)
    # list forms point at the value item after the flag (a switch at the flag itself)
    return number + 1 if form not in ("values-camel", "shell") and flags[flag] else number


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_fires_in_every_form_at_the_setting(
    run_line: RunLine, tmp_path: Path, rule: str
) -> None:
    tag, bad, good, target = RULES[rule]
    expected = {}
    for variant, flags in (("bad", bad), ("good", good)):
        (tmp_path / variant).mkdir()
        for form in FORMS:
            name = f"{form}-values.yaml" if form.startswith(("values", "llm-d")) else f"{form}.yaml"
            text = render(form, tag, flags)
            (tmp_path / variant / name).write_text(text, encoding="utf-8")
            if variant == "bad":
                expected[f"bad/{name}"] = line_of(form, text, target, flags)
    result = run_line(["lint", *POLICY, "--format", "json", str(tmp_path)])
    findings = [f for f in json.loads(result.output)["findings"] if f["rule"] == f"sglang/{rule}"]
    fired = {f"{Path(f['file']).parent.name}/{Path(f['file']).name}": f["line"] for f in findings}
    assert fired == expected


def test_flags_are_judged_only_on_real_command_lines(run_line: RunLine, tmp_path: Path) -> None:
    """flag-not-accepted reads the command line as written: container args and shell scripts.
    Values files (extraArgs, camelCase keys) and the llm-d chart profile are not judged."""
    flags = {"--cuda-graph-max-bs": "128"}
    expected = {}
    for form in FORMS:
        name = f"{form}-values.yaml" if form.startswith(("values", "llm-d")) else f"{form}.yaml"
        text = render(form, "v0.5.23", flags)
        (tmp_path / name).write_text(text, encoding="utf-8")
        if form in ("manifest-args", "shell"):
            line = next(n for n, t in enumerate(text.splitlines(), 1) if "--cuda-graph-max-bs" in t)
            expected[name] = line
    result = run_line(["lint", *POLICY, "--format", "json", str(tmp_path)])
    findings = json.loads(result.output)["findings"]
    fired = {
        Path(f["file"]).name: f["line"] for f in findings if f["rule"] == "sglang/flag-not-accepted"
    }
    assert fired == expected
