from __future__ import annotations

from linter.cli import run

run()
