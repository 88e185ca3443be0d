"""A mapping whose keys are mostly one server's flags: a server's configuration under keys
of its own (``max_model_len: 8192``, ``tensor_parallel_size: 2``), wherever it sits.

Asked only of documents that name a server and yielded no workload
(``coverage/unrecognised.py``). Each key is read as the flag it spells: ``max_model_len``,
``max-model-len`` and the environment forms of a vendor's recipe (SageMaker's
``SM_VLLM_MAX_MODEL_LEN``, DJL LMI's ``OPTION_MAX_MODEL_LEN``) all as ``--max-model-len``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from linter.model.engine import flagtables

# The servers whose flag tables are read, in the order a tie is given.
_SERVERS = ("vllm", "sglang", "tgi")
# Environment prefixes of vendors' recipes that pass flags as variables.
_PREFIXES = ("sm_vllm_", "option_")
# "Mostly": at least this many keys are flags, more than half of the keys, and two of them
# are words joined (``max_model_len``), not a word every server has (``model``, ``port``).
_AT_LEAST = 3
_JOINED_AT_LEAST = 2
# Options many programs take (an exporter's or a proxy's ``extraArgs``): never evidence of
# one server.
_GENERIC_OPTIONS = frozenset(
    {
        "--host",
        "--port",
        "--log-level",
        "--log-format",
        "--enable-metrics",
        "--metrics-port",
        "--config",
        "--help",
        "--version",
        "--verbose",
        "--debug",
        "--api-key",
        "--model",
        "--timeout",
    }
)


class FlagKeys(NamedTuple):
    """The server whose flags a mapping's keys mostly are, and those keys."""

    server: str
    keys: tuple[str, ...]


def flag_keys(node: Mapping[object, object]) -> FlagKeys | None:
    """The server whose flags most keys of ``node`` are, when they mostly are; else None."""
    names = [key for key in node if isinstance(key, str)]
    joined = [key for key in names if "_" in key or "-" in key]
    if len(names) < _AT_LEAST or len(joined) < _JOINED_AT_LEAST:
        return None  # the cheap test first: most mappings stop here
    best = _most_flags(names, _flag)
    if len(best.keys) < _AT_LEAST or 2 * len(best.keys) <= len(names):
        return None
    if sum(1 for key in best.keys if "_" in key or "-" in key) < _JOINED_AT_LEAST:
        return None
    return best


def flag_string(text: str) -> FlagKeys | None:
    """The server whose flags a string of options is (``"--max-num-seqs 16
    --enforce-eager"``, an environment variable a recipe's entrypoint appends to the
    command): a string that starts with an option, at least two ``--`` options with at
    most one value each, more than half of them that server's and one of those words
    joined; else None."""
    if text.count("--") < 2 or not text.lstrip().startswith("--"):
        return None  # the cheap tests first: a list of options starts with one
    words = text.split()
    written = [word.split("=", 1)[0] for word in words if word.startswith("--")]
    # At most one value after each option: prose that mentions options is no list of them.
    if len(written) < 2 or len(words) > 2 * len(written):
        return None
    best = _most_flags([f for f in written if f not in _GENERIC_OPTIONS], str)
    if len(best.keys) < 2 or 2 * len(best.keys) <= len(written):
        return None
    if not any("-" in flag[2:] for flag in best.keys):
        return None
    return best


def _most_flags(words: Sequence[str], flag_of: Callable[[str], str]) -> FlagKeys:
    """The server whose options most of ``words`` spell (``flag_of`` gives the option a
    word spells), with those words; the first of ``_SERVERS`` on a tie."""
    best = FlagKeys(_SERVERS[0], ())
    for server in _SERVERS:
        options = _options(server)
        found = tuple(word for word in words if flag_of(word) in options)
        if len(found) > len(best.keys):
            best = FlagKeys(server, found)
    return best


def _flag(key: str) -> str:
    name = key.lower()
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    return "--" + name.lstrip("-").replace("_", "-")


@functools.cache
def _options(server: str) -> frozenset[str]:
    table = flagtables.table(server)
    return frozenset(table.options) if table is not None else frozenset()
