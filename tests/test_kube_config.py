"""Cluster access: kubeconfig files and contexts, exec auth plugins, in-cluster
configuration, the lazy import of ``kubernetes``, and the progress bar."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import tomllib
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from kube_standin import TOKEN, Cluster, Container, Pod
from kube_standin.fixtures import isolate, running

from linter.commands.drift import PodProgress
from linter.sources.kube import KubeRequest, fetch
from linter.sources.kube_errors import RetryPolicy
from linter.sources.kube_pods import parse_source

FIXTURES = Path(__file__).parent / "fixtures" / "drift"
ROOT = Path(__file__).parent.parent
Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate(monkeypatch)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.kube/config of the user


def one_pod() -> Cluster:
    return vllm_pods(1)


def vllm_pods(count: int) -> Cluster:
    config = (FIXTURES / "live" / "pod-config.json").read_bytes()
    return Cluster(
        pods=[
            Pod(
                f"vllm-{n}",
                labels={"app": "vllm"},
                containers=[Container("vllm", files={"/etc/config.json": config})],
            )
            for n in range(count)
        ]
    )


def use_exec_plugin(kubeconfig: Path, plugin: Path) -> None:
    """The kubeconfig's user gets its token from ``plugin``, a Python exec credential plugin."""
    config = yaml.safe_load(kubeconfig.read_text())
    config["users"][0]["user"] = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": sys.executable,
            "args": [str(plugin)],
            "interactiveMode": "Never",
        }
    }
    kubeconfig.write_text(yaml.safe_dump(config))


def request(kubeconfig: Path | None, **options: object) -> KubeRequest:
    return KubeRequest(
        parse_source("exec:/etc/config.json"),
        kubeconfig=str(kubeconfig) if kubeconfig else None,
        selector="app=vllm",
        # Slack for a busy machine: every request here is answered at once by the
        # in-process stand-in; no test waits for this timeout to expire.
        timeout=10.0,
        retry=RetryPolicy(1, 0.01, 0.01),
        **options,
    )  # type: ignore[arg-type]


def test_the_context_chooses_cluster_user_and_namespace(tmp_path: Path) -> None:
    cluster = one_pod()
    with running(cluster, tmp_path) as api:
        config = yaml.safe_load(api.kubeconfig.read_text())
        config["users"].append({"name": "stale", "user": {"token": "stale"}})
        config["contexts"].append(
            {
                "name": "prod",
                "context": {"cluster": "standin", "user": "drift-scanner", "namespace": "llm"},
            }
        )
        config["contexts"].append(
            {"name": "old", "context": {"cluster": "standin", "user": "stale", "namespace": "llm"}}
        )
        config["contexts"][0]["context"]["namespace"] = "default"
        api.kubeconfig.write_text(yaml.safe_dump(config))
        before = api.kubeconfig.read_bytes()
        current = fetch(request(api.kubeconfig))
        prod = fetch(request(api.kubeconfig, context="prod"))
        old = fetch(request(api.kubeconfig, context="old"))
        assert api.kubeconfig.read_bytes() == before  # never written back
    assert (current.namespace, current.error and current.error.reason) == ("default", "no-pods")
    assert (prod.namespace, [i.state for i in prod.items]) == ("llm", ["ok"])
    assert old.error is not None and old.error.reason == "unauthorized"


def test_an_exec_auth_plugin_provides_the_token(tmp_path: Path) -> None:
    plugin = tmp_path / "token-plugin.py"
    plugin.write_text(
        textwrap.dedent(f"""
        import json
        print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1",
                           "kind": "ExecCredential", "status": {{"token": "{TOKEN}"}}}}))
    """)
    )
    with running(one_pod(), tmp_path) as api:
        use_exec_plugin(api.kubeconfig, plugin)
        report = fetch(request(api.kubeconfig))
    assert [(i.pod, i.state, json.loads(i.text or "{}")["max_num_seqs"]) for i in report.items] == [
        ("vllm-0", "ok", 256)
    ]


