"""The variables Docker Compose interpolates a service's image with (``${NAME:-default}``,
``${NAME-default}``, ``${NAME}``, ``$NAME``, as ``command.expand_shell_vars`` expands
them): those of the project's ``.env`` file beside the compose file
(https://docs.docker.com/reference/compose-file/interpolation/,
https://docs.docker.com/compose/how-tos/environment-variables/variable-interpolation/#env-file).
The shell's environment at deploy time is not known here: a variable that is neither in
``.env`` nor given a default stays as written."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping

from linter.parsing import bounded

_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
# A .env file is a few lines; anything far larger is not one.
_MAX_ENV_BYTES = 1 << 20


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
