"""Side-by-side timing of two commands: alternated, repeated, summarised as medians.

These machines are noisy (two cores shared with other people's test runs), so a benchmark
never compares two figures taken at different times: it alternates the two commands
run by run, and reports the median with min and max, and the load average before and
after, so a reader can tell a quiet run from a busy one.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """A console script of this interpreter's environment (servelint, yamllint)."""
    path = VENV_BIN / name
    if not path.exists():
        raise SystemExit(f"{name} is not installed in {VENV_BIN}: pip install -e '.[bench]'")
    return str(path)


@dataclasses.dataclass(frozen=True)
class Run:
    seconds: float
    peak_rss: int  # bytes, the largest resident set of the process or any of its children
    tree_rss: int  # bytes, the largest sum over the process tree (sampled), or 0
    returncode: int


def run_once(
    command: Sequence[str],
    cwd: Path,
    *,
    sample_tree: bool = False,
    env: dict[str, str] | None = None,
) -> Run:
    """Run ``command``; wall time, peak RSS from wait4() and, optionally, the peak of the
    whole process tree's summed RSS (worker processes each have their own)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    sampler = _TreeSampler(process.pid) if sample_tree else None
    if sampler is not None:
        sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read() if process.stderr is not None else b""
    if process.stderr is not None:
        process.stderr.close()
    if sampler is not None:
        sampler.stop()
    if process.returncode not in (0, 1):
        raise SystemExit(
            f"{' '.join(command)} failed ({process.returncode}):\n{stderr.decode(errors='replace')}"
        )
    return Run(seconds, usage.ru_maxrss * 1024, sampler.peak if sampler else 0, process.returncode)


class _TreeSampler(threading.Thread):
    """Polls /proc every 2 ms for the summed RSS of a process and its descendants."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self._done = threading.Event()

    def run(self) -> None:
        page = os.sysconf("SC_PAGE_SIZE")
        while not self._done.wait(0.002):
            total = sum(_rss_pages(pid) for pid in _tree(self.pid)) * page
            self.peak = max(self.peak, total)

    def stop(self) -> None:
        self._done.set()
        self.join()


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(children.get(pid, ()))
    return found


def _rss_pages(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


@dataclasses.dataclass(frozen=True)
class Summary:
    name: str
    runs: list[Run]

    @property
    def seconds(self) -> list[float]:
        return [r.seconds for r in self.runs]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def alternate(
    commands: dict[str, tuple[Sequence[str], Path]],
    runs: int,
    *,
    warmup: int = 1,
    sample_tree: bool = False,
) -> dict[str, Summary]:
    """Run each command ``runs`` times, alternating them, after ``warmup`` untimed rounds
    (the page cache and any user cache are warm, as on a developer's machine)."""
    compile_package()
    for _ in range(warmup):
        for command, cwd in commands.values():
            run_once(command, cwd)
    results: dict[str, list[Run]] = {name: [] for name in commands}
    for index in range(runs):
        order = list(commands.items())
        if index % 2:
            order.reverse()  # neither command always runs right after the other
        for name, (command, cwd) in order:
            results[name].append(run_once(command, cwd, sample_tree=sample_tree))
    return {name: Summary(name, found) for name, found in results.items()}


def compile_package() -> None:
    """Byte-compile servelint's modules, as pip does when it installs a wheel: a source
    checkout under PYTHONDONTWRITEBYTECODE=1 would otherwise compile every changed module
    again in every timed process."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "linter")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def machine() -> str:
    with open("/proc/meminfo", encoding="ascii") as handle:
        total_kb = int(handle.readline().split()[1])
    return f"{os.cpu_count()} cores, {total_kb / 2**20:.0f} GiB"


def table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def seconds_row(summary: Summary) -> list[str]:
    values = summary.seconds
    return [
        summary.name,
        f"{statistics.median(values) * 1000:.0f} ms",
        f"{min(values) * 1000:.0f} ms",
        f"{max(values) * 1000:.0f} ms",
    ]


def mib(value: int) -> str:
    return f"{value / 2**20:.1f} MiB"
