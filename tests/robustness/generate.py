"""Hostile and broken inputs, generated into a folder at test time (never committed).

Each generator writes one case next to nothing else; ``write_good`` writes the probe file
that every run must still report, to show that one bad input does not stop the others.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

PROBE_POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata:
  name: probe
  description: Reports every document with a 'probe' key, to show that it was linted.
spec:
  target: document
  rules:
    - id: seen
      severity: warning
      expression: "!has(doc.probe)"
      message: linted
      fieldPath: probe
"""


def write_policy(folder: Path) -> Path:
    policies = folder / "policies"
    policies.mkdir(parents=True, exist_ok=True)
    (policies / "probe.yaml").write_text(PROBE_POLICY)
    return policies


def write_good(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "good.yaml"
    path.write_text("kind: Good\nprobe: true\n")
    return path


def alias_bomb(path: Path) -> None:
    """ "Billion laughs": nine levels of ten aliases each expand to 10^9 nodes."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 10):
        prev, cur = chr(ord("a") + level - 1), chr(ord("a") + level)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    path.write_text("\n".join(lines) + "\n")


def deep_block(path: Path) -> None:
    path.write_text("- " * 10_000 + "x\n")


def deep_flow_sequence(path: Path) -> None:
    path.write_text("a: " + "[" * 10_000 + "]" * 10_000 + "\n")


def deep_flow_mapping(path: Path) -> None:
    path.write_text("{a: " * 10_000 + "1" + "}" * 10_000 + "\n")


def deep_json(path: Path) -> None:
    path.write_text("[" * 10_000 + "]" * 10_000)


def hundred_megabytes(path: Path) -> None:
    with path.open("wb") as handle:
        for _ in range(100):
            handle.write(b"key: value\n" * (1024 * 1024 // 11 + 1))


def long_line(path: Path) -> None:
    path.write_text("kind: Long\nprobe: " + "x" * 20_000_000 + "\n")


def many_documents(path: Path) -> None:
    path.write_text("a: 1\n---\n" * 100_000)


def many_nodes(path: Path) -> None:
    """Within the size limit, far beyond the node limit: 12 million list items."""
    with path.open("wb") as handle:
        handle.write(b"- x\n" * 12_000_000)


def deployment(index: int) -> str:
    """One vLLM Deployment of a multi-document stream."""
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{index}}}\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - name: vllm\n"
        "          image: vllm/vllm-openai:v0.11.0\n"
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct]\n"
        "          readinessProbe: {httpGet: {path: /health, port: 8000}}\n"
        "          resources: {limits: {nvidia.com/gpu: 1, cpu: 8, memory: 64Gi}}\n---\n"
    )


def deployment_stream(count: int) -> str:
    """``count`` Deployments in one stream (each once split the whole text again)."""
    return "".join(deployment(i) for i in range(count))


def triton_pbtxt(dims: int) -> str:
    """A Triton model config whose one input has ``dims`` dimensions, all on one line."""
    return (
        'name: "m"\nbackend: "python"\ninput [ { name: "x" data_type: TYPE_FP32 dims: ['
        + ", ".join(["1"] * dims)
        + "] } ]\n"
    )


HEAVY: dict[str, tuple[str, Callable[[Path], None]]] = {
    "alias-bomb": ("bomb.yaml", alias_bomb),
    "deep-block": ("deep-block.yaml", deep_block),
    "deep-flow-sequence": ("deep-flow-seq.yaml", deep_flow_sequence),
    "deep-flow-mapping": ("deep-flow-map.yaml", deep_flow_mapping),
    "deep-json": ("deep.json", deep_json),
    "hundred-megabytes": ("huge.yaml", hundred_megabytes),
    "long-line": ("long.yaml", long_line),
    "many-documents": ("stream.yaml", many_documents),
    "many-nodes": ("nodes.yaml", many_nodes),
}


def broken_tree(root: Path) -> None:
    """Small broken inputs that are all linted in one run."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "empty.yaml").write_text("")
    (root / "empty-docs.yaml").write_text("---\n---\n# nothing\n---\n")
    (root / "binary.yaml").write_bytes(bytes(range(256)) * 4)
    (root / "latin1.yaml").write_bytes("kind: Caf\xe9\nprobe: 1\n".encode("latin-1"))
    (root / "utf16.yaml").write_bytes("kind: Wide\nprobe: 1\n".encode("utf-16"))
    (root / "bom.yaml").write_bytes(b"\xef\xbb\xbfkind: Bom\nprobe: 1\n")
    (root / "crlf.yaml").write_bytes(b"kind: Crlf\r\nspec:\r\n  a: 1\r\nprobe: 1\r\n")
    (root / "tabs.yaml").write_text("spec:\n\treplicas: 2\n")
    (root / "helm-values.yaml").write_text(
        "image:\n  repository: vllm/vllm-openai\n  tag: {{ .Values.tag }}\n"
        'note: "{{ .Release.Name }} is passed through tpl"\n'
    )
    (root / "helm-control.yaml").write_text(
        "replicas: 1\n{{- if .Values.gpu }}\ngpu: 1\n{{- end }}\n"
    )
    templates = root / "chart" / "templates"
    templates.mkdir(parents=True)
    (templates / "deployment.yaml").write_text(
        "kind: Deployment\nspec:\n  replicas: {{ .Values.replicas }}\n"
    )
    (root / "conflict.yaml").write_text(
        "replicas: 1\n<<<<<<< HEAD\nmaxModelLen: 4096\n=======\nmaxModelLen: 8192\n"
        ">>>>>>> feature\n"
    )
    (root / "duplicate.yaml").write_text("kind: Dup\nreplicas: 1\nreplicas: 2\nprobe: 1\n")
    (root / "nan.json").write_text('{\n  "max_model_len": NaN\n}\n')
    loops = root / "loops"
    loops.mkdir()
    os.symlink("..", loops / "parent")  # a directory symlink back up the tree
    os.symlink("self.yaml", loops / "self.yaml")  # a file symlink to itself
    os.mkfifo(root / "pipe.yaml")  # reading it would block forever
    (root / "folder.yaml").mkdir()  # a directory with a lintable name
