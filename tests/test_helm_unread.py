"""``helm-values/unread-key``: values keys that no template of the chart reads.

Fixture charts (tests/fixtures/helm/unread):

- ``nim``: a nim-llm-like chart that reads ``livenessProbe``/``readinessProbe``/
  ``startupProbe`` through a probe helper (``include`` with a ``dict``), ``with`` +
  ``toYaml`` blocks, and a values.schema.json (with a ``$ref``) that declares one key no
  template reads;
- ``stack``: a production-stack-like chart that reads ``servingEngineSpec.modelSpec[]``
  through ``range $modelSpec`` and ``with $``, a router through a variable, ``index``,
  ``get`` and ``dig``, an aliased subchart (``cacheServer``, reading ``global``) and a
  library chart whose named template reads ``global.imagePullSecrets``.

The reader is also tested construct by construct on template text.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import Result

from linter.helm import gotemplate
from linter.helm.keytree import KeyTree
from linter.helm.reads import TemplateReader
from linter.helm.templatevalues import Root
from linter.helm.unread import chart_keys, unread_keys
from linter.helm.values import load_values

ROOT = Path(__file__).resolve().parent.parent
FIX = "tests/fixtures/helm/unread"
NIM = f"{FIX}/nim"
STACK = f"{FIX}/stack"
RULE = "helm-values/unread-key"
IGNORED = "is set but no template of chart"

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("SERVELINT_HELM", raising=False)


def unread(result: Result) -> list[str]:
    """The text report's lines of this rule."""
    return [line for line in result.output.splitlines() if f" {RULE} " in line]


def finding_rows(result: Result) -> list[tuple[str, int, int, str, str]]:
    report = json.loads(result.output)
    return [
        (f["file"], f["line"], f["column"], f["severity"], f["message"])
        for f in report["findings"]
        if f["rule"] == RULE
    ]


# -- the check, through the CLI ---------------------------------------------------------


def test_probes_where_the_chart_reads_three_probe_keys(run_line: Run) -> None:
    result = run_line(["lint", f"{NIM}/values-probes.yaml"])
    assert (result.exit_code, unread(result)) == (
        0,
        [
            f"{NIM}/values-probes.yaml:4:3: warning {RULE} image.pullPolcy {IGNORED} nim-llm "
            "reads it and its values.schema.json does not declare it, so Helm ignores it; "
            "did you mean pullPolicy?",
            f"{NIM}/values-probes.yaml:7:1: warning {RULE} probes {IGNORED} nim-llm reads it "
            "and its values.schema.json does not declare it, so Helm ignores it; "
            "did you mean startupProbe?",
        ],
    )


def test_the_charts_own_values_are_all_read(run_line: Run) -> None:
    result = run_line(["lint", f"{NIM}/values.yaml", f"{STACK}/values.yaml"])
    # values.yaml alone brings in the chart's other values files (run/dependents.py), some
    # of which hold unread keys on purpose; the charts' own values.yaml have none.
    own = (f"{NIM}/values.yaml:", f"{STACK}/values.yaml:")
    assert (result.exit_code, [line for line in unread(result) if line.startswith(own)]) == (0, [])


