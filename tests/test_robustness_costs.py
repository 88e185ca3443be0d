"""Third pass of hostile inputs (issue 31): each is bounded in time and memory and ends in
a clear message, and the other inputs are still reported.

The heavy cases run servelint as a child and measure it (tests/robustness/measure.py);
the bounds (60 s, and 500 MB of peak RSS, helm included) catch a hang or a blow-up, not a
slow run: each case takes a few seconds alone.
"""

from __future__ import annotations

import io
import os
import random
import re
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.drift.live import FORMATS
from tests.robustness.measure import Run, servelint

MAX_SECONDS = 60.0
MAX_BYTES_RSS = 500 * 1024 * 1024
# helm may use its whole limit (linter/helm/render.py MEMORY_BYTES) before it is stopped.
MAX_BYTES_RSS_HELM = 1300 * 1024 * 1024
FIXTURES = Path(__file__).parent / "fixtures"
PROBE = ("--no-config", "--no-builtin", "--policy-dir", "policies")

Runner = Callable[..., Result]


def _assert_bounded(run: Run, peak: int = MAX_BYTES_RSS) -> None:
    assert "Traceback" not in run.stderr
    assert run.seconds < MAX_SECONDS, f"took {run.seconds:.2f} s"
    assert run.peak < peak, f"peak RSS {run.peak / 2**20:.0f} MB"


VLLM_ARGS = "INFO 10-08 08:39:01 [utils.py:233] non-default args: "
UNREADABLE = (
    "line 1: the non-default args could not be read (REASON); the formats understood are: "
    + "; ".join(FORMATS)
)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        # cubic: every shorter reading of 3,000 digits was tried before the 'x'
        ("{'model': 'm', 'max_model_len': " + "1" * 3000 + "x}", "unexpected '1' at character 34"),
        # quadratic: each of 100,000 escaped quotes opened a string read to the end
        ("{'model': '" + '\\"' * 100_000 + "}", "unexpected ''' at character 12"),
        # Python refuses to read it: an error at its place, not "could not compare"
        (
            "{'model': 'm', 'max_model_len': " + "9" * 5001 + "}",
            "a number longer than 4300 characters at character 33",
        ),
    ],
    ids=["3000-digit-token", "100k-escaped-quotes", "5001-digit-number"],
)
def test_log_literal_is_read_in_linear_time(tmp_path: Path, line: str, reason: str) -> None:
    (tmp_path / "values.yaml").write_bytes((FIXTURES / "drift" / "values.yaml").read_bytes())
    (tmp_path / "start.log").write_text(VLLM_ARGS + line + "\n")
    message = UNREADABLE.replace("REASON", reason)
    run = servelint(tmp_path, "drift", "-f", "values.yaml", "--live", "start.log")
    assert (run.code, run.stdout) == (
        3,
        f"start.log: error (unrecognised-format): {message}; not compared\n"
        "0 differences in 0 of 1 target, 0 in sync, 1 error\n",
    )
    _assert_bounded(run)
    shown = servelint(tmp_path, "show", "--live", "start.log")
    assert (shown.code, shown.stderr) == (3, f"servelint: start.log: {message}\n")
    _assert_bounded(shown)


def test_live_json_with_a_5001_digit_integer_is_an_error_at_its_place(
    tmp_path: Path, run_line: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "live.json").write_text('{"model": "m", "max_model_len": ' + "9" * 5001 + "}")
    values = str(FIXTURES / "drift" / "values.yaml")
    result = run_line(["drift", "-f", values, "--live", "live.json"])
    assert (result.exit_code, result.output) == (
        3,
        "live.json: error (invalid): the live config is not valid JSON or YAML: line 1, "
        "column 33: integer of 5001 digits: far beyond any 64-bit setting; read as text; "
        "not compared\n0 differences in 0 of 1 target, 0 in sync, 1 error\n",
    )


def _chart(folder: Path, templates: dict[str, str]) -> Path:
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text(f"apiVersion: v2\nname: {folder.name}\nversion: 0.1.0\n")
    (folder / "values.yaml").write_text("vllm:\n  image: vllm/vllm-openai:v0.10.0\n")
    for name, text in templates.items():
        (folder / "templates" / name).write_text(text)
    return folder


CONFIGMAP = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
    "data: {image: {{ .Values.vllm.image | quote }}}\n"
)
TEMPLATE_LINE = "# " + "x" * 97 + "\n"


def _sub_archive(members: int, size: int) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        meta = b"apiVersion: v2\nname: sub\nversion: 0.1.0\n"
        info = tarfile.TarInfo("sub/Chart.yaml")
        info.size = len(meta)
        archive.addfile(info, io.BytesIO(meta))
        zeros = bytes(size)
        for index in range(members):
            info = tarfile.TarInfo(f"sub/templates/z{index}.yaml")
            info.size = size
            archive.addfile(info, io.BytesIO(zeros))
    return data.getvalue()


