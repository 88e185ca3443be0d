"""Bounded retries with exponential backoff, and what each failure tells the user."""

from __future__ import annotations

import pytest
import urllib3.exceptions
from kubernetes.client.exceptions import ApiException

from linter.sources.kube_errors import RequestFailed, RetryPolicy, call, classify

ERRORS = (ApiException, urllib3.exceptions.HTTPError, OSError)


class Flaky:
    """Fails with the given exceptions in turn, then answers "ok"."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures = list(failures)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return "ok"


def api_error(status: int, body: str = "", retry_after: str | None = None) -> ApiException:
    error = ApiException(status=status, reason="x")
    error.body = body
    error.headers = {"Retry-After": retry_after} if retry_after else {}
    return error


def test_transient_failures_back_off_exponentially_up_to_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("random.uniform", lambda low, high: 1.0)
    pauses: list[float] = []
    action = Flaky(
        api_error(503), api_error(502), ConnectionRefusedError("refused"), api_error(500)
    )
    assert (
        call(
            action,
            RetryPolicy(attempts=5, base_delay=0.5, max_delay=2.0),
            "what",
            ERRORS,
            pauses.append,
        )
        == "ok"
    )
    assert (action.calls, pauses) == (5, [0.5, 1.0, 2.0, 2.0])


def test_retry_after_is_honoured_within_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("random.uniform", lambda low, high: 1.0)
    pauses: list[float] = []
    action = Flaky(api_error(429, retry_after="3"), api_error(429, retry_after="60"))
    assert call(action, RetryPolicy(3, 0.1, 5.0), "what", ERRORS, pauses.append) == "ok"
    assert pauses == [3.0, 5.0]


def test_attempts_are_bounded() -> None:
    pauses: list[float] = []
    action = Flaky(*(api_error(503) for _ in range(10)))
    with pytest.raises(RequestFailed) as caught:
        call(action, RetryPolicy(3, 0.01, 0.01), "listing pods", ERRORS, pauses.append)
    assert (action.calls, len(pauses), caught.value.reason) == (3, 2, "unavailable")


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (api_error(401), "unauthorized"),
        (
            api_error(
                403,
                '{"kind":"Status","message":"pods \\"p\\" is forbidden: User \\"u\\" '
                'cannot get resource \\"pods/proxy\\" in API group \\"\\" in the '
                'namespace \\"llm\\""}',
            ),
            "forbidden",
        ),
        (api_error(404), "not-found"),
        (api_error(400, '{"message":"bad"}'), "rejected"),
        (urllib3.exceptions.ReadTimeoutError(None, "/", "read timed out"), "timeout"),
        (TimeoutError("no answer"), "timeout"),
    ],
    ids=["401", "403", "404", "400", "read-timeout", "timeout"],
)
def test_final_failures_are_never_retried(error: BaseException, reason: str) -> None:
    pauses: list[float] = []
    action = Flaky(error)
    with pytest.raises(RequestFailed) as caught:
        call(action, RetryPolicy(5, 0.01, 0.01), "GET :80/info", ERRORS, pauses.append)
    assert (action.calls, pauses, caught.value.reason) == (1, [], reason)


def test_forbidden_names_the_permission_to_grant() -> None:
    body = (
        '{"kind":"Status","message":"pods \\"p\\" is forbidden: User \\"u\\" cannot get '
        'resource \\"pods/proxy\\" in API group \\"\\" in the namespace \\"llm\\""}'
    )
    failure = classify(api_error(403, body), "GET :80/info through the pod proxy")
    assert isinstance(failure, RequestFailed)
    assert failure.message == (
        "GET :80/info through the pod proxy: 403 Forbidden: the user may not get 'pods/proxy' "
        "in namespace 'llm'; grant verb 'get' on resource 'pods/proxy' in a Role bound to it "
        "(see deploy/drift-scan/rbac.yaml)"
    )


def test_a_bug_is_not_disguised_as_a_request_failure() -> None:
    def broken() -> str:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        call(broken, RetryPolicy(3, 0.01, 0.01), "what", ERRORS, lambda _: None)