def test_kubeconfig_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with running(one_pod(), tmp_path) as api:
        monkeypatch.setenv("KUBECONFIG", str(api.kubeconfig))
        report = fetch(request(None))
    assert [i.state for i in report.items] == ["ok"]


def test_no_configuration_at_all_is_a_clear_failure(run_line: Run) -> None:
    result = run_line(
        [
            "drift",
            "-f",
            str(FIXTURES / "values.yaml"),
            "--kube",
            "--pod",
            "p",
            "--source",
            "podspec",
        ]
    )
    assert result.exit_code == 3
    assert result.output == (
        "servelint: cannot use the kubeconfig (~/.kube/config): Invalid "
        "kube-config file. No configuration found.\n"
    )


def test_in_cluster_without_a_service_account_token(
    run_line: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "1")
    result = run_line(
        [
            "drift",
            "-f",
            str(FIXTURES / "values.yaml"),
            "--kube",
            "--pod",
            "p",
            "--source",
            "podspec",
        ]
    )
    assert result.exit_code == 3
    assert result.output == (
        "servelint: cannot use the in-cluster configuration: Service token file does not exist.\n"
    )


def test_lint_never_imports_the_kubernetes_client(tmp_path: Path) -> None:
    manifest = tmp_path / "values.yaml"
    manifest.write_text("replicaCount: 1\n")
    code = textwrap.dedent(f"""
        import sys
        import linter.cli
        assert "kubernetes" not in sys.modules, "import linter.cli"
        status = linter.cli.main(["lint", "--no-builtin", {str(manifest)!r}])
        assert "kubernetes" not in sys.modules, "lint"
        assert not any(m.startswith(("kubernetes", "deepdiff")) for m in sys.modules), "drift"
        print("ok", status)
    """)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr, done.stdout.splitlines()[-1]) == (0, "", "ok 0")


def test_drift_on_files_does_not_import_the_kubernetes_client() -> None:
    code = textwrap.dedent(f"""
        import sys
        import linter.cli
        status = linter.cli.main(["drift", "-f", {str(FIXTURES / "values.yaml")!r},
                                  "--values-path", "server.config", "--live",
                                  {str(FIXTURES / "live" / "pod-config.json")!r},
                                  "--format", "json", "-o", "/dev/null"])
        assert "kubernetes" not in sys.modules
        print("ok", status)
    """)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr, done.stdout.strip()) == (0, "", "ok 1")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_and_for_many_pods(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    few = PodProgress()
    for done in range(1, 4):
        few(done, 3)
    few.close()
    assert terminal.getvalue() == ""
    many = PodProgress()
    for done in range(1, 31):
        many(done, 30)
    many.close()
    assert "reading pods" in terminal.getvalue()
    assert "100%" in terminal.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    quiet = PodProgress()
    for done in range(1, 31):
        quiet(done, 30)
    quiet.close()
    assert pipe.getvalue() == ""


def test_a_concurrent_scan_counts_every_pod_once_and_keeps_their_order(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    with running(vllm_pods(30), tmp_path) as api:
        report = fetch(
            request(api.kubeconfig, concurrency=8), lambda done, total: calls.append((done, total))
        )
    assert calls == [(done, 30) for done in range(1, 31)]
    assert [i.pod for i in report.items] == sorted(f"vllm-{n}" for n in range(30))
    assert {i.state for i in report.items} == {"ok"}


def test_drift_kube_without_the_client_says_how_to_install_it(tmp_path: Path) -> None:
    """The client is the `kube` extra; without it drift --kube stops with the install line."""
    code = textwrap.dedent(f"""
        import sys
        sys.modules["kubernetes"] = None  # as if 'servelint[kube]' was not installed
        import linter.cli
        status = linter.cli.main(["drift", "-f", {str(FIXTURES / "values.yaml")!r}, "--kube",
                                  "--pod", "p", "--source", "podspec"])
        print("exit", status)
    """)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
        env={**os.environ, "KUBECONFIG": str(tmp_path / "none")},
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "exit 3\n",
        "servelint: servelint drift --kube needs the Kubernetes client, which is an optional "
        "extra: pip install 'servelint[kube]' (in the container image it is installed)\n",
    )


def test_the_kubernetes_client_is_an_extra_and_the_test_extra_brings_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in project["dependencies"] if d.startswith("kubernetes")]
    assert project["optional-dependencies"]["kube"] == ["kubernetes>=29.0"]
    assert "kubernetes>=29.0" in project["optional-dependencies"]["test"]