def test_misplaced_engine_settings_in_lint_chart(run_line: Run) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            STACK,
            "-f",
            f"{STACK}/values-misplaced.yaml",
            "--no-render",
            "--format",
            "json",
        ]
    )
    file = f"{STACK}/values-misplaced.yaml"
    prefix = f"{IGNORED} vllm-stack reads it, so Helm ignores it"
    assert (result.exit_code, finding_rows(result)) == (
        0,
        [
            (
                file,
                2,
                3,
                "warning",
                f"servingEngineSpec.nodeSelector {prefix}; the chart reads nodeSelectorTerms "
                "at servingEngineSpec.modelSpec[*].nodeSelectorTerms",
            ),
            (
                file,
                4,
                3,
                "warning",
                f"servingEngineSpec.extraArgs {prefix}; the chart reads extraArgs at "
                "servingEngineSpec.modelSpec[*].vllmConfig.extraArgs",
            ),
            (
                file,
                15,
                7,
                "warning",
                f"servingEngineSpec.modelSpec[0].extraArgs {prefix}; the chart reads "
                "extraArgs at servingEngineSpec.modelSpec[0].vllmConfig.extraArgs",
            ),
            (
                file,
                18,
                9,
                "warning",
                f"servingEngineSpec.modelSpec[0].vllmConfig.enforceEager {prefix}",
            ),
            (file, 22, 3, "warning", f"routerSpec.imagePullSecrets {prefix}"),
            (file, 24, 3, "warning", f"global.storageClas {prefix}; did you mean storageClass?"),
            (file, 28, 3, "warning", f"cacheServer.replica {prefix}; did you mean replicas?"),
        ],
    )


def test_set_arguments_that_no_template_reads(run_line: Run) -> None:
    sets = [
        "servingEngineSpec.extraArgs={--max-model-len=8192}",
        "routerSpec.replicaCount=2",
        "cacheServer.replica=3",
    ]
    options = [option for value in sets for option in ("--set", value)]
    result = run_line(["lint", "--chart", STACK, "--no-render", "--format", "json", *options])
    prefix = f"{IGNORED} vllm-stack reads it, so Helm ignores it"
    assert (result.exit_code, finding_rows(result)) == (
        0,
        [
            (
                "<--set>",
                1,
                1,
                "warning",
                f"servingEngineSpec.extraArgs {prefix}; the chart reads extraArgs at "
                "servingEngineSpec.modelSpec[*].vllmConfig.extraArgs",
            ),
            ("<--set>", 3, 1, "warning", f"cacheServer.replica {prefix}; did you mean replicas?"),
        ],
    )


def test_the_same_findings_in_chart_context(run_line: Run) -> None:
    as_context = run_line(["lint", "--format", "json", f"{STACK}/values-misplaced.yaml"])
    values = f"{STACK}/values-misplaced.yaml"
    as_release = run_line(
        ["lint", "--format", "json", "--chart", STACK, "-f", values, "--no-render"]
    )
    assert len(finding_rows(as_context)) == 7
    assert finding_rows(as_context) == finding_rows(as_release)


def test_the_check_runs_with_the_built_in_policies_only(run_line: Run, tmp_path: Path) -> None:
    empty = tmp_path / "policies"
    empty.mkdir()
    result = run_line(
        ["lint", "--no-builtin", "--policy-dir", str(empty), f"{NIM}/values-probes.yaml"]
    )
    assert (result.exit_code, unread(result)) == (0, [])


def test_a_file_linted_on_its_own_is_not_judged(run_line: Run) -> None:
    result = run_line(["lint", "--no-chart-context", f"{NIM}/values-probes.yaml"])
    assert unread(result) == []


def test_disabled_and_suppressed_like_any_rule(run_line: Run, tmp_path: Path) -> None:
    chart = tmp_path / "nim"
    shutil.copytree(ROOT / NIM, chart)
    values = chart / "values-probes.yaml"
    text = values.read_text(encoding="utf-8").replace(
        "probes:",
        f'probes:  # servelint: ignore[{RULE}] reason="read by our kustomize overlay"',
    )
    values.write_text(text, encoding="utf-8")
    suppressed = run_line(["lint", str(values)])
    config = tmp_path / ".servelint.yaml"
    config.write_text(f"disable: [{RULE}]\n", encoding="utf-8")
    disabled = run_line(["lint", "--config", str(config), str(values)])
    assert [line.split(": warning ")[0] for line in unread(suppressed)] == [
        f"{values}:4:3",
        f"{values}:7:1",
    ]
    assert unread(suppressed)[1].endswith(
        "did you mean startupProbe? [suppressed (inline): read by our kustomize overlay]"
    )
    assert not unread(suppressed)[0].endswith("]")
    assert unread(disabled) == []


