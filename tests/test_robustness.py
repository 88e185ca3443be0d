"""Hostile and broken inputs: each gets a clear finding, in bounded time and memory.

Every case runs the installed command in a child process, measured from a small wrapper
process (so that ``RUSAGE_CHILDREN`` sees only that one run), next to a good file that
must still be reported. The bounds (60 s and 500 MB per case) catch a hang or a blow-up;
they do not measure speed: benchmarks/robustness.py does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner
from report_lines import report_lines

from linter.cli import cli
from tests.robustness import generate

# A bound catches a hang or a blow-up, not a slow run: the slowest case (100,000
# documents) takes about 3 s alone and took 5.8-13 s while other work ran on the same two
# cores; twenty times the figure alone keeps the suite green on a busy machine, and a
# hang or a quadratic reader (minutes) still fails. Speed is measured by
# benchmarks/robustness.py.
MAX_SECONDS = 60.0
MAX_BYTES_RSS = 500 * 1024 * 1024

# Runs servelint as a child and reports its exit code, output, wall time and peak RSS.
_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.monotonic()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, errors="replace")
elapsed = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"code": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                  "seconds": elapsed, "peak": peak}))
"""


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str
    seconds: float
    peak: int


def _lint(folder: Path, *args: str) -> Run:
    command = [
        sys.executable,
        "-c",
        _WRAPPER,
        sys.executable,
        "-m",
        "linter",
        "lint",
        "--no-config",
        "--no-builtin",
        "--policy-dir",
        "policies",
        *args,
    ]
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, env=env, timeout=180, check=True
    )  # beyond MAX_SECONDS: a run that is only slow fails on its measured time
    return Run(**json.loads(done.stdout))


def _assert_bounded(run: Run) -> None:
    assert "Traceback" not in run.stderr
    assert run.seconds < MAX_SECONDS, f"took {run.seconds:.2f} s"
    assert run.peak < MAX_BYTES_RSS, f"peak RSS {run.peak / 2**20:.0f} MB"


GOOD = "good.yaml:2:1: warning probe/seen linted"


@pytest.mark.parametrize(
    ("case", "findings", "summary"),
    [
        (
            "alias-bomb",
            [
                "bomb.yaml:6:20: error input-limit more than 500000 nodes (alias expansion or a "
                "very large document); raise --max-nodes (limits.maxNodes) if this input is "
                "genuine"
            ],
            "1 error, 1 warning, 0 info in 2 files",
        ),
        (
            "deep-block",
            ["deep-block.yaml:1:403: error input-limit nesting deeper than 200 levels"],
            "1 error, 1 warning, 0 info in 2 files",
        ),
        (
            "deep-flow-sequence",
            ["deep-flow-seq.yaml:1:1003: error input-limit nesting deeper than 200 levels"],
            "1 error, 1 warning, 0 info in 2 files",
        ),
        (
            "deep-flow-mapping",
            ["deep-flow-map.yaml:1:805: error input-limit nesting deeper than 200 levels"],
            "1 error, 1 warning, 0 info in 2 files",
        ),
        (
            "deep-json",
            ["deep.json:1:1001: error input-limit nesting deeper than 200 levels"],
            "1 error, 1 warning, 0 info in 2 files",
        ),
        (
            "hundred-megabytes",
            [
                "huge.yaml:1:1: error input-limit larger than the input size limit of 52428800 "
                "bytes; raise --max-bytes (limits.maxBytes) if this input is genuine"
            ],
            "1 error, 1 warning, 0 info in 2 files",
        ),
        (
            "long-line",
            ["long.yaml:2:1: warning probe/seen linted"],
            "0 errors, 2 warnings, 0 info in 2 files",
        ),
        ("many-documents", [], "0 errors, 1 warning, 0 info in 2 files"),
        (
            "many-nodes",
            [
                "nodes.yaml:500000:3: error input-limit more than 500000 nodes (alias expansion "
                "or a very large document); raise --max-nodes (limits.maxNodes) if this input is "
                "genuine"
            ],
            "1 error, 1 warning, 0 info in 2 files",
        ),
    ],
)
def test_hostile_input_is_a_finding_in_bounded_time_and_memory(
    tmp_path: Path, case: str, findings: list[str], summary: str
) -> None:
    name, write = generate.HEAVY[case]
    generate.write_policy(tmp_path)
    generate.write_good(tmp_path)
    write(tmp_path / name)
    run = _lint(tmp_path, name, "good.yaml")
    expected = sorted([*findings, GOOD])
    assert (run.code, run.stdout) == (
        1 if any(" error " in f for f in findings) else 0,
        "\n".join([*expected, summary]) + "\n",
    )
    _assert_bounded(run)


BROKEN_TREE_OUTPUT = """\
note: in/chart/templates/deployment.yaml: a template (Go template syntax in a templates/ \
folder with no Chart.yaml above it): not linted; render it and lint the output
in/binary.yaml:1:1: error read-error binary file (contains NUL bytes); not a configuration
in/bom.yaml:2:1: warning probe/seen linted
in/conflict.yaml:2:1: error syntax unresolved git merge conflict: '<<<<<<<' at line 2, \
'=======' at line 4, '>>>>>>>' at line 6; resolve the conflict and remove the markers
in/crlf.yaml:4:1: warning probe/seen linted
in/duplicate.yaml:3:1: error duplicate-key duplicate key 'replicas' (first at line 2); Helm \
and Kubernetes silently keep the last value
in/duplicate.yaml:4:1: warning probe/seen linted
in/good.yaml:2:1: warning probe/seen linted
in/helm-control.yaml:2:1: error syntax Helm template syntax in a values file: values files \
are not templates; quote the text if it is meant literally (for tpl)
in/helm-control.yaml:4:1: error syntax Helm template syntax in a values file: values files \
are not templates; quote the text if it is meant literally (for tpl)
in/helm-values.yaml:3:8: error syntax Helm template syntax in a values file: values files \
are not templates; quote the text if it is meant literally (for tpl)
in/latin1.yaml:1:10: error read-error not valid UTF-8 (byte 0xe9 at byte offset 9); save the \
file as UTF-8
in/loops/self.yaml:1:1: error read-error cannot read: Too many levels of symbolic links
in/nan.json:2:20: error syntax invalid JSON: NaN is not a JSON number
in/pipe.yaml:1:1: error read-error not a regular file (a pipe, socket or device); not read
in/tabs.yaml:2:1: error syntax invalid YAML: tab character in indentation; YAML indents with \
spaces only
in/utf16.yaml:2:1: warning probe/seen linted
11 errors, 5 warnings, 0 info in 16 files
"""


