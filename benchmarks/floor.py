"""The bulk benchmark's floor: one Python process that only composes every input with
PyYAML's C loader (``yaml.compose_all`` with ``CSafeLoader``), nothing else.

    python benchmarks/floor.py DIR

Inputs are found as ``servelint lint DIR`` finds them (``*.yaml``, ``*.yml``, ``*.json``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def compose_inputs(root: Path) -> tuple[int, int]:
    """Compose every input under ``root``: how many files, how many documents."""
    files = documents = 0
    for path in sorted(root.rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
            text = path.read_text(encoding="utf-8")
            documents += sum(1 for _ in yaml.compose_all(text, Loader=yaml.CSafeLoader))
            files += 1
    return files, documents


def main() -> int:
    _, documents = compose_inputs(Path(sys.argv[1]))
    return 0 if documents else 1


if __name__ == "__main__":
    raise SystemExit(main())