def test_a_subchart_archive_reads_like_a_folder(tmp_path: Path) -> None:
    chart = tmp_path / "stack"
    shutil.copytree(ROOT / STACK, chart)
    with tarfile.open(chart / "charts" / "cache-0.1.0.tgz", "w:gz") as archive:
        archive.add(chart / "charts" / "cache", arcname="cache")
    shutil.rmtree(chart / "charts" / "cache")
    document = load_values(chart / "values-misplaced.yaml")
    paths = [f.path for f in unread_keys(str(chart), [document]).findings]
    assert paths == [
        "servingEngineSpec.nodeSelector",
        "servingEngineSpec.extraArgs",
        "servingEngineSpec.modelSpec[0].extraArgs",
        "servingEngineSpec.modelSpec[0].vllmConfig.enforceEager",
        "routerSpec.imagePullSecrets",
        "global.storageClas",
        "cacheServer.replica",
    ]


def test_a_dependency_not_vendored_leaves_its_values_and_global_unjudged(
    tmp_path: Path,
) -> None:
    chart = tmp_path / "stack"
    shutil.copytree(ROOT / STACK, chart)
    with (chart / "Chart.yaml").open("a", encoding="utf-8") as handle:
        handle.write(
            "  - name: kube-prometheus-stack\n    version: 65.1.1\n"
            "    repository: https://prometheus-community.github.io/helm-charts\n"
        )
    values = chart / "values-misplaced.yaml"
    with values.open("a", encoding="utf-8") as handle:
        handle.write("kube-prometheus-stack:\n  grafana:\n    enabled: true\n")
    paths = [f.path for f in unread_keys(str(chart), [load_values(values)]).findings]
    assert paths == [
        "servingEngineSpec.nodeSelector",
        "servingEngineSpec.extraArgs",
        "servingEngineSpec.modelSpec[0].extraArgs",
        "servingEngineSpec.modelSpec[0].vllmConfig.enforceEager",
        "routerSpec.imagePullSecrets",
        "cacheServer.replica",
    ]


def test_a_template_it_cannot_read_makes_no_finding_and_says_so(
    run_line: Run, tmp_path: Path
) -> None:
    chart = tmp_path / "nim"
    shutil.copytree(ROOT / NIM, chart)
    (chart / "templates" / "broken.yaml").write_text(
        "kind: ConfigMap\ndata:\n  x: {{ .Values.x ~ }}\n", encoding="utf-8"
    )
    result = run_line(["lint", str(chart / "values-probes.yaml")])
    assert unread(result) == []
    assert (
        f"note: {chart}: {chart}/templates/broken.yaml: line 3: unexpected '~' in action: "
        "the template could not be read, so the values of chart nim-llm are taken as read"
    ) in result.output.splitlines()


def test_a_chart_is_read_once_and_again_when_a_template_changes(tmp_path: Path) -> None:
    chart = tmp_path / "nim"
    shutil.copytree(ROOT / NIM, chart)
    first = chart_keys(str(chart))
    assert chart_keys(str(chart)) is first
    template = chart / "templates" / "service.yaml"
    template.write_text(
        template.read_text(encoding="utf-8") + "# {{ .Values.probes | toYaml }}\n",
        encoding="utf-8",
    )
    again = chart_keys(str(chart))
    assert again is not first
    document = load_values(chart / "values-probes.yaml")
    assert [f.path for f in unread_keys(str(chart), [document]).findings] == ["image.pullPolcy"]


def test_values_strings_rendered_with_tpl_read_keys(tmp_path: Path) -> None:
    chart = tmp_path / "tpl"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: tpl\nversion: 1.0.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "data:\n  args: {{ tpl (toYaml .Values.args) $ | quote }}\n", encoding="utf-8"
    )
    values = chart / "values-prod.yaml"
    values.write_text(
        'args: ["--max-model-len={{ .Values.maxModelLen }}"]\nmaxModelLen: 8192\nunused: 1\n',
        encoding="utf-8",
    )
    findings = unread_keys(str(chart), [load_values(values)]).findings
    assert [(f.path, f.line) for f in findings] == [("unused", 3)]


