from __future__ import annotations

from linter.cli import main

raise SystemExit(main())
