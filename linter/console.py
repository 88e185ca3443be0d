"""The console script ``servelint`` and ``python -m linter``."""

from __future__ import annotations

import gc

# Not typing's: importing typing (click imports it) belongs inside the pause below.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def run() -> NoReturn:
    """Import the command line with the garbage collector paused, then run it on this
    process's command line (``cli.run``).

    Importing it builds tens of thousands of objects (modules, functions, classes) that
    all live until the process ends; collecting while they are built walks them again
    and again, about 2 ms of a pre-commit run in twenty collections. They are left out
    of later collections too, as ``linter.commands.startup`` does for the module of the
    command that runs and for the rest of the start-up.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        from linter import cli
    finally:
        # Out of the collector's sight: re-enabled with them in the youngest generation,
        # the next allocation would walk them all at once.
        gc.freeze()
        if enabled:
            gc.enable()
    cli.run()
