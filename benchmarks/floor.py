"""The bulk benchmark's floor: one Python process that only composes every input with
PyYAML's C loader (``yaml.compose_all`` with ``CSafeLoader``), nothing else.

    python benchmarks/floor.py DIR

Inputs are found as ``servelint lint DIR`` finds them (``*.yaml``, ``*.yml``, ``*.json``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def main() -> int:
    root = Path(sys.argv[1])
    nodes = 0
    for path in sorted(root.rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
            text = path.read_text(encoding="utf-8")
            nodes += sum(1 for _ in yaml.compose_all(text, Loader=yaml.CSafeLoader))
    return 0 if nodes else 1


if __name__ == "__main__":
    raise SystemExit(main())
