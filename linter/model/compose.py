"""Docker Compose interpolation of a service's image: ``${NAME:-default}``, ``${NAME-default}``,
``${NAME}`` and ``$NAME``, with the variables of the project's ``.env`` file beside the
compose file (https://docs.docker.com/reference/compose-file/interpolation/,
https://docs.docker.com/compose/how-tos/environment-variables/variable-interpolation/#env-file).
The shell's environment at deploy time is not known here: a variable that is neither in
``.env`` nor given a default stays as written."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping

from linter.parsing import bounded

_REFERENCE = re.compile(
    r"\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?-)(?P<default>[^}]*))?\}"
    r"|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)"
)
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
# A .env file is a few lines; anything far larger is not one.
_MAX_ENV_BYTES = 1 << 20


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """``text`` as Compose reads it with ``env`` set: ``${TAG:-latest}`` is ``env['TAG']``
    when set and not empty, else ``latest``; ``${TAG-latest}`` only when unset."""
    if "$" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        value = env.get(name)
        op = match.group("op")
        if op == ":-" and not value:
            return match.group("default")
        if op == "-" and value is None:
            return match.group("default")
        return value if value is not None else match.group(0)

    return _REFERENCE.sub(replace, text)


@functools.lru_cache(maxsize=64)
def project_env(compose_file: str) -> Mapping[str, str]:
    """The variables of the ``.env`` file beside ``compose_file`` (none when it has none or
    cannot be read)."""
    path = os.path.join(os.path.dirname(compose_file) or ".", ".env")
    try:
        text = bounded.read_text(path, _MAX_ENV_BYTES)
    except (OSError, UnicodeDecodeError):  # InputRefused is an OSError too
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        match = _ASSIGNMENT.match(line)
        if match is None:
            continue
        value = match.group(2)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        out[match.group(1)] = value
    return out
