"""servelint's own process versus a call from Python: only the former tells the garbage
collector to leave the start-up objects alone (``cli._start_up``) and freezes everything
before exiting; a caller in the same interpreter keeps its collector as it was."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from linter.cli import main

CORE = Path(__file__).parent / "fixtures" / "core"
POLICIES = ["--no-builtin", "--policy-dir", str(CORE / "policies")]
DEPLOY = str(CORE / "inputs" / "deploy.yaml")


def test_a_call_from_python_leaves_the_collector_as_it_was() -> None:
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    assert gc.isenabled()
    assert main(["lint", "--no-config", *POLICIES, DEPLOY]) == 1
    assert gc.isenabled()
    assert (gc.get_freeze_count(), gc.get_threshold()) == (frozen, threshold)


def test_servelint_s_own_process_freezes_its_objects_and_collects_again_after_start_up(
    tmp_path: Path,
) -> None:
    # The command line of the process itself (sys.argv), as the console script runs it;
    # what the collector looks like after the start-up and at the end is printed.
    script = (
        "import gc, json, sys\n"
        "import linter.cli as cli\n"
        "seen = {}\n"
        "import linter.run.lintplan as plan\n"
        "original = plan.build\n"
        "def spy(options):\n"
        "    result = original(options)\n"
        "    seen['during'] = gc.isenabled()\n"
        "    return result\n"
        "plan.build = spy\n"
        f"sys.argv = ['servelint', 'lint', '--no-config', *{POLICIES!r}, {DEPLOY!r}]\n"
        "code = cli.main()\n"
        "seen.update(code=code, enabled=gc.isenabled(), frozen=gc.get_freeze_count() > 1000)\n"
        "seen['young'] = gc.get_threshold()[0]\n"
        "print(json.dumps(seen), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
        check=False,
    )
    assert json.loads(done.stderr.strip().splitlines()[-1]) == {
        "during": False,
        "code": 1,
        "enabled": True,
        "frozen": True,
        "young": 50_000,
    }
    # And the report is written as from any other call.
    assert done.stdout.splitlines()[-1] == "1 error, 1 warning, 0 info in 1 file"
