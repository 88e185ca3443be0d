"""The options of ``servelint drift``. Imports only click, so ``commands.drift`` stays light."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from linter.helm.options import check_sets
from linter.optiongroup import apply_options
from linter.outputpath import output_file

if TYPE_CHECKING:
    from linter.drift.scan import DriftPlan
    from linter.sources.kube import KubeRequest

F = TypeVar("F", bound=Callable[..., Any])
FORMATS = ("text", "json", "prometheus", "html")
SERVERS = ("auto", "none", "vllm", "tgi", "sglang", "triton")
_KUBE_ONLY = ("kubeconfig", "context", "namespace", "selector", "pod", "container", "source")


def _check_source(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from linter.sources.kube_pods import parse_source

    if value is not None:
        try:
            parse_source(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc), ctx, param) from None
    return value


_OPTIONS = [
    click.option(
        "-f",
        "--values",
        "values",
        multiple=True,
        required=True,
        metavar="FILE",
        type=click.Path(exists=True, dir_okay=False),
        help="Values file (repeatable; merged as Helm merges them, later files win).",
    ),
    click.option(
        "--set",
        "sets",
        multiple=True,
        metavar="PATH=VALUE",
        callback=check_sets,
        help="A value with Helm's --set syntax (repeatable; applied last).",
    ),
    click.option(
        "--live",
        "live",
        multiple=True,
        metavar="FILE",
        help="A live config file, start-up log or info answer to compare with "
        "(repeatable; - reads standard input: kubectl logs deploy/vllm | servelint drift "
        "-f values.yaml --live -).",
    ),
    click.option(
        "--values-path",
        metavar="PATH",
        help="The subtree of the values that the chart writes into the live file, "
        "e.g. server.config; a key with dots in brackets: "
        "configs[\"vllm-config.yaml\"] or configs['vllm-config.yaml'].",
    ),
    click.option(
        "--live-path", metavar="PATH", help="Compare with this subtree of the live document only."
    ),
    click.option(
        "--ignore",
        multiple=True,
        metavar="PATH",
        help="Ignore a path (dotted, globs allowed; repeatable).",
    ),
    click.option(
        "--unordered",
        multiple=True,
        metavar="PATH",
        help="Compare the list at this path as a set (globs allowed; repeatable).",
    ),
    click.option(
        "--server",
        type=click.Choice(SERVERS),
        default="auto",
        show_default=True,
        help="Whose defaults fill keys present on one side only.",
    ),
    click.option(
        "--disable",
        multiple=True,
        metavar="RULE",
        help="Drop the differences of a rule: drift/host, drift/port, drift/seed, "
        "drift/served-model-name, drift/path, or any drift rule or pattern (drift/*-live); "
        "repeatable.",
    ),
    click.option(
        "--fail-on-unchecked",
        is_flag=True,
        help="Fail (exit 1) when a committed setting is not reported by the live source, "
        "as lint fails on what it could not check.",
    ),
    click.option("--kube", is_flag=True, help="Read the live side from pods in a cluster."),
    click.option(
        "--kubeconfig",
        metavar="FILE",
        help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster).",
    ),
    click.option("--context", metavar="NAME", help="Kubeconfig context."),
    click.option(
        "-n", "--namespace", metavar="NAME", help="Namespace (default: the context's namespace)."
    ),
    click.option("-l", "--selector", metavar="LABELS", help="Label selector of the pods."),
    click.option("--pod", metavar="NAME", help="One pod by name."),
    click.option(
        "-c",
        "--container",
        metavar="NAME",
        help="Container (default: the pod's default container).",
    ),
    click.option(
        "--source",
        metavar="SOURCE",
        callback=_check_source,
        help="exec:/path/in/container, http:PORT/PATH, configmap:NAME/KEY, podspec, or "
        "logs (the start-up configuration the server printed in its log).",
    ),
    click.option(
        "--previous",
        is_flag=True,
        help="With --source logs: the log of the container before its last restart.",
    ),
    click.option(
        "--log-bytes",
        type=click.IntRange(1024, 1024 * 1024 * 1024),
        default=None,
        metavar="BYTES",
        help="With --source logs: how much of the start of the log to read [default: 8388608].",
    ),
    click.option(
        "--concurrency",
        type=click.IntRange(1, 256),
        default=8,
        show_default=True,
        help="Pods read at the same time.",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(0.01, 3600),
        default=10.0,
        show_default=True,
        help="Seconds to wait for each request.",
    ),
    click.option(
        "--retries",
        type=click.IntRange(0, 10),
        default=2,
        show_default=True,
        help="Retries of a transient failure (connection error, 429, 5xx).",
    ),
    click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="text",
        show_default=True,
        help="Output format.",
    ),
    click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, writable=True),
        callback=output_file,
        help="Write the report to this file instead of standard output.",
    ),
    click.option(
        "--exit-zero",
        is_flag=True,
        help="Exit 0 even when drift is found (scheduled scans that report through "
        "metrics); 3 still means nothing could be compared.",
    ),
]


def drift_options(func: F) -> F:
    return apply_options(_OPTIONS, func)


def check_usage(options: dict[str, Any]) -> None:
    """Combinations click cannot express; a ``click.UsageError`` (exit 2) names the fix."""
    if bool(options["live"]) == bool(options["kube"]):
        raise click.UsageError("give either --live FILE or --kube (with --source)")
    if list(options["live"]).count("-") > 1:
        raise click.UsageError("--live - (standard input) can be given once")
    for name in ("values_path", "live_path"):
        if options.get(name):
            _check_path(name, options[name])
    logs_only = [
        f
        for f, used in (
            ("--previous", options.get("previous")),
            ("--log-bytes", options.get("log_bytes")),
        )
        if used
    ]
    if logs_only and (options.get("source") or "") != "logs":
        raise click.UsageError(f"{', '.join(logs_only)} only apply with --kube --source logs")
    if not options["kube"]:
        used = [f"--{name}" for name in _KUBE_ONLY if options.get(name)]
        if used:
            verb = "apply" if len(used) > 1 else "applies"
            raise click.UsageError(f"{', '.join(used)} only {verb} with --kube")
        return
    if not options["source"]:
        raise click.UsageError(
            "--kube needs --source (exec:/path, http:PORT/PATH, configmap:NAME/KEY, podspec "
            "or logs)"
        )
    if options["selector"] and options["pod"]:
        raise click.UsageError("give --selector or --pod, not both")
    if not (options["selector"] or options["pod"] or options["source"].startswith("configmap:")):
        raise click.UsageError("--kube needs --selector LABELS or --pod NAME")


PATH_FORMS = (
    "dotted keys (server.config), a list index (containers[0]), a key with dots or "
    'other characters in brackets and quotes (configs["vllm-config.yaml"] or '
    "configs['vllm-config.yaml'])"
)


def _check_path(name: str, text: str) -> None:
    """A path the parser would misread: unbalanced brackets or quotes, empty keys."""
    flag = "--" + name.replace("_", "-")
    problem = ""
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"" and depth:
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                break
    if depth or quote:
        problem = "unbalanced brackets or quotes"
    elif text.startswith(".") or text.endswith(".") or ".." in text:
        problem = "an empty key"
    if problem:
        raise click.BadParameter(
            f"'{text}': {problem}; accepted forms: {PATH_FORMS}", param_hint=flag
        )


def build_plan(options: dict[str, Any]) -> DriftPlan:
    from linter.drift.scan import DriftPlan
    from linter.drift.sides import Pairing
    from linter.positions import parse_path

    pairing = Pairing(
        values_path=parse_path(options["values_path"]) if options["values_path"] else None,
        live_path=parse_path(options["live_path"]) if options["live_path"] else None,
        ignore=tuple(options["ignore"]),
        unordered=tuple(options["unordered"]),
        server=options["server"],
        fail_on_unchecked=bool(options.get("fail_on_unchecked")),
        disable=tuple(options.get("disable") or ()),
    )
    return DriftPlan(tuple(options["values"]), tuple(options["sets"]), pairing)


def build_request(options: dict[str, Any]) -> KubeRequest:
    from linter.sources.kube import KubeRequest
    from linter.sources.kube_errors import RetryPolicy
    from linter.sources.kube_logs import DEFAULT_LOG_BYTES
    from linter.sources.kube_pods import parse_source

    return KubeRequest(
        source=parse_source(options["source"]),
        kubeconfig=options["kubeconfig"],
        context=options["context"],
        namespace=options["namespace"],
        selector=options["selector"],
        pod=options["pod"],
        container=options["container"],
        concurrency=options["concurrency"],
        timeout=options["timeout"],
        retry=RetryPolicy(attempts=options["retries"] + 1),
        previous=bool(options.get("previous")),
        log_bytes=options.get("log_bytes") or DEFAULT_LOG_BYTES,
    )