def test_every_reported_key_is_really_ignored_by_helm(helm: str, tmp_path: Path) -> None:
    """Removing a reported key changes nothing that ``helm template`` renders."""
    source = ROOT / STACK / "values-misplaced.yaml"
    document = load_values(source)
    findings = unread_keys(STACK, [document]).findings
    assert len(findings) == 7
    baseline = _render(helm, source)
    for finding in findings:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
        _delete(data, finding.path)
        changed = tmp_path / "values.yaml"
        changed.write_text(yaml.safe_dump(data), encoding="utf-8")
        assert _render(helm, changed) == baseline, finding.path


def _render(helm: str, values: Path) -> str:
    return subprocess.run(
        [helm, "template", "r", str(ROOT / STACK), "-f", str(values)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _delete(data: dict[str, object], dotted: str) -> None:
    from linter.positions import parse_path

    *parents, last = parse_path(dotted)
    node: object = data
    for key in parents:
        node = node[key]  # type: ignore[index]
    del node[last]  # type: ignore[union-attr, arg-type]


# -- the reader, construct by construct -------------------------------------------------


def reads(text: str, defines: str = "") -> list[str]:
    """``a.b`` for a key read, ``a.b=`` for a key read whole, ``*`` for every key."""
    helpers = gotemplate.parse_template(defines)
    table: dict[str, list[tuple[gotemplate.Node, ...]]] = {}
    for name, body in helpers.defines:
        table.setdefault(name, []).append(body)
    reader = TemplateReader(table)
    reader.run(gotemplate.parse_template(text).body, frozenset((Root(()),)))
    return sorted(_dump(reader.tree))


def _dump(tree: KeyTree, prefix: str = "") -> list[str]:
    if tree.whole:
        return [f"{prefix}="]
    out = []
    for key, child in tree.children.items():
        path = f"{prefix}.{key}" if prefix else key
        out.append(path) if not child.whole else None
        out.extend(_dump(child, path))
    return out


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{ .Values.a.b }}", ["a", "a.b="]),
        ("{{ if .Values.a.b }}x{{ end }}", ["a", "a.b"]),
        ("{{ $.Values.a.b | quote }}", ["a", "a.b="]),
        ("{{ with .Values.a }}{{ .b }}{{ end }}", ["a", "a.b="]),
        ("{{ with .Values.a }}{{ else }}{{ .Values.c }}{{ end }}", ["a", "c="]),
        ("{{ range .Values.a }}{{ .name }}{{ end }}", ["a", "a.*", "a.*.name="]),
        ("{{ range $k, $v := .Values.a }}{{ $v.x }}{{ end }}", ["a", "a.*", "a.*.x="]),
        ('{{ index .Values "a" "b" }}', ["a", "a.b="]),
        ("{{ index .Values.a $key }}", ["a", "a.*="]),
        ('{{ get .Values.a "b" }}', ["a", "a.b="]),
        (
            '{{ pluck "b" .Values.a .Values.c | first }}',
            ["a", "a.b", "a.b.*=", "c", "c.b", "c.b.*="],
        ),
        ('{{ dig "a" "b" "none" .Values }}', ["a", "a.b="]),
        ('{{ if hasKey .Values.a "b" }}x{{ end }}', ["a", "a.b"]),
        ("{{ toYaml .Values.x }}", ["x="]),
        ("{{ .Values.x | toYaml | nindent 2 }}", ["x="]),
        ("{{ tpl (toYaml .Values.x) $ }}", ["x="]),
        ('{{ tpl .Values.x (dict "Values" .Values "scope" .Values.y) }}', ["x=", "y="]),
        ('{{ tpl "{{ .Values.a.b }}" $ }}', ["a", "a.b="]),
        ("{{ $cfg := .Values.a }}{{ $cfg.b }}", ["a", "a.b="]),
        ("{{ $c := .Values.a | default dict }}{{ if $c.b }}{{ end }}", ["a", "a.b"]),
        ("{{ toJson .Values }}", ["="]),
        ('{{ include "unknown" . }}', ["="]),
        ('{{ include "unknown" .Values.a }}', ["a="]),
        ('{{ include "x" .Values.a }}', ["a", "a.b=", "a.v", "a.v.b="]),
        ('{{ include "x" (dict "v" .Values.a "ctx" $) }}', ["a", "a.b="]),
        ('{{ include "y" . }}', ["image", "image.tag="]),
        ('{{ template "y" . }}', ["image", "image.tag="]),
        ('{{ include (print "y") . }}', ["image", "image.tag="]),
        ("{{ if and .Values.a (not .Values.b) }}{{ end }}", ["a", "b"]),
        ("{{- /* {{ .Values.comment }} */ -}}{{ .Values.a }}", ["a="]),
        ("{{ (.Values.a).b }}", ["a", "a.b="]),
        ("{{ $x := 1 }}{{ if .Values.a }}{{ $x = .Values.b }}{{ end }}{{ $x }}", ["a", "b="]),
        (
            "{{ $s := list }}{{ range .Values.a }}{{ $s = append $s . }}{{ end }}{{ $s }}",
            ["a", "a.*="],
        ),
        ("{{ range keys .Values.a }}{{ end }}", ["a", "a.*"]),
    ],
)
def test_reads(template: str, expected: list[str]) -> None:
    helpers = (
        '{{ define "x" }}{{ .b }}{{ .v.b }}{{ end }}'
        '{{ define "y" }}{{ .Values.image.tag }}{{ end }}'
    )
    assert reads(template, helpers) == expected


