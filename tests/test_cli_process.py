"""servelint's own process versus a call from Python: only the former tells the garbage
collector to leave the start-up objects alone (``commands/startup.py``), freezes everything
before exiting and skips the interpreter's teardown when nothing else is left to run at
exit; a caller in the same interpreter keeps its collector as it was."""

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
RULES_FOUND = ["team-replicas/min-replicas", "team-replicas/no-latest-tag"]


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
    done = _python(tmp_path, script)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == {
        "during": False,
        "code": 1,
        "enabled": True,
        "frozen": True,
        "young": 50_000,
    }
    # And the report is written as from any other call.
    assert done.stdout.splitlines()[-1] == "1 error, 1 warning, 0 info in 1 file"


# How the process ended: os._exit says so; an ordinary exit does not call it. (The
# sandbox's forked children of repository policies end with os._exit too: not counted.)
_EXIT_SPY = (
    "import os, sys\n"
    "real_exit, parent = os._exit, os.getpid()\n"
    "def spy_exit(code):\n"
    "    if os.getpid() == parent:\n"
    "        os.write(2, b'exit without teardown\\n')\n"
    "    real_exit(code)\n"
    "os._exit = spy_exit\n"
)


def _import_probe(names: tuple[str, ...], printed: str) -> str:
    """A prelude that prints ``printed`` (Python, with ``name`` and ``gc`` in scope) on
    standard error when one of ``names`` is about to be imported."""
    return (
        "import gc\n"
        "class Probe:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name in {names!r}:\n"
        f"            print({printed}, file=sys.stderr)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Probe())\n"
    )


def _own_process(tmp_path: Path, prelude: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``servelint args`` as the console script runs it, after ``prelude``."""
    script = (
        f"{_EXIT_SPY}{prelude}"
        "import linter.console as console\n"
        f"sys.argv = ['servelint', *{list(args)!r}]\n"
        "console.run()\n"
    )
    return _python(tmp_path, script)


def test_servelint_s_own_process_ends_without_the_interpreter_s_teardown(
    tmp_path: Path,
) -> None:
    done = _own_process(tmp_path, "", "lint", "--no-config", *POLICIES, DEPLOY)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == "1 error, 1 warning, 0 info in 1 file"
    assert done.stderr == "exit without teardown\n"
    # A report written to a file is complete: it was closed before the process ended.
    report = tmp_path / "out.json"
    done = _own_process(
        tmp_path, "", "lint", "--no-config", *POLICIES, "--format", f"json:{report}", DEPLOY
    )
    assert (done.returncode, done.stderr) == (1, "exit without teardown\n")
    assert [f["rule"] for f in json.loads(report.read_text())["findings"]] == RULES_FOUND


def test_the_console_script_imports_the_command_line_with_the_collector_paused(
    tmp_path: Path,
) -> None:
    probe = _import_probe(("linter.cli",), "'collector on while importing:', gc.isenabled()")
    done = _own_process(tmp_path, probe, "lint", "--no-config", *POLICIES, DEPLOY)
    assert done.returncode == 1
    assert done.stderr == "collector on while importing: False\nexit without teardown\n"
    assert done.stdout.splitlines()[-1] == "1 error, 1 warning, 0 info in 1 file"


def test_the_command_s_module_is_imported_with_the_collector_paused_then_frozen(
    tmp_path: Path,
) -> None:
    # The lint plan is imported after the command's module, at the start-up of the run:
    # by then, what the command's module built is frozen.
    probe = _import_probe(
        ("linter.commands.lint", "linter.run.lintplan"),
        "name, gc.isenabled(), gc.get_freeze_count()",
    )
    done = _own_process(tmp_path, probe, "lint", "--no-config", *POLICIES, DEPLOY)
    assert done.returncode == 1
    command, plan, end = (line.split() for line in done.stderr.splitlines())
    assert (command[:2], plan[:2], end) == (
        ["linter.commands.lint", "False"],
        ["linter.run.lintplan", "False"],
        ["exit", "without", "teardown"],
    )
    assert int(plan[2]) > int(command[2])


def test_a_call_from_python_loads_a_command_and_leaves_the_collector_as_it_was(
    tmp_path: Path,
) -> None:
    script = (
        "import gc, sys\n"
        "from linter.cli import main\n"
        "before = (gc.isenabled(), gc.get_freeze_count(), gc.get_threshold())\n"
        "code = main(['drift', '--help'])\n"
        "after = (gc.isenabled(), gc.get_freeze_count(), gc.get_threshold())\n"
        "print(code, 'linter.commands.drift' in sys.modules, after == before, file=sys.stderr)\n"
    )
    done = _python(tmp_path, script)
    assert (done.returncode, done.stderr) == (0, "0 True True\n")


def test_main_called_from_python_returns(tmp_path: Path) -> None:
    # An embedding tool that sets sys.argv and calls main(): the process goes on.
    script = (
        "import sys\n"
        "import linter.cli as cli\n"
        f"sys.argv = ['servelint', 'lint', '--no-config', *{POLICIES!r}, {DEPLOY!r}]\n"
        "code = cli.main()\n"
        "print('after', code)\n"
    )
    done = _python(tmp_path, script)
    assert (done.returncode, done.stdout.splitlines()[-1]) == (0, "after 1")


def test_closed_standard_streams_keep_the_exit_code(tmp_path: Path) -> None:
    # Python starts with sys.stderr (or sys.stdout) None when its descriptor is closed.
    done = _own_process(tmp_path, "sys.stderr = None\n", "lint", "--no-config", *POLICIES, DEPLOY)
    assert (done.returncode, done.stdout.splitlines()[-1]) == (
        1,
        "1 error, 1 warning, 0 info in 1 file",
    )
    report = tmp_path / "out.json"
    done = _own_process(
        tmp_path,
        "sys.stdout = None\n",
        "lint",
        "--no-config",
        *POLICIES,
        "--format",
        f"json:{report}",
        DEPLOY,
    )
    assert (done.returncode, done.stderr) == (1, "exit without teardown\n")
    assert [f["rule"] for f in json.loads(report.read_text())["findings"]] == RULES_FOUND
    done = _own_process(tmp_path, "sys.stderr = None\n", "lint", "--bogus")
    assert (done.returncode, done.stderr) == (2, "exit without teardown\n")


def test_an_exit_handler_or_another_thread_gets_the_ordinary_exit(tmp_path: Path) -> None:
    handler = "import atexit\natexit.register(lambda: sys.stderr.write('handler ran\\n'))\n"
    done = _own_process(tmp_path, handler, "lint", "--no-config", *POLICIES, DEPLOY)
    assert (done.returncode, done.stderr) == (1, "handler ran\n")
    thread = (
        "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()\n"
    )
    done = _own_process(tmp_path, thread, "lint", "--no-config", *POLICIES, DEPLOY)
    assert (done.returncode, done.stderr) == (1, "")


def _python(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` in a Python process of its own, in ``tmp_path`` with a cache folder there."""
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
        check=False,
    )