def test_the_token_refresh_hook_runs_at_most_every_half_minute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The client calls its refresh hook before every request; the hook re-reads the
    proxy settings from the whole environment. Renewal happens five minutes before
    expiry, so a hook run every 30 s keeps the token valid."""
    from linter.sources import kube_config

    clock = [1000.0]
    monkeypatch.setattr(kube_config.time, "monotonic", lambda: clock[0])
    calls: list[float] = []
    configuration = types.SimpleNamespace(refresh_api_key_hook=None)

    def hook(configuration: Any) -> None:
        calls.append(clock[0])
        configuration.refresh_api_key_hook = hook  # as the client's hook does

    refresh = kube_config._throttled(hook)
    configuration.refresh_api_key_hook = refresh
    for now in (1000.0, 1000.5, 1029.9, 1030.0, 1031.0, 1061.0):
        clock[0] = now
        refresh(configuration)
    assert calls == [1000.0, 1030.0, 1061.0]
    # The client's hook never replaces the throttled one, not even for a moment.
    assert configuration.refresh_api_key_hook is refresh


def test_a_failed_token_refresh_is_tried_again_at_the_next_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from linter.sources import kube_config

    monkeypatch.setattr(kube_config.time, "monotonic", lambda: 1000.0)
    outcomes = [OSError("the exec plugin failed"), None]
    calls: list[object] = []

    def hook(configuration: Any) -> None:
        calls.append(configuration)
        outcome = outcomes.pop(0)
        if outcome is not None:
            raise outcome
        configuration.api_key = {"BearerToken": "fresh"}

    configuration = types.SimpleNamespace(refresh_api_key_hook=None, api_key={})
    refresh = kube_config._throttled(hook)
    with pytest.raises(OSError, match="the exec plugin failed"):
        refresh(configuration)
    refresh(configuration)  # at the same moment: not throttled, since the first failed
    refresh(configuration)  # throttled now
    assert (len(calls), configuration.api_key) == (2, {"BearerToken": "fresh"})


def test_an_expiring_exec_token_is_renewed_once_not_before_every_request(
    tmp_path: Path,
) -> None:
    counter = tmp_path / "runs"
    plugin = tmp_path / "token-plugin.py"
    # A token already inside the client's five-minute renewal window: without the
    # throttle the plugin would run again before each of the three pods' requests.
    plugin.write_text(
        textwrap.dedent(f"""
        import json, pathlib
        runs = pathlib.Path({str(counter)!r})
        runs.write_text(str(int(runs.read_text() or 0) + 1) if runs.exists() else "1")
        print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1",
                           "kind": "ExecCredential",
                           "status": {{"token": "{TOKEN}",
                                      "expirationTimestamp": "2000-01-01T00:00:00Z"}}}}))
    """)
    )
    with running(vllm_pods(3), tmp_path) as api:
        use_exec_plugin(api.kubeconfig, plugin)
        report = fetch(request(api.kubeconfig))
    assert [(i.pod, i.state) for i in report.items] == [
        ("vllm-0", "ok"),
        ("vllm-1", "ok"),
        ("vllm-2", "ok"),
    ]
    # Once when the kubeconfig is loaded, once at the first request's refresh.
    assert counter.read_text() == "2"