def test_broken_inputs_each_get_a_specific_finding_and_the_rest_is_linted(tmp_path: Path) -> None:
    generate.broken_tree(tmp_path / "in")
    generate.write_good(tmp_path / "in")
    generate.write_policy(tmp_path)
    run = _lint(tmp_path, "in")
    # Exit 3: some inputs could not be read at all; everything else was still reported.
    assert (run.code, run.stdout) == (3, BROKEN_TREE_OUTPUT)
    _assert_bounded(run)


def _in_process(folder: Path, *paths: str) -> tuple[int, str]:
    previous = Path.cwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(
            cli,
            ["lint", "--no-config", "--no-builtin", "--policy-dir", "policies", *paths],
            catch_exceptions=False,
            env={"NO_COLOR": "1"},
        )
    finally:
        os.chdir(previous)
    return result.exit_code, "".join(f"{line}\n" for line in report_lines(result.output))


def test_unreadable_file_is_a_read_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate.write_policy(tmp_path)
    generate.write_good(tmp_path)
    locked = tmp_path / "locked.yaml"
    locked.write_text("a: 1\n")
    locked.chmod(0)
    if os.access(locked, os.R_OK):
        # Running as root: permissions do not stop reading, so make the open fail instead.
        real_open = os.open

        def refuse(path: os.PathLike[str] | str, flags: int, *args: int) -> int:
            if Path(path).name == "locked.yaml":
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, flags, *args)

        monkeypatch.setattr(os, "open", refuse)
    assert _in_process(tmp_path, "locked.yaml", "good.yaml") == (
        3,
        (
            "good.yaml:2:1: warning probe/seen linted\n"
            "locked.yaml:1:1: error read-error cannot read: Permission denied\n"
            "1 error, 1 warning, 0 info in 2 files\n"
        ),
    )


def test_file_removed_between_listing_and_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import linter.run.lintplan

    generate.write_policy(tmp_path)
    generate.write_good(tmp_path / "in")
    (tmp_path / "in" / "gone.yaml").write_text("a: 1\n")
    real_expand: Callable[..., list[object]] = linter.run.lintplan.expand

    def expand_then_remove(paths: tuple[str, ...], refused: list[str]) -> list[object]:
        inputs = real_expand(paths, refused)
        (tmp_path / "in" / "gone.yaml").unlink()
        return inputs

    monkeypatch.setattr(linter.run.lintplan, "expand", expand_then_remove)
    assert _in_process(tmp_path, "in") == (
        3,
        (
            "in/gone.yaml:1:1: error read-error cannot read: No such file or directory\n"
            "in/good.yaml:2:1: warning probe/seen linted\n"
            "1 error, 1 warning, 0 info in 2 files\n"
        ),
    )


def test_folder_that_cannot_be_listed_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate.write_policy(tmp_path)
    generate.write_good(tmp_path / "in")
    (tmp_path / "in" / "sub").mkdir()
    (tmp_path / "in" / "sub" / "hidden.yaml").write_text("a: 1\n")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if str(path).endswith("sub"):  # removed, or no permission, while being walked
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert _in_process(tmp_path, "in") == (
        3,
        (
            "in/good.yaml:2:1: warning probe/seen linted\n"
            "in/sub:1:1: error read-error cannot read directory: No such file or directory\n"
            "1 error, 1 warning, 0 info in 2 files\n"
        ),
    )


def test_limits_are_configurable_on_the_command_line(tmp_path: Path) -> None:
    generate.write_policy(tmp_path)
    generate.write_good(tmp_path)
    (tmp_path / "v.yaml").write_text("a:\n  b:\n    c: [1, 2, 3]\n")
    code, output = _in_process(
        tmp_path,
        "--max-depth",
        "2",
        "--max-nodes",
        "100",
        "--max-bytes",
        "1000",
        "v.yaml",
        "good.yaml",
    )
    assert (code, output) == (
        1,
        "good.yaml:2:1: warning probe/seen linted\n"
        "v.yaml:3:8: error input-limit nesting deeper than 2 levels\n"
        "1 error, 1 warning, 0 info in 2 files\n",
    )
    code, output = _in_process(tmp_path, "--max-nodes", "5", "v.yaml")
    assert (code, output) == (
        1,
        "v.yaml:3:5: error input-limit more than 5 nodes (alias "
        "expansion or a very large document); raise --max-nodes "
        "(limits.maxNodes) if this input is genuine\n"
        "1 error, 0 warnings, 0 info in 1 file\n",
    )
    code, output = _in_process(tmp_path, "--max-bytes", "10", "v.yaml")
    assert (code, output) == (
        1,
        "v.yaml:1:1: error input-limit larger than the input size "
        "limit of 10 bytes; raise --max-bytes (limits.maxBytes) if "
        "this input is genuine\n"
        "1 error, 0 warnings, 0 info in 1 file\n",
    )
