"""Every TGI rule in every input form: the same launcher settings written as container args,
as an env list, in a shell script, as an env map in generic Helm values, and as camelCase
keys of a nested Helm values section. Each rule fires in each form, at the line of the
setting, and a corrected variant does not fire it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import Result

from linter.model.engine import registry

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
POLICY = ["--no-config", "--no-builtin", "--policy-dir", str(ROOT / "policies" / "tgi.yaml")]
IMAGE = "ghcr.io/huggingface/text-generation-inference"

# rule → (image tag, settings that fire it, settings that do not, the setting it points at)
RULES: dict[str, tuple[str, dict[str, str], dict[str, str], str]] = {
    "input-tokens-and-input-length": (
        "3.3.6",
        {"MAX_INPUT_TOKENS": "4000", "MAX_INPUT_LENGTH": "4000"},
        {"MAX_INPUT_TOKENS": "4000"},
        "MAX_INPUT_LENGTH",
    ),
    "input-not-below-total": (
        "3.3.6",
        {"MAX_INPUT_TOKENS": "4096", "MAX_TOTAL_TOKENS": "4096"},
        {"MAX_INPUT_TOKENS": "4095", "MAX_TOTAL_TOKENS": "4096"},
        "MAX_INPUT_TOKENS",
    ),
    "total-above-batch-total": (
        "3.3.6",
        {"MAX_TOTAL_TOKENS": "8192", "MAX_BATCH_TOTAL_TOKENS": "4096"},
        {"MAX_TOTAL_TOKENS": "4096", "MAX_BATCH_TOTAL_TOKENS": "8192"},
        "MAX_BATCH_TOTAL_TOKENS",
    ),
    "batch-total-ignored": (
        "3.3.6",
        {"MAX_BATCH_TOTAL_TOKENS": "8192"},
        {"MAX_TOTAL_TOKENS": "8192"},
        "MAX_BATCH_TOTAL_TOKENS",
    ),
    "input-above-prefill": (
        "2.3.1",
        {"MAX_INPUT_TOKENS": "3000", "MAX_BATCH_PREFILL_TOKENS": "2048"},
        {"MAX_INPUT_TOKENS": "3000", "MAX_BATCH_PREFILL_TOKENS": "4096"},
        "MAX_BATCH_PREFILL_TOKENS",
    ),
    "prefill-above-batch-total": (
        "2.3.1",
        {"MAX_BATCH_PREFILL_TOKENS": "8192", "MAX_BATCH_TOTAL_TOKENS": "4096"},
        {"MAX_BATCH_PREFILL_TOKENS": "4096", "MAX_BATCH_TOTAL_TOKENS": "8192"},
        "MAX_BATCH_PREFILL_TOKENS",
    ),
    "max-batch-size-zero": (
        "3.3.6",
        {"MAX_BATCH_SIZE": "0"},
        {"MAX_BATCH_SIZE": "32"},
        "MAX_BATCH_SIZE",
    ),
    "cuda-graphs-below-batch-size": (
        "3.3.6",
        {"CUDA_GRAPHS": "1,2,4,8"},
        {"CUDA_GRAPHS": "1,2,4,8,16,32,64,128"},
        "CUDA_GRAPHS",
    ),
    "quantize-disables-cuda-graphs": (
        "3.3.6",
        {"QUANTIZE": "bitsandbytes"},
        {"QUANTIZE": "eetq"},
        "QUANTIZE",
    ),
    "shards-do-not-divide-heads": (
        "3.3.6",
        {"MODEL_ID": "Qwen/Qwen2.5-7B-Instruct", "NUM_SHARD": "8"},
        {"MODEL_ID": "Qwen/Qwen2.5-7B-Instruct", "NUM_SHARD": "4"},
        "NUM_SHARD",
    ),
    "sharding-invalid": (
        "3.3.6",
        {"SHARDED": "true", "NUM_SHARD": "1"},
        {"SHARDED": "true", "NUM_SHARD": "2"},
        "SHARDED",
    ),
    "prefix-caching-attention": (
        "3.3.6",
        {"PREFIX_CACHING": "1", "ATTENTION": "paged"},
        {"ATTENTION": "paged"},
        "PREFIX_CACHING",
    ),
    "shards-without-shm": (
        "3.3.6",
        {"NUM_SHARD": "2"},
        {"NUM_SHARD": "2", "NCCL_SHM_DISABLE": "1"},
        "NUM_SHARD",
    ),
    "kv-cache-dtype-invalid": (
        "3.3.6",
        {"KV_CACHE_DTYPE": "fp8"},
        {"KV_CACHE_DTYPE": "fp8_e4m3fn"},
        "KV_CACHE_DTYPE",
    ),
}
FORMS = ("manifest-args", "manifest-env", "shell", "values-env-map", "values-nested")


def _flag(name: str) -> str | None:
    setting = registry.by_env("tgi", name)
    return setting.flags[0] if setting is not None and setting.flags else None


def _camel(name: str) -> str:
    first, *rest = name.lower().split("_")
    return first + "".join(part.title() for part in rest)


def _manifest(tag: str, container: list[str]) -> str:
    return "\n".join(
        [
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: {name: tgi}",
            "spec:",
            "  selector: {matchLabels: {app: tgi}}",
            "  template:",
            "    metadata: {labels: {app: tgi}}",
            "    spec:",
            "      containers:",
            "        - name: tgi",
            f"          image: {IMAGE}:{tag}",
            *container,
            "          resources: {limits: {nvidia.com/gpu: 1}}",
            "",
        ]
    )


def render(form: str, tag: str, settings: Mapping[str, str], target: str) -> tuple[str, int]:
    """The input text of ``form`` and the line that holds ``target``."""
    flags = {k: v for k, v in settings.items() if _flag(k)}
    env = {k: v for k, v in settings.items() if not _flag(k)}
    env_list = [
        line
        for k, v in env.items()
        for line in (f"            - name: {k}", f'              value: "{v}"')
    ]
    if form == "manifest-args":
        args = [
            line
            for k, v in flags.items()
            for line in (f"            - {_flag(k)}", f'            - "{v}"')
        ]
        text = _manifest(
            tag, ["          args:", *args, *(["          env:", *env_list] if env else [])]
        )
    elif form == "manifest-env":
        every = [
            line
            for k, v in settings.items()
            for line in (f"            - name: {k}", f'              value: "{v}"')
        ]
        text = _manifest(tag, ["          env:", *every])
    elif form == "shell":
        assigned = " ".join(f"{k}={v}" for k, v in env.items())
        words = " ".join(f"{_flag(k)} {v}" for k, v in flags.items())
        text = _manifest(
            tag,
            [
                '          command: ["/bin/sh", "-c"]',
                "          args:",
                "            - |",
                "              echo starting",
                f"              {assigned} exec text-generation-launcher \\",
                f"                --port 8080 {words}".rstrip(),
            ],
        )
    elif form == "values-env-map":
        text = "\n".join(
            [
                f'image: {{repository: {IMAGE}, tag: "{tag}"}}',
                "env:",
                *(f'  {k}: "{v}"' for k, v in settings.items()),
                "resources: {limits: {nvidia.com/gpu: 1}}",
                "",
            ]
        )
    else:
        text = "\n".join(
            [
                "server:",
                f"  image: {IMAGE}:{tag}",
                *(f'  {_camel(k)}: "{v}"' for k, v in flags.items()),
                *(["  env:", *(line[8:] for line in env_list)] if env else []),
                "  resources: {limits: {nvidia.com/gpu: 1}}",
                "",
            ]
        )
    lines = text.splitlines()
    if target not in settings:
        return text, 0

    def find(fragment: str, after: int = 0) -> int:
        return next(n for n, line in enumerate(lines, 1) if fragment in line) + after

    flag = _flag(target)
    if form == "shell":
        return text, find(flag or f"{target}=")
    if form == "values-env-map":
        return text, find(f"  {target}:")
    if form == "values-nested" and flag:
        return text, find(f"  {_camel(target)}:")
    if form == "manifest-args" and flag:
        return text, find(f"- {flag}", 1)
    return text, find(f"- name: {target}", 1)  # the value line of the env entry


def _write(folder: Path, tag: str, settings: Mapping[str, str], target: str) -> dict[str, int]:
    folder.mkdir()
    lines = {}
    for form in FORMS:
        name = f"{form}-values.yaml" if form.startswith("values") else f"{form}.yaml"
        text, line = render(form, tag, settings, target)
        (folder / name).write_text(text, encoding="utf-8")
        lines[name] = line
    return lines


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_fires_in_every_form_at_the_setting(
    run_line: RunLine, tmp_path: Path, rule: str
) -> None:
    tag, bad, good, target = RULES[rule]
    lines = _write(tmp_path / "bad", tag, bad, target)
    _write(tmp_path / "good", tag, good, target)
    result = run_line(["lint", *POLICY, "--format", "json", str(tmp_path)])
    findings = [f for f in json.loads(result.output)["findings"] if f["rule"] == f"tgi/{rule}"]
    fired = {Path(f["file"]).parent.name + "/" + Path(f["file"]).name: f["line"] for f in findings}
    assert fired == {f"bad/{name}": line for name, line in lines.items()}