def test_a_named_template_is_followed_with_the_root_of_a_with_dollar() -> None:
    template = (
        "{{ range $m := .Values.modelSpec }}{{ with $ }}"
        '{{ include "labels" . }}{{ $m.name }}{{ end }}{{ end }}'
    )
    helpers = '{{ define "labels" }}{{ toYaml .Values.labels }}{{ end }}'
    assert reads(template, helpers) == ["labels=", "modelSpec", "modelSpec.*", "modelSpec.*.name="]


def test_a_recursive_template_terminates() -> None:
    helpers = '{{ define "r" }}{{ .a }}{{ include "r" . }}{{ end }}'
    assert reads('{{ include "r" .Values.t }}', helpers) == ["t", "t.a="]


def _chart(tmp_path: Path, templates: dict[str, str], files: dict[str, str]) -> Path:
    chart = tmp_path / "files-chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: files-chart\nversion: 1.0.0\n")
    for name, text in {**templates, **files}.items():
        path = chart / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return chart


def _unread_paths(chart: Path, values: str) -> list[str]:
    path = chart / "values-test.yaml"
    path.write_text(values, encoding="utf-8")
    return [f.path for f in unread_keys(str(chart), [load_values(path)]).findings]


def test_a_chart_file_rendered_with_tpl_reads_keys(tmp_path: Path) -> None:
    chart = _chart(
        tmp_path,
        {"templates/cm.yaml": '{{ tpl (.Files.Get "files/patch.yaml") . }}\n'},
        {
            "files/patch.yaml": "image: {{ .Values.agent.image }}\n",
            "files/other.yaml": "image: {{ .Values.other.image }}\n",
        },
    )
    assert _unread_paths(chart, "agent: {image: a}\nother: {image: b}\n") == ["other"]


