"""Which values of the runner's environment are secrets, to mask in every report.

A chart or policy under review must not be able to copy ``AWS_SECRET_ACCESS_KEY`` or a CI
token into a log. Masking every value instead garbles reports: an Argo CD plugin's
``ARGOCD_APP_SOURCE_PATH`` is the path of every finding, a ``MODEL_ID`` the model every
message names. So a variable is masked when its name says it holds a secret (``TOKEN``,
``KEY``, ``SECRET``, ``PASSWORD``, ``CREDENTIAL``, ``AUTH``, ``PRIVATE``, ``COOKIE``,
``SESSION``...) or when its value has the shape of one (``patterns.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

from linter.secrets import patterns

# Whole words of a name (``CI_JOB_TOKEN`` → ci, job, token) that make it a secret's name.
_SECRET_WORDS = frozenset(
    {
        "token",
        "key",
        "apikey",
        "secret",
        "password",
        "passwd",
        "pass",
        "psw",  # Jenkins' credentials binding: NAME_USR and NAME_PSW
        "pwd",
        "passphrase",
        "credential",
        "credentials",
        "creds",
        "auth",
        "oauth",
        "private",
        "cookie",
        "session",
        "jwt",
        "bearer",
        "signature",
        "dsn",
    }
)
# Words glued to others in one upper-case run (``SYSTEM_ACCESSTOKEN``, ``NPM_AUTHTOKEN``).
_SECRET_ENDINGS = ("token", "secret", "password", "passwd", "apikey", "credentials", "passphrase")
# A last word that makes the variable name or locate something rather than hold it:
# ``SSH_AUTH_SOCK``, ``ACTIONS_ID_TOKEN_REQUEST_URL``, ``CI_SERVER_TLS_CA_FILE``.
_POINTER_WORDS = frozenset(
    {
        "name",
        "names",
        "path",
        "file",
        "dir",
        "id",
        "url",
        "uri",
        "host",
        "port",
        "user",
        "usr",
        "username",
        "email",
        "type",
        "method",
        "mode",
        "sock",
        "socket",
        "enabled",
        "disabled",
        "endpoint",
        "server",
        "region",
        "version",
        "ttl",
        "timeout",
        "address",  # DBUS_SESSION_BUS_ADDRESS
        "class",  # XDG_SESSION_CLASS
        "desktop",
    }
)
MIN_LENGTH = 8


def is_secret_variable(name: str) -> bool:
    """``GITHUB_TOKEN``, ``SYSTEM_ACCESSTOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``DB_PASSWORD``;
    not ``ARGOCD_APP_SOURCE_PATH``, ``MODEL_ID``, ``SSH_AUTH_SOCK``, ``PWD``."""
    words = patterns.words(name)
    if not words or words == ["pwd"] or words[-1] in _POINTER_WORDS:
        return False
    return any(w in _SECRET_WORDS or w.endswith(_SECRET_ENDINGS) for w in words)


def environment_values(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The values of the runner's environment to mask in every report and message: those
    of variables named like secrets (eight characters or more, not a number or a boolean),
    and anything in any value shaped like a secret (a token, a URL's password, a
    secret-named key inside JSON such as ``DOCKER_AUTH_CONFIG``)."""
    environ = os.environ if environ is None else environ
    return frozenset(v for name, value in environ.items() for v in _secrets_of(name, value))


def _secrets_of(name: str, value: str) -> Iterator[str]:
    value = value.strip()
    if len(value) < MIN_LENGTH:
        return
    if is_secret_variable(name) and not _inert(value):
        yield value
    found = patterns.embedded_credentials(value)
    if ":" in value or "=" in value:
        found += [v for _, v in patterns.keyed_pairs(value)]
    yield from (v for v in found if len(v) >= MIN_LENGTH and not _inert(v))


def _inert(value: str) -> bool:
    return value.replace(".", "", 1).isdigit() or value.lower() in ("true", "false")