@pytest.mark.parametrize(
    ("write", "note"),
    [
        (
            lambda c: _chart(c, {"t.yaml": "{{" * 500_000}),
            "note: c: c/templates/t.yaml: line 1: unexpected '{' in action: the template could "
            "not be read, so the values of chart c are taken as read",
        ),
        (
            lambda c: _chart(
                c, {"t.yaml": "{{ if .Values.a }}" * 50_000 + "x" + "{{ end }}" * 50_000}
            ),
            "note: c: c/templates/t.yaml: line 1: nested too deeply: the template could not be "
            "read, so the values of chart c are taken as read",
        ),
        (
            lambda c: _chart(
                c,
                {f"t{i:02}.yaml": TEMPLATE_LINE * (2 * 1024 * 1024 // 100 - 1) for i in range(20)},
            ),
            "note: c: c/templates/t03.yaml and 16 more: the chart's templates are larger than "
            "4194304 bytes in all: not read; its values are taken as read",
        ),
        (
            lambda c: (
                _chart(c, {"cm.yaml": CONFIGMAP}),
                (c / "charts").mkdir(),
                (c / "charts" / "sub.tgz").write_bytes(_sub_archive(500, 2 * 1024 * 1024)),
            ),
            "note: c: c/charts/sub.tgz: cannot read the archive: more than 4194304 bytes once "
            "unpacked: not read; its values are taken as read",
        ),
        (
            lambda c: (
                _chart(c, {"cm.yaml": CONFIGMAP}),
                (c / "charts").mkdir(),
                (c / "charts" / "sub.tgz").write_bytes(_sub_archive(1001, 0)),
            ),
            "note: c: c/charts/sub.tgz: cannot read the archive: more than 1000 members: not "
            "read; its values are taken as read",
        ),
        (
            lambda c: (
                _chart(c, {"cm.yaml": CONFIGMAP}),
                os.mkfifo(c / "templates" / "fifo.yaml"),
                (c / "templates" / "stdin.yaml").symlink_to("/dev/stdin"),
            ),
            "note: c: c/templates/fifo.yaml: not a regular file (a pipe, socket or device): "
            "not read; its values are taken as read",
        ),
    ],
    ids=[
        "500k-open-braces",
        "50k-nested-if",
        "20-templates-of-2MB",
        "tgz-bomb",
        "tgz-members",
        "fifo-template",
    ],
)
def test_static_chart_reading_is_bounded(
    tmp_path: Path, write: Callable[[Path], object], note: str
) -> None:
    write(tmp_path / "c")
    run = servelint(tmp_path, "lint", "--no-config", "--no-render", "--chart", "c")
    notes = [line for line in run.stdout.splitlines() if line.startswith("note: c:")]
    assert (run.code, notes[:1], run.stdout.splitlines()[-1]) == (
        0,
        [note],
        "0 errors, 0 warnings, 0 info in 1 file",
    )
    _assert_bounded(run)
    shown = servelint(tmp_path, "show", "--chart", "c")
    assert (shown.code, shown.stdout.splitlines()[0]) == (
        0,
        "helm:c:vllm (HelmValues) at c/values.yaml:1:1",
    )
    _assert_bounded(shown)


def test_helm_is_stopped_at_its_memory_limit(tmp_path: Path, helm: str) -> None:
    # 4 KB of template, 300 MB of output: helm held it all (3.5 GB) before printing.
    _chart(
        tmp_path / "bomb",
        {"a.yaml": "{{- range until 3000000 }}\n# " + "x" * 95 + "\n{{- end }}\n"},
    )
    run = servelint(tmp_path, "lint", "--no-config", "--helm", helm, "--chart", "bomb")
    assert (run.code, run.stdout) == (
        1,
        "bomb/Chart.yaml:1:1: error helm-template helm template needed more than 1024 MiB of "
        "memory; not linted (helm's memory limit)\n"
        "bomb/values.yaml:1:1: warning helm-values/unread-key vllm is set but no template of "
        "chart bomb reads it, so Helm ignores it\n"
        "coverage: 1 file, 1 workload recognised (vllm 1)\n"
        "1 error, 1 warning, 0 info in 1 file\n",
    )
    _assert_bounded(run, MAX_BYTES_RSS_HELM)


# The tokens as the backtracking pattern read them before issue 31: the linear reader
# must give exactly these on every text (it is only faster).
_BACKTRACKING = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<number>[+-]?(?:\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|nan)(?![\w.]))
  | (?P<name>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)
  | (?P<punct>[{}\[\]()<>:,=])
  | (?P<other>\S)
    """,
    re.VERBOSE,
)


def test_linear_literal_tokens_are_the_backtracking_ones() -> None:
    from linter.drift.live import literal

    pieces = [*"0123456789_.eE+-'\"\\ \n\tabxinfINF(){}[]<>:,=é٣", "1e5", "\\'", '\\"']
    chooser = random.Random(31)
    for _ in range(20_000):
        text = "".join(chooser.choice(pieces) for _ in range(chooser.randint(0, 16)))
        expected = [
            (m.lastgroup, m.group(), m.start())
            for m in _BACKTRACKING.finditer(text)
            if m.lastgroup != "space"
        ]
        assert (text, literal.tokens(text)) == (text, expected)