def test_files_found_by_glob_are_all_read_unless_helm_could_not_render_them(
    tmp_path: Path,
) -> None:
    """The kserve charts' pattern: ``range .Files.Glob`` then ``tpl`` of what was joined."""
    template = (
        '{{- $all := "" }}{{- range $path, $_ := .Files.Glob "files/*-patch.yaml" }}'
        '{{- $all = printf "%s\\n---\\n%s" $all ($.Files.Get $path | toString) }}{{- end }}'
        "{{ tpl $all . }}\n"
    )
    chart = _chart(
        tmp_path,
        {"templates/resources.yaml": template},
        {
            "files/a-patch.yaml": "image: {{ .Values.agent.image }}\n",
            "README.md.gotmpl": '{{ template "chart.valuesTable" . }}{{ .Values.docs }}\n',
            "dashboards/engine.json": '{"legendFormat": "{{instance}} {{ .Values.grafana"}\n',
        },
    )
    values = "agent: {image: a}\ndocs: x\ngrafana: y\n"
    assert _unread_paths(chart, values) == ["docs", "grafana"]


def test_the_bitnami_render_helper_with_a_scope_is_followed(tmp_path: Path) -> None:
    helper = (
        '{{- define "common.tplvalues.render" -}}\n'
        '{{- $value := typeIs "string" .value | ternary .value (.value | toYaml) }}\n'
        "{{- if .scope }}\n"
        '{{- tpl (cat "{{- with $.RelativeScope -}}" $value "{{- end }}") '
        '(merge (dict "RelativeScope" .scope) .context) }}\n'
        "{{- else }}{{- tpl $value .context }}{{- end }}\n"
        "{{- end -}}\n"
    )
    chart = _chart(
        tmp_path,
        {
            "templates/_tplvalues.tpl": helper,
            "templates/cm.yaml": '{{ include "common.tplvalues.render" (dict "value" '
            '.Values.labels "context" $ "scope" .Values.app) }}\n',
        },
        {},
    )
    assert _unread_paths(chart, "labels: {a: b}\napp: {name: x}\nunused: 1\n") == ["unused"]


def test_templates_nested_too_deeply_are_not_guessed(run_line: Run, tmp_path: Path) -> None:
    chart = tmp_path / "nim"
    shutil.copytree(ROOT / NIM, chart)
    deep = "{{ if .Values.a }}" * 3000 + "x" + "{{ end }}" * 3000
    (chart / "templates" / "deep.yaml").write_text(deep, encoding="utf-8")
    result = run_line(["lint", str(chart / "values-probes.yaml")])
    assert unread(result) == []
    assert (
        f"note: {chart}: {chart}/templates/deep.yaml: line 1: nested too deeply: the template "
        "could not be read, so the values of chart nim-llm are taken as read"
    ) in result.output.splitlines()


def test_a_values_string_helm_cannot_parse_is_taken_as_reading_everything(
    tmp_path: Path,
) -> None:
    chart = _chart(tmp_path, {"templates/cm.yaml": "{{ tpl (toYaml .Values.args) $ }}\n"}, {})
    deep = "{{ with .Values.x }}" * 1000 + "{{ end }}" * 1000
    assert _unread_paths(chart, f"args: ['{deep}']\nunused: 1\n") == []


def _cache_entries() -> list[Path]:
    from linter.policy.cache import cache_dir

    directory = cache_dir()
    assert directory is not None
    return sorted(directory.glob("chart-reads-*.json"))


def test_a_later_run_reads_the_chart_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linter.helm import chartfiles, unread

    chart = tmp_path / "stack"
    shutil.copytree(ROOT / STACK, chart)
    document = load_values(chart / "values-misplaced.yaml")
    first = [f.path for f in unread_keys(str(chart), [document]).findings]
    assert len(first) == 7
    unread._CACHE.clear()  # a new process

    def no_reading(*args: object) -> None:
        raise AssertionError("the templates were read again")

    monkeypatch.setattr(chartfiles, "load_chart_files", no_reading)
    assert [f.path for f in unread_keys(str(chart), [document]).findings] == first


