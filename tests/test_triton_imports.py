"""The pre-commit hook stays fast: Triton's protobuf machinery loads only for .pbtxt input.

The CEL runtime itself imports ``google.protobuf`` (its environment is built on it), so
the check is on what this project adds: the ModelConfig descriptor, the text-format walk
and protobuf's JSON printer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "triton"
HEAVY = ["linter.triton.descriptor", "linter.triton.textproto", "google.protobuf.json_format"]
_PROBE = f"""
import contextlib, io, json, sys
from linter.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["lint", "--no-config", *sys.argv[1:]])
print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
"""


def _loaded(*paths: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *map(str, paths)], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_yaml_and_json_runs_do_not_load_the_triton_parser(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("replicaCount: 1\n")
    assert _loaded(values, FIXTURES / "json" / "bert_trt.json") == []


def test_a_pbtxt_run_does() -> None:
    assert _loaded(FIXTURES / "onnx_ok" / "config.pbtxt") == HEAVY
