"""servelint's own process and the garbage collector: what its start-up builds lives until
the process ends, so the collector is paused while it is built and then told to leave it
alone. Called from Python (tests, an embedding tool), the collector is left as it was."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

import click

# click's ``obj`` of a run of this process's own command line (``cli.main`` without argv).
OWN_PROCESS = object()

# A workload's serving model is a few hundred small objects (records and located values)
# that live until its policies have run; collecting every 700 allocations walked them again
# and again: 4 to 7 % of a 1,000-file run (benchmarks/README.md). Nearly all garbage
# is freed by reference counts; cycles wait a little longer (mypy's main does the same,
# with 200,000).
YOUNG_OBJECTS = 50_000


def _own_process(ctx: click.Context) -> bool:
    return ctx.find_root().obj is OWN_PROCESS and gc.isenabled()


@contextlib.contextmanager
def loading(ctx: click.Context) -> Iterator[None]:
    """A command's module, imported when the command is asked for: in servelint's own
    process with the collector paused and its objects frozen after, as ``console.run``
    does for ``linter.cli`` itself (they all live until the process ends)."""
    with _paused(ctx, young=None):
        yield


@contextlib.contextmanager
def start_up() -> Iterator[None]:
    """Imports and the loaded policies: tens of thousands of objects that all live until
    the process ends, which the garbage collector would otherwise walk again at every
    collection while they are built. In servelint's own process it is paused for them,
    then told to leave them alone (about 6 ms of a pre-commit run), and collects the
    youngest objects every ``YOUNG_OBJECTS`` allocations instead of 700; called from
    Python (tests, an embedding tool), nothing changes."""
    with _paused(click.get_current_context(), young=YOUNG_OBJECTS):
        yield


@contextlib.contextmanager
def _paused(ctx: click.Context, young: int | None) -> Iterator[None]:
    """The collector paused in servelint's own process, what was built then frozen out of
    its sight, and its youngest generation collected every ``young`` allocations when
    given; elsewhere nothing changes."""
    if not _own_process(ctx):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if young is not None:
            gc.set_threshold(young, *gc.get_threshold()[1:])
        gc.enable()