def test_a_damaged_cache_entry_is_read_again(tmp_path: Path) -> None:
    from linter.helm import unread

    chart = tmp_path / "nim"
    shutil.copytree(ROOT / NIM, chart)
    document = load_values(chart / "values-probes.yaml")
    before = set(_cache_entries())
    unread_keys(str(chart), [document])
    (entry,) = set(_cache_entries()) - before
    entry.write_bytes(entry.read_bytes()[:-10])
    unread._CACHE.clear()
    paths = [f.path for f in unread_keys(str(chart), [document]).findings]
    assert paths == ["image.pullPolcy", "probes"]


def test_a_cache_entry_is_data_and_never_runs_code(tmp_path: Path) -> None:
    """Whoever can write the cache folder can change a reading, never run code: an entry
    replaced by a pickle that would create a file, with a valid checksum, is ignored."""
    import pickle

    from linter import digests
    from linter.helm import readcache, unread

    chart = tmp_path / "nim"
    shutil.copytree(ROOT / NIM, chart)
    document = load_values(chart / "values-probes.yaml")
    before = set(_cache_entries())
    unread_keys(str(chart), [document])
    (entry,) = set(_cache_entries()) - before
    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (open, (str(marker), "w"))

    body = pickle.dumps(Exploit())
    entry.write_bytes(readcache._MAGIC + digests.digest(body) + body)
    unread._CACHE.clear()
    paths = [f.path for f in unread_keys(str(chart), [document]).findings]
    assert (paths, marker.exists()) == (["image.pullPolcy", "probes"], False)


def test_no_cache_entry_with_servelint_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chart = tmp_path / "nim"
    shutil.copytree(ROOT / NIM, chart)
    before = _cache_entries()
    monkeypatch.setenv("SERVELINT_NO_CACHE", "1")
    findings = unread_keys(str(chart), [load_values(chart / "values-probes.yaml")]).findings
    monkeypatch.delenv("SERVELINT_NO_CACHE")
    assert (len(findings), _cache_entries()) == (2, before)


def test_values_strings_after_a_cached_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linter.helm import chartfiles, unread

    chart = _chart(tmp_path, {"templates/cm.yaml": "{{ tpl (toYaml .Values.args) $ }}\n"}, {})
    values = "args: ['--max-model-len={{ .Values.maxModelLen }}']\nmaxModelLen: 1\nunused: 1\n"
    assert _unread_paths(chart, values) == ["unused"]
    unread._CACHE.clear()  # the chart's reading is cached, the strings' reads too
    read = chartfiles.load_chart_files
    monkeypatch.setattr(chartfiles, "load_chart_files", None)
    assert _unread_paths(chart, values) == ["unused"]
    monkeypatch.setattr(chartfiles, "load_chart_files", read)
    unread._CACHE.clear()  # new strings: the templates are read again for them
    assert _unread_paths(chart, values.replace("maxModelLen }}", "other }}")) == [
        "maxModelLen",
        "unused",
    ]


def test_stored_readings_come_back_equal() -> None:
    """What the cache stores (a chart's key trees, its /dev/shm scan) reads back unchanged."""
    from linter.helm import readcache
    from linter.helm.chartfiles import load_chart_files
    from linter.helm.podscan import scan_chart

    parity = Path(__file__).parent / "fixtures" / "helm" / "parity"
    for name in ("no-shm", "shm-switch", "shm-opaque"):
        scan = scan_chart(load_chart_files(str(parity / name)))
        assert readcache._decode(readcache._encode(scan)) == scan, name
    tree = readcache.KeyTree()
    tree.add(["servingEngineSpec", "modelSpec", "*", "vllmConfig"])
    tree.add(["routerSpec"], whole=True)
    back = readcache._decode(readcache._encode(tree))
    assert isinstance(back, readcache.KeyTree)
    assert back.children["routerSpec"].whole
    assert list(back.children["servingEngineSpec"].children["modelSpec"].children) == ["*"]
