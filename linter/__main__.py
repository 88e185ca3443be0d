from __future__ import annotations

from linter.console import run

run()
