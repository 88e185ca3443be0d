"""The runner's environment in every report: the secrets of six CI systems and of Argo
CD's config-management plugin are masked, and their paths, names and revisions are not.

Each environment's values are planted in a values file under keys that do not look like
secrets (``ci/e0``...), and a policy quotes the whole document, so each value reaches
every format; a secret is masked only because the runner holds it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.secrets.environment import environment_values, is_secret_variable

DUMP = Path(__file__).parent / "fixtures" / "secrets" / "runners" / "policies"
FORMATS = ("text", "json", "sarif", "github", "junit")
VALUES = Path("examples/charts/vllm/values.yaml")

# name -> (value, secret): what each runner sets (values as the runners print them).
GITHUB_ACTIONS = {
    "GITHUB_ACTIONS": ("true", False),
    "GITHUB_WORKSPACE": ("/home/runner/work/serving/serving", False),
    "GITHUB_REPOSITORY": ("acme/serving", False),
    "GITHUB_REF": ("refs/pull/42/merge", False),
    "GITHUB_SHA": ("8d4c1f0b2a9e7d6c5b4a39281706f5e4d3c2b1a0", False),
    "GITHUB_RUN_ID": ("11876543210", False),
    "RUNNER_TEMP": ("/home/runner/work/_temp", False),
    "ACTIONS_ID_TOKEN_REQUEST_URL": (
        "https://pipelinesghubeus6.actions.githubusercontent.com/x3sdf9/_apis/"
        "distributedtask/hubs/Actions/plans/a1/jobs/b2/idtoken?api-version=2.0",
        False,
    ),
    "MODEL_ID": ("meta-llama/Llama-3.1-8B-Instruct", False),
    "GITHUB_TOKEN": ("ghs_16C7e42F292c6912E7710c838347Ae178B4a", True),
    "ACTIONS_RUNTIME_TOKEN": ("Zq0vT7kLr2mWx9bNc4hJd8sPf6yGt3aE", True),
    "REGISTRY_PASSWORD": ("Tq7-vW2x9KpL4mZs", True),
}
GITLAB_CI = {
    "GITLAB_CI": ("true", False),
    "CI_PROJECT_DIR": ("/builds/acme/serving", False),
    "CI_PROJECT_PATH": ("acme/serving", False),
    "CI_COMMIT_SHA": ("5e1d0c9b8a7f6e5d4c3b2a1908f7e6d5c4b3a291", False),
    "CI_COMMIT_REF_NAME": ("feature/llama-8b", False),
    "CI_REGISTRY_USER": ("gitlab-ci-token", False),
    "CI_REGISTRY_IMAGE": ("registry.gitlab.com/acme/serving", False),
    "CI_SERVER_TLS_CA_FILE": ("/builds/acme/serving.tmp/CI_SERVER_TLS_CA_FILE", False),
    "CI_JOB_TOKEN": ("glcbt-64_yGxqZ7sV2nWm8kPr3tLc", True),
    "CI_REGISTRY_PASSWORD": ("glcbt-64_yGxqZ7sV2nWm8kPr3tLc", True),
    "CI_DEPENDENCY_PROXY_PASSWORD": ("glcbt-64_yGxqZ7sV2nWm8kPr3tLc", True),
}
JENKINS = {
    "JENKINS_URL": ("https://ci.acme.example/", False),
    "JENKINS_HOME": ("/var/jenkins_home", False),
    "WORKSPACE": ("/var/jenkins_home/workspace/serving_PR-42", False),
    "JOB_NAME": ("serving/PR-42", False),
    "BUILD_TAG": ("jenkins-serving-PR-42-17", False),
    "NODE_NAME": ("gpu-agent-03", False),
    "GIT_COMMIT": ("c0ffee1234567890abcdef1234567890abcdef12", False),
    "HF_CREDS_USR": ("hf-ci-robot", False),
    "HF_CREDS_PSW": ("Jm4qX8vR2tZw6nKp", True),
    "HF_CREDS": ("hf-ci-robot:Jm4qX8vR2tZw6nKp", True),
    "JENKINS_API_TOKEN": ("11a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7", True),
}
AZURE_PIPELINES = {
    "TF_BUILD": ("True", False),
    "SYSTEM_TEAMFOUNDATIONCOLLECTIONURI": ("https://dev.azure.com/acme/", False),
    "BUILD_SOURCESDIRECTORY": ("/home/vsts/work/1/s", False),
    "BUILD_REPOSITORY_NAME": ("acme/serving", False),
    "BUILD_SOURCEVERSION": ("0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", False),
    "AGENT_TEMPDIRECTORY": ("/home/vsts/work/_temp", False),
    "SYSTEM_DEFINITIONNAME": ("serving-lint", False),
    "BUILD_BUILDNUMBER": ("20251021.3", False),
    "SYSTEM_ACCESSTOKEN": ("3xq7kz2mvl5p9rwt4ysd6hcbn8fgja2qe7uxwk5rm9tvz4lpd3sa", True),
}
BUILDKITE = {
    "BUILDKITE": ("true", False),
    "BUILDKITE_AGENT_NAME": ("gpu-lint-1", False),
    "BUILDKITE_BUILD_CHECKOUT_PATH": (
        "/var/lib/buildkite-agent/builds/gpu-lint-1/acme/serving",
        False,
    ),
    "BUILDKITE_PIPELINE_SLUG": ("serving", False),
    "BUILDKITE_BRANCH": ("raise-max-model-len", False),
    "BUILDKITE_COMMIT": ("9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc", False),
    "BUILDKITE_BUILD_URL": ("https://buildkite.com/acme/serving/builds/1289", False),
    "BUILDKITE_REPO": ("git@github.com:acme/serving.git", False),
    "BUILDKITE_AGENT_ACCESS_TOKEN": ("bkaj_Tk9vQ2mXw7rLp4sZc8nHd3fJ6yBg5aEu", True),
}
ARGOCD_PLUGIN = {
    "ARGOCD_APP_NAME": ("llama-serving", False),
    "ARGOCD_APP_NAMESPACE": ("inference", False),
    "ARGOCD_APP_REVISION": ("8d4c1f0b2a9e7d6c5b4a39281706f5e4d3c2b1a0", False),
    "ARGOCD_APP_REVISION_SHORT": ("8d4c1f0", False),
    "ARGOCD_APP_SOURCE_PATH": ("examples/charts/vllm", False),
    "ARGOCD_APP_SOURCE_REPO_URL": ("https://github.com/acme/serving.git", False),
    "ARGOCD_APP_SOURCE_TARGET_REVISION": ("main", False),
    "ARGOCD_APP_PROJECT_NAME": ("inference-team", False),
    "KUBE_VERSION": ("1.30.4", False),
    "KUBE_API_VERSIONS": ("v1,apps/v1,batch/v1,networking.k8s.io/v1", False),
    "ARGOCD_ENV_MODEL_ID": ("meta-llama/Llama-3.1-8B-Instruct", False),
    "ARGOCD_ENV_REGISTRY_PASSWORD": ("Vt4mQ9xL2pR7sK8w", True),
    "ARGOCD_AUTH_TOKEN": ("Hn3kT8vQ1zXw5mLr9pBc2dFg7sJy4aEu", True),
}
# What a desktop or a login shell adds, on any runner.
SESSION = {
    "SSH_AUTH_SOCK": ("/tmp/ssh-XXXXkq9PzM/agent.2319", False),
    "DBUS_SESSION_BUS_ADDRESS": ("unix:path=/run/user/1000/bus", False),
    "XDG_SESSION_DESKTOP": ("ubuntu:GNOME", False),
    "GOOGLE_APPLICATION_CREDENTIALS": ("/home/dev/.config/gcloud/adc.json", True),
    "PIP_INDEX_URL": ("https://ci:Px8vL2qTz7@pypi.acme.example/simple", False),
}
RUNNERS = {
    "github-actions": GITHUB_ACTIONS,
    "gitlab-ci": GITLAB_CI,
    "jenkins": JENKINS,
    "azure-pipelines": AZURE_PIPELINES,
    "buildkite": BUILDKITE,
    "argocd-plugin": ARGOCD_PLUGIN,
}


def _secrets(runner: dict[str, tuple[str, bool]]) -> set[str]:
    return {value for value, secret in runner.values() if secret}


@pytest.mark.parametrize("runner", RUNNERS, ids=list(RUNNERS))
def test_each_variable_is_secret_by_its_name_or_not(runner: str) -> None:
    variables = RUNNERS[runner]
    assert {n: is_secret_variable(n) for n in variables} == {
        n: secret for n, (_, secret) in variables.items()
    }


@pytest.mark.parametrize("runner", RUNNERS, ids=list(RUNNERS))
def test_only_the_secrets_of_the_environment_are_masked(runner: str) -> None:
    variables = RUNNERS[runner]
    environ = {name: value for name, (value, _) in variables.items()}
    # HF_CREDS is "user:password": the whole value, as Jenkins sets it, is the secret.
    assert environment_values(environ) == _secrets(variables)


def _plant(root: Path, runner: dict[str, tuple[str, bool]]) -> None:
    """A values file holding every value of the runner under an innocent key."""
    planted = "\n".join(
        f"  ci/e{index}: {json.dumps(value)}" for index, (value, _) in enumerate(runner.values())
    )
    (root / VALUES).parent.mkdir(parents=True)
    (root / VALUES).write_text(
        "image:\n  repository: vllm/vllm-openai\n  tag: latest\n"
        "model: meta-llama/Llama-3.1-8B-Instruct\n"
        'vllmApiKey: "charts"\n'
        f"podAnnotations:\n{planted}\n"
    )


def _reports(root: Path, environ: dict[str, str]) -> dict[str, str]:
    outputs = [f"--format={fmt}:{root / ('report.' + fmt)}" for fmt in FORMATS if fmt != "text"]
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(
            cli,
            [
                "lint",
                "--no-config",
                "--policy-dir",
                str(DUMP),
                *outputs,
                "--format=text",
                str(VALUES),
            ],
            env={"NO_COLOR": "1", **environ},
            catch_exceptions=False,
        )
    finally:
        os.chdir(previous)
    reports = {fmt: (root / f"report.{fmt}").read_text() for fmt in FORMATS if fmt != "text"}
    reports["text"] = result.output
    reports["exit"] = str(result.exit_code)
    return reports


@pytest.mark.parametrize("runner", RUNNERS, ids=list(RUNNERS))
def test_every_format_masks_the_runner_s_secrets_and_nothing_else(
    tmp_path: Path, runner: str
) -> None:
    variables = RUNNERS[runner]
    _plant(tmp_path, variables)
    # The same run without the runner's environment shows every planted value (but those
    # shaped like tokens, masked anywhere): the reference the masked reports must equal.
    clean = _reports(tmp_path, {})
    masked = _reports(tmp_path, {name: value for name, (value, _) in variables.items()})
    # A GitHub token planted in a values file is a literal secret by its shape alone.
    assert masked["exit"] == clean["exit"] == ("1" if runner == "github-actions" else "0")
    for fmt in FORMATS:
        expected = clean[fmt]
        for secret in sorted(_secrets(variables), key=len, reverse=True):
            expected = expected.replace(secret, "****")
        assert masked[fmt] == expected, fmt
        for value, secret in variables.values():
            if not secret and len(value) >= 8:  # what masking every value used to hide
                assert json.dumps(value)[1:-1] in masked[fmt] or value in masked[fmt], (fmt, value)
        assert "examples/charts/vllm/values.yaml" in masked[fmt]
        assert "****/" not in masked[fmt] and "la****" not in masked[fmt]
    assert [s for s in _secrets(variables) if not s.startswith("ghs_") and s in clean["text"]]


def test_the_argocd_plugin_report_keeps_its_paths_and_names(tmp_path: Path) -> None:
    _plant(tmp_path, ARGOCD_PLUGIN)
    text = _reports(tmp_path, {name: value for name, (value, _) in ARGOCD_PLUGIN.items()})["text"]
    assert text.splitlines() == [
        # CEL prints a map with its keys sorted.
        "examples/charts/vllm/values.yaml:1:1: info team-dump/quotes-everything saw "
        "{image: {repository: vllm/vllm-openai, tag: latest}, model: "
        "meta-llama/Llama-3.1-8B-Instruct, podAnnotations: {ci/e0: llama-serving, ci/e1: "
        "inference, ci/e10: meta-llama/Llama-3.1-8B-Instruct, ci/e11: ****, ci/e12: ****, "
        "ci/e2: 8d4c1f0b2a9e7d6c5b4a39281706f5e4d3c2b1a0, ci/e3: 8d4c1f0, ci/e4: "
        "examples/charts/vllm, ci/e5: https://github.com/acme/serving.git, ci/e6: main, "
        "ci/e7: inference-team, ci/e8: 1.30.4, ci/e9: v1,apps/v1,batch/v1,networking.k8s.io/v1}, "
        "vllmApiKey: charts}",
        "examples/charts/vllm/values.yaml:3:3: warning images/unpinned-server-image image "
        "vllm/vllm-openai:latest uses the moving tag latest: the server release changes "
        "under this manifest whenever the tag moves, and version-gated checks cannot run; "
        "pin a release tag or a digest (the newest release: vllm/vllm-openai:v0.33.0)",
        "examples/charts/vllm/values.yaml:5:1: warning secrets/weak-secret weak secret in "
        "'vllmApiKey' is committed: a value this short or common is guessed in a few tries, "
        "and reports do not mask it (masking it would garble every word that contains it); "
        "use a long random value, keep it in a Kubernetes Secret and reference it (env "
        "valueFrom.secretKeyRef, or the chart's existing-Secret setting)",
        "coverage: 1 file, 1 workload recognised (vllm 1)",
        "coverage: not checked for a missing fact: server version on 1 workload (-v for details)",
        "0 errors, 2 warnings, 1 info in 1 file",
    ]


def test_a_login_session_s_variables_and_a_password_inside_a_url() -> None:
    environ = {name: value for name, (value, _) in SESSION.items()}
    assert {n: is_secret_variable(n) for n in SESSION} == {
        n: secret for n, (_, secret) in SESSION.items()
    }
    # The credentials file's path is masked by its name (a path is rarely in a report);
    # the index's password by its shape, though the variable is only a URL.
    assert environment_values(environ) == {"/home/dev/.config/gcloud/adc.json", "Px8vL2qTz7"}
