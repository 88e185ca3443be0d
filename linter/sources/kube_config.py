"""Client configuration for cluster access: kubeconfig (contexts, exec auth plugins) or
the in-cluster ServiceAccount, as the official ``kubernetes`` client reads them."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linter.errors import SourceError

# The client renews a kubeconfig token five minutes before it expires
# (kube_config.EXPIRY_SKEW_PREVENTION_DELAY): asking every half minute keeps it fresh.
_REFRESH_SECONDS = 30.0
_SA_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
# The client is the optional extra `kube` (pyproject.toml): lint, the pre-commit hooks
# and drift on files never need it.
MISSING_CLIENT = (
    "servelint drift --kube needs the Kubernetes client, which is an optional extra: "
    "pip install 'servelint[kube]' (in the container image it is installed)"
)


def load_configuration(
    kubeconfig: str | None, context: str | None, pool_size: int
) -> tuple[Any, str]:
    """The client configuration and the default namespace: from ``kubeconfig``,
    ``$KUBECONFIG`` or ``~/.kube/config`` (``context`` picks one), else in-cluster."""
    try:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException
    except ImportError as exc:
        raise SourceError(MISSING_CLIENT) from exc
    configuration = client.Configuration()
    in_cluster = "KUBERNETES_SERVICE_HOST" in os.environ
    explicit = kubeconfig or os.environ.get("KUBECONFIG")
    if explicit or Path("~/.kube/config").expanduser().exists() or not in_cluster:
        try:
            # persist_config=False: refreshed tokens must never be written into the user's file.
            # The client reads $KUBECONFIG once, at import; pass it explicitly instead.
            config.load_kube_config(
                config_file=explicit,
                context=context,
                client_configuration=configuration,
                persist_config=False,
            )
            contexts, current = config.list_kube_config_contexts(explicit)
        except (ConfigException, OSError, ValueError, TypeError) as exc:
            raise SourceError(
                f"cannot use the kubeconfig ({explicit or '~/.kube/config'}): {exc}"
            ) from exc
        name = context or (current or {}).get("name")
        namespace = next(
            (
                c.get("context", {}).get("namespace")
                for c in contexts or []
                if c.get("name") == name
            ),
            None,
        )
    else:
        try:
            config.load_incluster_config(client_configuration=configuration)
        except ConfigException as exc:
            raise SourceError(f"cannot use the in-cluster configuration: {exc}") from exc
        namespace = _SA_NAMESPACE.read_text().strip() if _SA_NAMESPACE.exists() else None
    # A token the client refreshes: from the kubeconfig, or the in-cluster service account's
    # (which the client re-reads once a minute).
    hook = getattr(configuration, "refresh_api_key_hook", None)
    if hook is not None:
        # setattr: the client declares the attribute as always None.
        setattr(configuration, "refresh_api_key_hook", _throttled(hook))  # noqa: B010
    configuration.retries = False  # bounded retries are ours (kube_errors.call)
    configuration.connection_pool_maxsize = max(pool_size, 1)
    return configuration, namespace or "default"


def _throttled(hook: Callable[[Any], None]) -> Callable[[Any], None]:
    """``hook`` run at most once every ``_REFRESH_SECONDS``. The client calls its token
    refresh hook before every request, and the hook sets the host again, which reads the
    proxy settings from the whole environment: an eighth of a scan's time over 500 pods.
    A refresh that fails is tried again at the next request."""
    lock = threading.Lock()
    last = [-_REFRESH_SECONDS]

    def refresh(configuration: Any) -> None:
        with lock:
            now = time.monotonic()
            if now - last[0] < _REFRESH_SECONDS:
                return
            hook(_KeepHook(configuration))
            last[0] = now

    return refresh


class _KeepHook:
    """The configuration as the client's hook sees it: every attribute read and written
    through, but the hook itself, which the client's hook replaces with a fresh copy of
    itself (kube_config.KubeConfigLoader._set_config). Another thread reading the hook
    meanwhile must still find the throttled one."""

    def __init__(self, target: Any) -> None:
        object.__setattr__(self, "_target", target)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "refresh_api_key_hook":
            setattr(self._target, name, value)
