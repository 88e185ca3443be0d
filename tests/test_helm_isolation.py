"""A chart under review cannot read the runner's files or environment into a report:
helm renders a copy with no link leaving the chart, in a minimal environment, and every
value of the runner's environment is masked in every output format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from linter.helm.render import copy_chart, helm_environment

# What a CI runner holds: the credentials a hostile chart would like to print.
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9pLeKey"
CI_TOKEN = "ci-job-7f3a9b2c4d5e6f708192a3b4"
FORMATS = ("text", "json", "sarif", "junit", "github")


def _chart(root: Path, template: str) -> Path:
    chart = root / "leaky"
    (chart / "templates").mkdir(parents=True)
    (chart / "files").mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: leaky\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("{}\n")
    (chart / "templates" / "leak.yaml").write_text(template)
    return chart


def _lint_every_format(root: Path, helm: str, *args: str) -> tuple[int, dict[str, str], float]:
    """Run servelint as CI would, one report per format; the reports and stderr."""
    env = {
        **os.environ,
        "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        "CI_JOB_TOKEN": CI_TOKEN,
        "NO_COLOR": "1",
    }
    outputs = [f"--format={fmt}:{fmt}.out" for fmt in FORMATS if fmt != "text"]
    start = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "linter",
            "lint",
            "--no-config",
            "--helm",
            helm,
            *args,
            "--format",
            "text",
            *outputs,
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    seconds = time.monotonic() - start
    reports = {fmt: (root / f"{fmt}.out").read_text() for fmt in FORMATS if fmt != "text"}
    reports["text"] = done.stdout
    reports["stderr"] = done.stderr
    return done.returncode, reports, seconds


def test_a_link_to_the_runners_environment_is_refused_not_rendered(
    tmp_path: Path, helm: str
) -> None:
    chart = _chart(tmp_path, '{{ fail (.Files.Get "files/env") }}\n')
    (chart / "files" / "env").symlink_to("/proc/self/environ")
    (tmp_path / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    code, reports, seconds = _lint_every_format(tmp_path, helm, "--chart", "leaky", "other.yaml")
    assert code == 1
    # A hang guard (reading the link's target, an endless file, never ends): about 0.6 s
    # alone, a hundred times that on a busy machine is still a pass.
    assert seconds < 60
    findings = [line for line in reports["text"].splitlines() if "helm-template" in line]
    assert findings == [
        "leaky/files/env:1:1: error helm-template chart not rendered: leaky/files/env: a "
        "symbolic link to '/proc/self/environ', outside the chart: helm would read it into "
        "the rendered output (remove the link or copy the file into the chart)"
    ]
    assert reports["text"].splitlines()[-1] == "1 error, 0 warnings, 0 info in 2 files"
    for name, text in reports.items():
        assert AWS_SECRET not in text, name
        assert CI_TOKEN not in text, name


def test_helm_never_sees_the_runners_environment_and_what_it_prints_is_masked(
    tmp_path: Path, helm: str
) -> None:
    # A "helm" that prints the environment it was given, and the runner's secret as if a
    # chart had found a way to read it.
    spy = tmp_path / "spy-helm"
    spy.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "print('Error: ' + json.dumps(sorted(os.environ)), file=sys.stderr)\n"
        f"print('leaked {AWS_SECRET} and {CI_TOKEN}', file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    spy.chmod(0o755)
    _chart(tmp_path, "kind: ConfigMap\n")
    code, reports, _ = _lint_every_format(tmp_path, str(spy), "--chart", "leaky")
    assert code == 1
    [finding] = json.loads(reports["json"])["findings"]
    assert finding["rule"] == "helm-template"
    seen = json.loads(finding["message"].split("helm template failed: ", 1)[1].split(" leaked")[0])
    assert seen == sorted(helm_environment("/w"))
    assert finding["message"].endswith("leaked **** and ****")
    for name, text in reports.items():
        assert AWS_SECRET not in text, name
        assert CI_TOKEN not in text, name
    assert helm  # the real helm is what renders the other tests


def test_links_inside_the_chart_still_render(tmp_path: Path, helm: str) -> None:
    chart = _chart(
        tmp_path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
        'data: {note: {{ .Files.Get "files/note" | quote }}}\n',
    )
    (chart / "shared.txt").write_text("kept")
    (chart / "files" / "note").symlink_to("../shared.txt")
    code, reports, _ = _lint_every_format(tmp_path, helm, "--chart", "leaky")
    assert code == 0, reports
    assert reports["text"].splitlines()[-1] == "0 errors, 0 warnings, 0 info in 2 files"


def test_the_copy_refuses_links_out_and_special_files(tmp_path: Path) -> None:
    chart = tmp_path / "c"
    (chart / "sub").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("name: c\n")
    (chart / "sub" / "up").symlink_to("../../outside")
    (chart / "abs").symlink_to("/etc/passwd")
    (chart / "dangling").symlink_to("nowhere")
    (chart / "inside").symlink_to("Chart.yaml")
    os.mkfifo(chart / "pipe")
    (tmp_path / "outside").write_text("secret")
    refused = copy_chart(str(chart), str(tmp_path / "copy"))
    assert sorted(path for path, _ in refused) == [
        f"{chart}/abs",
        f"{chart}/dangling",
        f"{chart}/pipe",
        f"{chart}/sub/up",
    ]
    assert os.readlink(tmp_path / "copy" / "inside") == "Chart.yaml"
    assert not (tmp_path / "copy" / "sub" / "up").exists()


@pytest.mark.parametrize("render", [True, False])
def test_a_fifo_values_file_is_a_read_error_never_a_hang(
    tmp_path: Path, helm: str, render: bool
) -> None:
    chart = _chart(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    (chart / "values.yaml").unlink()
    os.mkfifo(chart / "values.yaml")
    os.mkfifo(chart / "values-prod.yaml")
    args = ["--chart", "leaky", "--env", "prod"] + ([] if render else ["--no-render"])
    code, reports, seconds = _lint_every_format(tmp_path, helm, *args)
    # A hang guard (opening a FIFO for reading waits for a writer forever): about 0.3 s
    # alone.
    assert seconds < 60
    assert code == 3, reports
    lines = [line for line in reports["text"].splitlines() if "read-error" in line]
    assert lines == [
        "leaky/values-prod.yaml:1:1: error read-error not a regular file (a pipe, socket or "
        "device); not read",
        "leaky/values.yaml:1:1: error read-error not a regular file (a pipe, socket or "
        "device); not read",
    ]


def test_a_chart_that_prints_gigabytes_is_stopped_at_the_size_limit(
    tmp_path: Path, helm: str
) -> None:
    # About 55 MB of output, over the 50 MiB input size limit: never held in memory.
    _chart(tmp_path, "{{- range until 600000 }}\n# " + "x" * 90 + "\n{{- end }}\n")
    code, reports, seconds = _lint_every_format(tmp_path, helm, "--chart", "leaky")
    assert code == 1
    # A blow-up guard (an output read whole before it is measured): about 2.7 s alone.
    assert seconds < 120
    assert [line for line in reports["text"].splitlines() if "helm-template" in line] == [
        "leaky/Chart.yaml:1:1: error helm-template helm template printed more than 52428800 "
        "bytes; not linted (the input size limit)"
    ]


@pytest.mark.parametrize("fmt", ["text", "json", "prometheus", "html"])
def test_drift_reports_mask_the_runners_environment(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "values.yaml").write_text("server:\n  config:\n    note: committed\n")
    (tmp_path / "live.json").write_text(json.dumps({"note": CI_TOKEN, "other": "x"}))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "linter",
            "drift",
            "-f",
            "values.yaml",
            "--live",
            "live.json",
            "--values-path",
            "server.config",
            "--format",
            fmt,
        ],
        cwd=tmp_path,
        env={**os.environ, "CI_JOB_TOKEN": CI_TOKEN, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert CI_TOKEN not in done.stdout + done.stderr
    if fmt != "prometheus":  # the metrics carry no values
        assert "****" in done.stdout
