"""Masking that never mangles and never misses: whole tokens only, weak secrets reported
instead of masked, secret keys inside JSON and YAML strings, and every command (``show``
and ``show --live``, ``drift``, ``rules``, ``explain``) through the same masking as
``lint``."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from linter.cli import cli
from linter.parsing.documents import parse_yaml
from linter.secrets import literal, patterns, redact, weak

SECRETS = Path(__file__).parent / "fixtures" / "secrets"
SHOW = SECRETS / "show"
CONFIGMAP = SECRETS / "configmap"
LOGS = Path(__file__).parent / "fixtures" / "drift" / "logs"
# A value the runner holds as a secret, that an input copies under an innocent name.
RUNNER = {"REGISTRY_PASSWORD": "Rn5tW8qZ3xKv7mPs"}
IN_SHOW = (
    "Zk82mQ0pLx77Tq",
    "Hq9sPz01LmNo55",
    "hf_AbCdEfGhIjKlMnOpQrStUvWx12",
    "sk-Zq81kLmN0pQrStUvWxYz2345abcd",
    "Rn5tW8qZ3xKv7mPs",
)
IN_LOG = ("Zk82mQ0pLx77Tq", "Wq83nBv5Lk20Xc7Rt", "Pf6yGt3aEZq0vT7k")


@pytest.fixture
def inside() -> Iterator[None]:
    previous = Path.cwd()
    yield
    os.chdir(previous)


def _run(args: list[str], where: Path, env: dict[str, str] | None = None) -> Result:
    os.chdir(where)
    return CliRunner().invoke(
        cli, args, env={"NO_COLOR": "1", **(env or {})}, catch_exceptions=False
    )


# -- whole tokens -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("key Zk82mQ0pLx77Tq in use", "key **** in use"),
        ("--api-key=Zk82mQ0pLx77Tq,", "--api-key=****,"),
        ('{"k": "Zk82mQ0pLx77Tq"}', '{"k": "****"}'),
        ("/tmp/Zk82mQ0pLx77Tq/x", "/tmp/****/x"),
        ("Zk82mQ0pLx77Tq_old", "****_old"),
        # inside a word: another word, not the secret
        ("xZk82mQ0pLx77Tq and Zk82mQ0pLx77Tq9", "xZk82mQ0pLx77Tq and Zk82mQ0pLx77Tq9"),
    ],
)
def test_a_value_is_masked_as_a_whole_token(text: str, masked: str) -> None:
    assert redact.scrub(text, {"Zk82mQ0pLx77Tq"}) == masked


def test_a_value_with_symbols_at_its_ends_is_masked_wherever_it_stands() -> None:
    assert redact.scrub("a=-Zk82mQ!b", {"-Zk82mQ!"}) == "a=****b"


@pytest.mark.parametrize(
    ("value", "is_weak"),
    [
        ("test", True),
        ("charts", True),
        ("changeme", True),
        ("examples", True),
        ("Password", True),
        ("password1", True),
        ("12345678", True),
        ("x9$kQ2", True),
        ("QzXkWpLmNt", False),  # mixed case: not a word
        ("correcthorsebatterystaple", False),  # a passphrase
        ("Tq7-vW2x9KpL4mZs", False),
    ],
)
def test_weak_values(value: str, is_weak: bool) -> None:
    assert weak.is_weak(value) is is_weak


def test_weak_values_are_not_masked_in_text_and_strong_ones_are() -> None:
    parsed = parse_yaml(
        "values.yaml",
        'vllmApiKey: "charts"\ntestToken: "test"\npassword: changeme\n'
        'apiKey: "Tq7-vW2x9KpL4mZs"\nimage: {tag: latest}\n',
    )
    assert redact.collect([parsed]) == {"Tq7-vW2x9KpL4mZs"}


# -- weak secrets are findings ---------------------------------------------------------------

WEAK = (
    "is committed: a value this short or common is guessed in a few tries, and reports do "
    "not mask it (masking it would garble every word that contains it); use a long random "
    "value, keep it in a Kubernetes Secret and reference it (env valueFrom.secretKeyRef, or "
    "the chart's existing-Secret setting)"
)


def test_a_weak_secret_is_a_finding_of_its_own_and_paths_stay_whole(
    tmp_path: Path, inside: None
) -> None:
    chart = tmp_path / "examples" / "charts" / "vllm"
    (chart / "tests").mkdir(parents=True)
    (chart / "values.yaml").write_text(
        "image:\n  repository: vllm/vllm-openai\n  tag: latest\n"
        'vllmApiKey: "charts"\nauth:\n  password: changeme\n  token: "${HF_TOKEN}"\n'
    )
    # ngcAPISecret and imagePullSecret name Secrets to read: not weak secrets
    (chart / "tests" / "values-test.yaml").write_text(
        'apiKey: "test"\nadminPassword: "1234"\nngcAPISecret: ngc-api\nimagePullSecret: regcred\n'
    )
    outputs = [f"--format={fmt}:{tmp_path / fmt}" for fmt in ("json", "sarif", "github", "junit")]
    result = _run(["lint", "--no-config", "--format=text", *outputs, "examples"], tmp_path)
    assert result.exit_code == 0
    assert [line for line in result.output.splitlines() if "weak-secret" in line] == [
        f"examples/charts/vllm/tests/values-test.yaml:1:1: warning secrets/weak-secret weak "
        f"secret in 'apiKey' {WEAK}",
        f"examples/charts/vllm/tests/values-test.yaml:2:1: warning secrets/weak-secret weak "
        f"secret in 'adminPassword' {WEAK}",
        f"examples/charts/vllm/values.yaml:4:1: warning secrets/weak-secret weak secret in "
        f"'vllmApiKey' {WEAK}",
        f"examples/charts/vllm/values.yaml:6:3: warning secrets/weak-secret weak secret in "
        f"'password' {WEAK}",
    ]
    for fmt in ("text", "json", "sarif", "github", "junit"):
        report = result.output if fmt == "text" else (tmp_path / fmt).read_text()
        assert "****" not in report, fmt
        assert "examples/charts/vllm/values.yaml" in report, fmt
    sarif = json.loads((tmp_path / "sarif").read_text())
    [rule] = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if "weak" in r["id"]]
    assert rule["helpUri"] == "https://pages.nist.gov/800-63-3/sp800-63b.html#memsecretver"


@pytest.mark.parametrize(
    ("value", "reported"),
    [
        ("charts", True),
        ("changeme", True),
        ("1234", True),
        ("<your-key>", False),
        ("${HF_TOKEN}", False),
        ("xxxx", False),
        ("VLLM_API_KEY", False),  # the name of a key in a Secret
        ("hf_TOKEN", False),  # a vendor prefix, as documentation writes it
        ("true", False),
        ("Tq7-vW2x9KpL4mZs", False),  # strong: a literal secret, not a weak one
    ],
)
def test_what_is_a_weak_literal(value: str, reported: bool) -> None:
    assert literal.is_weak_literal(value) is reported


# -- secrets inside JSON and YAML strings -------------------------------------------------


def test_secret_keys_inside_embedded_json_yaml_and_python_text() -> None:
    text = (
        '{"openai_api_key": "Qm7x\\"T2pL", "model": "m"} '
        "{'hf_token': 'Lq2v\\'N8xK', 'max_tokens': 5}\n"
        "upstream_token: Pf6yGt3aE\npassword: null\nurl: http://gw:8080\n"
    )
    assert patterns.keyed_pairs(text) == [
        ("openai_api_key", 'Qm7x"T2pL'),
        ("hf_token", "Lq2v'N8xK"),
        ("upstream_token", "Pf6yGt3aE"),
    ]
    assert patterns.mask_keyed(text) == (
        '{"openai_api_key": "****", "model": "m"} '
        "{'hf_token': '****', 'max_tokens': 5}\n"
        "upstream_token: ****\npassword: null\nurl: http://gw:8080\n"
    )


def test_a_hostile_embedded_text_costs_a_bounded_scan() -> None:
    import time

    # Values that never close, and a key in every eight characters: about 1 MB each.
    unclosed = ('api_key:"' + "x" * 9000 + "\n") * 110
    keys = "token: '" * 125_000
    started = time.perf_counter()
    assert patterns.mask_keyed(unclosed) == unclosed
    assert patterns.mask_keyed(keys) == "token: '****'" * 62_500
    assert time.perf_counter() - started < 10.0  # linear: about 1 s here


def test_a_policy_printing_a_configmap_shows_no_embedded_secret(inside: None) -> None:
    outputs = [f"--format={fmt}:/dev/null" for fmt in ()]
    result = _run(
        ["lint", "--no-config", "--policy-dir", "policies", *outputs, "gateway.yaml"], CONFIGMAP
    )
    assert result.exit_code == 1
    advice = (
        "is committed: anyone who can read the repository can use it; keep it in a "
        "Kubernetes Secret and reference it (env valueFrom.secretKeyRef, or the chart's "
        "existing-Secret setting); rotate the exposed value"
    )
    # changeme is weak: shown, and its line already has a finding (the strong token).
    assert result.output.splitlines() == [
        "gateway.yaml:1:1: info team-config/prints-data gateway config: {config.json: "
        '{"openai_api_key": "****", "model": "meta-llama/Llama-3.1-8B-Instruct"}, '
        "settings.yaml: backend: vllm\\x0aupstream_token: ****\\x0apassword: changeme\\x0a}",
        f"gateway.yaml:6:3: error secrets/literal-secret literal secret 'openai_api_key' in "
        f"'config.json' {advice}",
        f"gateway.yaml:7:3: error secrets/literal-secret literal secret 'upstream_token' in "
        f"'settings.yaml' {advice}",
        "2 errors, 0 warnings, 1 info in 1 file",
    ]


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "junit"])
def test_every_format_masks_the_configmap_s_embedded_secrets(fmt: str, inside: None) -> None:
    result = _run(
        ["lint", "--no-config", "--policy-dir", "policies", "--format", fmt, "gateway.yaml"],
        CONFIGMAP,
    )
    assert result.exit_code == 1
    assert "Qm7xT2pLw9Zr4Kd" not in result.output
    assert "Lq2vN8xK4mTz6pRw" not in result.output
    # the policy's message and the literal-secret finding (JUnit: each twice)
    assert result.output.count("openai_api_key") == (4 if fmt == "junit" else 2)


# -- show -------------------------------------------------------------------------------------

SHOWN = [
    "    engine.api_key = '****'  (deploy.yaml:15:15, spec.template.spec.containers[0].args[3])",
    "    pod.containers[0].args = ['--model', 'meta-llama/Llama-3.1-8B-Instruct', '--api-key', "
    "'****', '--hf-token=****']  (deploy.yaml:11:11, spec.template.spec.containers[0].args)",
    "    pod.containers[0].env.HF_TOKEN = '****'  (deploy.yaml:19:15, "
    "spec.template.spec.containers[0].env[0].value)",
    "    pod.containers[0].env.UPSTREAM_CONFIG = '****'  (deploy.yaml:21:15, "
    "spec.template.spec.containers[0].env[1].value)",
    "    pod.containers[0].env.BATCH_LABEL = '****'  (deploy.yaml:23:15, "
    "spec.template.spec.containers[0].env[2].value)",
]


def test_show_masks_what_lint_masks(inside: None) -> None:
    result = _run(["show", "--no-config", "deploy.yaml"], SHOW, RUNNER)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line for line in lines if "****" in line] == SHOWN
    assert "  model: meta-llama/Llama-3.1-8B-Instruct (architecture: catalogue)" in lines


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_show_masks_in_every_format(fmt: str, inside: None) -> None:
    result = _run(["show", "--no-config", "--format", fmt, "deploy.yaml"], SHOW, RUNNER)
    assert result.exit_code == 0
    for secret in IN_SHOW:
        assert secret not in result.output
    shown = json.loads(result.output) if fmt == "json" else yaml.safe_load(result.output)
    settings = {s["setting"]: s["value"] for s in shown["workloads"][0]["settings"]}
    assert settings["engine.api_key"] == "****"
    assert settings["engine.model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert settings["pod.containers[0].env.BATCH_LABEL"] == "****"
    assert settings["pod.containers[0].args"] == [
        "--model",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--api-key",
        "****",
        "--hf-token=****",
    ]


def test_show_masks_in_html(inside: None) -> None:
    result = _run(["show", "--no-config", "--format", "html", "deploy.yaml"], SHOW, RUNNER)
    assert result.exit_code == 0
    for secret in IN_SHOW:
        assert secret not in result.output
        assert html.escape(secret) not in result.output
    # engine.api_key, as the other formats show it
    assert '<td class="mono">engine.api_key</td><td class="mono">&#x27;****&#x27;</td>' in (
        result.output
    )


def test_show_without_the_runner_secret_shows_that_value(inside: None) -> None:
    # The value is masked above only because the runner holds it.
    result = _run(["show", "--no-config", "deploy.yaml"], SHOW)
    assert "    pod.containers[0].env.BATCH_LABEL = 'Rn5tW8qZ3xKv7mPs'  (deploy.yaml:23:15, " in (
        result.output
    )


@pytest.mark.parametrize("fmt", ["text", "json", "yaml", "html"])
def test_show_live_masks_json_inside_a_log_argument(fmt: str, inside: None) -> None:
    result = _run(["show", "--no-config", "--live", "sm.log", "--format", fmt], SHOW, RUNNER)
    assert result.exit_code == 0
    for secret in IN_LOG:
        assert secret not in result.output
    if fmt == "text":
        assert result.output.splitlines() == [
            "sm.log: vllm 0.11.0, model meta-llama/Llama-3.1-8B-Instruct",
            "  read: non-default args",
            "  engine.api_key = '****'",
            "  engine.kv_transfer_config = {'kv_connector': 'LMCacheConnectorV1', 'kv_role': "
            "'kv_both', 'api_key': '****'}",
            "  engine.max_model_len = 8192",
            "  engine.model = 'meta-llama/Llama-3.1-8B-Instruct'",
            '  engine.served_model_name = \'{"api_key": "****"}\'',
            "  not settings (not compared): model_tag",
        ]


# -- drift --------------------------------------------------------------------------------


def test_drift_live_masks_json_inside_a_log_argument(inside: None, tmp_path: Path) -> None:
    log = (LOGS / "vllm-0.11-dp2.log").read_text()
    (tmp_path / "json-arg.log").write_text(
        log.replace(
            "'served_model_name': ['llama-3.1-8b']",
            "'served_model_name': ['{\"api_key\": \"Wq83nBv5Lk20Xc7Rt\"}']",
        )
    )
    (tmp_path / "vllm-values.yaml").write_bytes((LOGS / "vllm-values.yaml").read_bytes())
    args = ["drift", "-f", "vllm-values.yaml", "--live", "json-arg.log"]
    text = _run(args, tmp_path)
    assert text.exit_code == 1
    assert text.output.splitlines()[1:] == [
        "  field              values.yaml   live                 status   edit at",
        '  served_model_name  llama-3.1-8b  {"api_key": "****"}  changed  vllm-values.yaml:11',
        "1 difference in 1 of 1 target, 0 in sync",
    ]
    report = json.loads(_run([*args, "--format", "json"], tmp_path).output)
    assert [(f["message"], f["live"]) for f in report["findings"]] == [
        (
            'served_model_name is {"api_key": "****"} in json-arg.log; the values say llama-3.1-8b',
            '{"api_key": "****"}',
        )
    ]
    prometheus = _run([*args, "--format", "prometheus"], tmp_path).output
    assert "servelint_drift" in prometheus
    assert "Wq83nBv5Lk20Xc7Rt" not in prometheus


# -- rules and explain ------------------------------------------------------------------------

POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {name: team-registry}
spec:
  target: document
  rules:
    - id: pull-secret
      severity: warning
      title: "log in with Rn5tW8qZ3xKv7mPs or hf_AbCdEfGhIjKlMnOpQrStUvWx12"
      description: "the registry password is Rn5tW8qZ3xKv7mPs"
      expression: "true"
      message: "never"
"""


def test_rules_and_explain_mask_a_policy_s_text(tmp_path: Path, inside: None) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "registry.yaml").write_text(POLICY)
    base = ["--no-config", "--no-builtin", "--policy-dir", "policies"]
    listed = _run(["rules", *base], tmp_path, RUNNER)
    assert [line for line in listed.output.splitlines() if "team-" in line] == [
        "team-registry/pull-secret                        warning  log in with **** or ****"
    ]
    for fmt in ("json", "markdown"):
        output = _run(["rules", *base, "--format", fmt], tmp_path, RUNNER).output
        assert "Rn5tW8qZ3xKv7mPs" not in output and "hf_AbCd" not in output, fmt
        assert "log in with **** or ****" in output, fmt
    explained = _run(["explain", "team-registry/pull-secret", *base], tmp_path, RUNNER)
    assert explained.output.splitlines()[:5] == [
        "team-registry/pull-secret (warning)",
        "",
        "log in with **** or ****",
        "",
        "the registry password is ****",
    ]
